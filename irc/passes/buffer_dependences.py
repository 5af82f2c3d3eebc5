"""Which top-level ops of a loop-level body wait for which, through the values they pass in
buffers: what `plan_buffers` asks before it gives a dead device buffer to a new temporary.

A reuse makes the new buffer's writers wait for the old buffer's readers. On the host the ops
run in order anyway; on a GPU the runtime runs kernels side by side where nothing orders them
(`runtime/cuda/concurrent_capture.py`), so a reuse is free only where the new buffer's first
user already waits for every op that used the old one. An MLP step's row sums written over the
cross-entropy values made the gradient's kernels wait for the mean's (1.2 µs of a 44 µs step).

"Waits for" follows the orders the runtime keeps between two ops touching one buffer — a read
after a write, a write after a read or after a write (the kernels a host plan may choose
between all write one result: the one launched waits for the others' turn) — walked back from
the later op over the buffers as they are before any reuse, so a reuse it allows never adds a
wait. Reads and writes are found per top-level op from the ops nested
in it: loads and prefetches read, stores write, `gpu.gemm` reads A, B (and C's input) and
writes C; an op this module does not know reads and writes every buffer it takes.
"""
from __future__ import annotations

from ..dialects import gpu as G
from ..dialects import loop as L
from ..dialects.builtin import MemRefType
from ..ir.core import Block, Operation, Value

VIEW_OPS = (L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp)
SIZE_ONLY = (L.DimOp, L.AlignGapOp, L.AllocOp, L.DeallocOp)  # (a size, an address, the buffer's life: no data)
SEARCH_LIMIT = 4000  # ops one question may visit; past it the answer is "waits" (reuse as before)


class BufferDependences:
    """Per top-level op of `body`: the root buffers it reads and writes, and the earlier ops it
    waits for directly (the last writer of what it reads or writes, the readers since then of
    what it writes)."""

    def __init__(self, body: Block):
        self.alias: dict[Value, Value] = {}
        self.touched_by: dict[Value, set[int]] = {}
        self.producers: list[set[int]] = []
        last_writer: dict[Value, int] = {}
        readers: dict[Value, set[int]] = {}  # since the last write
        for i, top in enumerate(body.ops):
            reads, writes = self._accesses(top)
            before = {last_writer[b] for b in reads | writes if b in last_writer}
            for b in writes:
                before |= readers.pop(b, set())
            before.discard(i)
            self.producers.append(before)
            for b in reads | writes:
                self.touched_by.setdefault(b, set()).add(i)
            for b in reads:
                readers.setdefault(b, set()).add(i)
            for b in writes:
                last_writer[b] = i

    def root(self, v: Value) -> Value:
        return self.alias.get(v, v)

    def _accesses(self, top: Operation) -> tuple[set[Value], set[Value]]:
        reads: set[Value] = set()
        writes: set[Value] = set()
        for op in top.walk():
            if isinstance(op, VIEW_OPS):
                self.alias[op.results[0]] = self.root(op.operand(0))
                continue
            if isinstance(op, SIZE_ONLY):
                continue
            if isinstance(op, (L.LoadOp, L.PrefetchOp)):
                reads.add(self.root(op.operand(0)))
            elif isinstance(op, L.StoreOp):
                writes.add(self.root(op.operand(1)))
            elif isinstance(op, G.GemmOp):
                reads.update(self.root(v) for k, v in enumerate(op.operands) if k != 2)
                writes.add(self.root(op.operand(2)))
            else:
                buffers = {self.root(v) for v in op.operands if isinstance(v.type, MemRefType)}
                reads |= buffers
                writes |= buffers
        return reads, writes

    def first_user(self, buffer: Value) -> int | None:
        """The position of the first top-level op that reads or writes `buffer`."""
        users = self.touched_by.get(self.root(buffer))
        return min(users) if users else None

    def users(self, buffer: Value) -> set[int]:
        return self.touched_by.get(self.root(buffer), set())

    def merge(self, into: Value, other: Value) -> None:
        """`other`'s users now use `into` (a reuse)."""
        self.touched_by.setdefault(self.root(into), set()).update(self.users(other))

    def waits_for_all(self, later: int, earlier: set[int]) -> bool:
        """Whether op `later` waits, through the data, for every op of `earlier`."""
        pending = {i for i in earlier if i != later}
        if any(i > later for i in pending):
            return False
        stack, seen = [later], {later}
        while stack and pending:
            for p in self.producers[stack.pop()]:
                if p not in seen:
                    seen.add(p)
                    pending.discard(p)
                    stack.append(p)
            if len(seen) > SEARCH_LIMIT:
                return True
        return not pending
