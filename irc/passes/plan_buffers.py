"""Memory planning for a loop-level function: reuse dead buffers, free temporaries after their
last use (or keep them across calls with `allow_gc=False`), and state the peak memory.

Liveness is counted in top-level ops of the function body (a loop nest is one step); a view
keeps its root buffer alive; returned buffers are never freed nor reused (the caller owns
them). One forward sweep with a free pool keyed by (type, size values): a buffer whose last use
is before an allocation of the same key replaces it — linear in the number of ops. A device
buffer is given only to a temporary whose first user already waits for every op that used it
(`buffer_dependences.py`: else the reuse would order kernels that the GPU runs side by side).

A `loop.if` branch, a `loop.for` body (a scan's step) and a `loop.parallel` body are planned the same way as blocks of
their own (a branch's yielded buffers are what it returns: the `loop.if` result owns them, and
is freed after its last use at the level of the if, within the step inside a loop); liveness at
one level counts the uses nested inside its ops, so a buffer read in a branch lives until that
branch's op is done. Buffers allocated in a step are always freed there, those of a branch
too unless the branch's level keeps its temporaries (below); neither is counted in the peak.
This pass is the one owner of `loop.dealloc`.

`allow_gc=False` (Theano's flag): temporaries are never freed (those of the function's body and
of the `loop.if` branches in it, which run at most once per call); each is marked
`irc.workspace = slot` and code generation keeps it in a per-function workspace that is
allocated on the first call and grown only when shapes grow, so a call after the first
allocates nothing. The function gets `irc.peak_bytes`: an integer when every size is static,
else a formula over the arguments' sizes (`x.shape[0]`), max over the points where it may peak.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from itertools import count
from typing import Iterator

from ..dialects import loop as L
from ..dialects.builtin import MemRefType
from ..dialects.func import FuncOp, ReturnOp
from ..ir.attributes import IntegerAttr, StringAttr
from ..ir.core import Block, Operation, Value
from .buffer_dependences import VIEW_OPS, BufferDependences



class SizeClasses:
    """Index values known equal: union-find over the `loop.assert_eq`s seen so far (a size
    asserted equal earlier in the body is equal at every later point)."""

    def __init__(self) -> None:
        self.parent: dict[Value, Value] = {}

    def find(self, v: Value) -> Value:
        while self.parent.get(v, v) is not v:
            v = self.parent[v] = self.parent.get(self.parent[v], self.parent[v])
        return v

    def union(self, a: Value, b: Value) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra

    def key(self, op: L.AllocOp) -> tuple:
        return (op.result.type, tuple(self.find(v) for v in op.operands))


def _liveness(body: Block) -> tuple[dict[Operation, int], dict[Value, int]]:
    """Positions in `body` and, per root buffer, the position of its last reader."""
    pos: dict[Operation, int] = {}
    alias: dict[Value, Value] = {}
    last: dict[Value, int] = {}
    for i, top in enumerate(body.ops):
        pos[top] = i
        for op in top.walk():
            if isinstance(op, VIEW_OPS):
                alias[op.result] = alias.get(op.operand(0), op.operand(0))
            for v in op.operands:
                last[alias.get(v, v)] = i
    return pos, last


def plan_buffers(func: FuncOp, reuse: bool = True, allow_gc: bool = True) -> None:
    _plan_block(func.body, reuse, allow_gc, count())
    func.attributes["irc.peak_bytes"] = peak_bytes_attr(func)


def _nested_blocks(op: Operation) -> tuple[Block, ...]:
    """The blocks of `op` planned as blocks of their own: a `loop.if`'s branches, a
    `loop.for`'s body (a step's temporaries are freed within the step) and a
    `loop.parallel`'s (an iteration's scratch, e.g. a convolution's per-image im2col buffer,
    is freed by the thread that ran it)."""
    if isinstance(op, L.IfOp):
        return op.branch(True), op.branch(False)
    if isinstance(op, (L.ForOp, L.ParallelOp)):
        return (op.body,)
    return ()


def _plan_block(body: Block, reuse: bool, allow_gc: bool, slots: Iterator[int]) -> None:
    for op in body.ops:
        for block in _nested_blocks(op):
            # a branch runs at most once per run of its block: with allow_gc=False its
            # temporaries take workspace slots too (the function's slots: `slots`)
            _plan_block(block, reuse, allow_gc or not isinstance(op, L.IfOp), slots)
    ret = body.terminator
    returned = set(ret.operands) if isinstance(ret, (ReturnOp, L.YieldOp)) else set()
    temps = [op for op in body.ops if isinstance(op, L.AllocOp) and op.result not in returned]
    owned = [r for op in body.ops if isinstance(op, L.IfOp) for r in op.results
             if isinstance(r.type, MemRefType) and r not in returned]
    if not temps and not owned:
        return
    pos, last = _liveness(body)
    for op in temps:
        last.setdefault(op.result, pos[op])
    for r in owned:
        last.setdefault(r, pos[r.owner])
    kept: list[L.AllocOp] = []
    if reuse:
        sizes = SizeClasses()
        pool: dict[tuple, list[Value]] = defaultdict(list)
        release: dict[int, list[Value]] = defaultdict(list)
        temp_ops = set(temps)
        deps = BufferDependences(body) if any(op.result.type.device is not None for op in temps) else None
        for top in list(body.ops):
            i = pos[top]
            if isinstance(top, L.AssertEqOp):
                sizes.union(*top.operands)
            if top in temp_ops:
                free = pool[sizes.key(top)]
                buf = _reusable(free, top.result, deps)
                if buf is not None:
                    free.remove(buf)
                    if deps is not None:
                        deps.merge(buf, top.result)
                    end = last[top.result]
                    top.result.replace_all_uses_with(buf)
                    top.erase()
                    last[buf] = end
                    release[end].append(buf)
                    continue
                kept.append(top)
                release[last[top.result]].append(top.result)
            for buf in release.pop(i, ()):  # keyed now: later asserts may have joined sizes
                pool[sizes.key(buf.owner)].append(buf)
    else:
        kept = temps
    freed = [a.result for a in kept] if allow_gc else []
    if not allow_gc:
        for alloc in kept:
            alloc.attributes["irc.workspace"] = IntegerAttr(next(slots))
    at = {p: op for op, p in pos.items()}
    for buf in sorted(freed + owned, key=lambda b: -last[b]):
        anchor = _surviving(body, at, last[buf])
        dealloc = L.DeallocOp([buf], [], {}, (), (), anchor.location)
        if anchor is body.terminator:
            body.insert_before(anchor, dealloc)
        else:
            body.insert_after(anchor, dealloc)


def _reusable(free: list[Value], new: Value, deps: BufferDependences | None) -> Value | None:
    """The dead buffer of `free` that `new` takes: the last freed, on a device the last freed
    whose users `new`'s first user waits for; None for a fresh buffer."""
    if deps is None or new.type.device is None:
        return free[-1] if free else None
    first = deps.first_user(new)
    for buf in reversed(free):
        if first is None or deps.waits_for_all(first, deps.users(buf)):
            return buf
    return None


def _surviving(body, at: dict[int, Operation], i: int) -> Operation:
    """The op at original position i, or the next one still in the body (an alloc that
    nothing reads may have been replaced by a reused buffer)."""
    while at[i].parent is not body:
        i += 1
    return at[i]


# ---------------------------------------------------------------------------- peak memory
def _index_exprs(func: FuncOp) -> dict[Value, str | int]:
    names = {a: (a.name_hint or f"arg{i}") for i, a in enumerate(func.args)}
    env: dict[Value, str | int] = {}
    for op in func.body.ops:
        if isinstance(op, L.ConstantOp):
            env[op.result] = op.value
        elif isinstance(op, L.DimOp) and op.operand(0) in names:
            env[op.result] = f"{names[op.operand(0)]}.shape[{op.axis}]"
        elif op.op_name in L.INDEX_BINARY and all(v in env for v in op.operands):
            a, b = (env[v] for v in op.operands)
            if isinstance(a, int) and isinstance(b, int):
                env[op.result] = L.INDEX_BINARY[op.op_name](a, b)
            else:
                sym = {"loop.add": "+", "loop.sub": "-", "loop.mul": "*", "loop.floordiv": "//"}
                s = sym.get(op.op_name)
                env[op.result] = f"({a} {s} {b})" if s else f"{op.op_name[5:]}({a}, {b})"
    return env


def alloc_bytes_expr(op: L.AllocOp, env: dict[Value, str | int]) -> str | int:
    t = op.result.type
    item = t.element.bitwidth // 8 if t.element.bitwidth >= 8 else 1
    static = item
    syms: list[str] = []
    dyn = iter(op.operands)
    for d in t.shape:
        if d is not None:
            static *= d
            continue
        e = env.get(next(dyn), "?")
        if isinstance(e, int):
            static *= e
        else:
            syms.append(e)
    return static if not syms else "*".join([str(static)] + syms)


def peak_bytes_attr(func: FuncOp):
    """Peak of live buffers (temporaries and results) over the body, as an attribute."""
    env = _index_exprs(func)
    live: Counter = Counter()
    current: dict[Value, str | int] = {}
    candidates: list[Counter] = []
    for op in func.body.ops:
        if isinstance(op, L.AllocOp):
            current[op.result] = alloc_bytes_expr(op, env)
            live[current[op.result]] += 1
            candidates.append(live.copy())
        elif isinstance(op, L.DeallocOp) and op.operand(0) in current:
            live[current.pop(op.operand(0))] -= 1
            live = +live
    kept = [c for c in candidates if not any(c != o and not (c - o) for o in candidates)]
    uniq: list[Counter] = []
    for c in kept:
        if c not in uniq:
            uniq.append(c)
    if not uniq:
        return IntegerAttr(0)
    if all(isinstance(t, int) for c in uniq for t in c):
        return IntegerAttr(max(sum(t * n for t, n in c.items()) for c in uniq))
    sums = [" + ".join(f"{n}*{t}" if n > 1 else str(t) for t, n in sorted(c.items(), key=str)) for c in uniq]
    return StringAttr(sums[0] if len(sums) == 1 else "max(" + ", ".join(sums) + ")")
