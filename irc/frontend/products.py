"""Batched products — `batched_dot` and `batched_tensordot`, Theano's: one product per index of
the leading (batch) axis, `batched_dot(a, b)[i] = dot(a[i], b[i])` — written with dimshuffles,
reshapes and elementwise products (so they have gradients and compile natively). `dot` and
`tensordot` are in matrix_products.py."""
from __future__ import annotations

import numbers
from typing import Any

from .basic import as_tensor_variable, dimshuffle, mul, reshape
from .graph import Variable
from .mathops import sum as sum_
from .matrix_products import elements_over, sizes_of, summed_axes


def _batched_matrices(a: Variable, b: Variable) -> Variable:
    """(B, n, k)·(B, k, m) -> (B, n, m); a 2-d operand is a batch of vectors, whose n or m the
    result drops."""
    # a as (B, n, k, 1), b as (B, 1, k, m); vectors lose their n or m
    ap = dimshuffle(a, (0, "x", 1, "x") if a.ndim == 2 else (0, 1, 2, "x"))
    bp = dimshuffle(b, (0, "x", 1, "x") if b.ndim == 2 else (0, "x", 1, 2))
    out = sum_(mul(ap, bp), axis=2)            # (B, n, m)
    keep = [0] + ([1] if a.ndim == 3 else []) + ([2] if b.ndim == 3 else [])
    drop = [d for d in (1, 2) if d not in keep]
    return dimshuffle(out, keep) if drop else out


def batched_dot(a: Any, b: Any) -> Variable:
    """`batched_dot(a, b)[i] = dot(a[i], b[i])`, as Theano's: a batch of scalars (a vector)
    multiplies, batches of vectors and matrices are (B, n, k)·(B, k, m) products, and more dims
    are `batched_tensordot` over the last axis of `a` and the second-to-last of `b`."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim == 0 or b.ndim == 0:
        raise TypeError(f"batched_dot: {'a' if a.ndim == 0 else 'b'} must have at least one (batch) "
                        f"axis, got {a.type} and {b.type}")
    if a.ndim == 1:
        return mul(dimshuffle(a, [0] + ["x"] * (b.ndim - 1)), b)
    if b.ndim == 1:
        return mul(a, dimshuffle(b, [0] + ["x"] * (a.ndim - 1)))
    if a.ndim > 3 or b.ndim > 3:
        return batched_tensordot(a, b, [[a.ndim - 1], [max(1, b.ndim - 2)]])
    return _batched_matrices(a, b)


def batched_tensordot(x: Any, y: Any, axes: Any = 2) -> Variable:
    """Theano's batched_tensordot: `tensordot(x[i], y[i])` for each index i of the leading axis.
    `axes` counts the batch axis: an int n sums the last n axes of x against axes 1..n of y;
    lists name the axes of each (never 0). Result: the batch, x's free axes, then y's."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.ndim < 2 or y.ndim < 2:
        raise TypeError(f"batched_tensordot needs a batch axis and at least one more in each operand, "
                        f"got {x.type} and {y.type}")
    if isinstance(axes, numbers.Integral):
        axes = int(axes)
        if not 0 <= axes <= min(x.ndim, y.ndim) - 1:
            raise ValueError(f"batched_tensordot: axes={axes} does not fit {x.type} and {y.type}")
        x_sum, y_sum = list(range(x.ndim - axes, x.ndim)), list(range(1, axes + 1))
    else:
        x_sum, y_sum = summed_axes(x, y, axes, "batched_tensordot")
        if 0 in x_sum or 0 in y_sum:
            raise ValueError("batched_tensordot: axis 0 is the batch axis and cannot be summed over")
    x_free = [d for d in range(1, x.ndim) if d not in x_sum]
    y_free = [d for d in range(1, y.ndim) if d not in y_sum]
    batch = sizes_of(x, [0])[0]
    x3 = reshape(dimshuffle(x, [0] + x_free + x_sum),
                 (batch, elements_over(x, x_free), elements_over(x, x_sum)))
    y3 = reshape(dimshuffle(y, [0] + y_sum + y_free),
                 (batch, elements_over(y, y_sum), elements_over(y, y_free)))
    return reshape(_batched_matrices(x3, y3), [batch] + sizes_of(x, x_free) + sizes_of(y, y_free))
