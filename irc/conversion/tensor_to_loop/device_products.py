"""Products over device buffers: `tensor.dot`, `tensor.gemv` and `tensor.gemm` placed on the
GPU.

A float product of a matrix is one `gpu.gemm`, a call of the device's BLAS library (cuBLAS),
whatever the layout: a transposed view is passed as it lies (cuBLAS's op T), a vector is a
one-row or one-column matrix, and the accumulator and scale factors are its alpha and beta —
so the gradient step `W − lr·Xᵀ·δ` is one call that reads W into the result (copied there by
the call unless the result is W's own storage, as an in-place update makes it). What cuBLAS
cannot do is one kernel after it: a C that broadcasts (a bias row) and an epilogue (`tanh` of
the product) are applied together in one elementwise pass over the result. An operand whose
layout has no unit stride (a view with steps, a broadcast) is copied to a dense buffer first.

A dot product of two vectors, and a row-major matrix times a vector (`X·w`), are device
reductions (`device_reduce.py`: a warp per row, at memory bandwidth and without a library
call's overhead), and products of
integers, which cuBLAS does not do, are a parallel nest with one thread per result element.
"""
from __future__ import annotations

from ...dialects import gpu as G
from ...dialects import loop as L
from ...dialects.builtin import MemRefType, TensorType
from ...base.config import config
from ...ir.attributes import FloatAttr, UnitAttr
from ...ir.core import Operation, Value
from ...ir.types import f32
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering, inplace_target
from .device_epilogue import absorb_consumer
from .device_reduce import device_reduce
from .linalg_common import dot_loop, scale


def on_device(op: Operation) -> bool:
    """Whether a product's result lives on a device (its lowering is this module's)."""
    return op.results[0].type.device is not None


def device_product(ctx: FuncLowering, op: Operation, a: Value, b: Value, c: Value | None,
                   alpha: float, beta: float, epilogue: str | None = None) -> Value:
    """The buffer of f(alpha·a·b + beta·c) for device operands (vectors or matrices; c may
    broadcast along its static-1 dims; f the identity without `epilogue`)."""
    lb = ctx.lb
    t: TensorType = op.results[0].type
    a_sizes, b_sizes = ctx.sizes_of(a), ctx.sizes_of(b)
    lb.assert_eq(a_sizes[-1], b_sizes[0], f"'{op.op_name}': inner dimensions differ")
    if a.type.rank == 1 and b.type.rank == 1:
        out = ctx.alloc(t, [])
        device_reduce(ctx, "sum", [a_sizes[0]], [0],
                      lambda idx: [lb.scalar("mul", [lb.load(a, idx), lb.load(b, idx)])], [out], t.element)
        return out
    if (a.type.rank == 2 and b.type.rank == 1 and c is None and alpha == 1.0 and epilogue is None
            and t.element.is_float and a in ctx.contiguous):
        # a row-major matrix times a vector: a device reduction of the products along the rows
        # (a warp per row, read at memory bandwidth), with the first elementwise reader of the
        # result computed in its last pass where it can be: no library call
        out = ctx.alloc(t, [a_sizes[0]])
        ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)
        device_reduce(ctx, "sum", [a_sizes[0], a_sizes[1]], [1],
                      lambda idx: [lb.scalar("mul", [lb.load(a, idx), lb.load(b, [idx[1]])])], [out], t.element,
                      epilogue=absorb_consumer(ctx, op, [op.results[0]]))
        return out
    sizes = a_sizes[:-1] + b_sizes[1:]
    out = inplace_target(ctx, op, 0) or ctx.alloc(t, sizes)
    sizes = ctx.sizes_of(out)
    c_in, bias = None, None
    if c is not None:
        if not t.element.is_float:
            _into(ctx, op, c, out, sizes)
        elif c is out:
            pass  # the accumulator's own buffer (the `inplace` pass's mark)
        elif _whole(ctx, op, c, sizes):
            c_in = c  # copied by the call itself, or not at all where it is out's storage
        else:
            bias = c  # a broadcast row: added after the product, with the epilogue
    if not t.element.is_float:
        _integer_product(ctx, a, b, out, sizes, alpha, beta if c is not None else 0.0)
        return out
    accumulated = c_in if c_in is not None else (c if c is out else None)
    if t.element.bitwidth >= 32:  # (float16 products keep cuBLAS's float32 accumulation)
        shallow = lb.at_most(a_sizes[-1], SHALLOW_DEPTH)
        deeper = lb.negate(shallow)
        small = lb.scalar("and", [deeper, _is_small(ctx, sizes, a_sizes[-1], a in ctx.contiguous)])
        with lb.when(shallow):
            _thread_per_element(ctx, op, a, b, out, sizes, alpha, beta, accumulated, bias, epilogue)
        with lb.when(small):
            _warp_per_element(ctx, op, a, b, out, sizes, alpha, beta, accumulated, bias, epilogue)
        with lb.when(lb.scalar("and", [deeper, lb.negate(small)])):
            _library_call(ctx, op, a, b, out, sizes, alpha, beta, c, c_in, bias, epilogue)
    else:
        _library_call(ctx, op, a, b, out, sizes, alpha, beta, c, c_in, bias, epilogue)
    return out


# A product this small runs as one kernel of irc's own: each result element is a sum over the
# inner dimension done by a warp (`device_reduce`'s warp pass: the lanes read the terms
# interleaved and combine them by shuffles, in a fixed order), its accumulator, bias and
# activation applied by lane 0 in the same kernel: no library call and no epilogue kernel
# after it. A scan's step (32×128 by 128×128) is one such kernel instead of a cuBLAS call and
# an elementwise pass. Larger products go to cuBLAS, whose tiles win.
SMALL_OUTPUTS = 1 << 16  # result elements (warps)
SMALL_DEPTH = 128        # inner dimension (terms per result element)
# ... and, where `a` is row-major (its rows read whole by the lanes), a narrow product with a
# deeper inner dimension: an MLP's output layer (256×512 by 512×10) took cuBLAS two kernels
# (split-K) and the bias a third, about 11 µs of an H100's time; as warps, one kernel
FEW_OUTPUTS = 1 << 12
FEW_DEPTH = 1024
# ... or a transposed left operand (the logistic regression's Xᵀ·δ, 784 outputs of 400 terms),
# its lanes then reading 32 rows per load, from L2 at these sizes: up to this many terms in all
STRIDED_FEW_ELEMENTS = 1 << 19
# A product whose inner dimension is this short is one thread per result element, its terms
# summed in order: an MLP's backward product δ·Wᵀ (256×10 by 10×512) took cuBLAS two kernels,
# about 10 µs of an H100's time, for 1.3M multiply-adds
SHALLOW_DEPTH = 16



def _is_small(ctx: FuncLowering, sizes: list[Index], depth: Index, rows_contiguous: bool) -> Value:
    """An i1 the host computes from the sizes: the product takes `_warp_per_element`."""
    lb = ctx.lb
    outputs = lb.const(1)
    for n in sizes:
        outputs = lb.mul(outputs, n)

    few = lb.scalar("and", [lb.at_most(outputs, FEW_OUTPUTS), lb.at_most(depth, FEW_DEPTH)])
    if not rows_contiguous:  # the lanes read down the columns of a transposed view: a bound on the traffic
        few = lb.scalar("and", [few, lb.at_most(lb.mul(outputs, depth), STRIDED_FEW_ELEMENTS)])
    small = lb.scalar("and", [lb.at_most(outputs, SMALL_OUTPUTS), lb.at_most(depth, SMALL_DEPTH)])
    return lb.scalar("or", [small, few])


def _warp_per_element(ctx: FuncLowering, op: Operation, a: Value, b: Value, out: Value, sizes: list[Index],
                      alpha: float, beta: float, c: Value | None, bias: Value | None,
                      epilogue: str | None) -> None:
    """out = f(alpha·a·b + beta·(c or the broadcast bias)), a warp per element of out."""
    lb = ctx.lb
    k = ctx.sizes_of(a)[-1]
    n_rows = 1 if a.type.rank == 2 else 0
    if bias is not None:
        _check_accumulator(ctx, op, bias, sizes)
    finish = alpha != 1.0 or c is not None or bias is not None or epilogue is not None
    # (the sums land in a buffer of their own where there is an accumulator: it may be the
    # result's own storage at run time, as an in-place update of a shared variable makes it)
    sums = ctx.alloc(op.results[0].type, sizes) if c is not None else out

    def terms(idx: list[Index]) -> list[Value]:
        rows, cols, q = idx[:n_rows], idx[n_rows:-1], idx[-1]
        return [lb.scalar("mul", [lb.load(a, rows + [q]), lb.load(b, [q] + cols)])]

    def apply(ivs: list[Index], values: list[Value]) -> None:
        v = scale(lb, values[0], alpha)
        if c is not None:
            v = lb.scalar("add", [v, scale(lb, lb.load(c, ivs), beta)])
        lb.store(_bias_and_epilogue(ctx, op, v, ivs, bias, beta, epilogue), out, ivs)

    device_reduce(ctx, "sum", [*sizes, k], [len(sizes)], terms, [sums], out.type.element,
                  epilogue=apply if finish else None)


def _thread_per_element(ctx: FuncLowering, op: Operation, a: Value, b: Value, out: Value, sizes: list[Index],
                        alpha: float, beta: float, c: Value | None, bias: Value | None,
                        epilogue: str | None) -> None:
    """out = f(alpha·a·b + beta·(c or the broadcast bias)), one thread per element of out
    (which may be c's storage: each thread reads its own element before writing it)."""
    lb = ctx.lb
    k = ctx.sizes_of(a)[-1]
    n_rows = 1 if a.type.rank == 2 else 0
    if bias is not None:
        _check_accumulator(ctx, op, bias, sizes)
    element = out.type.element
    with ctx.nest(sizes, out.type.device) as ivs:
        rows, cols = ivs[:n_rows], ivs[n_rows:]
        v = scale(lb, dot_loop(lb, k, lambda q: lb.load(a, rows + [q]), lambda q: lb.load(b, [q] + cols), element),
                  alpha)
        if c is not None:
            v = lb.scalar("add", [v, scale(lb, lb.load(c, ivs), beta)])
        lb.store(_bias_and_epilogue(ctx, op, v, ivs, bias, beta, epilogue), out, ivs)


def _library_call(ctx: FuncLowering, op: Operation, a: Value, b: Value, out: Value, sizes: list[Index],
                  alpha: float, beta: float, c: Value | None, c_in: Value | None, bias: Value | None,
                  epilogue: str | None) -> None:
    """One `gpu.gemm` (cuBLAS), then the bias and the epilogue in one elementwise pass."""
    read_c = c is not None and bias is None
    attrs = {"alpha": FloatAttr(float(alpha)), "beta": FloatAttr(float(beta) if read_c else 0.0)}
    if config.allow_tf32 and out.type.element == f32:
        attrs["tf32"] = UnitAttr()
    operands = [_blas_operand(ctx, a), _blas_operand(ctx, b), out] + ([c_in] if c_in is not None else [])
    ctx.lb.b.create(G.GemmOp, operands, attrs, result_types=[])
    if epilogue is not None or bias is not None:
        _after(ctx, op, out, sizes, epilogue, bias, beta)


def _after(ctx: FuncLowering, op: Operation, out: Value, sizes: list[Index], epilogue: str | None,
           bias: Value | None, beta: float) -> None:
    """out = f(out + beta·bias) in one pass (bias broadcast along its static-1 dims; f the
    identity without `epilogue`)."""
    lb = ctx.lb
    if bias is not None:
        _check_accumulator(ctx, op, bias, sizes)
    with ctx.nest(sizes, out.type.device) as ivs:
        lb.store(_bias_and_epilogue(ctx, op, lb.load(out, ivs), ivs, bias, beta, epilogue), out, ivs)


def _bias_and_epilogue(ctx: FuncLowering, op: Operation, v: Value, ivs: list[Index], bias: Value | None,
                       beta: float, epilogue: str | None) -> Value:
    """f(v + beta·bias[ivs]) (the bias broadcast along its static-1 dims; f the identity
    without `epilogue`)."""
    lb = ctx.lb
    if bias is not None:
        zero = lb.const(0)
        at = [zero if d == 1 else iv for d, iv in zip(op.operands[2].type.shape, ivs)]
        v = lb.scalar("add", [v, scale(lb, lb.load(bias, at), beta)])
    return lb.scalar(epilogue, [v]) if epilogue is not None else v


def _whole(ctx: FuncLowering, op: Operation, c: Value, sizes: list[Index]) -> bool:
    """Whether accumulator c is a dense buffer of the result's shape (not a broadcast row)."""
    if c not in ctx.contiguous or c.type.shape != op.results[0].type.shape:
        return False
    _check_accumulator(ctx, op, c, sizes)
    return True


def _check_accumulator(ctx: FuncLowering, op: Operation, c: Value, sizes: list[Index]) -> None:
    """The accumulator's sizes match the product's, but along its static-1 (broadcast) dims."""
    c_type = op.operands[2].type
    for axis, (n, m) in enumerate(zip(sizes, ctx.sizes_of(c))):
        if c_type.shape[axis] != 1:
            ctx.lb.assert_eq(n, m, f"'{op.op_name}': the accumulator differs from the product in dim {axis}")


def _into(ctx: FuncLowering, op: Operation, c: Value, out: Value, sizes: list[Index]) -> None:
    """out = c (broadcast along c's static-1 dims), unless c is out's own buffer."""
    if c is out:
        return
    lb = ctx.lb
    c_type = op.operands[2].type
    _check_accumulator(ctx, op, c, sizes)
    zero = lb.const(0)
    with ctx.nest(sizes, out.type.device) as ivs:
        idx = [zero if d == 1 else iv for d, iv in zip(c_type.shape, ivs)]
        lb.store(lb.load(c, idx), out, ivs)


def _blas_operand(ctx: FuncLowering, m: Value) -> Value:
    """`m` itself when its layout has a unit stride along an axis (a dense buffer, a transpose
    of one, a slice of one with unit steps), else a dense copy."""
    if _unit_stride(ctx, m):
        return m
    return ctx.copy_to_new(m, MemRefType(m.type.shape, m.type.element, device=m.type.device))


def _unit_stride(ctx: FuncLowering, m: Value) -> bool:
    """Does view `m` keep a unit stride: walking its views back to a dense buffer, the buffer's
    innermost axis survives into `m` (not dropped by indexing) and no axis that survives is
    stepped? (A transpose or a permutation moves axes; indexing drops them: a row of a
    sequence, even of a reversed one, keeps its unit stride; a column does not.)"""
    live = list(range(m.type.rank))  # m's axes, as axes of the view being walked
    while m not in ctx.contiguous:
        owner = m.owner
        if isinstance(owner, L.TransposeOp):
            live = [owner.perm[a] for a in live]
        elif isinstance(owner, L.BroadcastOp) and (sorted(owner.dims) == list(range(m.type.rank))
                                                   or _drops_indexed_axes(owner)):
            live = [owner.dims[a] for a in live]
        elif isinstance(owner, L.SubviewOp):
            steps = owner.operands[1 + 2 * owner.operand(0).type.rank:]
            if any(LoopBuilder.static_value(steps[a]) != 1 for a in live):
                return False
        else:
            return False
        m = owner.operand(0)
    return m.type.rank - 1 in live


def _drops_indexed_axes(view: L.BroadcastOp) -> bool:
    """Is `view` `indexed_view`'s form: a subview whose indexed axes (count 1) it drops, keeping
    the other axes at the subview's own sizes (nothing broadcast, the strides kept)?"""
    sub = view.operand(0).owner
    dims = list(view.dims)
    if not isinstance(sub, L.SubviewOp) or any(d < 0 for d in dims) or dims != sorted(set(dims)):
        return False
    rank = sub.operand(0).type.rank
    counts = sub.operands[1 + rank:1 + 2 * rank]
    dropped = [a for a in range(rank) if a not in dims]
    return all(LoopBuilder.static_value(counts[a]) == 1 for a in dropped) \
        and all(view.operand(1 + i) is counts[d] for i, d in enumerate(dims))


def _integer_product(ctx: FuncLowering, a: Value, b: Value, out: Value, sizes: list[Index],
                     alpha: float, beta: float) -> None:
    """out = alpha·a·b + beta·out for integers: one thread per result element."""
    lb = ctx.lb
    k = ctx.sizes_of(a)[-1]
    element = out.type.element
    with ctx.nest(sizes, out.type.device) as ivs:
        rows, cols = (ivs[:1], ivs[1:]) if a.type.rank == 2 else ([], ivs)
        acc = dot_loop(lb, k, lambda q: lb.load(a, rows + [q]), lambda q: lb.load(b, [q] + cols), element)
        if alpha != 1.0:
            acc = lb.scalar("mul", [acc, lb.scalar_const(int(alpha), element)])
        if beta != 0.0:
            acc = lb.scalar("add", [acc, lb.scalar("mul", [lb.load(out, ivs), lb.scalar_const(int(beta), element)])])
        lb.store(acc, out, ivs)
