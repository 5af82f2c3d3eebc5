"""`tensordot` and `batched_dot`, written with `dot`, reshapes and elementwise products (so
they have gradients and compile natively)."""
from __future__ import annotations

from typing import Any, Sequence

from .basic import as_tensor_variable, dimshuffle, mul, reshape, shape
from .graph import Variable
from .mathops import dot, sum as sum_


def _axes(a: Variable, b: Variable, axes: Any) -> tuple[list[int], list[int]]:
    if isinstance(axes, int):
        if axes > min(a.ndim, b.ndim) or axes < 0:
            raise ValueError(f"tensordot: axes={axes} does not fit {a.type} and {b.type}")
        return list(range(a.ndim - axes, a.ndim)), list(range(axes))
    a_axes, b_axes = ([x] if isinstance(x, int) else list(x) for x in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"tensordot: {len(a_axes)} axes of a but {len(b_axes)} of b")
    return [x % a.ndim for x in a_axes], [x % b.ndim for x in b_axes]


def _size(x: Variable, dims: Sequence[int]) -> Variable | int:
    """The number of elements over `dims`, as a product of sizes (which lowering can trace)."""
    out: Variable | int = 1
    for d in dims:
        out = shape(x)[d] if isinstance(out, int) else mul(out, shape(x)[d])
    return out


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """numpy's tensordot: the sum over `axes` of a (its last `axes` when an int) against the
    same number of axes of b (its first). Result dims: a's free dims, then b's."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    a_sum, b_sum = _axes(a, b, axes)
    a_free = [d for d in range(a.ndim) if d not in a_sum]
    b_free = [d for d in range(b.ndim) if d not in b_sum]
    a2 = reshape(dimshuffle(a, a_free + a_sum), (_size(a, a_free), _size(a, a_sum)))
    b2 = reshape(dimshuffle(b, b_sum + b_free), (_size(b, b_sum), _size(b, b_free)))
    out = dot(a2, b2)
    return reshape(out, [shape(a)[d] for d in a_free] + [shape(b)[d] for d in b_free])


def batched_dot(a: Any, b: Any) -> Variable:
    """One product per leading index: (B, n, k)·(B, k, m) -> (B, n, m), (B, k)·(B, k) -> (B,),
    and the matrix-vector mixes, as Theano's batched_dot."""
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.ndim not in (2, 3) or b.ndim not in (2, 3):
        raise TypeError(f"batched_dot needs batches of vectors or matrices, got {a.type} and {b.type}")
    # a as (B, n, k, 1), b as (B, 1, k, m); vectors lose their n or m
    ap = dimshuffle(a, (0, "x", 1, "x") if a.ndim == 2 else (0, 1, 2, "x"))
    bp = dimshuffle(b, (0, "x", 1, "x") if b.ndim == 2 else (0, "x", 1, 2))
    out = sum_(mul(ap, bp), axis=2)            # (B, n, m)
    keep = [0] + ([1] if a.ndim == 3 else []) + ([2] if b.ndim == 3 else [])
    drop = [d for d in (1, 2) if d not in keep]
    return dimshuffle(out, keep) if drop else out
