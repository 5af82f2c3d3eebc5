"""The functions behind the array methods of a symbolic tensor that live outside `basic` and
`mathops` (Theano's `_tensor_py_operators`: `x.squeeze()`, `x.swapaxes(0, 1)`,
`x.searchsorted(v)`, `x.cumsum()`, `x.sort()`, ...); `operators.py` calls them through
`bind_api`, since they sit above the graph."""
from __future__ import annotations

from .extra_ops import squeeze
from .numpy_run_ops import compress, searchsorted
from .order import argsort, cumprod, cumsum, sort
from .rearrange import swapaxes
from .shape_functions import repeat

__all__ = ["argsort", "compress", "cumprod", "cumsum", "repeat", "searchsorted", "sort", "squeeze", "swapaxes"]
