"""Drop loop nests whose only effect is to fill buffers that nothing reads.

A value can be lowered although no lowering reads its buffer: the bounds of a minibatch slice
on the device are computed from the index on the host (`index_trace.py`), yet the tensor ops
that compute them were placed on the device and lowered to one-element nests. On a GPU each is
a kernel launch for nothing. A top-level `loop.parallel` that stores only into top-level
allocations used nowhere but in its own stores is dropped with them (to a fixpoint, last nest
first, so a chain of such nests goes at once)."""
from __future__ import annotations

from ...dialects import loop as L
from ...dialects.func import FuncOp
from ...ir.core import Operation, Value


def _dead_targets(nest: Operation) -> list[Value] | None:
    """The buffers `nest` fills, when nothing but its own stores uses them (else None)."""
    targets: list[Value] = []
    for op in nest.walk():
        if op is nest:
            continue
        if op.op_name.startswith("loop.check") or op.op_name == "loop.assert_eq":
            return None
        if isinstance(op, L.StoreOp):
            buf = op.operand(1)
            if not isinstance(buf.owner, L.AllocOp) or buf.owner.parent is not nest.parent:
                return None
            if buf not in targets:
                targets.append(buf)
    if not targets:
        return None
    for buf in targets:
        if any(not (isinstance(u, L.StoreOp) and u.operand(1) is buf and nest.is_ancestor_of(u))
               for u in buf.users):
            return None
    return targets


def drop_dead_nests(func: FuncOp) -> int:
    """Erase the dead nests of `func`'s body (see the module doc); how many went."""
    dropped = 0
    for op in reversed(list(func.body.ops)):
        if not isinstance(op, L.ParallelOp):
            continue
        targets = _dead_targets(op)
        if targets is None:
            continue
        op.erase()
        for buf in targets:
            buf.owner.erase()
        dropped += 1
    return dropped
