"""`irc.tensor.nnet` (`T.nnet`; Theano's `theano.tensor.nnet`): the neural-network functions and
softmax ops irc has, under Theano's names (the code is irc/frontend/nnet.py). Convolutions,
batch normalization and the fused cross-entropy ops are not here (see docs/frontend.md)."""
from __future__ import annotations

from ..frontend.nnet import (binary_crossentropy, categorical_crossentropy, hard_sigmoid, log_softmax, logsoftmax,
                             relu, sigmoid, softmax, softplus, ultra_fast_sigmoid)
from ..frontend.softmax_ops import LogSoftmax, Softmax, SoftmaxGrad

__all__ = ["LogSoftmax", "Softmax", "SoftmaxGrad", "binary_crossentropy", "categorical_crossentropy", "hard_sigmoid",
           "log_softmax", "logsoftmax", "relu", "sigmoid", "softmax", "softplus", "ultra_fast_sigmoid"]
