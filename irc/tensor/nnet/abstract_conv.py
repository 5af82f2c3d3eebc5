"""`irc.tensor.nnet.abstract_conv` (Theano's `theano.tensor.nnet.abstract_conv`): `conv2d` and
its ops (the code is irc/frontend/conv.py and conv_ops.py)."""
from __future__ import annotations

from ...frontend.conv import conv2d
from ...frontend.conv_ops import AbstractConv2d, AbstractConv2d_gradInputs, AbstractConv2d_gradWeights

__all__ = ["AbstractConv2d", "AbstractConv2d_gradInputs", "AbstractConv2d_gradWeights", "conv2d"]
