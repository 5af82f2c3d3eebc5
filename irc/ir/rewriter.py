"""Pattern rewriting: patterns, a rewriter that reports every change, and a greedy driver.

A pattern changes the IR only through the `PatternRewriter`, which tells the driver what it
touched; the driver puts those ops (and the users of changed values) back on its worklist, so a
rewrite that enables another one is seen without rescanning the whole function. The driver also
folds ops and erases dead ones, and repeats full sweeps until nothing changes (a fixpoint).
"""
from __future__ import annotations

from collections import Counter
from typing import ClassVar, Iterable, Sequence

from .attributes import Attribute
from .builder import InsertionPoint
from .core import OP_REGISTRY, OpResult, Operation, Region, Value, create_op
from .location import Location, UNKNOWN_LOC
from .transforms import is_trivially_dead
from .types import Type


class RewritePattern:
    """One rewrite: `match_and_rewrite` returns True when it changed the IR (through the rewriter).

    `root` is the op name it applies to (None: any op); among the patterns that match an op the
    one with the highest `benefit` is tried first. `name` (the class name by default) keys the
    statistics and lets a user turn the pattern off.
    """

    root: ClassVar[str | None] = None
    benefit: ClassVar[int] = 1
    name: ClassVar[str] = "RewritePattern"

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__

    def match_and_rewrite(self, op: Operation, rewriter: "PatternRewriter") -> bool:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<pattern {self.name} on {self.root or '*'} (benefit {self.benefit})>"


class RewriteListener:
    """Told about every change a `PatternRewriter` makes (the greedy driver is one)."""

    def notify_op_inserted(self, op: Operation) -> None:
        """`op` (with its nested ops) was just inserted."""

    def notify_op_modified(self, op: Operation) -> None:
        """`op`'s operands, attributes or regions changed in place."""

    def notify_op_replaced(self, op: Operation, values: Sequence[Value]) -> None:
        """The uses of `op`'s results are about to be replaced by `values`."""

    def notify_op_erased(self, op: Operation) -> None:
        """`op` (with its nested ops) is about to be erased."""


class _InPlace:
    """What `modify_op_in_place` returns: usable as a plain call or as a `with` block."""

    def __init__(self, listener: RewriteListener, op: Operation):
        self.listener, self.op = listener, op

    def __enter__(self) -> Operation:
        return self.op

    def __exit__(self, *exc) -> None:
        self.listener.notify_op_modified(self.op)


class PatternRewriter:
    """The only way patterns mutate the IR; new ops go before the op being rewritten."""

    def __init__(self, listener: RewriteListener | None = None):
        self.listener = listener if listener is not None else RewriteListener()
        self.current_op: Operation | None = None
        # None: insert before `current_op`; patterns may set another point for a while.
        self.insertion_point: InsertionPoint | None = None

    # -- creating ops
    def create(self, op: str | type[Operation], operands: Sequence[Value] = (),
               attributes: dict[str, Attribute] | None = None, result_types: Sequence[Type] | None = None,
               location: Location | None = None, regions: Sequence[Region] = ()) -> Operation:
        """Build an op (inferring result types when not given) and insert it."""
        if location is None:
            location = self.current_op.location if self.current_op is not None else UNKNOWN_LOC
        cls = OP_REGISTRY.get(op) if isinstance(op, str) else op
        if cls is None:
            if result_types is None:
                raise ValueError(f"unregistered op '{op}' needs explicit result types")
            new = create_op(str(op), operands, result_types, attributes, regions, (), location,
                            allow_unregistered=True)
        else:
            new = cls.build(operands, attributes, result_types, regions, location)
        return self.insert(new)

    def insert(self, new_op: Operation) -> Operation:
        """Insert at the insertion point (before the op being rewritten by default)."""
        ip = self.insertion_point
        if ip is not None:
            if ip.anchor is None:
                ip.block.append(new_op)
                self.listener.notify_op_inserted(new_op)
                return new_op
            return self.insert_before(ip.anchor, new_op)
        if self.current_op is None:
            raise ValueError("the rewriter has no insertion point (no op is being rewritten)")
        return self.insert_before(self.current_op, new_op)

    def insert_before(self, op: Operation, new_op: Operation) -> Operation:
        """Insert (or move) `new_op` right before `op`."""
        return self._insert_next_to(op, new_op, after=False)

    def insert_after(self, op: Operation, new_op: Operation) -> Operation:
        """Insert (or move) `new_op` right after `op`."""
        return self._insert_next_to(op, new_op, after=True)

    def _insert_next_to(self, op: Operation, new_op: Operation, after: bool) -> Operation:
        block = op.parent
        if block is None:
            where = "after" if after else "before"
            raise ValueError(f"cannot insert {where} '{op.op_name}': it is not in a block")
        if new_op.parent is not None:
            new_op.detach()
        (block.insert_after if after else block.insert_before)(op, new_op)
        self.listener.notify_op_inserted(new_op)
        return new_op

    # -- replacing and erasing
    def replace_op(self, op: Operation, values_or_op: Sequence[Value] | Operation) -> None:
        """Replace every use of `op`'s results by `values_or_op` (values or another op's
        results), then erase `op`."""
        values = list(values_or_op.results if isinstance(values_or_op, Operation) else values_or_op)
        if len(values) != len(op.results):
            raise ValueError(f"'{op.op_name}' has {len(op.results)} results, got {len(values)} replacements")
        self.listener.notify_op_replaced(op, values)
        for res, value in zip(op.results, values):
            res.replace_all_uses_with(value)
        self.erase_op(op)

    def replace_all_uses_with(self, old: Value, new: Value) -> None:
        """Make every user of `old` use `new` instead (each user counts as modified)."""
        users = old.users
        old.replace_all_uses_with(new)
        for user in users:
            self.listener.notify_op_modified(user)

    def erase_op(self, op: Operation) -> None:
        """Erase an op whose results are unused (with everything nested in it)."""
        for res in op.results:
            if res.uses:
                raise ValueError(f"cannot erase '{op.op_name}': result #{res.index} still has uses")
        self.listener.notify_op_erased(op)
        op.erase(check_uses=False)

    def modify_op_in_place(self, op: Operation) -> _InPlace:
        """Announce an in-place change of `op`: call it, or wrap the change in `with`."""
        self.listener.notify_op_modified(op)
        return _InPlace(self.listener, op)


# ---------------------------------------------------------------------------- the greedy driver
def apply_patterns_greedily(root_op: Operation,
                            patterns: Iterable[RewritePattern | type[RewritePattern]], *, fold: bool = True,
                            max_iterations: int = 10, stats: Counter | None = None) -> bool:
    """Fold, erase dead ops and apply `patterns` to every op nested in `root_op` until nothing
    changes or `max_iterations` sweeps are done (counted as "did not converge" in `stats`).

    `stats` counts each applied pattern by name, plus "folded" and "erased-dead". Returns
    whether anything changed.
    """
    driver = _GreedyDriver(root_op, patterns, fold, stats if stats is not None else Counter())
    return driver.run(max_iterations)


class _GreedyDriver(RewriteListener):
    def __init__(self, root: Operation, patterns: Iterable, fold: bool, stats: Counter):
        self.root = root
        self.fold = fold
        self.stats = stats
        self.rewriter = PatternRewriter(self)
        instances = [p() if isinstance(p, type) else p for p in patterns]
        self.by_root: dict[str | None, list[RewritePattern]] = {}
        for p in instances:
            self.by_root.setdefault(p.root, []).append(p)
        self._for_name: dict[str, list[RewritePattern]] = {}
        self.worklist: list[Operation] = []
        self.queued: dict[int, Operation] = {}

    # -- worklist
    def add(self, op: Operation) -> None:
        if id(op) not in self.queued and op is not self.root:
            self.queued[id(op)] = op
            self.worklist.append(op)

    def add_nested(self, op: Operation) -> None:
        for nested in op.walk():
            self.add(nested)

    def patterns_for(self, name: str) -> list[RewritePattern]:
        found = self._for_name.get(name)
        if found is None:
            found = sorted(self.by_root.get(name, []) + self.by_root.get(None, []), key=lambda p: -p.benefit)
            self._for_name[name] = found
        return found

    # -- listener
    def notify_op_inserted(self, op: Operation) -> None:
        self.add_nested(op)

    def notify_op_modified(self, op: Operation) -> None:
        self.add(op)
        for res in op.results:
            for user in res.users:
                self.add(user)

    def notify_op_replaced(self, op: Operation, values: Sequence[Value]) -> None:
        for res in op.results:
            for user in res.users:
                self.add(user)

    def notify_op_erased(self, op: Operation) -> None:
        for nested in op.walk():
            self.queued.pop(id(nested), None)
        for nested in op.walk():
            for value in nested._operands:
                if isinstance(value, OpResult) and value.op.parent is not None:
                    self.add(value.op)  # may have become dead

    # -- main loop
    def run(self, max_iterations: int) -> bool:
        changed_any = False
        for _ in range(max_iterations):
            ops = [op for op in self.root.walk() if op is not self.root]
            ops.reverse()  # popped from the end: program order
            self.worklist = ops
            self.queued = {id(op): op for op in ops}
            changed = self.drain()
            changed_any = changed_any or changed
            if not changed:
                return changed_any
        self.stats["did not converge"] += 1
        return changed_any

    def drain(self) -> bool:
        # Safety net against patterns that undo each other: a sweep stops after this many
        # changes (the next sweep starts afresh; max_iterations bounds the whole run).
        budget = 16 * len(self.worklist) + 1000
        changed = False
        while self.worklist:
            op = self.worklist.pop()
            if self.queued.get(id(op)) is not op:
                continue  # erased, or a stale duplicate
            del self.queued[id(op)]
            if op.parent is None:
                continue
            if self.process(op):
                changed = True
                budget -= 1
                if budget <= 0:
                    break
        return changed

    def process(self, op: Operation) -> bool:
        if is_trivially_dead(op):
            self.notify_op_erased(op)
            op.erase(check_uses=False)
            self.stats["erased-dead"] += 1
            return True
        if self.fold and type(op).fold is not Operation.fold and self.try_fold(op):
            self.stats["folded"] += 1
            return True
        rewriter = self.rewriter
        for pattern in self.patterns_for(op.op_name):
            rewriter.current_op, rewriter.insertion_point = op, None
            try:
                applied = pattern.match_and_rewrite(op, rewriter)
            finally:
                rewriter.current_op = None
            if applied:
                self.stats[pattern.name] += 1
                self.queued.pop(id(op), None)  # a changed op is seen again next sweep, not now
                return True
        return False

    def try_fold(self, op: Operation) -> bool:
        folded = op.fold()
        if folded is None:
            return False
        if len(folded) != len(op.results):
            raise ValueError(f"'{op.op_name}'.fold() returned {len(folded)} values "
                             f"for {len(op.results)} results")
        own = [v is r for v, r in zip(folded, op.results)]
        if all(own):  # folded in place (MLIR's convention): its users may now match something
            self.notify_op_modified(op)
            self.queued.pop(id(op), None)
            return True
        if any(own):
            return False
        constants: list[Operation] = []
        values: list[Value] = []
        for item, res in zip(folded, op.results):
            if isinstance(item, Value):
                values.append(item)
                continue
            if not isinstance(item, Attribute):
                raise TypeError(f"'{op.op_name}'.fold() returned a {type(item).__name__}")
            const = self.materialize(op, item, res.type)
            if const is None:
                for c in constants:
                    c.erase(check_uses=False)
                return False
            constants.append(const)
            values.append(const.results[0])
        if len(constants) == 1 and len(op.results) == 1 and _same_op(constants[0], op):
            constants[0].erase(check_uses=False)  # op is already that constant
            return False
        for const in constants:
            op.parent.insert_before(op, const)  # type: ignore[union-attr]
            self.add(const)
        self.rewriter.replace_op(op, values)
        return True

    @staticmethod
    def materialize(op: Operation, value: Attribute, result_type: Type) -> Operation | None:
        """A constant op for `value`, from the folded op's class (None: the dialect cannot)."""
        materialize = getattr(type(op), "materialize_constant", None)
        if materialize is None:
            return None
        const = materialize(value, result_type, op.location)
        if const is not None and (len(const.results) != 1 or const.results[0].type != result_type):
            got = ", ".join(str(t) for t in const.result_types)
            raise ValueError(f"'{op.op_name}'.materialize_constant returned '{const.op_name}' "
                             f"with results ({got}), expected {result_type}")
        return const


def _same_op(a: Operation, b: Operation) -> bool:
    return (a.op_name == b.op_name and a.attributes == b.attributes and a.result_types == b.result_types
            and a.operands == b.operands and not a.regions and not b.regions)
