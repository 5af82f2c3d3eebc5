"""The functions behind the array methods of a symbolic tensor that live outside `basic` and
`mathops` (Theano's `_tensor_py_operators`: `x.squeeze()`, `x.swapaxes(0, 1)`,
`x.searchsorted(v)`, `x.cumsum()`, `x.sort()`, ...); `operators.py` calls them through
`bind_api`, since they sit above the graph."""
from __future__ import annotations

from .extra_ops import squeeze
from .complex_ops import conj, imag, real
from .elemwise import Cast
from .graph import Variable
from .numpy_run_ops import compress, nonzero, nonzero_values, searchsorted
from .order import argsort, cumprod, cumsum, sort
from .rearrange import swapaxes
from .shape_functions import repeat



def copy(x: Variable, name: str | None = None) -> Variable:
    """A new variable with `x`'s value (Theano's `x.copy(name)`: an identity cast, which
    `canonicalize` removes)."""
    out = Cast(x.dtype)(x)
    out.name = name
    return out


__all__ = ["conj", "imag", "real", "copy", "nonzero", "nonzero_values", "argsort", "compress", "cumprod", "cumsum", "repeat", "searchsorted", "sort", "squeeze", "swapaxes"]
