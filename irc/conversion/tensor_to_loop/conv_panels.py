"""im2col straight into the gemm's panel layout: image n's K×P matrix of filter taps by output
pixels (`conv.py`) written as `Bp[p // NR, q, p % NR]`, the layout `gemm.pack_panels` would copy
it into. The forward convolution then copies each image once instead of twice (the copy was
a third of the product's time at LeNet's second layer).

Each output row's pixels are cut where a panel ends, so the innermost loop runs along one
image row and one panel row (both contiguous, the loop vectorizes); the columns past P in the
last panel are zero."""
from __future__ import annotations

from ...dialects.builtin import MemRefType
from ...ir.core import Value
from ...ir.types import ScalarType
from ..loop_builder import Index
from .context import FuncLowering
from .conv_taps import Geometry, count, inside, tap_pixel
from .gemm import ceil_div


def im2col_panels(ctx: FuncLowering, g: Geometry, x: Value, n: Index, element: ScalarType,
                  NR: int) -> tuple[Value, Index]:
    """(Bp, number of panels) for image `n` of `x`: Bp[p // NR, q, p % NR] = the pixel that tap
    q = (c, a, b) meets at output pixel p = (oh, ow), 0 in the padding and past P."""
    lb = ctx.lb
    zero, one, width = lb.const(0), lb.const(1), lb.const(NR)
    K, P = count(lb, g.taps), lb.mul(g.OH, g.OW)
    panels = ceil_div(lb, P, NR)
    packed = lb.alloc(MemRefType((None, None, NR), element), [panels, K])
    packed.name_hint = "panels"
    last = lb.sub(panels, one)
    zero_v = lb.scalar_const(0, element)
    with lb.for_(zero, K) as q:  # the last panel's columns past P
        with lb.for_(lb.sub(P, lb.mul(last, width)), width) as t:
            lb.store(zero_v, packed, [last, q.iv, t.iv])
    padded = any(g.pads)
    with lb.for_(zero, g.C) as c, lb.for_(zero, g.KH) as a, lb.for_(zero, g.KW) as b:
        q = lb.add(lb.mul(lb.add(lb.mul(c.iv, g.KH), a.iv), g.KW), b.iv)
        with lb.for_(zero, g.OH) as oh:
            ih = tap_pixel(lb, g, 0, a.iv, oh.iv)
            row_ok, ih = inside(lb, ih, g.H) if padded else (None, ih)
            first = lb.mul(oh.iv, g.OW)  # the row's first pixel
            g_lo = lb.floordiv(first, width)
            g_hi = lb.add(lb.floordiv(lb.add(first, lb.sub(g.OW, one)), width), one)
            with lb.for_(g_lo, g_hi) as panel:
                start = lb.mul(panel.iv, width)
                lo = lb.max(zero, lb.sub(start, first))
                hi = lb.min(g.OW, lb.sub(lb.add(start, width), first))
                shift = lb.sub(first, start)  # panel column of the row's pixel ow: ow + shift
                with lb.for_(lo, hi) as ow:
                    iw = tap_pixel(lb, g, 1, b.iv, ow.iv)
                    if padded:
                        col_ok, iw = inside(lb, iw, g.W)
                        v = lb.scalar("select", [lb.scalar("and", [row_ok, col_ok]),
                                                 lb.load(x, [n, c.iv, ih, iw]), zero_v])
                    else:
                        v = lb.load(x, [n, c.iv, ih, iw])
                    lb.store(v, packed, [panel.iv, q, lb.add(ow.iv, shift)])
    return packed, panels
