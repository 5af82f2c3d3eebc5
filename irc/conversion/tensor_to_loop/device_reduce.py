"""Reductions over device buffers, deterministic: chunked passes of plain `loop.parallel` nests,
which `outline-kernels` turns into kernels (no atomics; a `scan` body can lower
its reductions the same way).

Pass 1 reads the input once. Each reduced axis `a` of size `n_a` is cut into `C_a` interleaved
chunks (chunk `c` holds the indices c, c + C_a, c + 2·C_a, ...), and one thread per (output,
chunk) combines its chunk's elements, in index order, into `partials`: a buffer shaped like
the input with each reduced axis' size replaced by its chunk count. The threads' order is the
input's memory order, so a warp reads consecutive elements whichever axes are reduced: along
the kept columns for `sum(axis=0)`, along a row's chunks for row sums. The chunk counts are
given to the innermost reduced axis first, until pass 1 has about `TARGET_THREADS` threads
and each reads at least `MIN_PER_THREAD` elements.

Where the last reduced axis is innermost in memory (row sums, a vector), a warp can own an
output instead (`_warp_pass`): its 32 lanes read the output's items interleaved, then a
butterfly of `gpu.shuffle_xor` combines their states in registers — one kernel, no partials.
It serves reductions keeping axes when they have many outputs or few items each, and a vector
of at most `WARP_FULL_MAX` items; the chunked passes serve the rest. Which one runs is decided
from the sizes when the call is planned: the other's launches have no work and are dropped (a
0/1 flag multiplies their thread counts). A reduction to one number of any other shape takes
one thread when it has at most `SINGLE_MAX` items. Column sums (the reduced axis not innermost)
always take the chunked passes, unflagged: their pass 1 with its thread count multiplied by such
a flag ran 60% slower on an H100 (4096² column sums 27 → 44 µs, row sums 28 → 54 µs, the same
PTX but for that product). A warp per column, its lanes reading down the rows in one kernel,
lost to the two passes even for an MLP's bias gradients over a 256-row batch (10 and 512
columns): each of its loads reads 32 rows' lines for one element each, and the MLP step took
58 µs on an H100 against 46 µs with the two passes (and 81 µs with a warp over 8 columns,
whose lanes then read whole sectors but 4× as many rows each).

Pass 2 combines each output's chunks in a fixed order (row-major over the chunk indices; on a
warp where the chunks are innermost in memory, as the warp pass does: few long rows). A
reduction to one number first runs two levels that each combine `FAN_IN` partials per thread,
so that at most `FINAL_MAX` remain for the last, one-thread pass — or none, when pass 1 left
no more than that (a short vector: three launches fewer). The chunk counts depend on the
sizes only, never on the launch configuration or the device: the results are bit-identical
on every run and for every grid (the warp pass's butterfly too: a fixed order, and each of its
steps combines two states symmetrically, so all 32 lanes hold the same bits).

argmax/argmin carry (value, index) pairs and prefer, on ties, the smaller index (numpy's first
extremum, whatever order chunks are combined in); a NaN beats any number, the first NaN
winning, as on the host. Sums and products of f16 combine in f32 (`accumulator_type`), the
partials included, rounded once into the result.
"""
from __future__ import annotations

from typing import Callable, Sequence

from ...dialects import gpu as G
from ...dialects import loop as L
from ...dialects.builtin import MemRefType
from ...dialects.tensor_semantics import accumulator_type
from ...ir.core import Value
from ...ir.types import ScalarType, i64
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering
from .device_epilogue import Epilogue
from .reduction_kinds import COMBINE, identity

TARGET_THREADS = 1 << 17  # pass 1's threads: about half the 270K an H100 (132 SMs × 2048) holds
# elements a pass-1 thread reads at least (else partials cost more than they save). Small
# reductions are latency-bound: measured on an H200, the bias gradient of a 256-row batch (10
# columns) took 8.5 µs with 32 rows per thread, a fused logistic-regression reduction of 400
# items 9.6 µs; on an H100 the MLP step (two such gradients, 10 and 512 columns) took 49.8 µs
# with 16, 46.0 with 8 and 44.9 with 4; the 4096² sums keep their chunking (TARGET_THREADS
# bounds them first)
MIN_PER_THREAD = 4
SINGLE_MAX = 32           # items up to which one thread does a whole reduction to one number
# ... or one warp, for a vector: a lane then reads at most 32 items (4 rounds of 8 loads)
WARP_FULL_MAX = 1024
# a reduction keeping axes whose last reduced axis is innermost in memory takes a warp per
# output when there are at least this many outputs (32K threads: a quarter of an H100's
# resident warps, which then all read whole 128-byte lines) or at most WARP_ITEMS items each
WARP_OUTPUTS = 1024
WARP_ITEMS = 2048
KEEP_MAX_CHUNKS = 1024    # chunks per output when an axis is kept: pass 2 reads them on one thread
WARP_KEEP_MAX_CHUNKS = 1 << 15  # ... or on a warp, where they are innermost in memory (row sums)
FAN_IN = 64               # partials one thread combines in the middle levels of a full reduction
FINAL_MAX = 64            # partials the last, one-thread pass of a full reduction combines at most
UNROLL = 8                # items whose loads a thread issues before combining them
# ... in pass 1 of a reduction that keeps an axis: measured on an H200 (4096² float32), row sums
# took 58 µs with 8 and 29 µs with 4, column sums 28 and 26.5; a full reduction 28 with 8, 35 with 4
UNROLL_KEPT = 4
# (the partials stay in the input's memory order: with the chunks outermost instead, so that the
# last pass of row sums reads neighbouring addresses, pass 1's scattered stores made the 4096²
# row sums 35 → 58 µs on an H100)

Load = Callable[[list[Index]], list[Value]]  # the input's element(s) at an index, one per result


class Reducer:
    """How one kind of reduction combines: its carried state (one accumulator per result, or a
    (value, index) pair for argmax/argmin), its identity, and what a result stores."""

    def __init__(self, kind: str, elements: Sequence[ScalarType], source: ScalarType):
        self.kind = kind
        self.is_arg = kind in ("argmax", "argmin")
        if self.is_arg:
            self.state_types = [source, i64]
        else:
            self.state_types = [accumulator_type(kind, e) for e in elements]
        self.elements = list(elements)

    def identity(self, lb: LoopBuilder) -> list[Value]:
        if self.is_arg:  # any element or NaN beats it; the largest index loses every tie
            value = identity("max" if self.kind == "argmax" else "min", self.state_types[0])
            return [lb.scalar_const(value, self.state_types[0]), lb.scalar_const((1 << 63) - 1, i64)]
        return [lb.scalar_const(identity(self.kind, t), t) for t in self.state_types]

    def combine(self, lb: LoopBuilder, state: list[Value], item: list[Value]) -> list[Value]:
        if not self.is_arg:
            return [lb.scalar(COMBINE[self.kind], [s, lb.cast(v, s.type)]) for s, v in zip(state, item)]
        best, at = state
        v, i = item
        better = lb.scalar("gt" if self.kind == "argmax" else "lt", [v, best])
        tie = lb.scalar("eq", [v, best])
        if best.type.is_float:
            v_nan, best_nan = lb.scalar("ne", [v, v]), lb.scalar("ne", [best, best])
            best_ok = lb.scalar("eq", [best, best])
            better = lb.scalar("or", [better, lb.scalar("and", [v_nan, best_ok])])
            tie = lb.scalar("or", [tie, lb.scalar("and", [v_nan, best_nan])])
        better = lb.scalar("or", [better, lb.scalar("and", [tie, lb.scalar("lt", [i, at])])])
        return [lb.scalar("select", [better, v, best]), lb.scalar("select", [better, i, at])]

    def results(self, lb: LoopBuilder, state: list[Value]) -> list[Value]:
        if self.is_arg:
            return [lb.cast(state[1], self.elements[0])]
        return [lb.cast(s, e) for s, e in zip(state, self.elements)]


def device_reduce(ctx: FuncLowering, kind: str, sizes: list[Index], axes: Sequence[int], load: Load,
                  outs: list[Value], source: ScalarType, order: Sequence[int] | None = None,
                  epilogue: Epilogue | None = None) -> None:
    """outs[k][kept] = the `kind` reduction over `axes` of `load(index)[k]` (device buffers of
    the kept sizes; rank 0 for a full reduction). `source` is the loaded element type (argmax's
    value); `order` lists the input's axes outermost first in memory (default: row-major).
    `epilogue(kept indices, results)` runs in the last pass after an output's results are
    stored (`device_epilogue.py`)."""
    lb = ctx.lb
    rank = len(sizes)
    axes = sorted(axes)
    order = list(order) if order is not None else list(range(rank))
    kept = [a for a in range(rank) if a not in axes]
    device = outs[0].type.device
    red = Reducer(kind, [o.type.element for o in outs], source)
    one = lb.const(1)
    outputs = one
    for a in kept:
        outputs = lb.mul(outputs, sizes[a])
    reduced = one
    for a in axes:
        reduced = lb.mul(reduced, sizes[a])
    lanes_fit = axes[-1] == order[-1]  # the last reduced axis is innermost in memory
    budget = lb.min(_ceil_div(lb, lb.const(TARGET_THREADS), lb.max(outputs, one)),
                    _ceil_div(lb, reduced, lb.const(MIN_PER_THREAD)))
    if kept:  # (a warp combines an output's chunks where the lanes fit, one thread elsewhere)
        budget = lb.min(budget, lb.const(WARP_KEEP_MAX_CHUNKS if lanes_fit else KEEP_MAX_CHUNKS))
    counts = _chunk_counts(lb, sizes, axes, order, budget)

    def first_item(index: list[Index]) -> list[Value]:
        values = load(index)
        return [values[0], lb.cast(index[axes[0]], i64)] if red.is_arg else values

    count = one
    for a in axes:
        count = lb.mul(count, counts[a])
    shape = [counts.get(a, sizes[a]) for a in range(rank)]
    if kept and not lanes_fit:  # column sums: the chunked passes, unflagged (see above)
        partials = _partials(ctx, red, [shape[a] for a in order], device)
        _chunk_pass(ctx, red, sizes, axes, order, counts, first_item, partials, device, UNROLL_KEPT)
        _final_pass(ctx, red, shape, axes, _reader(lb, partials, order), outs, device, one, epilogue)
        return
    partials = _partials(ctx, red, [shape[a] for a in order], device)
    if kept:
        # a warp per output where there are many outputs or few items each, else the chunks
        warp = lb.max(_at_least(lb, outputs, WARP_OUTPUTS), lb.sub(one, _at_least(lb, reduced, WARP_ITEMS + 1)))
        chunked = lb.sub(one, warp)
        _warp_pass(ctx, red, sizes, axes, first_item, outs, device, warp, epilogue, UNROLL_KEPT)
        _chunk_pass(ctx, red, sizes, axes, order, counts, first_item, partials, device, UNROLL_KEPT,
                    active=chunked)
        _warp_pass(ctx, red, shape, axes, _reader(lb, partials, order), outs, device, chunked, epilogue,
                   UNROLL_KEPT)
        return
    # a short input: one pass (a warp reading a vector, one thread reading anything else); the
    # chunked passes below then have no threads (their launches are dropped)
    if rank == 1:
        single = lb.sub(one, _at_least(lb, reduced, WARP_FULL_MAX + 1))
        _warp_pass(ctx, red, sizes, axes, first_item, outs, device, single, epilogue, UNROLL)
    else:
        single = lb.sub(one, _at_least(lb, reduced, SINGLE_MAX + 1))
        _final_pass(ctx, red, sizes, axes, first_item, outs, device, single, epilogue)
    chunked = lb.sub(one, single)
    _chunk_pass(ctx, red, sizes, axes, order, counts, first_item, partials, device, UNROLL, active=chunked)
    # one number: flatten the partials and combine them FAN_IN per thread until few are left
    flat = [_flat(lb, p, count) for p in partials]
    levels: list[tuple[Index, Index]] = []  # (partials in, threads)
    n, bound = count, TARGET_THREADS
    while bound > FINAL_MAX:
        threads = lb.max(one, lb.min(_ceil_div(lb, n, lb.const(FAN_IN)), n))
        levels.append((n, threads))
        n, bound = threads, -(-bound // FAN_IN)
    if levels:
        # the levels run all or none: none when pass 1 left few enough partials for the final
        # pass (a short input: their launches then have no work and are dropped), and, being
        # an even number, they ping-pong back into pass 1's buffers, which the final pass reads
        needed = lb.mul(chunked, lb.min(one, lb.floordiv(count, lb.const(FINAL_MAX + 1))))
        src, dst = flat, _partials(ctx, red, [count], device)
        for n_in, threads in levels:
            _chunk_pass(ctx, red, [n_in], [0], [0], {0: threads}, _reader(lb, src), dst, device, UNROLL,
                        active=needed)
            src, dst = dst, src
        count = lb.add(count, lb.mul(needed, lb.sub(n, count)))
    _final_pass(ctx, red, [count], [0], _reader(lb, flat), outs, device, chunked, epilogue)


assert -(-TARGET_THREADS // FAN_IN ** 2) <= FINAL_MAX < -(-TARGET_THREADS // FAN_IN), \
    "the levels of a full reduction must be two (see `device_reduce`)"


def _at_least(lb: LoopBuilder, a: Index, n: int) -> Index:
    """1 where a >= n, else 0 (a >= 0)."""
    return lb.min(lb.const(1), lb.floordiv(a, lb.const(n)))


def _warp_pass(ctx: FuncLowering, red: Reducer, sizes: list[Index], axes: Sequence[int], item: Load,
               outs: list[Value], device: str | None, active: Index, epilogue: Epilogue | None,
               unroll: int) -> None:
    """One warp per output: lane k combines the items k, k + 32, ... of the last reduced axis
    (innermost in memory: a warp reads neighbouring elements; the other reduced axes in order),
    then a butterfly of `gpu.shuffle_xor` combines the 32 lanes' states in registers. The
    butterfly's order is fixed and each step combines two states symmetrically, so every lane
    ends with the same bits on every run; lane 0 stores the results and runs `epilogue`. No
    threads when `active` (an index, 0 or 1) is 0."""
    lb = ctx.lb
    rank = len(sizes)
    kept = [a for a in range(rank) if a not in axes]
    zero, one = lb.const(0), lb.const(1)
    shape = [sizes[a] for a in kept] + [lb.const(G.WARP_SIZE)]
    shape[0] = lb.mul(shape[0], active)
    with lb.parallel(shape) as ivs:
        lane = ivs[-1]
        outer = ivs[:-1]
        index = dict(zip(kept, outer))
        starts_steps = {a: (zero, one) for a in axes}
        starts_steps[axes[-1]] = (lane, lb.const(G.WARP_SIZE))
        state = _combine_over(lb, red, sizes, axes, starts_steps, index, item, unroll)
        offset = G.WARP_SIZE // 2
        while offset:
            step = lb.const(offset)
            other = [lb.create(G.ShuffleXorOp, [v, step], {}, v.type) for v in state]
            state = red.combine(lb, state, other)
            offset //= 2
        results = red.results(lb, state)
        first = lb.scalar("eq", [lb.cast(lane, i64), lb.scalar_const(0, i64)])
        with lb.when(first):
            for v, out in zip(results, outs):
                lb.store(v, out, outer)
            if epilogue is not None:
                epilogue(outer, results)


def _ceil_div(lb: LoopBuilder, a: Index, b: Index) -> Index:
    return lb.floordiv(lb.add(a, lb.sub(b, lb.const(1))), b)


def _chunk_counts(lb: LoopBuilder, sizes: list[Index], axes: Sequence[int], order: Sequence[int],
                  budget: Index) -> dict[int, Index]:
    """Chunks per reduced axis, innermost in memory first, their product about `budget` (at
    least 1 each, at most the axis' size)."""
    one = lb.const(1)
    counts: dict[int, Index] = {}
    for a in reversed(order):
        if a in axes:
            c = lb.max(one, lb.min(sizes[a], budget))
            counts[a] = c
            budget = lb.max(one, lb.floordiv(budget, c))
    return counts


def _partials(ctx: FuncLowering, red: Reducer, shape: list[Index], device: str | None) -> list[Value]:
    """Device buffers of partial states (freed by `plan_buffers` after their last reader)."""
    out = []
    for t in red.state_types:
        m = ctx.lb.alloc(MemRefType((None,) * len(shape), t, device=device), shape)
        m.name_hint = "partials"
        ctx.sizes[m] = list(shape)
        ctx.contiguous.add(m)
        out.append(m)
    return out


def _flat(lb: LoopBuilder, m: Value, count: Index) -> Value:
    t: MemRefType = m.type
    if t.rank == 1:
        return m
    return lb.create(L.ReshapeOp, [m, count], {}, MemRefType((None,), t.element, device=t.device))


def _reader(lb: LoopBuilder, bufs: list[Value], order: Sequence[int] | None = None) -> Load:
    """The states stored in `bufs` at an index of the input's axes (permuted into the
    partials' memory order)."""
    def read(index: list[Index]) -> list[Value]:
        at = index if order is None else [index[a] for a in order]
        return [lb.load(b, at) for b in bufs]
    return read


def _chunk_pass(ctx: FuncLowering, red: Reducer, sizes: list[Index], axes: Sequence[int],
                order: Sequence[int], counts: dict[int, Index], item: Load, dests: list[Value],
                device: str | None, unroll: int, active: Index | None = None) -> None:
    """One thread per (kept index, chunk index), in memory order: its chunk's items combined
    (`unroll` loads in flight), stored into `dests` at the thread's index. With `active` (an
    index, 0 or 1) the pass has no threads at all when it is 0."""
    lb = ctx.lb
    shape = [counts.get(a, sizes[a]) for a in order]
    if active is not None:
        shape[0] = lb.mul(shape[0], active)
    with ctx.nest(shape, device) as ivs:
        index = dict(zip(order, ivs))
        state = _combine_over(lb, red, sizes, axes, {a: (index[a], counts[a]) for a in axes},
                              index, item, unroll)
        for v, d in zip(state, dests):
            lb.store(v, d, ivs)


def _final_pass(ctx: FuncLowering, red: Reducer, shape: list[Index], axes: Sequence[int], item: Load,
                outs: list[Value], device: str | None, active: Index, epilogue: Epilogue | None = None) -> None:
    """One thread per output: the states `item` reads over `shape`'s reduced axes (partials,
    or the input itself) combined in order, its results stored. No thread when `active` (an
    index, 0 or 1) is 0; `epilogue` runs after the stores."""
    lb = ctx.lb
    kept = [a for a in range(len(shape)) if a not in axes]
    zero, one = lb.const(0), lb.const(1)
    sizes = [shape[a] for a in kept] or [one]  # (a number: a one-thread nest)
    sizes[0] = lb.mul(sizes[0], active)
    with lb.parallel(sizes) as ivs:
        ivs = ivs if kept else []
        index = dict(zip(kept, ivs))
        state = _combine_over(lb, red, shape, axes, {a: (zero, one) for a in axes}, index, item, UNROLL)
        results = red.results(lb, state)
        for v, out in zip(results, outs):
            lb.store(v, out, ivs)
        if epilogue is not None:
            epilogue(ivs, results)


def _combine_over(lb: LoopBuilder, red: Reducer, sizes: list[Index], axes: Sequence[int],
                  starts_steps: dict[int, tuple[Index, Index]], index: dict[int, Index],
                  item: Load, unroll: int) -> list[Value]:
    """The state after combining `item` at every index of the reduced axes from each start by
    its step, in row-major order (the kept axes' indices fixed in `index`)."""
    rank = len(sizes)

    def nest(level: int, state: list[Value]) -> list[Value]:
        if level == len(axes):
            return red.combine(lb, state, item([index[a] for a in range(rank)]))
        a = axes[level]
        start, step = starts_steps[a]
        if level + 1 == len(axes):
            return _unrolled(lb, red, start, sizes[a], step, state, lambda k: _at(index, a, k, item, rank),
                             unroll)
        with lb.for_(start, sizes[a], step, inits=state) as loop:
            index[a] = loop.iv
            lb.yield_(loop, nest(level + 1, loop.iter_args))
        return loop.results

    return nest(0, red.identity(lb))


def _at(index: dict[int, Index], axis: int, k: Index, item: Load, rank: int) -> list[Value]:
    index[axis] = k
    return item([index[a] for a in range(rank)])


def _unrolled(lb: LoopBuilder, red: Reducer, start: Index, stop: Index, step: Index,
              state: list[Value], item: Callable[[Index], list[Value]], unroll: int) -> list[Value]:
    """`state` combined with item(k) for k = start, start + step, ... < stop, in that order,
    `unroll` items per step: their loads first, then the combining (the same order, so the same
    bits, with `unroll` loads in flight per thread instead of one), then the leftover items. The
    main loop carries its next start, so the leftovers need no division."""
    group = lb.mul(step, lb.const(unroll))
    with lb.for_(start, lb.sub(stop, lb.mul(step, lb.const(unroll - 1))), group,
                 inits=[*state, start]) as loop:
        k = loop.iv
        items = [item(lb.add(k, lb.mul(step, lb.const(u)))) for u in range(unroll)]
        acc = loop.iter_args[:-1]
        for values in items:
            acc = red.combine(lb, acc, values)
        lb.yield_(loop, [*acc, lb.add(k, group)])
    *state, rest = loop.results
    with lb.for_(rest, stop, step, inits=state) as tail:
        lb.yield_(tail, red.combine(lb, tail.iter_args, item(tail.iv)))
    return tail.results
