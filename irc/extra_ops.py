"""`T.extra_ops` (Theano's `theano.tensor.extra_ops`): cumsum, cumprod, repeat, diag, ..."""
from __future__ import annotations

from .frontend.order import cumprod, cumsum  # noqa: F401
from .frontend.shape_functions import diag, repeat  # noqa: F401
from .frontend.creation import arange as arange  # noqa: F401

__all__ = ["arange", "cumprod", "cumsum", "diag", "repeat"]
