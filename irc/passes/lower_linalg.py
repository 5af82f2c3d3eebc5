"""Loop lowerings of products, shaped so that LLVM vectorizes the inner loop: gemv is one
dot product per row (a reduction over A's contiguous rows); gemm and vector-matrix products
run i-k-j, the inner loop along the contiguous rows of B and of the output.
"""
from __future__ import annotations

from ..dialects.builtin import TensorType
from ..ir.core import Operation, Value
from ..ir.types import ScalarType
from .lower_to_loops import FuncLowering, lowering
from .loop_builder import Index

# gemm cache blocking, in elements: a block of B is GEMM_KB rows of GEMM_NB columns
GEMM_KB = 128
GEMM_NB = 512


# ---------------------------------------------------------------------------- products
def _alpha_beta(op: Operation) -> tuple[float, float]:
    a = op.attributes.get("alpha")
    b = op.attributes.get("beta")
    return (float(a.value) if a is not None else 1.0), (float(b.value) if b is not None else 0.0)


def _scale(ctx: FuncLowering, v: Value, factor: float) -> Value:
    if factor == 1.0:
        return v
    return ctx.lb.scalar("mul", [v, ctx.lb.scalar_const(factor, v.type)])


def _dot_loop(ctx: FuncLowering, n: Index, load_a, load_b, element: ScalarType) -> Value:
    lb = ctx.lb
    with lb.for_(lb.const(0), n, inits=[lb.scalar_const(0, element)], reduction=True) as loop:
        prod = lb.scalar("mul", [load_a(loop.iv), load_b(loop.iv)])
        lb.yield_(loop, [lb.scalar("add", [loop.iter_args[0], prod])])
    return loop.results[0]


def is_transposed(m: Value) -> bool:
    """A 2-d view that swaps the axes of its source: its rows are strided, its columns are not
    (arguments and buffers are row-major in practice)."""
    from ..dialects import loop as L
    owner = m.owner
    if isinstance(owner, L.TransposeOp):
        return owner.perm == (1, 0)
    return isinstance(owner, L.BroadcastOp) and owner.dims == (1, 0)


def gemv(ctx: FuncLowering, op: Operation, A: Value, x: Value, y: Value | None,
         alpha: float, beta: float) -> Value:
    """alpha·A·x + beta·y: a dot product per row, or, when A is a transposed view (Aᵀ·x, the
    gradient of a matrix-vector product), a sum of A's columns, contiguous in memory."""
    lb = ctx.lb
    m, k = ctx.sizes_of(A)
    lb.assert_eq(k, ctx.sizes_of(x)[0], f"'{op.op_name}': inner dimensions differ")
    if y is not None:
        lb.assert_eq(m, ctx.sizes_of(y)[0], f"'{op.op_name}': rows of A and y differ")
    t: TensorType = op.results[0].type
    out = ctx.alloc(t, [m])
    if is_transposed(A):
        with lb.parallel(ctx.sizes_of(out)) as (i,):
            init = lb.scalar_const(0, t.element) if y is None else _scale(ctx, lb.load(y, [i]), beta)
            lb.store(init, out, [i])
        with lb.for_(lb.const(0), k) as col:
            xj = _scale(ctx, lb.load(x, [col.iv]), alpha)
            with lb.for_(lb.const(0), ctx.sizes_of(out)[0]) as row:
                i = row.iv
                prod = lb.scalar("mul", [lb.load(A, [i, col.iv]), xj])
                lb.store(lb.scalar("add", [lb.load(out, [i]), prod]), out, [i])
        return out
    with lb.parallel(ctx.sizes_of(out)) as (i,):
        acc = _dot_loop(ctx, k, lambda j: lb.load(A, [i, j]), lambda j: lb.load(x, [j]), t.element)
        acc = _scale(ctx, acc, alpha)
        if y is not None:
            acc = lb.scalar("add", [acc, _scale(ctx, lb.load(y, [i]), beta)])
        lb.store(acc, out, [i])
    return out


def gemm(ctx: FuncLowering, op: Operation, A: Value, B: Value, C: Value | None,
         alpha: float, beta: float) -> Value:
    """out = alpha·A·B + beta·C, i-k-j: row i of the output is built from rows of B; when B is a
    transposed view (A·Wᵀ), one dot product per element along B's contiguous columns."""
    lb = ctx.lb
    a_rows = len(ctx.sizes_of(A)) == 2
    m, k = ctx.sizes_of(A) if a_rows else (None, ctx.sizes_of(A)[0])
    k2, n = ctx.sizes_of(B)
    lb.assert_eq(k, k2, f"'{op.op_name}': inner dimensions differ")
    t: TensorType = op.results[0].type
    element = t.element
    out = ctx.alloc(t, [m, n] if a_rows else [n])
    if C is not None:
        for axis, (a, b) in enumerate(zip(ctx.sizes_of(out), ctx.sizes_of(C))):
            lb.assert_eq(a, b, f"'{op.op_name}': the accumulator differs from the product in dim {axis}")

    def at(i: Index | None, j: Index) -> list[Index]:
        return [i, j] if i is not None else [j]

    def init_row(i: Index | None) -> None:
        with lb.for_(lb.const(0), n) as loop:
            j = loop.iv
            init = lb.scalar_const(0, element) if C is None else _scale(ctx, lb.load(C, at(i, j)), beta)
            lb.store(init, out, at(i, j))

    def blocked_rows(rows: Index | None) -> None:
        """Blocks of B (KB rows × NB columns) stay in cache while every row of A uses them."""
        with lb.for_(lb.const(0), n, lb.const(GEMM_NB)) as jblock:
            j_end = lb.min(lb.add(jblock.iv, lb.const(GEMM_NB)), n)
            with lb.for_(lb.const(0), k, lb.const(GEMM_KB)) as kblock:
                k_end = lb.min(lb.add(kblock.iv, lb.const(GEMM_KB)), k)

                def row(i: Index | None) -> None:
                    with lb.for_(kblock.iv, k_end) as kloop:
                        a = _scale(ctx, lb.load(A, [i, kloop.iv] if i is not None else [kloop.iv]), alpha)
                        with lb.for_(jblock.iv, j_end) as jloop:
                            j = jloop.iv
                            prod = lb.scalar("mul", [a, lb.load(B, [kloop.iv, j])])
                            lb.store(lb.scalar("add", [lb.load(out, at(i, j)), prod]), out, at(i, j))

                if rows is None:
                    row(None)
                else:
                    with lb.parallel([rows]) as (i,):
                        row(i)

    if is_transposed(B) and a_rows:
        # B's columns are contiguous: one dot product per output element
        with lb.parallel(ctx.sizes_of(out)) as (i, j):
            acc = _dot_loop(ctx, k, lambda q: lb.load(A, [i, q]), lambda q: lb.load(B, [q, j]), element)
            acc = _scale(ctx, acc, alpha)
            if C is not None:
                acc = lb.scalar("add", [acc, _scale(ctx, lb.load(C, [i, j]), beta)])
            lb.store(acc, out, [i, j])
    elif a_rows:
        rows = ctx.sizes_of(out)[0]
        with lb.parallel([rows]) as (i,):
            init_row(i)
        blocked_rows(rows)
    else:
        init_row(None)
        blocked_rows(None)
    return out


@lowering("tensor.dot")
def _dot(ctx: FuncLowering, op: Operation) -> None:
    a, b = ctx.operand(op, 0), ctx.operand(op, 1)
    t: TensorType = op.results[0].type
    lb = ctx.lb
    if a.type.rank == 1 and b.type.rank == 1:
        n = ctx.sizes_of(a)[0]
        lb.assert_eq(n, ctx.sizes_of(b)[0], "'tensor.dot': vector lengths differ")
        out = ctx.alloc(t, [])
        acc = _dot_loop(ctx, n, lambda j: lb.load(a, [j]), lambda j: lb.load(b, [j]), t.element)
        lb.store(acc, out, [])
    elif b.type.rank == 1:
        out = gemv(ctx, op, a, b, None, 1.0, 0.0)
    else:
        out = gemm(ctx, op, a, b, None, 1.0, 0.0)
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)


@lowering("tensor.gemv")
def _gemv(ctx: FuncLowering, op: Operation) -> None:
    alpha, beta = _alpha_beta(op)
    y = ctx.operand(op, 2) if op.num_operands == 3 else None
    out = gemv(ctx, op, ctx.operand(op, 0), ctx.operand(op, 1), y, alpha, beta)
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)


@lowering("tensor.gemm")
def _gemm(ctx: FuncLowering, op: Operation) -> None:
    alpha, beta = _alpha_beta(op)
    C = ctx.operand(op, 2) if op.num_operands == 3 else None
    out = gemm(ctx, op, ctx.operand(op, 0), ctx.operand(op, 1), C, alpha, beta)
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)
