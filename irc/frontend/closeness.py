"""`T.isclose` and `T.allclose` (Theano's, numpy's rule): |a - b| <= atol + rtol |b|, infinities
close only to themselves, NaNs close to each other only with `equal_nan`."""
from __future__ import annotations

from typing import Any

from .basic import abs_, add, and_, as_tensor_variable, eq, isinf, isnan, le, mul, or_, sub, switch
from .graph import Variable
from .mathops import all as all_


def isclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Variable:
    """Elementwise: whether `a` is within `atol + rtol * |b|` of `b` (bool)."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    finite_close = le(abs_(sub(a, b)), add(atol, mul(rtol, abs_(b))))
    infinite = or_(isinf(a), isinf(b))
    close = switch(infinite, eq(a, b), finite_close)
    if equal_nan:
        close = or_(close, and_(isnan(a), isnan(b)))
    return close


def allclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> Variable:
    """Whether every element of `a` is close to `b` (`isclose`), a 0-d bool."""
    return all_(isclose(a, b, rtol, atol, equal_nan))
