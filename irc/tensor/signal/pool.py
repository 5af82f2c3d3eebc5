"""`irc.tensor.signal.pool` (Theano's `theano.tensor.signal.pool`): `pool_2d`,
`max_pool_2d_same_size` and the ops `Pool`, `MaxPoolGrad`, `AveragePoolGrad` (the code is
irc/frontend/pool.py and pool_ops.py)."""
from __future__ import annotations

from ...frontend.pool import max_pool_2d_same_size, pool_2d
from ...frontend.pool_ops import AveragePoolGrad, MaxPoolGrad, Pool

__all__ = ["AveragePoolGrad", "MaxPoolGrad", "Pool", "max_pool_2d_same_size", "pool_2d"]
