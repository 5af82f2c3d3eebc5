"""Which ops `fuse-elementwise` puts together: groups that share one iteration space.

Every elementwise member of a group has the same result shape (so one loop nest computes them
all). Ops are visited in block order; an op joins the groups of its producers (vertical
fusion), then groups reading one full-shape value are merged, each reader's with the previous
reader's (horizontal fusion: `x + y` and `x - y` become one op with two results). Last, each
group takes in the reductions of its results that share one kind and one set of axes (a
multi-output `tensor.fused_reduce`); two groups whose results are reduced in different ways
are not merged (each keeps its reduction).

No cycles: once every group is contracted to one op, the graph must stay acyclic — a merge of
`a` and `b` is refused when a path leads from one to the other through an op or a group outside
them. The contracted graph keeps a topological order (`order`, Pearce–Kelly): a merge searches
only the nodes ordered between `a` and `b` (forward from the earlier, backward from the later)
and reorders just those, so a merge costs the size of that window, not of the function (a
window over SEARCH_LIMIT nodes is not searched: the merge is not made). Groups
keep their external producers, inputs and outputs incrementally, so a merge costs the size of
those sets, not of the group. A reduction reads only its group, so taking it in never closes a
cycle; an op reading the reduced value is outside the group by the rule above (its path goes
through the reduction).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Union

from ..dialects.builtin import TensorType
from ..dialects.tensor_semantics import shape_arithmetic
from ..ir.core import Block, ElementwiseTrait, Operation, Value

# tensor ops that read their operands elementwise although not in the elementwise table
SHAPE_ONLY_SECOND = ("tensor.broadcast",)   # operand 1 only gives the shape
REDUCE_KINDS = ("sum", "prod", "max", "min")
SEARCH_LIMIT = 2000  # nodes one merge may search for a cycle (beyond: not merged)


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
    if shape_arithmetic(op):
        return False
    types = [v.type for v in (*op.operands, *op.results)]
    if not op.results or not all(isinstance(t, TensorType) for t in types):
        return False
    if len({t.device for t in types}) != 1:  # one placement: a transfer is never fused away
        return False
    rank = op.results[0].type.rank
    shape = op.results[0].type.shape
    return all(t.rank == rank for t in types) and all(r.type.shape == shape for r in op.results)


def reducible(op: Operation) -> bool:
    """A `tensor.reduce` a fused loop nest can compute as it goes (not argmax/argmin, not i1)."""
    return (op.op_name == "tensor.reduce" and op.attributes["kind"].value in REDUCE_KINDS
            and bool(list(op.attributes["axes"])) and not op.operand(0).type.element.is_bool)


def reduce_key(op: Operation) -> tuple[str, tuple[int, ...]]:
    return op.attributes["kind"].value, tuple(op.attributes["axes"])


def reductions_of(g: "Group") -> set[Operation]:
    """The reductions reading g's results that its loop nest could compute: those in g's block
    (one nested in a region op runs in that op's loops, not g's)."""
    return {u for r in g.outputs for u in r.users if reducible(u) and u.parent is r.owner.parent}


def reduce_keys(g: "Group") -> set[tuple[str, tuple[int, ...]]]:
    """The (kind, axes) of the reductions reading g's results."""
    return {reduce_key(u) for u in reductions_of(g)}


@dataclass(eq=False)
class Group:
    members: list[Operation]
    shape: tuple
    inputs: set[Value] = field(default_factory=set)        # values read from outside
    producers: set[Operation] = field(default_factory=set)  # ops of the block defining those inputs
    outputs: set[Value] = field(default_factory=set)        # results read outside
    reductions: list[Operation] = field(default_factory=list)  # taken in, one kind and axes

    def elementwise_outputs(self) -> list[Value]:
        """The members' results the fused op returns, in member order: those read by something
        other than the group and its reductions. Dead results are not computed (unless the
        whole group is dead and has no reduction: then its last op's results stay, for DCE)."""
        inside = set(self.members) | set(self.reductions)
        outs = [r for op in self.members for r in op.results if any(u not in inside for u in r.users)]
        if not outs and not self.reductions:
            outs = list(self.members[-1].results)
        return outs


Node = Union[Group, Operation]


class Grouping:
    """Union of groups over one block; `group[op]` is the op's group."""

    def __init__(self, block: Block, max_inputs: int, max_outputs: int):
        self.block = block
        self.max_inputs = max_inputs
        self.max_outputs = max_outputs
        self.pos = {op: i for i, op in enumerate(block.ops)}
        self.group: dict[Operation, Group] = {}
        self.order: dict[Node, int] = dict(self.pos)  # a topological order of the contracted graph

    # ------------------------------------------------------------------ the contracted graph
    def node(self, op: Operation) -> Node:
        while op not in self.pos and op.parent_op is not None:  # a use nested in a region
            op = op.parent_op
        return self.group.get(op, op)

    def successors(self, n: Node) -> Iterator[Node]:
        values = n.outputs if isinstance(n, Group) else n.results
        for r in values:
            for u in r.users:
                s = self.node(u)
                if s is not n:
                    yield s

    def predecessors(self, n: Node) -> Iterator[Node]:
        if isinstance(n, Group):
            for p in n.producers:
                yield self.node(p)
            return
        for v in n.operands:
            if isinstance(v.owner, Operation) and v.owner in self.pos:
                yield self.node(v.owner)

    def _window(self, start: Node, stop: Node, forward: bool) -> set[Node] | None:
        """The nodes reachable from `start` (forward or backward) ordered strictly between
        `start` and `stop`; None when `stop` is reached through one of them (a cycle), or
        when the window exceeds SEARCH_LIMIT nodes (the merge is then not tried: bounded cost)."""
        step = self.successors if forward else self.predecessors
        bound = self.order[stop]
        seen: set[Node] = set()
        stack = [n for n in step(start) if n is not stop]
        while stack:
            n = stack.pop()
            if n is stop:
                return None
            if n in seen or (self.order[n] > bound if forward else self.order[n] < bound):
                continue
            seen.add(n)
            if len(seen) > SEARCH_LIMIT:
                return None
            stack.extend(step(n))
        return seen

    # ------------------------------------------------------------------ building blocks
    def singleton(self, op: Operation) -> Group:
        g = Group([op], op.results[0].type.shape)
        for v in op.operands:
            if not inlinable_constant(v):
                g.inputs.add(v)
                if isinstance(v.owner, Operation) and v.owner in self.pos:  # not one from above
                    g.producers.add(v.owner)
        g.outputs = set(op.results)
        self.group[op] = g
        self.order[g] = self.order.pop(op)
        return g

    def _merged_sets(self, a: Group, b: Group) -> tuple[set, set, set]:
        inside = lambda op: self.group.get(op) in (a, b)  # noqa: E731
        inputs = {v for v in a.inputs | b.inputs if not (isinstance(v.owner, Operation) and inside(v.owner))}
        producers = {p for p in a.producers | b.producers if not inside(p)}
        outputs = {r for r in a.outputs | b.outputs if any(not inside(u) for u in r.users)}
        return inputs, producers, outputs

    def try_merge(self, a: Group, b: Group) -> Group | None:
        """Merge b into a (the larger keeps its identity) unless limits or a cycle forbid it."""
        if a is b:
            return a
        if a.shape != b.shape:
            return None
        inputs, producers, outputs = self._merged_sets(a, b)
        if len(inputs) > self.max_inputs or len(outputs) > self.max_outputs:
            return None
        ka, kb = reduce_keys(a), reduce_keys(b)
        if ka and kb and not (ka <= kb or kb <= ka):
            return None  # one loop nest computes one kind of reduction: each keeps its own
        early, late = (a, b) if self.order[a] < self.order[b] else (b, a)
        after = self._window(early, late, forward=True)
        if after is None:
            return None
        before = self._window(late, early, forward=False)
        assert before is not None and not (before & after)
        if len(a.members) < len(b.members):
            a, b = b, a
        a.members += b.members
        for op in b.members:
            self.group[op] = a
        a.inputs, a.producers, a.outputs = inputs, producers, outputs
        self._reorder(before, a, after, [early, late])
        return a

    def _reorder(self, before: set[Node], merged: Group, after: set[Node], pair: list[Group]) -> None:
        """Pearce–Kelly: on the slots the window held, what the merged group reads comes first,
        then the group, then what reads it."""
        slots = sorted(self.order[n] for n in (*before, *after, *pair))
        for n in pair:
            del self.order[n]
        ranked = sorted(before, key=self.order.__getitem__)
        tail = sorted(after, key=self.order.__getitem__)
        for n, s in zip(ranked, slots):
            self.order[n] = s
        self.order[merged] = slots[len(ranked) + 1]  # the later free slot: windows stay short
        for n, s in zip(tail, slots[len(ranked) + 2:]):
            self.order[n] = s

    # ------------------------------------------------------------------ the sweeps
    def run(self) -> list[Group]:
        for op in self.block.ops:
            if fusable(op):
                self.singleton(op)
        for op in self.block.ops:
            g = self.group.get(op)
            if g is None:
                continue
            operands = op.operands[:1] if op.op_name in SHAPE_ONLY_SECOND else op.operands
            for v in operands:
                p = self.group.get(v.owner) if isinstance(v.owner, Operation) else None
                if p is not None and p.shape == g.shape:
                    g = self.try_merge(p, g) or g
        self._horizontal()
        groups: dict[int, Group] = {}
        for g in self.group.values():
            groups.setdefault(id(g), g)
        for g in groups.values():
            self._take_reductions(g)
        return list(groups.values())

    def _horizontal(self) -> None:
        values = list(self.block.args) + [r for op in self.block.ops for r in op.results]
        for v in values:
            if not isinstance(v.type, TensorType):
                continue
            # In program order, not use-list order: a re-parsed dump must fuse the same way.
            # Each reader's group is tried with the previous reader's: runs of readers merge,
            # and a refused merge (a dependence between them) costs a short search.
            readers = sorted((u for u in v.users if u in self.group), key=self.pos.__getitem__)
            current: Group | None = None
            for u in readers:
                g = self.group[u]  # looked up now: earlier merges may have moved u
                if g.shape != v.type.shape:
                    continue
                current = g if current is None else (self.try_merge(current, g) or g)

    def _take_reductions(self, g: Group) -> None:
        """The reductions of g's results that one loop nest computes with g: those of the
        first (kind, axes) in block order, while the results fit in `max-outputs`."""
        found = sorted(reductions_of(g), key=self.pos.__getitem__)
        if not found:
            return
        key = reduce_key(found[0])
        for r in found:
            if reduce_key(r) != key:
                continue
            g.reductions.append(r)
            if len(g.elementwise_outputs()) + len(g.reductions) > self.max_outputs:
                g.reductions.pop()
