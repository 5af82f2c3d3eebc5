"""Loop lowering of `tensor.scan`: one `loop.for` over the steps, the body lowered inside it.

Each result is a buffer allocated before the loop: `window + steps` rows for a result with taps
(its initial window copied into the first rows), `steps` rows otherwise. Step t reads its
sequence slices as views at row t, each tap as a view of row `window + t + tap` of its own
result (the carried state goes through that buffer), the non-sequences as they are, and copies
what the body yields into row `window + t`. No Python runs per step.

The body's temporaries whose sizes do not change between steps are allocated once, before the
loop (the size arithmetic is hoisted with them); the others are freed at the end of each step.
A result without taps must have sizes known before the loop (they are hoisted the same way);
one whose size depends on the step's values is an error naming the op.
"""
from __future__ import annotations

from ..dialects import loop as L
from ..dialects.tensor_base import constant_value
from ..dialects.tensor_scan import ScanOp
from ..ir.builder import InsertionPoint
from ..ir.core import Block, Operation, Pure, Value
from ..ir.types import index
from .lower_to_loops import BY_ELEMENT, FuncLowering, lowering
from .loop_builder import Index


def _row_view(ctx: FuncLowering, buf: Value, row: Index, shape: tuple) -> tuple[Value, list[Index]]:
    """The view of `buf`'s row `row` (its first dim dropped) and its sizes."""
    lb = ctx.lb
    sizes = ctx.sizes_of(buf)
    zero, one = lb.const(0), lb.const(1)
    rank = len(sizes)
    element = buf.type.element
    sub = lb.create(L.SubviewOp, [buf, row, *([zero] * (rank - 1)), one, *sizes[1:], *([one] * rank)], {},
                    L.view_type((1, *shape[1:]), element))
    view = lb.create(L.BroadcastOp, [sub, *sizes[1:]], {"dims": L.perm_attr(range(1, rank))},
                     L.view_type(shape[1:], element))
    return view, list(sizes[1:])


def _rows(ctx: FuncLowering, buf: Value, first: Index, count: Index, shape: tuple) -> Value:
    """The view of rows `first` to `first + count` of `buf`."""
    lb = ctx.lb
    sizes = ctx.sizes_of(buf)
    zero, one = lb.const(0), lb.const(1)
    rank = len(sizes)
    view = lb.create(L.SubviewOp, [buf, first, *([zero] * (rank - 1)), count, *sizes[1:], *([one] * rank)], {},
                     L.view_type((None, *shape[1:]), buf.type.element))
    ctx.sizes[view] = [count, *sizes[1:]]
    return view


def _step_count(ctx: FuncLowering, op: ScanOp) -> Index:
    """`n` cut to the shortest sequence; a negative `n` fails (a check naming the op)."""
    lb = ctx.lb
    given = constant_value(op.n_steps)
    steps: Index | None = None
    if given is None or int(given.array.reshape(-1)[0]) != -1:
        steps = lb.cast(ctx.broadcast_load(op.n_steps, []), index)
        lb.assert_eq(lb.max(steps, lb.const(0)), steps, "'tensor.scan': n_steps is negative")
    for s in op.sequences:
        length = ctx.sizes_of(ctx.buf[s])[0]
        steps = length if steps is None else lb.min(steps, length)
    if steps is None:
        raise ValueError(f"'tensor.scan' at {op.location}: no step count and no sequence")
    return steps


def _hoist(value: Value, loop: Operation) -> bool:
    """Move the pure computation of `value` out of `loop`'s body when it reads only values
    defined before the loop; False when it depends on the step."""
    owner = value.owner
    if isinstance(owner, Block):
        return not _inside(owner, loop)
    if not _inside(owner.parent, loop):
        return True
    if owner.regions or not owner.has_trait(Pure) or isinstance(owner, L.AllocOp):
        return False
    if not all(_hoist(v, loop) for v in owner.operands):
        return False
    owner.detach()
    loop.parent.insert_before(loop, owner)
    return True


def _inside(block: Block | None, loop: Operation) -> bool:
    while block is not None:
        if block is loop.body:
            return True
        parent = block.parent_op
        block = parent.parent if parent is not None else None
    return False


def _place_temporaries(loop: L.ForOp) -> None:
    """Allocations of the body that do not change between steps move before the loop (freed
    by buffer planning after it); the others are freed at the end of each step."""
    body = loop.body
    for op in [op for op in body.ops if isinstance(op, L.AllocOp)]:
        if all(_hoist(v, loop) for v in op.operands):
            op.detach()
            loop.parent.insert_before(loop, op)
        else:
            body.insert_before(body.terminator, L.DeallocOp([op.result], [], {}, (), (), op.location))


@lowering("tensor.scan")
def _scan(ctx: FuncLowering, op: ScanOp) -> None:
    lb = ctx.lb
    for v in (*op.sequences, *op.initial):  # (BY_ELEMENT: the step count and non-sequences
        ctx.materialize(v)                  # are read as numbers where they are single elements)
    steps = _step_count(ctx, op)
    taps = op.taps
    bufs: dict[int, Value] = {}
    for k, init in zip(op.recurrent, op.initial):
        window = ScanOp.window(taps[k])
        src = ctx.buf[init]
        sizes = ctx.sizes_of(src)
        lb.assert_eq(sizes[0], lb.const(window),
                     f"'tensor.scan': the initial value of result #{k} holds the wrong number of states "
                     f"for its taps {list(taps[k])} ({window} needed)")
        buf = ctx.alloc(op.results[k].type, [lb.add(steps, lb.const(window)), *sizes[1:]])
        ctx.copy(src, _rows(ctx, buf, lb.const(0), lb.const(window), op.results[k].type.shape), sizes)
        bufs[k] = buf

    yields = op.body.terminator.operands
    with lb.for_(lb.const(0), steps) as scope:
        loop: L.ForOp = scope.op
        t = scope.iv
        args = iter(op.body.args)
        for s in op.sequences:
            arg = next(args)
            view, sizes = _row_view(ctx, ctx.buf[s], t, s.type.shape)
            ctx.bind(arg, view, sizes)
        for k in op.recurrent:
            window = ScanOp.window(taps[k])
            for tap in taps[k]:
                arg = next(args)
                row = lb.add(t, lb.const(window + tap))
                view, sizes = _row_view(ctx, bufs[k], row, op.results[k].type.shape)
                ctx.bind(arg, view, sizes)
        for v in op.non_sequences:
            arg = next(args)
            if v in ctx.scalars:
                ctx.scalars[arg] = ctx.scalars[v]
            else:
                ctx.buf[arg] = ctx.buf[v]
        for inner in op.body.ops[:-1]:
            ctx.lower_op(inner)
        for k, v in enumerate(yields):
            if k not in bufs:
                bufs[k] = _stacked_result(ctx, op, k, v, steps, loop)
            window = ScanOp.window(taps[k])
            row = lb.add(t, lb.const(window))
            dst, sizes = _row_view(ctx, bufs[k], row, op.results[k].type.shape)
            _store(ctx, op, k, v, dst, sizes)
    _place_temporaries(loop)
    for k, r in enumerate(op.results):
        window = ScanOp.window(taps[k])
        if window == 0:
            ctx.bind(r, bufs[k], ctx.sizes_of(bufs[k]), contiguous=True)
        else:
            view = _rows(ctx, bufs[k], lb.const(window), steps, r.type.shape)
            ctx.bind(r, view, ctx.sizes_of(view))


BY_ELEMENT.add("tensor.scan")


def _stacked_result(ctx: FuncLowering, op: ScanOp, k: int, v: Value, steps: Index, loop: Operation) -> Value:
    """The buffer of result k (no taps), allocated before the loop from the yielded value's
    sizes, which must not depend on the step."""
    sizes = [] if v in ctx.scalars else ctx.sizes_of(ctx.buf[v])
    if not all(_hoist(s, loop) for s in sizes):
        raise ValueError(f"'tensor.scan' at {op.location}: the size of result #{k} depends on the step's "
                         f"values; a scan output must have the same size at every step")
    here = ctx.lb.b.insertion_point
    ctx.lb.b.insertion_point = InsertionPoint.before(loop)
    try:
        return ctx.alloc(op.results[k].type, [steps, *sizes])
    finally:
        ctx.lb.b.insertion_point = here


def _store(ctx: FuncLowering, op: ScanOp, k: int, v: Value, dst: Value, sizes: list[Index]) -> None:
    """Copy step value `v` of result k into its row `dst` (sizes checked)."""
    lb = ctx.lb
    if v in ctx.scalars:
        lb.store(ctx.scalars[v], dst, [lb.const(0)] * len(sizes))
        return
    src = ctx.buf[v]
    for axis, (a, b) in enumerate(zip(ctx.sizes_of(src), sizes)):
        lb.assert_eq(a, b, f"'tensor.scan': result #{k} changes size in dim {axis} between steps")
    ctx.copy(src, dst, sizes)

