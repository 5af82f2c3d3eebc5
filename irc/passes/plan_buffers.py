"""Memory planning for a loop-level function: free each temporary after its last use and reuse
a dead buffer for a later allocation of the same type and sizes.

Simple and safe: liveness is counted in top-level ops of the function body (a loop nest is one
step), a view keeps its root buffer alive, returned buffers are never freed nor reused (the
caller owns them), and a buffer is reused only by an allocation strictly after its last use.
"""
from __future__ import annotations

from ..dialects import loop as L
from ..dialects.func import FuncOp, ReturnOp
from ..ir.core import Operation, Value

VIEW_OPS = (L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp)


def _root(v: Value, alias: dict[Value, Value]) -> Value:
    return alias.get(v, v)


def _key(op: L.AllocOp) -> tuple:
    return (op.result.type, tuple(op.operands))


def plan_buffers(func: FuncOp, reuse: bool = True) -> None:
    body = func.body
    ret = body.terminator
    returned = set(ret.operands) if isinstance(ret, ReturnOp) else set()
    alias: dict[Value, Value] = {}
    last_use: dict[Value, int] = {}
    allocs: dict[Value, L.AllocOp] = {}

    def liveness() -> None:
        alias.clear()
        last_use.clear()
        allocs.clear()
        for pos, top in enumerate(body.ops):
            for op in top.walk():
                if isinstance(op, VIEW_OPS):
                    alias[op.result] = _root(op.operand(0), alias)
                for v in op.operands:
                    last_use[_root(v, alias)] = pos
            if isinstance(top, L.AllocOp) and top.result not in returned:
                allocs[top.result] = top
                last_use.setdefault(top.result, pos)

    liveness()
    i = 0
    while reuse and i < len(body.ops):
        top = body.ops[i]
        i += 1
        if not isinstance(top, L.AllocOp) or top.result not in allocs:
            continue
        for buf, other in allocs.items():
            if (buf is not top.result and last_use[buf] < i - 1 and _key(other) == _key(top)
                    and body.ops.index(other) < i - 1):
                top.result.replace_all_uses_with(buf)
                top.erase()
                liveness()
                i -= 1
                break
    for buf in sorted(allocs, key=lambda b: -last_use[b]):
        anchor = body.ops[last_use[buf]]
        dealloc = L.DeallocOp([buf], [], {}, (), (), anchor.location)
        if anchor is body.terminator:
            body.insert_before(anchor, dealloc)
        else:
            body.insert_after(anchor, dealloc)
