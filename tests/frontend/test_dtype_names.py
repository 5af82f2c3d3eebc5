"""`T.float_dtypes`, `T.discrete_dtypes`, ... are Theano's lists; every dtype they name builds
a tensor (complex ones included); a dtype outside them is refused by name."""
from __future__ import annotations

import pytest

import irc.tensor as T


def test_the_lists_compose_as_theanos():
    assert T.discrete_dtypes == ["bool"] + T.int_dtypes + T.uint_dtypes
    assert T.integer_dtypes == T.int_dtypes + T.uint_dtypes
    assert T.continuous_dtypes == T.float_dtypes + T.complex_dtypes
    assert T.all_dtypes == T.discrete_dtypes + T.continuous_dtypes
    assert "float32" in T.float_dtypes and "complex128" in T.complex_dtypes


def test_every_listed_dtype_builds_a_tensor():
    for dtype in T.all_dtypes:
        assert T.TensorType(dtype, (False,))().dtype == dtype


def test_a_dtype_outside_the_lists_is_refused_by_name():
    with pytest.raises(TypeError, match="unsupported dtype 'complex256'"):
        T.TensorType("complex256", (False,))
