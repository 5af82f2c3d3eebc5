"""Generic clean-ups any dialect gets for free: dead-code elimination and CSE.

Both only look at traits (`Pure`, `Terminator`, `IsolatedFromAbove`, `Commutative`), so they
work on every level of the compiler; both are linear-ish (worklists and dicts, no rescans).
"""
from __future__ import annotations

from typing import Hashable

from .core import Block, Commutative, IsolatedFromAbove, OpResult, Operation, Pure, Region, Terminator, Value
from .dominance import immediate_dominators


# ---------------------------------------------------------------------------- side effects
def is_side_effect_free(op: Operation) -> bool:
    """`Pure`, and so is everything in its regions (nested terminators only pass values on)."""
    if not op.has_trait(Pure):
        return False
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                if not (is_side_effect_free(child) or (child.has_trait(Terminator) and not child.regions)):
                    return False
    return True


def is_trivially_dead(op: Operation) -> bool:
    """No result is used and erasing it changes nothing observable (terminators always stay)."""
    for res in op.results:
        if res.uses:
            return False
    return op.parent is not None and not op.has_trait(Terminator) and is_side_effect_free(op)


# ---------------------------------------------------------------------------- regions
def values_from_above(op: Operation, with_operands: bool = False) -> list[Value]:
    """The values used inside `op`'s regions (and, `with_operands`, by `op` itself) that are
    defined outside `op`, in first-use order: what a region op reads from its surroundings (an
    interpreter passes them in, an outliner captures them). An op without regions, or an
    `IsolatedFromAbove` one, reads only its operands: nothing is walked."""
    if not op.regions or op.has_trait(IsolatedFromAbove):
        return list(dict.fromkeys(op.operands)) if with_operands else []  # Values hash by identity
    inside: set[int] = set()
    for inner in op.walk():
        if inner is not op:
            inside.update(id(r) for r in inner.results)
        for region in inner.regions:
            for block in region.blocks:
                inside.update(id(a) for a in block.args)
    seen: set[int] = set()
    out: list[Value] = []
    for inner in op.walk():
        if inner is op and not with_operands:
            continue
        for v in inner.operands:
            if id(v) not in inside and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out


# ---------------------------------------------------------------------------- bulk erasure
def erase_ops(ops: list[Operation]) -> None:
    """Erase many ops at once, each use list and block list rewritten once.

    `Operation.erase` filters a value's whole use list per erased user, which is quadratic when
    thousands of users of one value (a function argument, a constant) go away; this is linear.
    The results of `ops` may only be used by ops in `ops` (or nested in them).
    """
    doomed: set[int] = set()
    values: dict[int, Value] = {}
    blocks: dict[int, Block] = {}
    for op in ops:
        if op.parent is not None:
            blocks[id(op.parent)] = op.parent
        for nested in op.walk():
            doomed.add(id(nested))
            for v in nested._operands:
                values[id(v)] = v
    for v in values.values():
        v.uses[:] = [u for u in v.uses if id(u.owner) not in doomed]
    for block in blocks.values():
        block.ops[:] = [o for o in block.ops if id(o) not in doomed]
    for op in ops:
        op.parent = None


# ---------------------------------------------------------------------------- DCE
def eliminate_dead_code(root: Operation) -> int:
    """Erase every trivially dead op nested in `root`; returns how many ops were erased
    (nested ops of an erased op are not counted)."""
    worklist = list(root.walk())  # popping from the end visits users before their definitions
    doomed: set[int] = set()
    dead: list[Operation] = []
    while worklist:
        op = worklist.pop()
        if op is root or id(op) in doomed or not _dead_unless_used_by(op, doomed):
            continue
        dead.append(op)
        for nested in op.walk():
            doomed.add(id(nested))
        for v in _operands_used_by(op):  # their definers may have become dead
            if isinstance(v, OpResult) and id(v.op) not in doomed:
                worklist.append(v.op)
    erase_ops(dead)
    return len(dead)


def _dead_unless_used_by(op: Operation, doomed: set[int]) -> bool:
    """`is_trivially_dead`, counting uses by ops about to be erased as no uses."""
    for res in op.results:
        for use in res.uses:
            if id(use.owner) not in doomed:
                return False
    return op.parent is not None and not op.has_trait(Terminator) and is_side_effect_free(op)


def _operands_used_by(op: Operation) -> list[Value]:
    """Operands of `op` and of every op nested in it."""
    if not op.regions:
        return list(op._operands)
    return [v for nested in op.walk() for v in nested._operands]


# ---------------------------------------------------------------------------- CSE
_MISSING = object()


class _ScopedTable:
    """A dict with nested scopes: leaving a scope undoes the insertions made in it."""

    def __init__(self) -> None:
        self.table: dict[Hashable, Operation] = {}
        self.undo: list[list[tuple[Hashable, object]]] = [[]]

    def get(self, key: Hashable) -> Operation | None:
        return self.table.get(key)

    def insert(self, key: Hashable, op: Operation) -> None:
        self.undo[-1].append((key, self.table.get(key, _MISSING)))
        self.table[key] = op

    def push(self) -> None:
        self.undo.append([])

    def pop(self) -> None:
        for key, old in reversed(self.undo.pop()):
            if old is _MISSING:
                del self.table[key]
            else:
                self.table[key] = old  # type: ignore[assignment]


def _cse_traits(cls: type[Operation]) -> tuple[bool, bool]:
    """(may be merged, operands commute), looked up once per op class."""
    found = _CSE_TRAITS.get(cls)
    if found is None:
        mergeable = cls.has_trait_cls(Pure) and not cls.has_trait_cls(Terminator)
        found = _CSE_TRAITS[cls] = (mergeable, cls.has_trait_cls(Commutative))
    return found


_CSE_TRAITS: dict[type, tuple[bool, bool]] = {}


def cse_key(op: Operation) -> Hashable | None:
    """What makes two ops interchangeable, or None when `op` may not be merged."""
    mergeable, commutative = _cse_traits(type(op))
    if not mergeable or op.regions or op.successors or not op.results:
        return None
    operands = tuple(op._operands)
    if commutative:
        operands = tuple(sorted(operands, key=id))
    key = (op.op_name, operands, tuple(sorted(op.attributes.items())), tuple(r.type for r in op.results))
    try:
        hash(key)
    except TypeError:  # an attribute that is not hashable: leave the op alone
        return None
    return key


def eliminate_common_subexpressions(root: Operation) -> int:
    """Replace each `Pure` region-free op by an equivalent one that dominates it; returns the
    number of ops removed. Never looks across an `IsolatedFromAbove` boundary."""
    cse = _Cse()
    cse.run_op_regions(root, _ScopedTable())
    erase_ops(cse.dead)
    return len(cse.dead)


class _Cse:
    def __init__(self) -> None:
        self.dead: list[Operation] = []  # erased together at the end (see `erase_ops`)

    def run_op_regions(self, op: Operation, table: _ScopedTable) -> None:
        if op.has_trait(IsolatedFromAbove):
            table = _ScopedTable()
        for region in op.regions:
            self.run_region(region, table)

    def run_region(self, region: Region, table: _ScopedTable) -> None:
        blocks = region.blocks
        if not blocks:
            return
        if len(blocks) == 1:
            self.run_block(blocks[0], table)
            return
        # walk the dominator tree: a block sees the ops of the blocks that dominate it
        idom, _ = immediate_dominators(blocks)
        children: dict[int, list[int]] = {}
        for b, parent in idom.items():
            children.setdefault(parent, []).append(b)
        reachable = {0, *idom}
        stack: list[tuple[int, bool]] = [(0, False)]
        while stack:
            b, leaving = stack.pop()
            if leaving:
                table.pop()
                continue
            table.push()
            stack.append((b, True))
            self.run_block(blocks[b], table, scoped=False)
            for c in reversed(children.get(b, [])):
                stack.append((c, False))
        for b in range(len(blocks)):
            if b not in reachable:
                self.run_block(blocks[b], table)

    def run_block(self, block: Block, table: _ScopedTable, scoped: bool = True) -> None:
        if scoped:
            table.push()
        for op in list(block.ops):
            if op.regions:
                self.run_op_regions(op, table)
            key = cse_key(op)
            if key is None:
                continue
            existing = table.get(key)
            if existing is None:
                table.insert(key, op)
                continue
            for res, keep in zip(op.results, existing.results):
                res.replace_all_uses_with(keep)
            self.dead.append(op)
        if scoped:
            table.pop()
