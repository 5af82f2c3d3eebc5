"""Loop lowerings of the convolution ops (`tensor.conv2d`, `conv2d_grad_input`,
`conv2d_grad_filters`): per image, an im2col copy into a K×P matrix (K = C·kh·kw filter taps,
P = OH·OW output pixels; row (c, a, b) holds the image pixels that tap a, b of channel c
meets) and the register-tiled gemm kernel (`gemm.py`) with its own parallel loop:

    forward        y[n]  (F×P) = f(Wm (F×K) · cols (K×P) + b)    Wm = w viewed as F×K; bias, f optional
    filters        gW    (F×K) += gy[n] (F×P) · colsᵀ (P×K)               (accumulated in place)
    input          dcols (K×P) = Wmᵀ (K×F) · gy[n] (F×P), then col2im adds each tap back
                   (Wmᵀ copied once, so that no image's product packs it again)

An image's cols (Caffe's layout) stays in L2 between the copy and the product, the products
write y and gW where they lie (an image of y is a row block of y viewed as (N·F)×P), and no
transpose is ever materialized. A flipped filter (a true convolution) is read by flipping the
tap a row of cols reads, so Wm is w itself and gW needs no flip either.

Sizes are checked at run time with the user's line (channels, shape hints, an image smaller
than the filter); the geometry is static (attributes), so an unpadded convolution reads the
image without bounds tests.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...dialects import loop as L
from ...dialects.builtin import MemRefType, TensorType
from ...dialects.conv_semantics import conv_geometry
from ...ir.core import Operation, Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering, lowering
from .gemm import gemm as gemm_kernel


FILTER_CHUNKS = 8  # private filter gradients summed at the end (parallel over chunks of the batch)


@dataclass
class Geometry:
    """A convolution's sizes (index values) and static settings, for one op."""

    N: Index
    C: Index
    H: Index
    W: Index
    F: Index
    KH: Index
    KW: Index
    OH: Index
    OW: Index
    strides: tuple[int, int]
    pads: tuple[int, int]
    dilation: tuple[int, int]
    flip: bool

    @property
    def taps(self) -> tuple[Index, Index, Index]:
        return self.C, self.KH, self.KW


def geometry(ctx: FuncLowering, op: Operation, x: Value, w: Value) -> Geometry:
    """The sizes of images `x` and filters `w`, checked against each other, the shape hints and
    the output size, which must be at least 1 (asserts naming the op, at the user's line)."""
    lb = ctx.lb
    strides, pads, dilation, flip = conv_geometry(op.attributes)
    name = op.op_name
    known = []  # the sizes, static where a shape hint gives them (checked against the data)
    for key, buf, what in (("input_shape", x, "images"), ("filter_shape", w, "filters")):
        sizes = list(ctx.sizes_of(buf))
        for axis, h in enumerate(op.attributes.get(key) or ()):
            if h >= 0:
                lb.assert_eq(sizes[axis], lb.const(h), f"'{name}': the {what} differ from {key} in dim {axis}")
                sizes[axis] = lb.const(h)
        known.append(sizes)
    (N, C, H, W), (F, C2, KH, KW) = known
    lb.assert_eq(C, C2, f"'{name}': the images and the filters have different numbers of channels")
    out = []
    for a, (size, k) in enumerate(((H, KH), (W, KW))):
        # room = padded size - dilated filter size; negative when the filter does not fit
        span = lb.add(lb.mul(lb.const(dilation[a]), lb.sub(k, lb.const(1))), lb.const(1))
        room = lb.sub(lb.add(size, lb.const(2 * pads[a])), span)
        lb.assert_nonnegative(room, f"'{name}': the images (padded by {pads[a]}) have fewer "
                                    f"{('rows', 'columns')[a]} than the dilated filter")
        out.append(lb.add(lb.floordiv(room, lb.const(strides[a])), lb.const(1)))
    return Geometry(N, C, H, W, F, KH, KW, out[0], out[1], strides, pads, dilation, flip)


def _count(lb: LoopBuilder, sizes) -> Index:
    total = lb.const(1)
    for s in sizes:
        total = lb.mul(total, s)
    return total


def as_matrix(ctx: FuncLowering, m: Value, rows: Index, cols: Index) -> Value:
    """A contiguous buffer viewed as a rows×cols matrix (no copy)."""
    t = m.type
    return ctx.lb.create(L.ReshapeOp, [m, rows, cols], {}, MemRefType((None, None), t.element, device=t.device))


def row_block(lb: LoopBuilder, m: Value, first: Index, rows: Index, cols: Index) -> Value:
    """Rows [first, first + rows) of matrix `m`, a view."""
    zero, one = lb.const(0), lb.const(1)
    return lb.create(L.SubviewOp, [m, first, zero, rows, cols, one, one], {},
                     L.view_type([None, None], m.type.element))


def _tap_pixel(lb: LoopBuilder, g: Geometry, axis: int, tap: Index, out_index: Index) -> Index:
    """The image row (axis 0) or column (1) that output pixel `out_index` reads through filter
    tap `tap` (before bounds): o·s - p + ā·d, ā the tap read flipped when the filter is."""
    k = (g.KH, g.KW)[axis]
    t = lb.sub(lb.sub(k, lb.const(1)), tap) if g.flip else tap
    return lb.add(lb.mul(out_index, lb.const(g.strides[axis])),
                  lb.sub(lb.mul(t, lb.const(g.dilation[axis])), lb.const(g.pads[axis])))


def _inside(lb: LoopBuilder, i: Index, size: Index) -> tuple[Value, Index]:
    """(i in [0, size), i clamped into it)."""
    ok = lb.scalar("and", [lb.scalar("ge", [i, lb.const(0)]), lb.scalar("lt", [i, size])])
    return ok, lb.max(lb.const(0), lb.min(i, lb.sub(size, lb.const(1))))


def _walk_taps(ctx: FuncLowering, g: Geometry, body) -> None:
    """For every row (c, a, b) of an image's cols, in parallel, and every output pixel (oh, ow):
    body(q, p, c, ih, iw, inside) with the row and column of cols, the image position the pair
    meets (clamped) and whether it lies inside the image (None: always, no padding)."""
    lb = ctx.lb
    padded = any(g.pads)
    with lb.parallel(list(g.taps)) as (c, a, b):
        q = lb.add(lb.mul(lb.add(lb.mul(c, g.KH), a), g.KW), b)
        with lb.for_(lb.const(0), g.OH) as oh:
            ih = _tap_pixel(lb, g, 0, a, oh.iv)
            row_ok, ih_c = _inside(lb, ih, g.H) if padded else (None, ih)
            with lb.for_(lb.const(0), g.OW) as ow:
                iw = _tap_pixel(lb, g, 1, b, ow.iv)
                p = lb.add(lb.mul(oh.iv, g.OW), ow.iv)
                if padded:
                    col_ok, iw_c = _inside(lb, iw, g.W)
                    body(q, p, c, ih_c, iw_c, lb.scalar("and", [row_ok, col_ok]))
                else:
                    body(q, p, c, ih, iw, None)


def im2col(ctx: FuncLowering, g: Geometry, x: Value, n: Index, cols: Value, element: ScalarType) -> None:
    """cols[(c, a, b), (oh, ow)] = image n's pixel that tap (a, b) of channel c meets at output
    pixel (oh, ow), 0 in the padding."""
    lb = ctx.lb

    def body(q, p, c, ih, iw, inside):
        v = lb.load(x, [n, c, ih, iw])
        if inside is not None:
            v = lb.scalar("select", [inside, v, lb.scalar_const(0, element)])
        lb.store(v, cols, [q, p])
    _walk_taps(ctx, g, body)


def col2im(ctx: FuncLowering, g: Geometry, dcols: Value, n: Index, gx: Value, element: ScalarType) -> None:
    """gx[n] += every entry of dcols at the image pixel its (tap, output pixel) meets; the
    parallel loop is over the channels, so no two iterations write one pixel."""
    lb = ctx.lb
    padded = any(g.pads)
    zero_v = lb.scalar_const(0, element)
    with lb.parallel([g.C]) as (c,):
        with lb.for_(lb.const(0), g.H) as i:  # the channel's plane first zeroed
            with lb.for_(lb.const(0), g.W) as j:
                lb.store(zero_v, gx, [n, c, i.iv, j.iv])
        with lb.for_(lb.const(0), g.KH) as a:
            with lb.for_(lb.const(0), g.KW) as b:
                q = lb.add(lb.mul(lb.add(lb.mul(c, g.KH), a.iv), g.KW), b.iv)
                with lb.for_(lb.const(0), g.OH) as oh:
                    ih = _tap_pixel(lb, g, 0, a.iv, oh.iv)
                    row_ok, ih_c = _inside(lb, ih, g.H) if padded else (None, ih)
                    with lb.for_(lb.const(0), g.OW) as ow:
                        iw = _tap_pixel(lb, g, 1, b.iv, ow.iv)
                        v = lb.load(dcols, [q, lb.add(lb.mul(oh.iv, g.OW), ow.iv)])
                        if padded:  # a pixel of the padding adds 0 to the clamped one
                            col_ok, iw = _inside(lb, iw, g.W)
                            v = lb.scalar("select", [lb.scalar("and", [row_ok, col_ok]), v, zero_v])
                            ih_at = ih_c
                        else:
                            ih_at = ih
                        idx = [n, c, ih_at, iw]
                        lb.store(lb.scalar("add", [lb.load(gx, idx), v]), gx, idx)


def _cols_buffer(ctx: FuncLowering, g: Geometry, element: ScalarType) -> Value:
    """A K×P buffer, made inside the parallel loop over images: one per thread's image."""
    lb = ctx.lb
    cols = ctx.alloc(TensorType((None, None), element), [_count(lb, g.taps), lb.mul(g.OH, g.OW)])
    cols.name_hint = "cols"
    return cols


def _load2(lb: LoopBuilder, m: Value, transposed: bool = False):
    return (lambda i, j: lb.load(m, [j, i])) if transposed else (lambda i, j: lb.load(m, [i, j]))


@lowering("tensor.conv2d")
def _conv2d(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    x, w = ctx.operand(op, 0), ctx.operand(op, 1)
    g = geometry(ctx, op, x, w)
    t: TensorType = op.results[0].type
    element = t.element
    K, P = _count(lb, g.taps), lb.mul(g.OH, g.OW)
    wm = as_matrix(ctx, ctx.make_contiguous(w), g.F, K)
    y = ctx.alloc(t, [g.N, g.F, g.OH, g.OW])
    y_rows = as_matrix(ctx, y, lb.mul(g.N, g.F), P)
    load_c, beta = None, 0.0
    if op.num_operands == 3:  # a bias per filter: a column broadcast along the output pixels
        b = ctx.operand(op, 2)
        lb.assert_eq(ctx.sizes_of(b)[0], g.F, f"'{op.op_name}': the bias and the filters differ in number")
        load_c, beta = (lambda i, j: lb.load(b, [i])), 1.0
    epilogue = op.attributes.get("epilogue")
    with lb.parallel([g.N]) as (n,):
        cols = _cols_buffer(ctx, g, element)
        im2col(ctx, g, x, n, cols, element)
        out = row_block(lb, y_rows, lb.mul(n, g.F), g.F, P)
        gemm_kernel(ctx, wm, False, _load2(lb, cols), False, g.F, K, P, out, element, 1.0, load_c, beta,
                    epilogue.value if epilogue is not None else None)
    ctx.bind(op.results[0], y, ctx.sizes_of(y), contiguous=True)


def _output_gradient(ctx: FuncLowering, op: Operation, gy: Value, g: Geometry) -> Value:
    """gy, checked to have the convolution's output shape, as a contiguous (N·F)×P matrix."""
    lb = ctx.lb
    for axis, (a, b) in enumerate(zip(ctx.sizes_of(gy), (g.N, g.F, g.OH, g.OW))):
        lb.assert_eq(a, b, f"'{op.op_name}': the output gradient differs from the convolution's output in dim {axis}")
    return as_matrix(ctx, ctx.make_contiguous(gy), lb.mul(g.N, g.F), lb.mul(g.OH, g.OW))


@lowering("tensor.conv2d_grad_filters")
def _conv2d_grad_filters(ctx: FuncLowering, op: Operation) -> None:
    """Each of FILTER_CHUNKS chunks of the images (in parallel) sums its images' products into a
    private gW; then the chunks are added in a fixed order (the same bits for any thread count)."""
    lb = ctx.lb
    x, gy, w = (ctx.operand(op, i) for i in range(3))
    g = geometry(ctx, op, x, w)
    t: TensorType = op.results[0].type
    element = t.element
    K, P = _count(lb, g.taps), lb.mul(g.OH, g.OW)
    gy_rows = _output_gradient(ctx, op, gy, g)
    chunks = lb.const(FILTER_CHUNKS)
    partial = ctx.alloc(TensorType((FILTER_CHUNKS, None, None), element), [chunks, g.F, K])
    partial_rows = as_matrix(ctx, partial, lb.mul(chunks, g.F), K)
    zero_v = lb.scalar_const(0, element)
    with lb.parallel([chunks]) as (chunk,):
        mine = row_block(lb, partial_rows, lb.mul(chunk, g.F), g.F, K)
        with lb.for_(lb.const(0), g.F) as i:
            with lb.for_(lb.const(0), K) as j:
                lb.store(zero_v, mine, [i.iv, j.iv])
        cols = _cols_buffer(ctx, g, element)
        first = lb.floordiv(lb.mul(chunk, g.N), chunks)
        last = lb.floordiv(lb.mul(lb.add(chunk, lb.const(1)), g.N), chunks)
        with lb.for_(first, last) as n:
            im2col(ctx, g, x, n.iv, cols, element)
            gy_n = row_block(lb, gy_rows, lb.mul(n.iv, g.F), g.F, P)
            gemm_kernel(ctx, gy_n, False, _load2(lb, cols, transposed=True), True, g.F, P, K, mine,
                        element, 1.0, _load2(lb, mine), 1.0)
    gw = ctx.alloc(t, [g.F, g.C, g.KH, g.KW])
    gwm = as_matrix(ctx, gw, g.F, K)
    with lb.parallel([g.F]) as (i,):
        with lb.for_(lb.const(0), K) as j:
            total = lb.load(partial, [lb.const(0), i, j.iv])
            for c in range(1, FILTER_CHUNKS):
                total = lb.scalar("add", [total, lb.load(partial, [lb.const(c), i, j.iv])])
            lb.store(total, gwm, [i, j.iv])
    ctx.bind(op.results[0], gw, ctx.sizes_of(gw), contiguous=True)


@lowering("tensor.conv2d_grad_input")
def _conv2d_grad_input(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    gy, w, x = (ctx.operand(op, i) for i in range(3))
    g = geometry(ctx, op, x, w)
    t: TensorType = op.results[0].type
    element = t.element
    K, P = _count(lb, g.taps), lb.mul(g.OH, g.OW)
    gy_rows = _output_gradient(ctx, op, gy, g)
    wm = as_matrix(ctx, ctx.make_contiguous(w), g.F, K)
    wt = ctx.alloc(TensorType((None, None), element), [K, g.F])  # Wmᵀ once: the products read it in place
    with lb.parallel([K]) as (q,):
        with lb.for_(lb.const(0), g.F) as f:
            lb.store(lb.load(wm, [f.iv, q]), wt, [q, f.iv])
    gx = ctx.alloc(t, [g.N, g.C, g.H, g.W])
    with lb.parallel([g.N]) as (n,):
        dcols = _cols_buffer(ctx, g, element)
        gy_n = row_block(lb, gy_rows, lb.mul(n, g.F), g.F, P)
        gemm_kernel(ctx, wt, False, _load2(lb, gy_n), False, K, g.F, P, dcols,
                    element, 1.0, None, 0.0)
        col2im(ctx, g, dcols, n, gx, element)
    ctx.bind(op.results[0], gx, ctx.sizes_of(gx), contiguous=True)
