"""`inplace`: let an elementwise op write its result over an operand's buffer when nothing
reads that buffer afterwards (a `tensor.fused_reduce` too, for its elementwise results: its loop
nest reads and writes each element once, like an elementwise op's; and gemm/gemv over their
accumulator C, so that a folded update `W - lr·g` = gemm(Xᵀ, δ, W) writes into W; and a
scatter over its dest, Theano's `AdvancedIncSubtensor1{inplace}`: `inc_subtensor(W[idx], y)`
as W's update writes only the indexed rows).

The mark is `inplace = array<i64: o0, o1, ...>` on the op: per result, the operand whose buffer
it overwrites (-1: a fresh buffer). It is a permission; `lower-to-loops` takes it when the
operand's buffer is a temporary of the result's exact type (see `inplace_target` there).

An operand may be overwritten when it has the result's shape and element type (same index,
no broadcast), no later op reads it or any view of it, no other operand of the op is a view
of the same buffer, and it is a temporary: never a user's input, never a constant, never a
returned value (the return reads it later). A shared variable's argument is overwritten only
by the op computing its update (`irc.update = N` on the one result that reads it), when that
op is the last reader of the old value: the loop-level function then says so with
`irc.inplace = N` on the result (the runtime contract, see `lower-to-loops`).

Function bodies, scan bodies and ifelse branches alike (a step's arguments are never
overwritten: they are rows of the caller's sequences and of the results). One pass over each
block: positions, alias roots and last readers are computed once (linear).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dialects.builtin import ModuleOp, TensorType
from ..dialects.func import FuncOp, ReturnOp
from ..dialects.tensor_scan import tensor_bodies
from ..ir.attributes import DenseArrayAttr, IntegerAttr
from ..ir.core import Block, BlockArgument, ElementwiseTrait, Operation, Value
from ..ir.pass_manager import Pass, register_pass
from ..ir.transforms import values_from_above

VIEW_OPS = ("tensor.dimshuffle", "tensor.transpose", "tensor.slice", "tensor.index", "tensor.broadcast",
            "tensor.reshape")
NO_BUFFER = ("tensor.constant", "tensor.dim") + VIEW_OPS


BLAS_OPS = ("tensor.gemm", "tensor.gemv")


def overwritable(op: Operation) -> range:
    """The operands `op` may write its result over: any of an elementwise op's (it reads and
    writes each element once); only the accumulator C of gemm/gemv, whose loops read C[i, j]
    just before writing out[i, j] (Theano's `Gemm{inplace}`)."""
    if (op.op_name.startswith("tensor.") and op.has_trait(ElementwiseTrait)
            and op.op_name != "tensor.broadcast") or op.op_name == "tensor.fused_reduce":
        return range(len(op.operands))
    if op.op_name in BLAS_OPS and len(op.operands) == 3:
        return range(2, 3)
    if op.op_name == "tensor.scatter":
        return range(0, 1)  # dest: the copy of it is skipped, the writes land in place
    return range(0)


class Liveness:
    """Alias roots (a view's root is its source's root) and the last reader of each root."""

    def __init__(self, block: Block):
        self.pos = {op: i for i, op in enumerate(block.ops)}
        self.root: dict[Value, Value] = {}
        self.last: dict[Value, int] = {}
        for op in block.ops:
            if op.op_name in VIEW_OPS:
                self.root[op.results[0]] = self.root_of(op.operand(0))
            for v in (*op.operands, *values_from_above(op)):  # a `tensor.if` branch's reads count here
                self.last[self.root_of(v)] = self.pos[op]

    def root_of(self, v: Value) -> Value:
        return self.root.get(v, v)


def _update_targets(func: FuncOp) -> dict[Value, int]:
    """Returned values that are a shared variable's update: value -> the argument's index."""
    ret = func.body.terminator
    out: dict[Value, int] = {}
    if not isinstance(ret, ReturnOp):
        return out
    counts: dict[Value, int] = {}
    for v in ret.operands:
        counts[v] = counts.get(v, 0) + 1
    for k, v in enumerate(ret.operands):
        upd = func.res_attrs(k).get("irc.update")
        if isinstance(upd, IntegerAttr) and counts[v] == 1 and len(v.uses) == 1 \
                and "irc.shared" in func.arg_attrs(upd.value):
            out[v] = upd.value
    return out


@register_pass
@dataclass
class Inplace(Pass):
    """Mark ops that may overwrite a dead operand (or their shared variable)."""

    name = "inplace"
    summary = "let elementwise ops (and gemm/gemv over C) write over operands nothing reads afterwards"
    tags = ("inplace",)
    statistics = {"inplace-temporaries": "results written over a dead temporary",
                  "inplace-updates": "shared-variable updates written over the variable"}

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        for func in [op for op in module.body.ops if isinstance(op, FuncOp)]:
            self.run_block(func.body, _update_targets(func))
            for body in tensor_bodies(func):  # a step's or a branch's temporaries
                self.run_block(body, {})

    def run_block(self, block: Block, updates: dict[Value, int]) -> None:
        live = Liveness(block)
        for op in block.ops:
            allowed = overwritable(op)
            if not allowed or "inplace" in op.attributes:
                continue
            marks = [-1] * len(op.results)
            taken: set[int] = set()
            for j, r in enumerate(op.results):
                # a shared variable's own update first: then the caller need not copy it back
                order = sorted(allowed, key=lambda i: not (
                    isinstance(op.operands[i], BlockArgument) and updates.get(r) == op.operands[i].index))
                for i in order:
                    v = op.operands[i]
                    if i in taken or not self._may_overwrite(op, r, v, live, updates):
                        continue
                    marks[j] = i
                    taken.add(i)
                    self.stats["inplace-updates" if isinstance(v, BlockArgument)
                               else "inplace-temporaries"] += 1
                    break
            if any(m >= 0 for m in marks):
                op.attributes["inplace"] = DenseArrayAttr(tuple(marks))

    @staticmethod
    def _may_overwrite(op: Operation, r: Value, v: Value, live: Liveness,
                       updates: dict[Value, int]) -> bool:
        if not (isinstance(v.type, TensorType) and v.type == r.type):
            return False
        if live.root_of(v) is not v or live.last.get(v) != live.pos[op]:
            return False  # a view, or read again later
        if any(live.root_of(u) is v for u in op.operands if u is not v):
            return False  # a view of the same buffer is read by this op at other indices
        if op.op_name == "tensor.scatter" and op.operands.count(v) > 1:
            return False  # also its src or an index array, read while dest is written
        if isinstance(v, BlockArgument):
            return updates.get(r) == v.index
        owner = v.owner  # (made in this block: a branch never writes over what it reads from above)
        return isinstance(owner, Operation) and owner.parent is op.parent and owner.op_name not in NO_BUFFER

