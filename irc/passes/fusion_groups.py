"""Which elementwise ops `fuse-elementwise` puts together: groups that share one iteration space.

Every member of a group has the same result shape (so one loop nest computes them all); a
group never depends on itself through an op outside it (that would be a cycle once it is one
op). Ops are visited in block order; an op joins the groups of its producers (vertical fusion),
then groups reading one full-shape value are merged (horizontal fusion: `x + y` and `x - y`
become one op with two results). Groups keep their external producers, inputs and outputs
incrementally, so a merge costs the size of those sets, not of the group; the cycle test walks
back from the external producers only over ops placed after the group's first member.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..dialects.builtin import TensorType
from ..ir.core import Block, ElementwiseTrait, Operation, Value

# tensor ops that read their operands elementwise although not in the elementwise table
SHAPE_ONLY_SECOND = ("tensor.broadcast",)   # operand 1 only gives the shape


def inlinable_constant(v: Value) -> bool:
    """A constant small enough to live in the body as a `scalar.constant` (every dim is 1)."""
    op = v.owner
    return (isinstance(op, Operation) and op.op_name == "tensor.constant"
            and all(d == 1 for d in v.type.shape))


def fusable(op: Operation) -> bool:
    """A tensor op one loop nest can compute per element, from tensors of its rank."""
    elementwise = op.has_trait(ElementwiseTrait) and op.op_name.startswith("tensor.")
    if op.op_name not in SHAPE_ONLY_SECOND and (not elementwise or "inplace" in op.attributes):
        return False
    types = [v.type for v in (*op.operands, *op.results)]
    if not op.results or not all(isinstance(t, TensorType) and t.device is None for t in types):
        return False
    rank = op.results[0].type.rank
    shape = op.results[0].type.shape
    return all(t.rank == rank for t in types) and all(r.type.shape == shape for r in op.results)


REDUCE_KINDS = ("sum", "prod", "max", "min")


def absorbing_reduce(members: list[Operation]) -> Operation | None:
    """The `tensor.reduce` that is the only reader of the group's only result, if any: the
    group then goes into a `tensor.fused_reduce` (so it is kept out of horizontal merges)."""
    inside = set(members)
    outs = [r for op in members for r in op.results if any(u not in inside for u in r.users)]
    if len(outs) != 1 or len(outs[0].users) != 1:
        return None
    r = outs[0].users[0]
    if r.op_name != "tensor.reduce" or r.attributes["kind"].value not in REDUCE_KINDS:
        return None
    if not list(r.attributes["axes"]) or r.operand(0).type.element.is_bool:
        return None
    return r


@dataclass(eq=False)
class Group:
    members: list[Operation]
    shape: tuple
    min_pos: int
    inputs: set[Value] = field(default_factory=set)        # values read from outside
    producers: set[Operation] = field(default_factory=set)  # ops defining those inputs
    outputs: set[Value] = field(default_factory=set)        # results read outside (so far)


class Grouping:
    """Union of groups over one block; `group[op]` is the op's group."""

    def __init__(self, block: Block, max_inputs: int, max_outputs: int):
        self.block = block
        self.max_inputs = max_inputs
        self.max_outputs = max_outputs
        self.pos = {op: i for i, op in enumerate(block.ops)}
        self.group: dict[Operation, Group] = {}
        self._stamp = 0
        self._seen: dict[Operation, int] = {}

    # ------------------------------------------------------------------ building blocks
    def singleton(self, op: Operation) -> Group:
        g = Group([op], op.results[0].type.shape, self.pos[op])
        for v in op.operands:
            if not inlinable_constant(v):
                g.inputs.add(v)
                if isinstance(v.owner, Operation):
                    g.producers.add(v.owner)
        g.outputs = set(op.results)
        self.group[op] = g
        return g

    def _merged_sets(self, a: Group, b: Group) -> tuple[set, set, set]:
        inside = lambda op: self.group.get(op) in (a, b)  # noqa: E731
        inputs = {v for v in a.inputs | b.inputs if not (isinstance(v.owner, Operation) and inside(v.owner))}
        producers = {p for p in a.producers | b.producers if not inside(p)}
        outputs = {r for r in a.outputs | b.outputs if any(not inside(u) for u in r.users)}
        return inputs, producers, outputs

    def _reaches(self, starts: set[Operation], a: Group, b: Group, floor: int) -> bool:
        """Whether an op in `starts` depends (through ops at positions >= floor) on a or b."""
        self._stamp += 1
        stack = list(starts)
        while stack:
            op = stack.pop()
            if self._seen.get(op) == self._stamp:
                continue
            self._seen[op] = self._stamp
            for v in op.operands:
                d = v.owner
                if not isinstance(d, Operation) or self.pos.get(d, -1) < floor:
                    continue
                if self.group.get(d) in (a, b):
                    return True
                stack.append(d)
        return False

    def try_merge(self, a: Group, b: Group) -> Group | None:
        """Merge b into a (the larger keeps its identity) unless limits or a cycle forbid it."""
        if a is b:
            return a
        if a.shape != b.shape:
            return None
        inputs, producers, outputs = self._merged_sets(a, b)
        if len(inputs) > self.max_inputs or len(outputs) > self.max_outputs:
            return None
        floor = min(a.min_pos, b.min_pos)
        if self._reaches(producers, a, b, floor):
            return None
        if len(a.members) < len(b.members):
            a, b = b, a
        a.members += b.members
        for op in b.members:
            self.group[op] = a
        a.min_pos, a.inputs, a.producers, a.outputs = floor, inputs, producers, outputs
        return a

    # ------------------------------------------------------------------ the two sweeps
    def run(self) -> list[Group]:
        for op in self.block.ops:
            if not fusable(op):
                continue
            g = self.singleton(op)
            operands = op.operands[:1] if op.op_name in SHAPE_ONLY_SECOND else op.operands
            for v in operands:
                p = self.group.get(v.owner) if isinstance(v.owner, Operation) else None
                if p is not None and p.shape == g.shape:
                    g = self.try_merge(p, g) or g
        self._horizontal()
        seen: dict[int, Group] = {}
        for g in self.group.values():
            seen.setdefault(id(g), g)
        return list(seen.values())

    def _horizontal(self) -> None:
        values = list(self.block.args) + [r for op in self.block.ops for r in op.results]
        for v in values:
            if not isinstance(v.type, TensorType):
                continue
            # In program order, not use-list order: a re-parsed dump must fuse the same way.
            readers = sorted((u for u in v.users if u in self.group), key=self.pos.__getitem__)
            current: Group | None = None
            for u in readers:
                g = self.group[u]  # looked up now: earlier merges may have moved u
                if g.shape != v.type.shape or absorbing_reduce(g.members) is not None:
                    continue
                if current is None:
                    current = g
                else:
                    current = self.try_merge(current, g) or current
