"""`irc.tensor.extra_ops` (`T.extra_ops`; Theano's `theano.tensor.extra_ops`): `cumsum`,
`cumprod` (with their op, `CumOp`) and `repeat`; also `diag` and `arange`, which irc has kept
here (Theano has them in `theano.tensor.basic`)."""
from __future__ import annotations

from ..frontend.creation import arange
from ..frontend.order import cumprod, cumsum
from ..frontend.order_ops import CumOp
from ..frontend.shape_functions import diag, repeat

__all__ = ["CumOp", "arange", "cumprod", "cumsum", "diag", "repeat"]
