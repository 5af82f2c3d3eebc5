"""Loop lowerings of the convolution ops (`tensor.conv2d`, `conv2d_grad_input`,
`conv2d_grad_filters`): an im2col copy into a K×P matrix per image (K = C·kh·kw filter taps,
P = OH·OW output pixels; row (c, a, b) holds the image pixels that tap a, b of channel c
meets) and the register-tiled gemm kernel (`gemm.py`):

    forward        y[n]  (F×P) = f(Wm (F×K) · cols (K×P) + b)    Wm = w viewed as F×K; bias, f optional
                   (cols written straight into the gemm's panels where they hold whole rows: `conv_panels.py`)
    filters        gWᵀ   (K×F) += cols (K × B·P) · gyᵀ (B·P × F)     a block of B images side by side
                   (or gW (F×K) += gy[n] (F×P) · colsᵀ (P×K) where that packs fewer panels)
    input          dcols (K×P) = Wmᵀ (K×F) · gy[n] (F×P), then col2im adds each tap back
                   (Wmᵀ copied once, so that no image's product packs it again)

An image's cols (Caffe's layout) stays in L2 between the copy and the product, the products
write y and gW where they lie (an image of y is a row block of y viewed as (N·F)×P), and the
only transposes copied are the small ones (gy's block, Wm, gWᵀ's sum): in the filter gradient
cols is the product's A, read in place, so its K·P values are not repacked (gy's block is
F·P). A flipped filter (a true convolution) is read by flipping the tap a row of cols reads,
so Wm is w itself and gW needs no flip either.

Sizes are checked at run time with the user's line (channels, shape hints, an image smaller
than the filter); the geometry is static (attributes), so an unpadded convolution reads the
image without bounds tests.
"""
from __future__ import annotations

from ...dialects import loop as L
from ...dialects.builtin import MemRefType, TensorType
from ...ir.core import Operation, Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering, lowering
from .conv_taps import Geometry, count, geometry, inside, tap_pixel
from .conv_panels import im2col_panels, whole_rows
from .gemm import gemm as gemm_kernel, gemm_packed, panel_width


FILTER_CHUNKS = 8  # private filter gradients summed at the end (parallel over chunks of the batch)
FILTER_BLOCK_PIXELS = 256  # output pixels of a block of images in the filter gradient (one slice of k)


def as_matrix(ctx: FuncLowering, m: Value, rows: Index, cols: Index) -> Value:
    """A contiguous buffer viewed as a rows×cols matrix (no copy)."""
    t = m.type
    return ctx.lb.create(L.ReshapeOp, [m, rows, cols], {}, MemRefType((None, None), t.element, device=t.device))


def row_block(lb: LoopBuilder, m: Value, first: Index, rows: Index, cols: Index) -> Value:
    """Rows [first, first + rows) of matrix `m`, a view."""
    zero, one = lb.const(0), lb.const(1)
    return lb.create(L.SubviewOp, [m, first, zero, rows, cols, one, one], {},
                     L.view_type([None, None], m.type.element))


def _walk_taps(ctx: FuncLowering, g: Geometry, body) -> None:
    """For every row (c, a, b) of an image's cols, in parallel, and every output pixel (oh, ow):
    body(q, p, c, ih, iw, inside) with the row and column of cols, the image position the pair
    meets (clamped) and whether it lies inside the image (None: always, no padding)."""
    lb = ctx.lb
    padded = any(g.pads)
    with lb.parallel(list(g.taps)) as (c, a, b):
        q = lb.add(lb.mul(lb.add(lb.mul(c, g.KH), a), g.KW), b)
        with lb.for_(lb.const(0), g.OH) as oh:
            ih = tap_pixel(lb, g, 0, a, oh.iv)
            row_ok, ih_c = inside(lb, ih, g.H) if padded else (None, ih)
            with lb.for_(lb.const(0), g.OW) as ow:
                iw = tap_pixel(lb, g, 1, b, ow.iv)
                p = lb.add(lb.mul(oh.iv, g.OW), ow.iv)
                if padded:
                    col_ok, iw_c = inside(lb, iw, g.W)
                    body(q, p, c, ih_c, iw_c, lb.scalar("and", [row_ok, col_ok]))
                else:
                    body(q, p, c, ih, iw, None)


def im2col(ctx: FuncLowering, g: Geometry, x: Value, n: Index, cols: Value, element: ScalarType,
           column: Index | None = None) -> None:
    """cols[(c, a, b), column + (oh, ow)] = image n's pixel that tap (a, b) of channel c meets at
    output pixel (oh, ow), 0 in the padding."""
    lb = ctx.lb

    def body(q, p, c, ih, iw, inside):
        v = lb.load(x, [n, c, ih, iw])
        if inside is not None:
            v = lb.scalar("select", [inside, v, lb.scalar_const(0, element)])
        lb.store(v, cols, [q, p if column is None else lb.add(p, column)])
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
                    ih = tap_pixel(lb, g, 0, a.iv, oh.iv)
                    row_ok, ih_c = inside(lb, ih, g.H) if padded else (None, ih)
                    with lb.for_(lb.const(0), g.OW) as ow:
                        iw = tap_pixel(lb, g, 1, b.iv, ow.iv)
                        v = lb.load(dcols, [q, lb.add(lb.mul(oh.iv, g.OW), ow.iv)])
                        if padded:  # a pixel of the padding adds 0 to the clamped one
                            col_ok, iw = inside(lb, iw, g.W)
                            v = lb.scalar("select", [lb.scalar("and", [row_ok, col_ok]), v, zero_v])
                            ih_at = ih_c
                        else:
                            ih_at = ih
                        idx = [n, c, ih_at, iw]
                        lb.store(lb.scalar("add", [lb.load(gx, idx), v]), gx, idx)


def _cols_buffer(ctx: FuncLowering, g: Geometry, element: ScalarType) -> Value:
    """A K×P buffer, made inside the parallel loop over images: one per thread's image."""
    lb = ctx.lb
    cols = ctx.alloc(TensorType((None, None), element), [count(lb, g.taps), lb.mul(g.OH, g.OW)])
    cols.name_hint = "cols"
    return cols


def _load2(lb: LoopBuilder, m: Value, transposed: bool = False):
    return (lambda i, j: lb.load(m, [j, i])) if transposed else (lambda i, j: lb.load(m, [i, j]))


@lowering("tensor.conv2d")
def _conv2d(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    x, w = ctx.make_contiguous(ctx.operand(op, 0)), ctx.operand(op, 1)
    g = geometry(ctx, op, x, w)
    t: TensorType = op.results[0].type
    element = t.element
    K, P = count(lb, g.taps), lb.mul(g.OH, g.OW)
    wm = as_matrix(ctx, ctx.make_contiguous(w), g.F, K)
    y = ctx.alloc(t, [g.N, g.F, g.OH, g.OW])
    y_rows = as_matrix(ctx, y, lb.mul(g.N, g.F), P)
    load_c, beta = None, 0.0
    if op.num_operands == 3:  # a bias per filter: a column broadcast along the output pixels
        b = ctx.operand(op, 2)
        lb.assert_eq(ctx.sizes_of(b)[0], g.F, f"'{op.op_name}': the bias and the filters differ in number")
        load_c, beta = (lambda i, j: lb.load(b, [i])), 1.0
    epilogue = op.attributes.get("epilogue")
    f = epilogue.value if epilogue is not None else None
    NR = panel_width(ctx, element)
    with lb.parallel([g.N]) as (n,):
        out = row_block(lb, y_rows, lb.mul(n, g.F), g.F, P)
        if whole_rows(lb, g, NR):
            packed, panels = im2col_panels(ctx, g, x, n, element, NR)
            gemm_packed(ctx, wm, packed, panels, g.F, K, P, out, element, load_c, beta, f)
        else:
            cols = _cols_buffer(ctx, g, element)
            im2col(ctx, g, x, n, cols, element)
            gemm_kernel(ctx, wm, False, _load2(lb, cols), False, g.F, K, P, out, element, 1.0, load_c, beta, f,
                        fit_rows=True)
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
    private gW (or gWᵀ); then the chunks are added in a fixed order (the same bits for any
    thread count) as gW is written. Of the two products, the one that packs fewer panels:

        by columns   gWᵀ (K×F) += cols (K × B·P) · gyᵀ (B·P × F)   B images side by side; packs gy
        by rows      gW  (F×K) += gy[n] (F×P) · colsᵀ (P×K)        packs cols (K·P an image)

    (LeNet's second layer, K = 500 taps and F = 50 filters, by columns; its first, K = 25 and
    F = 20, by rows: one panel either way, and fewer tiles)."""
    lb = ctx.lb
    x, gy, w = (ctx.operand(op, i) for i in range(3))
    x = ctx.make_contiguous(x)
    g = geometry(ctx, op, x, w)
    t: TensorType = op.results[0].type
    element = t.element
    zero, one = lb.const(0), lb.const(1)
    K = count(lb, g.taps)
    gy_rows = _output_gradient(ctx, op, gy, g)
    NR = panel_width(ctx, element)
    k_static, f_static = lb.static_value(K), lb.static_value(g.F)
    by_rows = k_static is not None and f_static is not None and -(-k_static // NR) <= -(-f_static // NR)
    chunks = lb.const(FILTER_CHUNKS)
    shape = (g.F, K) if by_rows else (K, g.F)
    partial = ctx.alloc(TensorType((FILTER_CHUNKS, None, None), element), [chunks, *shape])
    partial_rows = as_matrix(ctx, partial, lb.mul(chunks, shape[0]), shape[1])
    zero_v = lb.scalar_const(0, element)
    with lb.parallel([chunks]) as (chunk,):
        mine = row_block(lb, partial_rows, lb.mul(chunk, shape[0]), *shape)
        with lb.for_(zero, shape[0]) as i:
            with lb.for_(zero, shape[1]) as j:
                lb.store(zero_v, mine, [i.iv, j.iv])
        first = lb.floordiv(lb.mul(chunk, g.N), chunks)
        last = lb.floordiv(lb.mul(lb.add(chunk, one), g.N), chunks)
        if by_rows:
            _filters_by_rows(ctx, g, x, gy_rows, first, last, mine, element)
        else:
            _filters_by_columns(ctx, g, x, gy_rows, first, last, mine, element)
    gw = ctx.alloc(t, [g.F, g.C, g.KH, g.KW])
    gwm = as_matrix(ctx, gw, g.F, K)
    with lb.parallel([g.F]) as (i,):
        with lb.for_(zero, K) as j:
            at = [i, j.iv] if by_rows else [j.iv, i]
            total = lb.load(partial, [zero, *at])
            for c in range(1, FILTER_CHUNKS):
                total = lb.scalar("add", [total, lb.load(partial, [lb.const(c), *at])])
            lb.store(total, gwm, [i, j.iv])
    ctx.bind(op.results[0], gw, ctx.sizes_of(gw), contiguous=True)


def _filters_by_rows(ctx: FuncLowering, g: Geometry, x: Value, gy_rows: Value, first: Index, last: Index,
                     mine: Value, element: ScalarType) -> None:
    """mine (F×K) += gy[n] · cols[n]ᵀ for the images n in [first, last)."""
    lb = ctx.lb
    K, P = count(lb, g.taps), lb.mul(g.OH, g.OW)
    cols = _cols_buffer(ctx, g, element)
    with lb.for_(first, last) as n:
        im2col(ctx, g, x, n.iv, cols, element)
        gy_n = row_block(lb, gy_rows, lb.mul(n.iv, g.F), g.F, P)
        gemm_kernel(ctx, gy_n, False, _load2(lb, cols, transposed=True), True, g.F, P, K, mine,
                    element, 1.0, _load2(lb, mine), 1.0, fit_rows=True)


def _filters_by_columns(ctx: FuncLowering, g: Geometry, x: Value, gy_rows: Value, first: Index, last: Index,
                        mine: Value, element: ScalarType) -> None:
    """mine (K×F) += cols · gyᵀ over blocks of the images in [first, last), each block's images
    side by side in cols (FILTER_BLOCK_PIXELS output pixels: one slice of the product's k)."""
    lb = ctx.lb
    zero, one = lb.const(0), lb.const(1)
    K, P = count(lb, g.taps), lb.mul(g.OH, g.OW)
    block = lb.max(one, lb.floordiv(lb.const(FILTER_BLOCK_PIXELS), P))
    cols = ctx.alloc(TensorType((None, None), element), [K, lb.mul(block, P)])
    cols.name_hint = "cols"
    blocks = lb.floordiv(lb.add(lb.sub(last, first), lb.sub(block, one)), block)
    with lb.for_(zero, blocks) as bi:
        n0 = lb.add(first, lb.mul(bi.iv, block))
        images = lb.min(block, lb.sub(last, n0))
        with lb.for_(zero, images) as j:
            im2col(ctx, g, x, lb.add(n0, j.iv), cols, element, column=lb.mul(j.iv, P))

        def gy_t(r: Index, f: Index) -> Value:  # gyᵀ of the block: row r = (image, pixel)
            image = lb.floordiv(r, P)
            return lb.load(gy_rows, [lb.add(lb.mul(lb.add(n0, image), g.F), f), lb.sub(r, lb.mul(image, P))])
        gemm_kernel(ctx, cols, False, gy_t, True, K, lb.mul(images, P), g.F, mine,
                    element, 1.0, _load2(lb, mine), 1.0)


@lowering("tensor.conv2d_grad_input")
def _conv2d_grad_input(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    gy, w, x = (ctx.operand(op, i) for i in range(3))
    g = geometry(ctx, op, x, w)
    t: TensorType = op.results[0].type
    element = t.element
    K, P = count(lb, g.taps), lb.mul(g.OH, g.OW)
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
