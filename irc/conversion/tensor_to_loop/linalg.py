"""Loop lowerings of products (`tensor.dot`, `tensor.gemv`, `tensor.gemm`): the size checks,
then the kernel that suits the operands' layouts (arguments are row-major in practice; a
transposed view is recognised by `is_transposed`):

    v·v            one dot-product loop (a vectorized reduction)
    A·x            `row_dots`: several rows of A per reduction loop        (gemv.py)
    Aᵀ·x, x·B      `combine_rows`: partial sums over chunks of rows         (gemv.py)
    x·Wᵀ           `row_dots` over the rows of W
    A·B, A·Wᵀ      register-tiled kernel over panels of a packed B          (gemm.py)

On a device, every product is `device_products.py`'s (cuBLAS through `gpu.gemm`).
"""
from __future__ import annotations

from ...dialects.builtin import TensorType
from ...ir.core import Operation, Value
from ...ir.types import ScalarType
from ..loop_builder import Index
from .context import FuncLowering, inplace_target, lowering
from .device_products import device_product, on_device
from .gemm import gemm as gemm_kernel
from .gemv import combine_rows, row_dots
from .linalg_common import dot_loop, is_transposed, line_of, vector


def _alpha_beta(op: Operation) -> tuple[float, float]:
    a = op.attributes.get("alpha")
    b = op.attributes.get("beta")
    return (float(a.value) if a is not None else 1.0), (float(b.value) if b is not None else 0.0)


def gemv(ctx: FuncLowering, op: Operation, A: Value, x: Value, y: Value | None,
         alpha: float, beta: float) -> Value:
    """alpha·A·x + beta·y: dot products of A's rows, or, when A is a transposed view (Aᵀ·x, the
    gradient of a matrix-vector product), a combination of the rows of its source."""
    lb = ctx.lb
    m, k = ctx.sizes_of(A)
    lb.assert_eq(k, ctx.sizes_of(x)[0], f"'{op.op_name}': inner dimensions differ")
    if y is not None:
        lb.assert_eq(m, ctx.sizes_of(y)[0], f"'{op.op_name}': rows of A and y differ")
    t: TensorType = op.results[0].type
    out = inplace_target(ctx, op, 0) or ctx.alloc(t, [m])
    m = ctx.sizes_of(out)[0]
    load_y = vector(lb, y) if y is not None else None
    if is_transposed(A):  # the rows of X = Aᵀ are A's columns
        combine_rows(ctx, line_of(lb, A, ctx.sizes_of(A), 0), vector(lb, x), k, m, out, t.element,
                     alpha, load_y, beta)
    else:
        row_dots(ctx, line_of(lb, A, ctx.sizes_of(A), 1), vector(lb, x), m, k, out, t.element,
                 alpha, load_y, beta)
    return out


def gemm(ctx: FuncLowering, op: Operation, A: Value, B: Value, C: Value | None,
         alpha: float, beta: float, epilogue: str | None = None) -> Value:
    """out = f(alpha·A·B + beta·C) for a matrix A (the register-tiled kernel; C may be a row
    broadcast over the rows, f an epilogue function) or a vector A (a vector-matrix product: a
    combination of B's rows, or dot products when B is transposed)."""
    lb = ctx.lb
    a_rows = len(ctx.sizes_of(A)) == 2
    m, k = ctx.sizes_of(A) if a_rows else (None, ctx.sizes_of(A)[0])
    k2, n = ctx.sizes_of(B)
    lb.assert_eq(k, k2, f"'{op.op_name}': inner dimensions differ")
    t: TensorType = op.results[0].type
    out = inplace_target(ctx, op, 0) or ctx.alloc(t, [m, n] if a_rows else [n])
    broadcast = [d == 1 for d in op.operands[2].type.shape] if C is not None else []
    if C is not None:
        for axis, (a, b) in enumerate(zip(ctx.sizes_of(out), ctx.sizes_of(C))):
            if not broadcast[axis]:
                lb.assert_eq(a, b, f"'{op.op_name}': the accumulator differs from the product in dim {axis}")
    element = t.element
    if a_rows and element.is_complex:
        complex_gemm(ctx, A, B, C, broadcast, m, k, n, out, element, alpha, beta, epilogue)
        return out
    if a_rows:
        m, n = ctx.sizes_of(out)
        zero = lb.const(0)
        load_c = (lambda i, j: lb.load(C, [zero if broadcast[0] else i, zero if broadcast[1] else j])) \
            if C is not None else None
        # a broadcast C (a bias row) stays in L1: only a whole matrix is worth prefetching
        prefetch_c = (lambda i, j: lb.prefetch(C, [i, j])) if C is not None and not any(broadcast) else None
        gemm_kernel(ctx, A, is_transposed(A),
                    lambda q, j: lb.load(B, [q, j]), is_transposed(B), m, k, n, out, element,
                    alpha, load_c, beta, epilogue, prefetch_c)
        return out
    assert epilogue is None, "an epilogue is only folded into a matrix product"
    n = ctx.sizes_of(out)[0]
    load_cv = vector(lb, C) if C is not None else None
    if is_transposed(B):  # out[j] is the dot product of x with B's column j, contiguous
        row_dots(ctx, line_of(lb, B, ctx.sizes_of(B), 0), vector(lb, A), n, k, out, element,
                 alpha, load_cv, beta)
    else:
        combine_rows(ctx, line_of(lb, B, ctx.sizes_of(B), 1), vector(lb, A), k, n, out, element,
                     alpha, load_cv, beta)
    return out


def complex_gemm(ctx: FuncLowering, A: Value, B: Value, C: Value | None, broadcast: list[bool], m: Index,
                 k: Index, n: Index, out: Value, element: ScalarType, alpha: float, beta: float,
                 epilogue: str | None) -> None:
    """A complex matrix product: one dot product per element, in parallel over the rows (the
    register-tiled kernel multiplies real numbers only); complex arithmetic is the code
    generator's (codegen_llvm/complex_emit.py)."""
    lb = ctx.lb
    zero = lb.const(0)
    with lb.parallel([m, n]) as (i, j):
        acc = dot_loop(lb, k, lambda q: lb.load(A, [i, q]), lambda q: lb.load(B, [q, j]), element)
        if alpha != 1.0:
            acc = lb.scalar("mul", [lb.scalar_const(alpha, element), acc])
        if C is not None and beta != 0.0:
            c = lb.load(C, [zero if broadcast[0] else i, zero if broadcast[1] else j])
            acc = lb.scalar("add", [acc, lb.scalar("mul", [lb.scalar_const(beta, element), c])])
        if epilogue is not None:
            acc = lb.scalar(epilogue, [acc])
        lb.store(acc, out, [i, j])


@lowering("tensor.dot")
def _dot(ctx: FuncLowering, op: Operation) -> None:
    a, b = ctx.operand(op, 0), ctx.operand(op, 1)
    t: TensorType = op.results[0].type
    lb = ctx.lb
    if on_device(op):
        out = device_product(ctx, op, a, b, None, 1.0, 0.0)
    elif a.type.rank == 1 and b.type.rank == 1:
        n = ctx.sizes_of(a)[0]
        lb.assert_eq(n, ctx.sizes_of(b)[0], "'tensor.dot': vector lengths differ")
        out = ctx.alloc(t, [])
        acc = dot_loop(lb, n, lambda j: lb.load(a, [j]), lambda j: lb.load(b, [j]), t.element)
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
    if on_device(op):
        out = device_product(ctx, op, ctx.operand(op, 0), ctx.operand(op, 1), y, alpha, beta)
    else:
        out = gemv(ctx, op, ctx.operand(op, 0), ctx.operand(op, 1), y, alpha, beta)
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)


@lowering("tensor.gemm")
def _gemm(ctx: FuncLowering, op: Operation) -> None:
    alpha, beta = _alpha_beta(op)
    C = ctx.operand(op, 2) if op.num_operands == 3 else None
    epilogue = op.attributes.get("epilogue")
    f = epilogue.value if epilogue is not None else None
    if on_device(op):
        out = device_product(ctx, op, ctx.operand(op, 0), ctx.operand(op, 1), C, alpha, beta, f)
    else:
        out = gemm(ctx, op, ctx.operand(op, 0), ctx.operand(op, 1), C, alpha, beta, f)
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)
