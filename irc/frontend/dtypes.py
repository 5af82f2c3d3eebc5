"""Dtype promotion: which dtype an operation computes in (Theano's rules, made explicit).

* Tensor with tensor: numpy's promotion of the two dtypes (`np.result_type`):
  int8 + float32 -> float32, int16 + float32 -> float32, int32 + float32 -> float64,
  int64 + float32 -> float64, bool + int8 -> int8, float32 + float64 -> float64.
* A Python scalar (`int`, `float`, `bool`) is "weak": it adopts the dtype of the tensors it
  meets, so `x_f32 * 0.01` stays float32 and `i_int8 + 1` stays int8. A Python float meeting
  only integer/boolean tensors gives `floatX`; a Python int meeting only boolean tensors gives
  int64. Numpy scalars and arrays (`np.float64(2)`) are "strong", with their own dtype.
* A Python int that the dtype cannot hold (`x_uint8 + (-1)`, `x_int8 + 1000`) is strong instead,
  with Theano's dtype for it (the narrowest signed integer that holds it): int16 for both.
* Python scalars alone: float -> floatX, int -> int64, bool -> bool.
* Float-only functions (exp, log, sqrt, tanh, sigmoid, ...) on integers first upgrade them:
  bool/(u)int8/(u)int16 -> float32, (u)int32/(u)int64 -> float64 (Theano's `upgrade_to_float`).
* True division `/` of integers/booleans computes in floatX (`//` keeps integers).
* Arithmetic on booleans (`+ - * ...`) computes in int8 (numpy would keep bool for `+`).
* Complex dtypes follow numpy: float32 + complex64 -> complex64, float64 + complex64 ->
  complex128, int8/int16 + complex64 -> complex64, int32/int64 + complex64 -> complex128. A
  Python complex (`1j`) is a complex128 constant (Theano's: `x_f32 * 1j` is complex128); a Python
  float meeting a complex tensor adopts its dtype. Float-only functions keep complex dtypes where
  they have a complex meaning (exp, log, sqrt, ...) and refuse them elsewhere (floor, erf, ...).
* Comparisons promote their operands as above and return bool.
* `& | ^ ~` need integer or boolean operands.
* `sum`/`prod` of bool or integers accumulate and return int64 (uint64 for unsigned ones, as
  Theano); of floats keep the dtype.
  `mean` of bool or integers returns floatX. `max/min` keep the dtype; `argmax/argmin` give
  int64. `x.shape[i]` is int64.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .tensor_type import COMPLEX_DTYPES, FLOAT_DTYPES, INT_DTYPES, UINT_DTYPES, floatX

WEAK_TYPES = (bool, int, float)


def is_weak(value: Any) -> bool:
    """A Python scalar (not a numpy scalar) whose dtype follows the tensors it meets."""
    return isinstance(value, WEAK_TYPES) and not isinstance(value, np.generic)


def weak_kind(value: Any) -> str:
    return "b" if isinstance(value, bool) else ("i" if isinstance(value, int) else "f")


def kind_of(dtype: str) -> str:
    if dtype in COMPLEX_DTYPES:
        return "c"
    return "b" if dtype == "bool" else ("f" if dtype in FLOAT_DTYPES else "i")


def weak_alone(kinds: Sequence[str]) -> str:
    """The dtype of Python scalars that meet no tensor."""
    if "f" in kinds:
        return floatX()
    if "i" in kinds:
        return "int64"
    return "bool"


def upcast(strong: Sequence[str], weak_kinds: Sequence[str] = ()) -> str:
    """The common dtype of tensors of dtypes `strong` and Python scalars of kinds `weak_kinds`."""
    if not strong:
        return weak_alone(weak_kinds)
    dtype = np.result_type(*strong).name
    kind = kind_of(dtype)
    if "f" in weak_kinds and kind not in "fc":
        return floatX()
    if "i" in weak_kinds and kind == "b":
        return "int64"
    return dtype


def upgrade_to_float(dtype: str) -> str:
    """Theano's rule for float-only functions applied to integers."""
    if dtype in FLOAT_DTYPES or dtype in COMPLEX_DTYPES:
        return dtype
    return "float32" if dtype in ("bool", "int8", "int16", "uint8", "uint16") else "float64"


def operand_dtype(row, strong: Sequence[str], weak_kinds: Sequence[str]) -> str:
    """The dtype the value operands of elementwise table row `row` are cast to."""
    dtype = upcast(strong, weak_kinds)
    if dtype in COMPLEX_DTYPES and "c" not in row.kinds:
        raise TypeError(f"'{row.name}' is not defined for complex operands ({dtype}): "
                        f"{', '.join(strong)}")
    if row.name == "div" and dtype not in FLOAT_DTYPES + COMPLEX_DTYPES:
        return floatX()
    if row.float_only:
        return upgrade_to_float(dtype)
    if dtype == "bool" and "b" not in row.kinds:
        return "int8"
    if "f" not in row.kinds and dtype in FLOAT_DTYPES + COMPLEX_DTYPES:
        raise TypeError(f"'{row.name}' needs integer or boolean operands, got {dtype}")
    return dtype


def sum_dtype(dtype: str) -> str:
    """The result dtype of a sum or product (Theano's: unsigned integers accumulate in uint64)."""
    if dtype in UINT_DTYPES:
        return "uint64"
    return "int64" if dtype == "bool" or dtype in INT_DTYPES else dtype


def fits(value: Any, dtype: str) -> bool:
    """Whether Python scalar `value` converts to `dtype` exactly (an int within its range)."""
    if isinstance(value, bool) or not isinstance(value, int) or dtype not in INT_DTYPES:
        return True
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def autocast_int(value: int) -> str:
    """Theano's dtype for a Python int constant: the narrowest signed integer that holds it."""
    for dtype in ("int8", "int16", "int32", "int64"):
        if fits(value, dtype):
            return dtype
    return "uint64" if fits(value, "uint64") else "int64"


def mean_dtype(dtype: str) -> str:
    return dtype if dtype in FLOAT_DTYPES + COMPLEX_DTYPES else floatX()
