"""Theano's lists of dtype names (`T.float_dtypes`, `T.discrete_dtypes`, ...), as Theano gives
them: they name its whole type system, complex dtypes included, which irc's `TensorType` refuses
with "unsupported dtype" (its own dtypes are `tensor_type.DTYPES`: unsigned ones included)."""
from __future__ import annotations

int_dtypes = ["int8", "int16", "int32", "int64"]
uint_dtypes = ["uint8", "uint16", "uint32", "uint64"]
float_dtypes = ["float16", "float32", "float64"]
complex_dtypes = ["complex64", "complex128"]
integer_dtypes = int_dtypes + uint_dtypes
discrete_dtypes = ["bool"] + integer_dtypes
continuous_dtypes = float_dtypes + complex_dtypes
all_dtypes = discrete_dtypes + continuous_dtypes

__all__ = ["all_dtypes", "complex_dtypes", "continuous_dtypes", "discrete_dtypes", "float_dtypes",
           "int_dtypes", "integer_dtypes", "uint_dtypes"]
