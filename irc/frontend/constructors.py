"""Typed input variables: `scalar`, `vector`, `row`, `col`, `matrix`, `tensor3`, `tensor4`
(dtype floatX unless given), `tensor(dtype, broadcastable)`, and the prefixed forms
b=int8, w=int16, i=int32, l=int64, f=float32, d=float64 (`fvector`, `imatrix`, ...)."""
from __future__ import annotations

from typing import Sequence

from .graph import Variable
from .tensor_type import TensorType, floatX

_PATTERNS = {
    "scalar": (), "vector": (False,), "row": (True, False), "col": (False, True),
    "matrix": (False, False), "tensor3": (False,) * 3, "tensor4": (False,) * 4,
}
_PREFIXES = {"b": "int8", "w": "int16", "i": "int32", "l": "int64", "f": "float32", "d": "float64"}


def tensor(dtype: str | None = None, broadcastable: Sequence[bool] = (), name: str | None = None) -> Variable:
    """A symbolic input of `dtype` (floatX by default) and broadcast pattern."""
    return Variable(TensorType(dtype or floatX(), tuple(broadcastable)), name=name)


def _make(kind: str, fixed_dtype: str | None):
    pattern = _PATTERNS[kind]

    def make(name: str | None = None, dtype: str | None = None) -> Variable:
        return tensor(fixed_dtype or dtype or floatX(), pattern, name)
    make.__name__ = kind if fixed_dtype is None else "?" + kind
    make.__doc__ = f"A symbolic {kind} of dtype {fixed_dtype or 'floatX (or dtype=)'}."
    return make


CONSTRUCTORS: dict[str, object] = {}
for _kind in _PATTERNS:
    CONSTRUCTORS[_kind] = _make(_kind, None)
    for _p, _dt in _PREFIXES.items():
        fn = _make(_kind, _dt)
        fn.__name__ = _p + _kind
        CONSTRUCTORS[_p + _kind] = fn
globals().update(CONSTRUCTORS)


def scalars(names: str, dtype: str | None = None) -> list[Variable]:
    """Several scalars at once: `x, y = scalars('x, y')` (also vectors, matrices)."""
    return [tensor(dtype, (), n.strip()) for n in names.split(",")]


def vectors(names: str, dtype: str | None = None) -> list[Variable]:
    return [tensor(dtype, (False,), n.strip()) for n in names.split(",")]


def matrices(names: str, dtype: str | None = None) -> list[Variable]:
    return [tensor(dtype, (False, False), n.strip()) for n in names.split(",")]
