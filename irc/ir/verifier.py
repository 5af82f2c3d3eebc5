"""The verifier: structure, SSA dominance and each op's own rules, reported all at once.

It keeps going after the first problem so a user (or a pass author) sees every broken op in
one run, each located at the op that breaks the rule. It runs after every pass, so it is linear:
op positions are computed once per block and dominators once per multi-block region.
"""
from __future__ import annotations

from .core import (Block, BlockArgument, IsolatedFromAbove, NoTerminator, OpResult, Operation, Region,
                   Terminator, Value, OP_REGISTRY)
from .diagnostics import Diagnostic, VerifyError
from .dominance import immediate_dominators


def verify(op: Operation, allow_unregistered: bool = False) -> None:
    """Raise a `VerifyError` carrying every diagnostic found in `op` and its nested ops."""
    diagnostics = collect_diagnostics(op, allow_unregistered=allow_unregistered)
    if diagnostics:
        raise VerifyError(diagnostics)


def collect_diagnostics(op: Operation, allow_unregistered: bool = False) -> list[Diagnostic]:
    """Every problem in `op` and its nested ops, in walk order (empty when the IR is valid)."""
    verifier = _Verifier(allow_unregistered)
    verifier.visit_op(op, is_root=True)
    return verifier.diagnostics


def _traits_of(cls: type[Operation]) -> tuple[bool, bool, bool]:
    """(is terminator, is isolated from above, needs no terminator), looked up once per class."""
    cached = _TRAIT_CACHE.get(cls)
    if cached is None:
        cached = (cls.has_trait_cls(Terminator), cls.has_trait_cls(IsolatedFromAbove),
                  cls.has_trait_cls(NoTerminator))
        _TRAIT_CACHE[cls] = cached
    return cached


_TRAIT_CACHE: dict[type, tuple[bool, bool, bool]] = {}


def is_registered(op: Operation) -> bool:
    """True when `op` is an instance of the class registered under its name."""
    cls = type(op)
    return bool(cls.name) and "_op_name" not in op.__dict__ and OP_REGISTRY.get(cls.name) is cls


class _Verifier:
    """One verification run: the diagnostics found and the per-block/region caches."""

    def __init__(self, allow_unregistered: bool):
        self.allow_unregistered = allow_unregistered
        self.diagnostics: list[Diagnostic] = []
        self._positions: dict[int, dict[int, int]] = {}  # id(block) -> {id(op): index}
        self._keep_alive: list[object] = []  # blocks/regions keyed by id() stay alive meanwhile
        self._idoms: dict[int, tuple[dict[int, int], dict[int, int]]] = {}  # id(region) -> (idom, index)
        self._use_keys: dict[int, set[tuple[int, int]]] = {}  # id(value) -> {(id(owner), index)}
        self._seen: set[int] = set()

    # -- reporting
    def error(self, op: Operation, message: str, notes: list[Diagnostic] | None = None) -> None:
        self.diagnostics.append(Diagnostic(f"'{op.op_name}' op {message}", op.location, notes=notes or []))

    # -- walk
    def visit_op(self, op: Operation, is_root: bool = False) -> None:
        if id(op) in self._seen:
            self.error(op, "appears more than once in the IR")
            return
        self._seen.add(id(op))
        registered = is_registered(op)
        self.check_op(op, registered, check_dominance=not (is_root and op.parent is None))
        if registered:
            self.run_op_verifier(op)
        no_terminator = _traits_of(type(op))[2]
        for ri, region in enumerate(op.regions):
            if region.parent is not op:
                self.error(op, f"region #{ri} does not have this op as its parent")
            self.visit_region(op, ri, region, no_terminator)

    def visit_region(self, op: Operation, ri: int, region: Region, no_terminator: bool) -> None:
        blocks = region.blocks
        needs_terminators = len(blocks) > 1 and not no_terminator
        for bi, block in enumerate(blocks):
            where = f"block #{bi} of region #{ri}"
            if block.parent is not region:
                self.error(op, f"{where} does not have the region as its parent")
            for k, arg in enumerate(block.args):
                if arg.block is not block or arg.index != k:
                    self.error(op, f"argument #{k} of {where} has inconsistent owner or index")
            ops = block.ops
            self.index_block(block, check_links=True)
            last = len(ops) - 1
            for k, child in enumerate(ops):
                if k != last and _traits_of(type(child))[0]:
                    self.error(child, "must be the last operation in the parent block")
            if needs_terminators:
                if not ops:
                    self.error(op, f"{where} is empty: expected at least a terminator")
                elif not _traits_of(type(ops[-1]))[0]:
                    self.error(ops[-1], f"ends {where} of '{op.op_name}', which needs a terminator")
            for child in ops:
                self.visit_op(child)

    # -- per-op structure
    def check_op(self, op: Operation, registered: bool, check_dominance: bool) -> None:
        if not registered and not self.allow_unregistered:
            self.error(op, f"is an unregistered operation (allow unregistered ops to accept '{op.op_name}')")
        for i, res in enumerate(op.results):
            if res.op is not op or res.index != i:
                self.error(op, f"result #{i} has inconsistent owner or index")
        for i, value in enumerate(op._operands):
            if not isinstance(value, Value):
                self.error(op, f"operand #{i} is not a value (got {type(value).__name__})")
                continue
            keys = self._use_keys.get(id(value))
            if keys is None:
                keys = self.use_keys(value)
            if (id(op), i) not in keys:
                self.error(op, f"operand #{i} is missing from its value's use list")
            if check_dominance:
                self.check_dominance(op, i, value)
        if op.successors:
            self.check_successors(op)

    def check_successors(self, op: Operation) -> None:
        block = op.parent
        region = block.parent if block is not None else None
        for k, succ in enumerate(op.successors):
            if region is None or succ.parent is not region:
                self.error(op, f"successor #{k} is not a block of the region that holds this op")
        if block is not None and (not block.ops or block.ops[-1] is not op):
            self.error(op, "has successors, so it must be the last operation in its block")

    def use_keys(self, value: Value) -> set[tuple[int, int]]:
        """The (owner, index) slots a value's use list names, checking each against the owner."""
        keys: set[tuple[int, int]] = set()
        for use in value.uses:
            owner_operands = use.owner._operands
            if use.index >= len(owner_operands) or owner_operands[use.index] is not value:
                self.report_stale_use(value, use.owner, use.index)
            keys.add((id(use.owner), use.index))
        self._use_keys[id(value)] = keys
        self._keep_alive.append(value)
        return keys

    def report_stale_use(self, value: Value, owner: Operation, index: int) -> None:
        definer = value.op if isinstance(value, OpResult) else value.block.parent_op
        what = f"result #{value.index}" if isinstance(value, OpResult) else f"block argument #{value.index}"
        message = f"{what} lists a use by '{owner.op_name}' operand #{index}, which is another value"
        if definer is not None:
            self.error(definer, message)
        else:
            self.diagnostics.append(Diagnostic(message, owner.location))

    def run_op_verifier(self, op: Operation) -> None:
        if type(op).verify_ is Operation.verify_:
            return
        try:
            op.verify_()
        except VerifyError as e:
            self.diagnostics.extend(e.diagnostics)
        except Exception as e:  # a buggy verify_ must not show the user a traceback
            self.diagnostics.append(Diagnostic(
                f"internal error verifying '{op.op_name}': {type(e).__name__}: {e}", op.location))

    # -- dominance
    def positions(self, block: Block) -> dict[int, int]:
        """Index of each op in `block`, computed once per block."""
        pos = self._positions.get(id(block))
        return pos if pos is not None else self.index_block(block, check_links=False)

    def index_block(self, block: Block, check_links: bool) -> dict[int, int]:
        """Compute (and cache) op positions; when walking the block, also check its op links."""
        pos: dict[int, int] = {}
        for k, child in enumerate(block.ops):
            if check_links:
                if child.parent is not block:
                    self.error(child, "is listed in a block that is not its parent")
                if id(child) in pos:
                    self.error(child, "appears twice in its block")
            pos[id(child)] = k
        self._positions[id(block)] = pos
        self._keep_alive.append(block)
        return pos

    def check_dominance(self, user: Operation, index: int, value: Value) -> None:
        if isinstance(value, OpResult):
            def_op: Operation | None = value.op
            def_block = value.op.parent
            if def_block is None:
                self.error(user, f"operand #{index} is the result of '{value.op.op_name}', "
                                 "which is not in a block (erased or detached?)")
                return
        elif isinstance(value, BlockArgument):
            def_op, def_block = None, value.block
        else:
            self.error(user, f"operand #{index} is neither an op result nor a block argument")
            return
        current = user
        while True:
            block = current.parent
            if block is None:
                break
            if block is def_block:
                if def_op is None:
                    return
                pos = self.positions(block)
                p_def, p_use = pos.get(id(def_op)), pos.get(id(current))
                if p_def is not None and p_use is not None and p_def < p_use:
                    return
                break
            region = block.parent
            if region is None:
                break
            if region is def_block.parent:
                if self.block_dominates(region, def_block, block):
                    return
                break
            parent = region.parent
            if parent is None:
                break
            if _traits_of(type(parent))[1] and not _is_inside(def_block, parent):
                self.error(user, "using value defined outside the region",
                           [Diagnostic("required by region isolation constraints", parent.location, "note")])
                return
            current = parent
        self.error(user, f"operand #{index} does not dominate this use", [_definition_note(value)])

    def block_dominates(self, region: Region, a: Block, b: Block) -> bool:
        """Whether block `a` dominates block `b` (both in `region`, a is not b) in the CFG."""
        cached = self._idoms.get(id(region))
        if cached is None:
            cached = immediate_dominators(region.blocks)
            self._idoms[id(region)] = cached
            self._keep_alive.append(region)
        idom, index = cached
        ia, x = index[id(a)], index[id(b)]
        if x != 0 and x not in idom:
            return True  # uses in unreachable blocks are not checked, as in MLIR
        while x != ia:
            parent = idom.get(x)
            if parent is None or parent == x:
                return False
            x = parent
        return True


def _is_inside(block: Block, op: Operation) -> bool:
    """Whether `block` is nested (at any depth) in a region of `op`."""
    b: Block | None = block
    while b is not None:
        owner = b.parent_op
        if owner is op:
            return True
        b = owner.parent if owner is not None else None
    return False


def _definition_note(value: Value) -> Diagnostic:
    if isinstance(value, OpResult):
        return Diagnostic("operand defined here", value.op.location, "note")
    owner = value.block.parent_op
    where = f"block argument #{value.index}"
    if owner is None:
        return Diagnostic(f"operand defined as {where} of a detached block", severity="note")
    region_index = next((k for k, r in enumerate(owner.regions) if r is value.block.parent), -1)
    block_index = next((k for k, b in enumerate(value.block.parent.blocks) if b is value.block), -1)
    return Diagnostic(f"operand defined as {where} of block #{block_index} in region #{region_index} "
                      f"of '{owner.op_name}'", owner.location, "note")
