"""`TensorType`: the frontend's type of a symbolic tensor (a dtype and a broadcast pattern).

It is Theano's notion of a type: the rank and which dimensions are known to be of size 1
(broadcastable); sizes are otherwise unknown. `to_ir()` gives the tensor dialect's type, where
a broadcastable dimension is a static 1 and every other dimension is dynamic (`?`)."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..base.config import config
from ..dialects.builtin import TensorType as IRTensorType
from ..ir.types import scalar_from_numpy

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128")
UINT_DTYPES = ("uint8", "uint16", "uint32", "uint64")
INT_DTYPES = ("int8", "int16", "int32", "int64") + UINT_DTYPES  # every integer dtype, unsigned ones included
FLOAT_DTYPES = ("float16", "float32", "float64")
COMPLEX_DTYPES = ("complex64", "complex128")
_RANK_NAMES = {0: "scalar", 1: "vector", 2: "matrix", 3: "tensor3", 4: "tensor4"}


def dtype_name(dtype: Any) -> str:
    """numpy's name of `dtype` (a name, a numpy type or dtype): `str(np.dtype(...))`, remembered
    for hashable ones (it took ~10 µs, and a graph makes a few per node)."""
    try:
        return _dtype_name(dtype)
    except TypeError:  # unhashable: numpy may still know it
        return str(np.dtype(dtype))


@functools.lru_cache(maxsize=256)
def _dtype_name(dtype: Any) -> str:
    return str(np.dtype(dtype))


def floatX() -> str:
    """`irc.config.floatX`, read when a type is made (the flag may change at run time)."""
    return str(config.floatX)


def _lossless_python_value(value: Any, arr: np.ndarray, dtype: str) -> bool:
    """A Python number (or list of them) that `dtype` holds exactly, like `inc(1)` for an int32
    input (Theano converts such values; numpy arrays must have a safe dtype)."""
    if isinstance(value, (np.ndarray, np.generic)) or arr.dtype.kind not in "biufc":
        return False
    with np.errstate(all="ignore"):
        converted = arr.astype(dtype)
    return bool(np.array_equal(converted, arr))


_APPROX = {"float16": (1e-2, 5e-3), "float32": (1e-3, 1e-4), "float64": (1e-5, 1e-8),
           "complex64": (1e-3, 1e-4), "complex128": (1e-5, 1e-8)}  # (rtol, atol)


class NotNumericError(TypeError, ValueError):
    """A value that is no number (a string, an object) given for a tensor: a TypeError as irc
    says elsewhere, and a ValueError as numpy (and Theano) say for a string."""


@dataclass(frozen=True)
class TensorType:
    """A tensor of `dtype` (a numpy dtype name) with `len(broadcastable)` dimensions."""

    dtype: str
    broadcastable: tuple[bool, ...]
    # The class `type(name)` instantiates: graph.Variable, bound where it is defined
    # (irc/frontend/graph.py), since a type sits below the variables that carry it.
    variable_class: ClassVar[type]

    def __post_init__(self) -> None:
        dtype = dtype_name(self.dtype) if self.dtype != "floatX" else floatX()
        if dtype not in DTYPES:
            raise TypeError(f"unsupported dtype '{self.dtype}' (supported: {', '.join(DTYPES)})")
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "broadcastable", tuple(bool(b) for b in self.broadcastable))

    # -- comparing values (Theano's TensorType.values_eq / values_eq_approx)
    @staticmethod
    def values_eq(a: Any, b: Any, force_same_dtype: bool = True) -> bool:
        """Equal shapes (and dtypes) and elements, NaNs at the same places counting as equal."""
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or (force_same_dtype and a.dtype != b.dtype):
            return False
        if a.dtype.kind in "fc":
            return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
        return bool(np.all(a == b))

    @staticmethod
    def values_eq_approx(a: Any, b: Any, allow_remove_inf: bool = False, allow_remove_nan: bool = False,
                         rtol: float | None = None, atol: float | None = None) -> bool:
        """Equal shapes and dtypes, and each element close (|a - b| <= atol + rtol |b|, by
        default a tolerance of the dtype), infinities equal to themselves, NaNs to NaNs; with
        `allow_remove_inf` / `allow_remove_nan`, an infinity / NaN of `a` matches anything."""
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind not in "fc":
            return bool(np.all(a == b))
        if a.dtype.kind == "c":  # both parts close
            parts = TensorType.values_eq_approx
            return (parts(a.real, b.real, allow_remove_inf, allow_remove_nan, rtol, atol)
                    and parts(a.imag, b.imag, allow_remove_inf, allow_remove_nan, rtol, atol))
        default_rtol, default_atol = _APPROX.get(a.dtype.name, _APPROX["float64"])
        rtol = default_rtol if rtol is None else rtol
        atol = default_atol if atol is None else atol
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.abs(a - b) <= atol + rtol * np.abs(b)
        infinite = np.isinf(a) | np.isinf(b)
        ok = np.where(infinite, a == b, close) | (np.isnan(a) & np.isnan(b))
        if allow_remove_inf:
            ok |= np.isinf(a)
        if allow_remove_nan:
            ok |= np.isnan(a)
        return bool(np.all(ok))

    # -- queries
    @property
    def ndim(self) -> int:
        return len(self.broadcastable)

    @property
    def is_float(self) -> bool:
        return self.dtype in FLOAT_DTYPES

    @property
    def is_integer(self) -> bool:
        return self.dtype in INT_DTYPES

    @property
    def is_complex(self) -> bool:
        return self.dtype in COMPLEX_DTYPES

    @property
    def is_continuous(self) -> bool:
        """Float or complex: what gradients flow through (Theano's `continuous_dtypes`)."""
        return self.is_float or self.is_complex

    @property
    def is_bool(self) -> bool:
        return self.dtype == "bool"

    def clone(self, dtype: str | None = None, broadcastable: tuple[bool, ...] | None = None) -> "TensorType":
        return TensorType(dtype or self.dtype,
                          self.broadcastable if broadcastable is None else tuple(broadcastable))

    def __call__(self, name: str | None = None):
        """A fresh input variable of this type (Theano's `type()` idiom: `T.dscalar('x')`)."""
        return self.variable_class(self, name=name)

    # -- IR bridge
    def to_ir(self, device: str | None = None) -> IRTensorType:
        return _ir_type(self.dtype, self.broadcastable, device)

    @staticmethod
    def from_ir(t: IRTensorType) -> "TensorType":
        return _frontend_type(t)

    # -- values
    def filter(self, value: Any, strict: bool = False, allow_downcast: bool | None = None) -> np.ndarray:
        """Check `value` against this type and return it as a numpy array of this dtype.

        Without `allow_downcast`, only lossless conversions are made (numpy's 'safe' casting,
        Python numbers the dtype holds exactly, and — with `allow_downcast=None` — a Python
        float to floatX, as Theano); `strict` refuses any conversion at all."""
        if isinstance(value, np.ndarray) or not strict:
            arr = value if isinstance(value, np.ndarray) else np.asarray(value)
        else:
            raise TypeError(f"expected a numpy.ndarray of dtype {self.dtype}, got {type(value).__name__}")
        if arr.dtype.kind in "SUO" and np.dtype(self.dtype).kind != arr.dtype.kind:
            raise NotNumericError(f"{self}: value {value!r} of type {type(value).__name__} is not numeric")
        if arr.dtype.name != self.dtype:
            if strict:
                raise TypeError(f"expected dtype {self.dtype}, got {arr.dtype.name} (strict input)")
            # Theano's one exception: a Python float literal may round to floatX (not a list of
            # them, not to another float dtype) unless allow_downcast=False says no
            python_float = type(value) is float and allow_downcast is None and self.dtype == floatX()
            if not (allow_downcast or python_float or np.can_cast(arr.dtype, self.dtype, "safe")
                    or _lossless_python_value(value, arr, self.dtype)):
                raise TypeError(
                    f"{self}: cannot convert a {arr.dtype.name} value to {self.dtype} without losing "
                    f"precision; cast it first (numpy.asarray(value, dtype='{self.dtype}')) or pass "
                    f"allow_input_downcast=True to irc.function")
            if arr.dtype.kind == "O":
                raise TypeError(f"{self}: value of type {type(value).__name__} is not numeric")
            arr = arr.astype(self.dtype)
        if arr.ndim != self.ndim:
            raise TypeError(f"{self}: wrong number of dimensions: expected {self.ndim}, got {arr.ndim} "
                            f"with shape {arr.shape}")
        for axis, (b, size) in enumerate(zip(self.broadcastable, arr.shape)):
            if b and size != 1:
                raise TypeError(f"{self}: dimension {axis} is broadcastable (size 1) but the value has "
                                f"shape {arr.shape}")
        return arr

    def is_valid_value(self, value: Any) -> bool:
        try:
            self.filter(value, strict=True)
            return True
        except TypeError:
            return False

    # -- printing (Theano's `TensorType(float32, vector)`)
    def __str__(self) -> str:
        if all(not b for b in self.broadcastable) and self.ndim in _RANK_NAMES:
            kind = _RANK_NAMES[self.ndim]
        elif self.broadcastable == (True, False):
            kind = "row"
        elif self.broadcastable == (False, True):
            kind = "col"
        else:
            kind = "(" + ", ".join(str(b) for b in self.broadcastable) + ("," if self.ndim == 1 else "") + ")"
        return f"TensorType({self.dtype}, {kind})"

    def __repr__(self) -> str:
        return str(self)


# Both types are immutable, and a graph asks for the same few of them thousands of times (a
# frozen dataclass costs ~6 µs to make): a logistic regression's graph and gradient spent a
# third of their time making them.
@functools.lru_cache(maxsize=1024)
def _ir_type(dtype: str, broadcastable: tuple[bool, ...], device: str | None) -> IRTensorType:
    return IRTensorType(tuple(1 if b else None for b in broadcastable), scalar_from_numpy(dtype), device)


@functools.lru_cache(maxsize=1024)
def _frontend_type(t: IRTensorType) -> TensorType:
    return TensorType(t.element.numpy_name, tuple(d == 1 for d in t.shape))
