"""Loop lowering of `tensor.scan`: one `loop.for` over the steps, the body lowered inside it.

Each result is a buffer allocated before the loop, `steps` rows; step t reads its sequence
slices as views at row t, the non-sequences as they are, and copies what the body yields into
row t of each result. The carried state goes through those buffers: when every tap is one step
back (`taps = [-1]`), step 0 runs in a loop of its own reading the initial states, and steps
1.. read row t - 1; with longer windows a result's buffer has `window` more rows in front,
holding the initial states, and tap `-j` reads row `window + t - j` (the result is then a view
of the later rows, which the function's return copies). No Python runs per step.

The body's temporaries whose sizes do not change between steps are allocated once, before the
loop (the size arithmetic is hoisted with them); buffer planning frees the others (and the
step's `loop.if` results) at the end of each step.
A result without taps must have sizes known before the loop (they are hoisted the same way);
one whose size depends on the step's values is an error naming the op.

A scan with `until` (a while loop) sizes its buffers by the step count the same way and leaves
the loop after the step whose condition holds (`scan_exit.py`); each result is then the view
of the rows run, which a function returns with the count beside it (`FuncLowering.rows_run`).
"""
from __future__ import annotations

from typing import Callable

from ...dialects import loop as L
from ...dialects.tensor_base import constant_value
from ...dialects.tensor_scan import ScanOp
from ...ir.builder import InsertionPoint
from ...ir.core import Block, Operation, Pure, Value
from ...ir.types import index
from ..loop_builder import Index
from .context import BY_ELEMENT, FuncLowering, RowsRun, lowering
from .ifelse import branch_scope
from .index import indexed_view
from .index_trace import index_of
from .scan_exit import GuardedStep, exit_state, steps_run


def _rows(ctx: FuncLowering, buf: Value, first: Index, count: Index, shape: tuple) -> Value:
    """The view of rows `first` to `first + count` of `buf` (of tensor shape `shape`)."""
    lb = ctx.lb
    sizes = ctx.sizes_of(buf)
    zero, one = lb.const(0), lb.const(1)
    rank = len(sizes)
    view = lb.create(L.SubviewOp, [buf, first, *([zero] * (rank - 1)), count, *sizes[1:], *([one] * rank)], {},
                     L.view_type((None, *shape[1:]), buf.type.element, buf.type.device))
    ctx.sizes[view] = [count, *sizes[1:]]
    return view


def _step_count(ctx: FuncLowering, op: ScanOp) -> Index:
    """`n` cut to the shortest sequence; a negative `n` fails (a check naming the op)."""
    lb = ctx.lb
    given = constant_value(op.n_steps)
    steps: Index | None = None
    if given is None or int(given.array.reshape(-1)[0]) != -1:
        # (on a device, a count the host side computes from sizes and integer inputs)
        steps = index_of(ctx, op.n_steps) if op.n_steps.type.device is not None else None
        if steps is None:
            steps = lb.cast(ctx.broadcast_load(op.n_steps, []), index)
        lb.assert_nonnegative(steps, "'tensor.scan': n_steps is negative")
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
        return not loop.is_ancestor_of(owner.parent_op)
    if not loop.is_ancestor_of(owner):
        return True
    if owner.regions or not owner.has_trait(Pure) or isinstance(owner, L.AllocOp):
        return False
    if not all(_hoist(v, loop) for v in owner.operands):
        return False
    owner.detach()
    loop.parent.insert_before(loop, owner)
    return True


def _place_temporaries(loop: L.ForOp) -> None:
    """Allocations of the body (or of its guarded step, `scan_exit.py`) that do not change
    between steps move before the loop (buffer planning frees them after it, and frees the
    others at the end of each step)."""
    body = loop.body
    guarded = [op.branch(True) for op in body.ops if isinstance(op, L.IfOp)] if L.WHILE in loop.attributes else []
    for op in [op for block in (body, *guarded) for op in block.ops if isinstance(op, L.AllocOp)]:
        if all(_hoist(v, loop) for v in op.operands):
            op.detach()
            loop.parent.insert_before(loop, op)


@lowering("tensor.scan")
def _scan(ctx: FuncLowering, op: ScanOp) -> None:
    lb = ctx.lb
    for v in (*op.sequences, *op.initial):  # (BY_ELEMENT: the step count and non-sequences
        ctx.materialize(v)                  # are read as numbers where they are single elements)
    steps = _step_count(ctx, op)
    taps = op.taps
    windows = {k: ScanOp.window(taps[k]) for k in op.recurrent}
    inits = {k: ctx.buf[init] for k, init in zip(op.recurrent, op.initial)}
    for k, src in inits.items():
        lb.assert_eq(ctx.sizes_of(src)[0], lb.const(windows[k]),
                     f"'tensor.scan': the initial value of result #{k} holds the wrong number of states "
                     f"for its taps {list(taps[k])} ({windows[k]} needed)")
    bufs: dict[int, Value] = {}
    carried = exit_state(ctx) if op.has_until else None
    if windows and all(w == 1 for w in windows.values()):
        # every state is read one step back: the results hold only the steps' rows (returned
        # as they are); step 0 reads the initial states, a second loop from 1 the row before
        for k, src in inits.items():
            bufs[k] = ctx.alloc(op.results[k].type, [steps, *ctx.sizes_of(src)[1:]])
        first = lb.min(steps, lb.const(1))
        carried = _loop(ctx, op, lb.const(0), first, steps, bufs, lambda k, t: (inits[k], lb.const(0)), carried)
        carried = _loop(ctx, op, first, steps, steps, bufs, lambda k, t: (bufs[k], lb.add(t, lb.const(-1))), carried)
        for k, r in enumerate(op.results):
            if carried is None:
                ctx.bind(r, bufs[k], ctx.sizes_of(bufs[k]), contiguous=True)
            else:
                _bind_rows_run(ctx, r, bufs[k], lb.const(0), steps, steps_run(carried))
        return
    # no state, or a window of several states: the first rows of each result's buffer hold it
    for k, src in inits.items():
        sizes = ctx.sizes_of(src)
        buf = ctx.alloc(op.results[k].type, [lb.add(steps, lb.const(windows[k])), *sizes[1:]])
        ctx.copy(src, _rows(ctx, buf, lb.const(0), lb.const(windows[k]), op.results[k].type.shape), sizes)
        bufs[k] = buf
    carried = _loop(ctx, op, lb.const(0), steps, steps, bufs, None, carried)
    for k, r in enumerate(op.results):
        first = lb.const(windows.get(k, 0))
        if carried is not None:
            _bind_rows_run(ctx, r, bufs[k], first, steps, steps_run(carried))
        elif k not in windows:
            ctx.bind(r, bufs[k], ctx.sizes_of(bufs[k]), contiguous=True)
        else:
            view = _rows(ctx, bufs[k], first, steps, r.type.shape)
            ctx.bind(r, view, ctx.sizes_of(view))


def _bind_rows_run(ctx: FuncLowering, r: Value, buf: Value, first: Index, steps: Index, count: Index) -> None:
    """Bind result `r` of a scan with `until` to the `count` rows run, from row `first` of
    `buf`; the function's return finds the capacity (`steps` rows) in `ctx.rows_run`."""
    view = _rows(ctx, buf, first, count, r.type.shape)
    ctx.bind(r, view, ctx.sizes_of(view))
    ctx.rows_run[view] = RowsRun(buf, first, steps, count)


TapSource = Callable[[int, Index], tuple[Value, Index]]


def _loop(ctx: FuncLowering, op: ScanOp, lo: Index, hi: Index, steps: Index, bufs: dict[int, Value],
          tap_source: TapSource | None, carried: list[Value] | None = None) -> list[Value] | None:
    """One `loop.for` over steps [lo, hi) running the body. A tap of one step back reads
    `tap_source(k, t)` (a buffer and a row) when given, and step t's value of result k goes to
    row t of `bufs[k]`; else the tap reads row `window + t + tap` of `bufs[k]` and the value
    goes to row `window + t`. Buffers of results without taps are made on the way. With
    `carried` (a scan with `until`: `scan_exit.exit_state`), each step is guarded by it and the
    loop's results, the carried values after it, are returned."""
    lb = ctx.lb
    taps = op.taps
    yields = op.yielded_results
    with lb.for_(lo, hi, inits=carried or ()) as scope:
        loop: L.ForOp = scope.op
        t = scope.iv
        guard = GuardedStep(ctx, scope) if carried else None
        # (a second copy of the body must not see the first's values)
        with branch_scope(ctx, guard.block if guard else loop.body):
            _bind_args(ctx, op, t, bufs, tap_source)
            for inner in op.body.ops[:-1]:
                ctx.lower_op(inner)
            for k, v in enumerate(yields):
                if k not in bufs:
                    bufs[k] = _stacked_result(ctx, op, k, v, steps, loop)
                offset = 0 if tap_source else ScanOp.window(taps[k])
                if _computed_in_its_row(ctx, op, k, v, loop, bufs[k], t, offset):
                    continue
                row = lb.add(t, lb.const(offset))
                dst, sizes = indexed_view(ctx, bufs[k], op.results[k].type.shape, {0: row})
                _store(ctx, op, k, v, dst, sizes)
            if guard:
                guard.stop_when(op.stop_condition)
        if guard:
            guard.close()
    _place_temporaries(loop)
    return scope.results if carried else None


def _bind_args(ctx: FuncLowering, op: ScanOp, t: Index, bufs: dict[int, Value],
               tap_source: TapSource | None) -> None:
    """Bind the body's arguments for step t: sequence rows, tap rows, the non-sequences."""
    lb, taps = ctx.lb, op.taps
    args = iter(op.body.args)
    for s in op.sequences:
        view, sizes = indexed_view(ctx, ctx.buf[s], s.type.shape, {0: t})
        ctx.bind(next(args), view, sizes)
    for k in op.recurrent:
        window = ScanOp.window(taps[k])
        for tap in taps[k]:
            buf, row = tap_source(k, t) if tap_source else (bufs[k], lb.add(t, lb.const(window + tap)))
            view, sizes = indexed_view(ctx, buf, op.results[k].type.shape, {0: row})
            ctx.bind(next(args), view, sizes)
    for v in op.non_sequences:
        arg = next(args)
        if v in ctx.scalars:
            ctx.scalars[arg] = ctx.scalars[v]
        else:
            ctx.buf[arg] = ctx.buf[v]


BY_ELEMENT.add("tensor.scan")


def _stacked_result(ctx: FuncLowering, op: ScanOp, k: int, v: Value, steps: Index, loop: Operation) -> Value:
    """The buffer of result k (no taps), allocated before the loop from the yielded value's
    sizes, which must not depend on the step."""
    sizes = [] if v in ctx.scalars else ctx.sizes_of(ctx.buf[v])
    if not all(_hoist(s, loop) for s in sizes):
        raise ValueError(f"'tensor.scan' at {op.location}: the size of result #{k} depends on the step's "
                         f"values; a scan output must have the same size at every step")
    with ctx.lb.b.at(InsertionPoint.before(loop)):
        return ctx.alloc(op.results[k].type, [steps, *sizes])


def _computed_in_its_row(ctx: FuncLowering, op: ScanOp, k: int, v: Value, loop: L.ForOp, buf: Value,
                         t: Index, offset: int) -> bool:
    """On a device, a yielded value that the step computed into a buffer of its own is computed
    straight into its row `t + offset` of the result instead: no copy kernel per step. (On the
    host the copy is cheap and a contiguous temporary vectorizes better than a row view.)"""
    src = ctx.buf.get(v)
    alloc = getattr(src, "owner", None)
    if (op.results[k].type.device is None or v in ctx.scalars or not isinstance(alloc, L.AllocOp)
            or alloc.parent is not loop.body or src not in ctx.contiguous):
        return False
    lb = ctx.lb
    with lb.b.at(InsertionPoint.after(alloc)):
        row = lb.add(t, lb.const(offset))
        dst, sizes = indexed_view(ctx, buf, op.results[k].type.shape, {0: row})
        for axis, (a, b) in enumerate(zip(ctx.sizes_of(src), sizes)):
            lb.assert_eq(a, b, f"'tensor.scan': result #{k} changes size in dim {axis} between steps")
    src.replace_all_uses_with(dst)
    alloc.erase()
    ctx.buf[v] = dst
    ctx.sizes[dst] = sizes
    ctx.contiguous.discard(src)
    return True


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

