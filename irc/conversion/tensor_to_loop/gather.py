"""Loop lowerings of advanced indexing (`tensor.gather`, `tensor.scatter`).

The index arrays are first read in one sequential nest that only checks them (`loop.check_index`
makes the function fail, which a parallel body cannot do). Then:

* gather: one `loop.parallel` over the result, each element reading its indices (negative ones
  wrapped), then the source there;
* scatter: `dest` copied in parallel (unless the `inplace` pass lets it write over a dead
  `dest`), then a *sequential* nest over the index positions (and the
  unindexed axes inside it), so that repeated indices accumulate ("add", numpy's `np.add.at`)
  or the last write wins ("set") with no races.

Over device buffers: `device_gather.py` (indices checked on the device into flags the host
reads back; clamped where used; a scatter walks the indices per result element).
"""
from __future__ import annotations

from ...ir.core import Operation
from ...ir.types import i64, index
from ..loop_builder import Index
from .context import FuncLowering, inplace_target, lowering
from .device_gather import device_gather, device_scatter


def _index_sizes(ctx: FuncLowering, op: Operation, first: int) -> list[Index]:
    """The broadcast sizes of the index operands `first`, ... (equal where not a static 1)."""
    indices = list(op.operands[first:])
    for v in indices:
        ctx.materialize(v)
    return ctx.broadcast_sizes(op, indices, indices[0].type.rank)


def _check_indices(ctx: FuncLowering, op: Operation, first: int, isizes: list[Index],
                   axis_sizes: list[Index]) -> None:
    """Fail the function unless every index is in range for its axis (numpy's -n <= i < n)."""
    with ctx.lb.serial(isizes) as ivs:
        for axis, v in enumerate(op.operands[first:]):
            raw = ctx.lb.cast(ctx.broadcast_load(v, ivs), index)
            ctx.lb.check_index(raw, axis_sizes[axis], f"'{op.op_name}': index out of range for axis {axis}")


def _places(ctx: FuncLowering, op: Operation, first: int, ivs: list[Index], axis_sizes: list[Index]) -> list[Index]:
    """The (already checked) indices at position `ivs`, negative ones counted from the end."""
    lb = ctx.lb
    out = []
    for axis, v in enumerate(op.operands[first:]):
        raw = lb.cast(ctx.broadcast_load(v, ivs), i64)
        out.append(lb.cast(lb.wrap_negative(raw, lb.cast(axis_sizes[axis], i64)), index))
    return out


@lowering("tensor.gather")
def _gather(ctx: FuncLowering, op: Operation) -> None:
    src = ctx.operand(op, 0)
    src_sizes = ctx.sizes_of(src)
    isizes = _index_sizes(ctx, op, 1)
    count = op.num_operands - 1
    t = op.results[0].type
    if t.device is not None:  # checked on the device, read back by the host: device_gather.py
        sizes = ctx.result_sizes(t, isizes + src_sizes[count:])
        out = ctx.alloc(t, sizes)
        device_gather(ctx, op, src, src_sizes, isizes, out, ctx.sizes_of(out))
        ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)
        return
    _check_indices(ctx, op, 1, isizes, src_sizes)
    sizes = ctx.result_sizes(t, isizes + src_sizes[count:])
    out = ctx.alloc(t, sizes)
    with ctx.nest(sizes, t.device) as ivs:
        at = _places(ctx, op, 1, ivs[:len(isizes)], src_sizes)
        ctx.lb.store(ctx.lb.load(src, at + ivs[len(isizes):]), out, ivs)
    ctx.bind(op.results[0], out, sizes, contiguous=True)


@lowering("tensor.scatter")
def _scatter(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    dest, src = ctx.operand(op, 0), ctx.materialize(op.operand(1))
    dest_sizes = ctx.sizes_of(dest)
    isizes = _index_sizes(ctx, op, 2)
    count = op.num_operands - 2
    target = isizes + dest_sizes[count:]
    for axis, (a, b) in enumerate(zip(target, ctx.sizes_of(src))):
        if op.operand(1).type.shape[axis] != 1:
            lb.assert_eq(a, b, f"'tensor.scatter': src does not fit the places the indices select (dim {axis})")
    t = op.results[0].type
    if t.device is not None:  # one thread per element walking the indices: device_gather.py
        out = device_scatter(ctx, op, dest, dest_sizes, isizes)
        ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)
        return
    _check_indices(ctx, op, 2, isizes, dest_sizes)
    out = inplace_target(ctx, op, 0)  # the `inplace` pass's mark: dest is dead, write over it
    if out is None:
        out = ctx.alloc(t, dest_sizes)
        ctx.copy(dest, out, ctx.sizes_of(out))
    add = op.attributes["mode"].value == "add"
    with ctx.lb.serial(target) as ivs:
        at = _places(ctx, op, 2, ivs[:len(isizes)], dest_sizes) + ivs[len(isizes):]
        value = ctx.broadcast_load(op.operand(1), ivs)
        if add:
            value = lb.scalar("add", [lb.load(out, at), value])
        lb.store(value, out, at)
    ctx.bind(op.results[0], out, ctx.sizes_of(out), contiguous=True)
