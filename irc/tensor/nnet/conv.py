"""`irc.tensor.nnet.conv` (Theano's old `theano.tensor.nnet.conv`, which the Deep Learning
Tutorials import): its `conv2d(input, filters, filter_shape=, image_shape=, border_mode=,
subsample=)` is the same convolution as `irc.tensor.nnet.conv2d`."""
from __future__ import annotations

from ...frontend.conv import conv2d

__all__ = ["conv2d"]
