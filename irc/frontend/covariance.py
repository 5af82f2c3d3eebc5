"""`T.cov` (Theano's `theano.tensor.cov`, numpy's `cov` without weights)."""
from __future__ import annotations

from typing import Any

from .basic import as_tensor_variable, cast, concatenate, sub, true_div
from .dtypes import mean_dtype
from .extra_ops import squeeze
from .graph import Variable
from .mathops import mean
from .matrix_products import dot


def cov(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: int | None = None,
        fweights: Any = None, aweights: Any = None) -> Variable:
    """The covariance matrix of the variables in the rows of `m` (columns when not `rowvar`),
    with those of `y` after them; normalized by N - ddof (ddof: 0 with `bias`, else 1)."""
    if fweights is not None or aweights is not None:
        raise NotImplementedError("cov: fweights and aweights are not supported (as in Theano)")
    m = as_tensor_variable(m)
    if m.ndim != 2:
        raise TypeError(f"cov: m must be a matrix, got {m.type}")
    if not rowvar and not m.broadcastable[0]:
        m = m.T
    if y is not None:
        y = as_tensor_variable(y)
        if not rowvar and not y.broadcastable[0]:
            y = y.T
        m = concatenate([m, y], axis=0)
    m = cast(m, mean_dtype(m.dtype))
    if ddof is None:
        ddof = 0 if bias else 1
    centered = sub(m, mean(m, axis=1, keepdims=True))
    c = true_div(dot(centered, centered.T), cast(sub(m.shape[1], ddof), m.dtype))
    return squeeze(c)  # (Theano's: the dims known to be 1 go)
