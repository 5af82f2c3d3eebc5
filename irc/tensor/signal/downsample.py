"""`irc.tensor.signal.downsample`: Theano 0.8/0.9's old pooling module, which the Deep Learning
Tutorials' convolutional_mlp.py of those years imports (`downsample.max_pool_2d(input=, ds=,
ignore_border=)`). As in Theano 0.9 it is `pool` under its old names, and importing it warns
that it moved; Theano 1.0 removed it."""
from __future__ import annotations

import warnings

from .pool import AveragePoolGrad, MaxPoolGrad, Pool, max_pool_2d_same_size, pool_2d

warnings.warn("downsample module has been moved to the irc.tensor.signal.pool module.", UserWarning,
              stacklevel=2)

max_pool_2d = pool_2d  # Theano 0.9: the same function; `ds`, `st`, `padding` are its old names
DownsampleFactorMax = Pool

__all__ = ["AveragePoolGrad", "DownsampleFactorMax", "MaxPoolGrad", "max_pool_2d", "max_pool_2d_same_size"]
