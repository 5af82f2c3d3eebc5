"""`irc.tensor.nnet` (`T.nnet`; Theano's `theano.tensor.nnet`): the neural-network functions and
softmax ops irc has, under Theano's names (the code is irc/frontend/nnet.py, conv.py), and
`conv2d` (Theano's `abstract_conv.conv2d`; `irc.tensor.nnet.conv.conv2d` is the old module path
the Deep Learning Tutorials import), the softmax cross-entropies of integer labels
(`crossentropy_1hot.py`). Batch normalization and `h_softmax` are not here (see
docs/frontend.md)."""
from __future__ import annotations

from . import abstract_conv, conv  # noqa: F401  (Theano's module paths)
from ...frontend.conv import conv2d
from ...frontend.conv_ops import AbstractConv2d, AbstractConv2d_gradInputs, AbstractConv2d_gradWeights
from ...frontend.crossentropy_1hot import (CrossentropySoftmaxArgmax1HotWithBias, crossentropy_softmax_1hot,
                                          crossentropy_softmax_1hot_with_bias,
                                          crossentropy_softmax_argmax_1hot_with_bias)
from ...frontend.nnet import (binary_crossentropy, categorical_crossentropy, confusion_matrix, elu, hard_sigmoid,
                              log_softmax, logsoftmax, relu, selu, sigmoid, sigmoid_binary_crossentropy, softmax,
                              softmax_graph, softmax_op, softplus, softsign, ultra_fast_sigmoid)
from ...frontend.softmax_ops import LogSoftmax, Softmax, SoftmaxGrad

__all__ = ["AbstractConv2d", "AbstractConv2d_gradInputs", "AbstractConv2d_gradWeights", "LogSoftmax", "Softmax",
           "SoftmaxGrad", "binary_crossentropy", "categorical_crossentropy", "conv2d", "hard_sigmoid",
           "log_softmax", "logsoftmax", "relu", "sigmoid", "softmax", "softplus", "ultra_fast_sigmoid",
           "CrossentropySoftmaxArgmax1HotWithBias", "confusion_matrix", "crossentropy_softmax_1hot",
           "crossentropy_softmax_1hot_with_bias", "crossentropy_softmax_argmax_1hot_with_bias", "elu", "selu",
           "sigmoid_binary_crossentropy", "softmax_graph", "softmax_op", "softsign"]
