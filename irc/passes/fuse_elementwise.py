"""`fuse-elementwise`: groups of elementwise tensor ops become one `tensor.fused` op (one loop).

Unlike Theano's fusion (one output, one client), a group may have several results and its
values several readers, inside or outside it; siblings reading the same full-shape value are
merged too (`[x + y, x - y]` is one op with two results). Constants whose dims are all 1 go
into the body as `scalar.constant`s; `tensor.broadcast` is absorbed (its input is read with
broadcasting). Reductions of a group's results (one kind, one set of axes) join it as a
`tensor.fused_reduce` whose results are the group's values still read elsewhere and the reduced
values, all from one loop nest: `sum(exp(x) * y, axis=1)` makes one pass over memory, and so
does a gradient vector that is both returned and summed. Groups never form a cycle (see
`fusion_groups.py`); `max-inputs`/`max-outputs` bound a group's operands and results (a GPU
kernel's parameter space).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dialects import scalar as S
from ..dialects.builtin import ModuleOp
from ..dialects.func import FuncOp
from ..dialects.tensor_fused import FusedOp
from ..dialects.tensor_fused_reduce import FusedReduceOp
from ..dialects.tensor_scan import tensor_bodies
from ..ir.attributes import TypeAttr
from ..ir.builder import Builder, InsertionPoint
from ..ir.core import Block, Operation, Region, Value
from ..ir.pass_manager import Pass, option, register_pass
from ..ir.transforms import values_from_above
from .fusion_groups import Group, Grouping, inlinable_constant

def emit_member(b: Builder, op: Operation, env: dict[Value, Value]) -> None:
    """Append the scalar form of member `op` to the body; `env` maps tensors to scalars."""
    args = [env[v] for v in op.operands]
    if op.op_name == "tensor.fused":
        inner = op.regions[0].blocks[0]
        local: dict[Value, Value] = dict(zip(inner.args, args))
        for o in inner.ops[:-1]:
            b.insert(o.clone(local))
        outs = [local.get(v, v) for v in inner.ops[-1].operands]
    elif op.op_name == "tensor.broadcast":
        outs = [args[0]]
    elif op.op_name == "tensor.cast":
        to = op.results[0].type.element
        outs = [args[0] if args[0].type == to else
                b.create(S.CastOp, [args[0]], {"to": TypeAttr(to)}).results[0]]
    else:
        outs = [b.create(S.SCALAR_OPS[op.op_name.split(".", 1)[1]], args).results[0]]
    env.update(zip(op.results, outs))


def build_body(members: list[Operation], inputs: list[Value], yields: list[Value]) -> Region:
    """The scalar region computing `yields` from `inputs` through `members` (in order)."""
    block = Block([v.type.element for v in inputs])
    b = Builder(InsertionPoint.at_end(block), members[-1].location)
    env: dict[Value, Value] = dict(zip(inputs, block.args))
    for op in members:
        for v in op.operands:
            if v not in env and inlinable_constant(v):
                value = v.owner.attributes["value"].array.reshape(-1)[0].item()
                attr = S.scalar_attr(value, v.type.element)
                env[v] = b.create(S.ConstantOp, [], {"value": attr}).results[0]
        emit_member(b, op, env)
    b.create(S.YieldOp, [env[v] for v in yields], result_types=[])
    for op in reversed(block.ops[:-1]):  # e.g. the shape-only operand of a broadcast
        if not any(r.uses for r in op.results):
            op.erase()
    return Region([block])


def group_inputs(members: list[Operation]) -> list[Value]:
    inside = {r for op in members for r in op.results}
    seen: dict[Value, None] = {}
    for op in members:
        for v in op.operands:
            if v not in inside and not inlinable_constant(v):
                seen.setdefault(v)
    return list(seen)


def topological_order(block: Block) -> None:
    """Reorder `block` so every op follows its operands' definers (stable; the terminator last).
    Raises on a cycle (fusion never makes one: this guards the invariant)."""
    placed: set[Operation] = set()
    open_: set[Operation] = set()
    order: list[Operation] = []
    in_block = set(block.ops)
    for root in block.ops:
        stack = [(root, False)]
        while stack:
            op, ready = stack.pop()
            if op in placed:
                continue
            if ready:
                open_.discard(op)
                placed.add(op)
                order.append(op)
                continue
            if op in open_:
                raise AssertionError(f"fuse-elementwise made a cycle through '{op.op_name}'")
            open_.add(op)
            stack.append((op, True))
            reads = values_from_above(op, with_operands=True)  # a branch's reads too
            for v in reversed(reads):
                d = v.owner
                if isinstance(d, Operation) and d in in_block and d not in placed:
                    stack.append((d, False))
    block.ops[:] = order


def _replace(block: Block, ops: list[Operation], fused: Operation, olds: list[Value]) -> None:
    """Put `fused` after the last of `ops`, make it define `olds`, erase `ops`."""
    block.insert_after(ops[-1], fused)
    for old, new in zip(olds, fused.results):
        old.replace_all_uses_with(new)
    for op in reversed(ops):
        op.erase()


@register_pass
@dataclass
class FuseElementwise(Pass):
    """Merge elementwise ops (and the reductions they feed) into `tensor.fused` ops."""

    name = "fuse-elementwise"
    summary = "merge elementwise producers/consumers (multi-output) and reductions into fused ops"
    tags = ("fusion",)
    statistics = {"fused-ops": "tensor.fused ops made", "fused-members": "ops merged into them",
                  "fused-reductions": "reductions computed in the loop nest of their producers"}
    max_inputs: int = option(64, "distinct operands of one fused op at most", minimum=1)
    max_outputs: int = option(16, "results of one fused op at most", minimum=1)

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        for func in [op for op in module.body.ops if isinstance(op, FuncOp)]:
            for block in (func.body, *tensor_bodies(func)):
                self.fuse_block(block)

    def fuse_block(self, block: Block) -> None:
        grouping = Grouping(block, self.max_inputs, self.max_outputs)
        groups = grouping.run()
        pos = grouping.pos
        changed = False
        for g in groups:
            g.members.sort(key=pos.__getitem__)
            if g.reductions:
                self._fuse_reduce(block, g, pos)
                changed = True
            elif len(g.members) > 1:
                self._fuse(block, g)
                changed = True
        if changed:
            for op in [op for op in block.ops if op.op_name == "tensor.constant"]:
                if not op.results[0].uses:
                    op.erase()
            topological_order(block)

    def _fuse(self, block: Block, g: Group) -> None:
        outs = g.elementwise_outputs()
        inputs = group_inputs(g.members)
        region = build_body(g.members, inputs, outs)
        fused = FusedOp.build(inputs, {}, [r.type for r in outs], [region], g.members[-1].location)
        _replace(block, g.members, fused, outs)
        self.stats["fused-ops"] += 1
        self.stats["fused-members"] += len(g.members)

    def _fuse_reduce(self, block: Block, g: Group, pos: dict[Operation, int]) -> None:
        """One `tensor.fused_reduce`: the group's outside-read values, then its reductions."""
        outs = g.elementwise_outputs()
        inputs = group_inputs(g.members)
        region = build_body(g.members, inputs, outs + [r.operand(0) for r in g.reductions])
        first = g.reductions[0]
        attrs = {k: first.attributes[k] for k in ("kind", "axes")}
        types = [v.type for v in outs] + [r.results[0].type for r in g.reductions]
        location = g.members[-1].location if outs else g.reductions[-1].location
        fused = FusedReduceOp.build(inputs, attrs, types, [region], location)
        ops = sorted(g.members + g.reductions, key=pos.__getitem__)
        _replace(block, ops, fused, outs + [r.results[0] for r in g.reductions])
        self.stats["fused-reductions"] += len(g.reductions)
        self.stats["fused-members"] += len(g.members)
