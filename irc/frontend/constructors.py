"""Typed input variables, as Theano spells them.

* `scalar`, `vector`, `row`, `col`, `matrix`, `tensor3`, `tensor4` are functions
  `(name=None, dtype=None)` (dtype floatX by default);
* the prefixed forms — b=int8, w=int16, i=int32, l=int64, f=float32, d=float64, c=complex64,
  z=complex128 — are
  `TensorType` instances, callable with a name: `T.dscalar` prints
  `TensorType(float64, scalar)` and `T.dscalar('x').type is T.dscalar`;
* the plurals (`scalars`, `dmatrices`, `fvectors`, ...) make several at once:
  `a, b = T.dmatrices('a', 'b')`, `T.dmatrices(3)` (three unnamed), and, as an extension,
  one comma-separated string `T.dmatrices('a, b')`."""
from __future__ import annotations

from typing import Callable, Sequence

from .graph import Variable
from .tensor_type import TensorType, floatX

PATTERNS = {
    "scalar": (), "vector": (False,), "row": (True, False), "col": (False, True),
    "matrix": (False, False), "tensor3": (False,) * 3, "tensor4": (False,) * 4,
}
PLURALS = {"scalar": "scalars", "vector": "vectors", "row": "rows", "col": "cols", "matrix": "matrices",
           "tensor3": "tensor3s", "tensor4": "tensor4s"}
PREFIXES = {"b": "int8", "w": "int16", "i": "int32", "l": "int64", "f": "float32", "d": "float64",
            "c": "complex64", "z": "complex128"}


def tensor(dtype: str | None = None, broadcastable: Sequence[bool] = (), name: str | None = None) -> Variable:
    """A symbolic input of `dtype` (floatX by default) and broadcast pattern."""
    return Variable(TensorType(dtype or floatX(), tuple(broadcastable)), name=name)


def _unprefixed(kind: str) -> Callable[..., Variable]:
    pattern = PATTERNS[kind]

    def make(name: str | None = None, dtype: str | None = None) -> Variable:
        return tensor(dtype or floatX(), pattern, name)
    make.__name__ = kind
    make.__doc__ = f"A symbolic {kind} of dtype `dtype` (floatX by default)."
    return make


def _names(args: tuple) -> list[str | None] | str | None:
    """Theano's rule for the plurals' arguments: an int is a count of unnamed variables, one
    string of one name gives one variable (not a list), else one variable per name."""
    if len(args) == 1 and isinstance(args[0], int) and not isinstance(args[0], bool):
        return [None] * args[0]
    if len(args) == 1 and isinstance(args[0], str):
        text = args[0]
        if "," in text:
            return [n.strip() for n in text.split(",")]
        return text if len(text) == 1 else list(text)
    if not all(isinstance(a, str) for a in args):
        raise TypeError(f"expected names (strings) or a count, got {args!r}")
    return list(args)


def _plural(make_one: Callable[[str | None], Variable], plural: str) -> Callable[..., object]:
    def make(*names: str | int, dtype: str | None = None) -> Variable | list[Variable]:
        spec = _names(names)
        if isinstance(spec, str):
            return make_one(spec) if dtype is None else make_one(spec, dtype)  # type: ignore[call-arg]
        return [make_one(n) if dtype is None else make_one(n, dtype) for n in spec]  # type: ignore[call-arg]
    make.__name__ = plural
    make.__doc__ = f"Several variables at once: `{plural}('a', 'b')`, `{plural}(3)`."
    return make


CONSTRUCTORS: dict[str, object] = {}
for _kind, _pattern in PATTERNS.items():
    _one = _unprefixed(_kind)
    CONSTRUCTORS[_kind] = _one
    CONSTRUCTORS[PLURALS[_kind]] = _plural(_one, PLURALS[_kind])
    for _p, _dtype in PREFIXES.items():
        _type = TensorType(_dtype, _pattern)
        CONSTRUCTORS[_p + _kind] = _type
        CONSTRUCTORS[_p + PLURALS[_kind]] = _plural(_type, _p + PLURALS[_kind])
globals().update(CONSTRUCTORS)

__all__ = ["tensor", *CONSTRUCTORS]
