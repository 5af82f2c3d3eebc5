"""im2col straight into the gemm's panel layout: image n's K×P matrix of filter taps by output
pixels (`conv.py`) written as `Bp[p // NR, q, p % NR]`, the layout `gemm.pack_panels` would copy
it into. The forward convolution then copies each image once instead of twice (the copy was
a third of the product's time at LeNet's second layer).

Taken where a panel holds whole output rows (NR a multiple of OW: LeNet's second layer, 8
pixels a row, four rows a panel): the innermost loop copies one row, a static run along one
image row and one panel row (both contiguous: it vectorizes without a remainder); the columns
past P in the last panel are zero. Rows cut where a panel ends left runs of dynamic length that
ran scalar (the first layer's rows of 24: 10.0 → 11.3 ms), so other widths keep the cols
matrix and the gemm's own packing."""
from __future__ import annotations

from ...dialects.builtin import MemRefType
from ...ir.core import Value
from ...ir.types import ScalarType
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering
from .conv_taps import Geometry, count, inside, tap_pixel
from .gemm import ceil_div


def whole_rows(lb: LoopBuilder, g: Geometry, NR: int) -> int | None:
    """Output rows a panel holds, when its NR columns are whole rows of a static width (else
    None: the rows would be cut where panels end, into runs too short to vectorize)."""
    ow = lb.static_value(g.OW)
    return NR // ow if ow is not None and NR % ow == 0 else None


def im2col_panels(ctx: FuncLowering, g: Geometry, x: Value, n: Index, element: ScalarType,
                  NR: int) -> tuple[Value, Index]:
    """(Bp, number of panels) for image `n` of `x`: Bp[p // NR, q, p % NR] = the pixel that tap
    q = (c, a, b) meets at output pixel p = (oh, ow), 0 in the padding and past P. Needs
    `whole_rows`: each step copies one output row (a static run of OW)."""
    lb = ctx.lb
    zero, width = lb.const(0), lb.const(NR)
    rows = whole_rows(lb, g, NR)
    assert rows is not None, "im2col_panels needs panels of whole output rows"
    K, P = count(lb, g.taps), lb.mul(g.OH, g.OW)
    panels = ceil_div(lb, P, NR)
    packed = lb.alloc(MemRefType((None, None, NR), element), [panels, K])
    packed.name_hint = "panels"
    last = lb.sub(panels, lb.const(1))
    zero_v = lb.scalar_const(0, element)
    with lb.for_(zero, K) as q:  # the last panel's columns past P
        with lb.for_(lb.sub(P, lb.mul(last, width)), width) as t:
            lb.store(zero_v, packed, [last, q.iv, t.iv])
    padded = any(g.pads)
    with lb.for_(zero, panels) as panel:
        oh0 = lb.mul(panel.iv, lb.const(rows))
        with lb.for_(zero, g.C) as c, lb.for_(zero, g.KH) as a, lb.for_(zero, g.KW) as b:
            q = lb.add(lb.mul(lb.add(lb.mul(c.iv, g.KH), a.iv), g.KW), b.iv)
            with lb.for_(zero, lb.min(lb.const(rows), lb.sub(g.OH, oh0))) as r:
                ih = tap_pixel(lb, g, 0, a.iv, lb.add(oh0, r.iv))
                row_ok, ih = inside(lb, ih, g.H) if padded else (None, ih)
                at = lb.mul(r.iv, g.OW)
                with lb.for_(zero, g.OW) as ow:
                    iw = tap_pixel(lb, g, 1, b.iv, ow.iv)
                    if padded:
                        col_ok, iw = inside(lb, iw, g.W)
                        v = lb.scalar("select", [lb.scalar("and", [row_ok, col_ok]),
                                                 lb.load(x, [n, c.iv, ih, iw]), zero_v])
                    else:
                        v = lb.load(x, [n, c.iv, ih, iw])
                    lb.store(v, packed, [panel.iv, q, lb.add(at, ow.iv)])
    return packed, panels
