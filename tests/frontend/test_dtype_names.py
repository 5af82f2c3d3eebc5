"""`T.float_dtypes`, `T.discrete_dtypes`, ... are Theano's lists; the complex dtypes they name
are refused by irc's tensor type with a clear error (the unsigned ones build tensors)."""
from __future__ import annotations

import pytest

import irc.tensor as T


def test_the_lists_compose_as_theanos():
    assert T.discrete_dtypes == ["bool"] + T.int_dtypes + T.uint_dtypes
    assert T.integer_dtypes == T.int_dtypes + T.uint_dtypes
    assert T.continuous_dtypes == T.float_dtypes + T.complex_dtypes
    assert T.all_dtypes == T.discrete_dtypes + T.continuous_dtypes
    assert "float32" in T.float_dtypes and "complex128" in T.complex_dtypes


def test_every_listed_dtype_builds_a_tensor_or_is_refused_by_name():
    for dtype in T.all_dtypes:
        if dtype.startswith("complex"):
            with pytest.raises(TypeError, match=f"unsupported dtype '{dtype}'"):
                T.TensorType(dtype, (False,))
        else:
            assert T.TensorType(dtype, (False,))().dtype == dtype
