"""The geometry of a convolution at loop level: its sizes (checked against each other and the
shape hints, at the user's line) and the image pixel that a filter tap meets at an output pixel
(strides, padding, dilation, a flipped filter), shared by the im2col copies (`conv.py`,
`conv_panels.py`)."""
from __future__ import annotations

from dataclasses import dataclass

from ...dialects.conv_semantics import conv_geometry
from ...ir.core import Operation, Value
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering


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


def count(lb: LoopBuilder, sizes) -> Index:
    total = lb.const(1)
    for s in sizes:
        total = lb.mul(total, s)
    return total


def tap_pixel(lb: LoopBuilder, g: Geometry, axis: int, tap: Index, out_index: Index) -> Index:
    """The image row (axis 0) or column (1) that output pixel `out_index` reads through filter
    tap `tap` (before bounds): o·s - p + ā·d, ā the tap read flipped when the filter is."""
    k = (g.KH, g.KW)[axis]
    t = lb.sub(lb.sub(k, lb.const(1)), tap) if g.flip else tap
    return lb.add(lb.mul(out_index, lb.const(g.strides[axis])),
                  lb.sub(lb.mul(t, lb.const(g.dilation[axis])), lb.const(g.pads[axis])))


def inside(lb: LoopBuilder, i: Index, size: Index) -> tuple[Value, Index]:
    """(i in [0, size), i clamped into it)."""
    ok = lb.scalar("and", [lb.scalar("ge", [i, lb.const(0)]), lb.scalar("lt", [i, size])])
    return ok, lb.max(lb.const(0), lb.min(i, lb.sub(size, lb.const(1))))
