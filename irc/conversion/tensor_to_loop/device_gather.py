"""Advanced indexing over device buffers (`tensor.gather`, `tensor.scatter`): plain
`loop.parallel` nests, deterministic, no atomics, and no access out of bounds whatever the
indices hold.

A kernel cannot make the function fail, so the indices are checked on the device into flags
that the host reads back after the call (`loop.check_flag`): one zeroing nest, then one thread
per index position writing 1 into its axis' flag for an index outside `-n <= i < n` (and into
a spare slot for a good one: no branch). The call then fails with the op's IndexError, naming
the user's line, as on the host; the kernels after the check clamp the indices they use, so a
bad index never reads or writes outside a buffer.

* gather: one thread per result element reads its (wrapped, clamped) indices, then the
  source. An axis of size 0 with indices to read is refused by the host plan (there is no
  element to clamp to).
* scatter: one thread per element of the result walks *every* index position in order and
  adds (or, for "set", takes) the source values aimed at its element: the host's sequential
  order, so the same bits as the CPU backend and no float atomics, at the cost of
  |dest| × |indices| steps (fine for a minibatch's gradient of a gather; a large embedding
  table wants the sort-based path, not built yet). Each thread reads and writes only its own
  element, so the `inplace` pass's mark lets it write over a dead `dest` with no copy.
"""
from __future__ import annotations

from ...dialects import loop as L
from ...dialects.builtin import MemRefType
from ...ir.attributes import StringAttr
from ...ir.core import Operation, Value
from ...ir.types import i1, i32, i64, index
from ..loop_builder import Index
from .context import FuncLowering, inplace_target


def _message(op: Operation, axis: int) -> str:
    return f"'{op.op_name}': index out of range for axis {axis}"


def check_on_device(ctx: FuncLowering, op: Operation, first: int, isizes: list[Index],
                    axis_sizes: list[Index]) -> None:
    """Flags set by the device for indices out of range (one per indexed axis), read back by
    the host after the call (`loop.check_flag`)."""
    lb = ctx.lb
    device = op.results[0].type.device
    indices = list(op.operands[first:])
    count = len(indices)
    flags = lb.alloc(MemRefType((count + 1,), i32, device=device), [])
    flags.name_hint = "index_flags"
    ctx.sizes[flags] = [lb.const(count + 1)]
    ctx.contiguous.add(flags)
    with ctx.nest([lb.const(count)], device) as (k,):
        lb.store(lb.scalar_const(0, i32), flags, [k])
    with ctx.nest(isizes, device) as ivs:
        spare = lb.scalar_const(count, i64)
        for axis, v in enumerate(indices):
            raw = lb.cast(ctx.broadcast_load(v, ivs), i64)
            n = lb.cast(axis_sizes[axis], i64)
            bad = lb.scalar("or", [lb.scalar("lt", [raw, lb.scalar("neg", [n])]), lb.scalar("ge", [raw, n])])
            slot = lb.scalar("select", [bad, lb.scalar_const(axis, i64), spare])
            lb.store(lb.scalar_const(1, i32), flags, [lb.cast(slot, index)])
    one = lb.const(1)
    for axis in range(count):
        flag = lb.create(L.SubviewOp, [flags, lb.const(axis), one, one], {},
                         L.view_type((1,), i32, device))
        lb.b.create(L.CheckFlagOp, [flag], {"msg": StringAttr(_message(op, axis))}, result_types=[])


def _refuse_empty_axes(ctx: FuncLowering, op: Operation, isizes: list[Index], axis_sizes: list[Index]) -> None:
    """Indices into an axis of size 0 are all out of range: the host plan says so before any
    launch (the gather could not clamp them to an element)."""
    lb = ctx.lb
    positions = lb.const(1)
    for s in isizes:
        positions = lb.mul(positions, s)
    some = lb.min(positions, lb.const(1))  # 1 when there are indices to read
    for axis in range(len(op.operands) - 1):
        # size n, or 1 when there is nothing to read: index 0 fits unless both fail
        lb.check_index(lb.const(0), lb.max(axis_sizes[axis], lb.sub(lb.const(1), some)), _message(op, axis))


def _wrapped(ctx: FuncLowering, v: Value, ivs: list[Index], n: Index, clamp: bool) -> Value:
    """The i64 index of `v` at `ivs`, negative ones counted from the end; clamped into
    [0, n - 1] with `clamp` (a bad one is reported by the flags, never used out of bounds)."""
    lb = ctx.lb
    size = lb.cast(n, i64)
    w = lb.wrap_negative(lb.cast(ctx.broadcast_load(v, ivs), i64), size)
    if clamp:
        top = lb.scalar("sub", [size, lb.scalar_const(1, i64)])
        w = lb.scalar("minimum", [lb.scalar("maximum", [w, lb.scalar_const(0, i64)]), top])
    return w


def device_gather(ctx: FuncLowering, op: Operation, src: Value, src_sizes: list[Index],
                  isizes: list[Index], out: Value, sizes: list[Index]) -> None:
    """out[i..., rest...] = src[indices(i...)..., rest...] over device buffers."""
    lb = ctx.lb
    indices = list(op.operands[1:])
    check_on_device(ctx, op, 1, isizes, src_sizes)
    _refuse_empty_axes(ctx, op, isizes, src_sizes)
    depth = len(isizes)
    with ctx.nest(sizes, out.type.device) as ivs:
        at = [lb.cast(_wrapped(ctx, v, ivs[:depth], src_sizes[a], True), index) for a, v in enumerate(indices)]
        lb.store(lb.load(src, at + ivs[depth:]), out, ivs)


def device_scatter(ctx: FuncLowering, op: Operation, dest: Value, dest_sizes: list[Index],
                   isizes: list[Index]) -> Value:
    """The scatter's result buffer: a copy of `dest` (or `dest` itself, when the `inplace`
    pass allows) with the source added (mode "add") or written ("set") at the indices."""
    lb = ctx.lb
    indices = list(op.operands[2:])
    count, depth = len(indices), len(isizes)
    src = op.operand(1)
    add = op.attributes["mode"].value == "add"
    check_on_device(ctx, op, 2, isizes, dest_sizes)
    out = inplace_target(ctx, op, 0)
    if out is None:
        out = ctx.alloc(op.results[0].type, dest_sizes)
    zero, one = lb.const(0), lb.const(1)
    with ctx.nest(ctx.sizes_of(out), out.type.device) as p:
        target = [lb.cast(i, i64) for i in p[:count]]

        def step(q: list[Index], acc: Value) -> Value:
            hit = lb.scalar_const(True, i1)
            for a, v in enumerate(indices):
                place = _wrapped(ctx, v, q, dest_sizes[a], False)
                hit = lb.scalar("and", [hit, lb.scalar("eq", [place, target[a]])])
            value = ctx.broadcast_load(src, q + p[count:])
            return lb.scalar("select", [hit, lb.scalar("add", [acc, value]) if add else value, acc])

        def walk(level: int, q: list[Index], acc: Value) -> Value:
            if level == depth:
                return step(q, acc)
            with lb.for_(zero, isizes[level], one, inits=[acc]) as loop:
                lb.yield_(loop, [walk(level + 1, q + [loop.iv], loop.iter_args[0])])
            return loop.results[0]

        lb.store(walk(0, [], lb.load(dest, p)), out, p)
    return out
