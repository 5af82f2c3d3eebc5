"""Small pieces shared by the loop lowerings of products (`linalg.py`, `gemv.py`,
`gemm.py`): alpha/beta epilogues, the plain dot-product loop, loads of a matrix's lines,
the layout test, loop-variable names."""
from __future__ import annotations

from typing import Callable

from ...dialects import loop as L
from ...ir.core import Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder

Load1 = Callable[[Index], Value]  # index -> an element of a vector (or of one line of a matrix)
Load2 = Callable[[Index, Index], Value]  # (row, column) -> an element of a matrix
Line = Callable[[Index], Load1]   # row -> the loads of that row, its address computed once


def scale(lb: LoopBuilder, v: Value, factor: float) -> Value:
    """factor·v, with no multiplication for 1."""
    if factor == 1.0:
        return v
    return lb.scalar("mul", [v, lb.scalar_const(factor, v.type)])


def axpby(lb: LoopBuilder, acc: Value, alpha: float, y: Value | None, beta: float) -> Value:
    """alpha·acc + beta·y (just alpha·acc without y): the epilogue of every product."""
    out = scale(lb, acc, alpha)
    if y is None:
        return out
    return lb.scalar("add", [out, scale(lb, y, beta)])


def dot_loop(lb: LoopBuilder, n: Index, load_a: Callable[[Index], Value],
             load_b: Callable[[Index], Value], element: ScalarType) -> Value:
    """Σ_q a[q]·b[q] as one `loop.for` whose accumulator is marked `reduction` (so it vectorizes)."""
    with lb.for_(lb.const(0), n, inits=[lb.scalar_const(0, element)], reduction=True) as loop:
        prod = lb.scalar("mul", [load_a(loop.iv), load_b(loop.iv)])
        lb.yield_(loop, [lb.scalar("add", [loop.iter_args[0], prod])])
    return loop.results[0]


def line_of(lb: LoopBuilder, m: Value, sizes: list[Index], axis: int) -> Line:
    """The lines of matrix `m` (axis 1: its rows; axis 0: its columns), each a one-row (or
    one-column) view made where the line is asked for, so that a kernel walking several lines
    at once computes each line's start outside its inner loop. (Indexing `m` directly with every
    line's index inside the loop lets LLVM share the inner-index part of the addresses,
    after which it no longer sees the unit-stride access it versions for and falls back to
    gathers.)"""

    def line(at: Index) -> Load1:
        view = line_view(lb, m, sizes, axis, at)
        zero = lb.const(0)
        return (lambda j: lb.load(view, [zero, j])) if axis == 1 else (lambda j: lb.load(view, [j, zero]))
    return line


def line_view(lb: LoopBuilder, m: Value, sizes: list[Index], axis: int, at: Index) -> Value:
    """Line `at` of matrix `m` as a 1×n (axis 1: a row) or m×1 (axis 0: a column) view."""
    zero, one = lb.const(0), lb.const(1)
    offsets = [at, zero] if axis == 1 else [zero, at]
    shape = [one, sizes[1]] if axis == 1 else [sizes[0], one]
    return lb.create(L.SubviewOp, [m, *offsets, *shape, one, one], {},
                     L.view_type([1, m.type.shape[1]] if axis == 1 else [m.type.shape[0], 1],
                                 m.type.element))


def vector(lb: LoopBuilder, v: Value) -> Load1:
    """The loads of a 1-d buffer."""
    return lambda j: lb.load(v, [j])


def is_transposed(m: Value) -> bool:
    """Whether a 2-d view swaps the axes of the buffer it views — its rows strided, its columns
    contiguous (arguments and buffers are row-major in practice). Follows chains of views: a
    transpose of a transpose is not transposed; a slice keeps its source's layout."""
    swapped = False
    while True:
        owner = m.owner
        if isinstance(owner, L.SubviewOp):
            pass
        elif isinstance(owner, L.TransposeOp) and owner.operand(0).type.rank == 2:
            swapped ^= owner.perm == (1, 0)
        elif isinstance(owner, L.BroadcastOp) and owner.operand(0).type.rank == 2 \
                and owner.dims in ((1, 0), (0, 1)):
            swapped ^= owner.dims == (1, 0)
        else:
            return swapped
        m = owner.operand(0)


def named(iv, hint: str) -> Index:
    """A loop's induction variable (a `for_` scope or a parallel iv) named `hint` in the printed
    IR, so the kernels read like their docstrings."""
    v = iv.iv if hasattr(iv, "iv") else iv
    v.name_hint = hint
    return v


def balanced_sum(lb: LoopBuilder, terms: list[Value]) -> Value:
    """Σ terms as a balanced tree: a shorter dependency chain than a running sum."""
    while len(terms) > 1:
        terms = [lb.scalar("add", terms[i:i + 2]) if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]
