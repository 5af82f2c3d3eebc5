"""The IR's structure: values with use lists, operations, blocks and regions.

An `Operation` is generic (a name, operands, results, attributes, regions, successors and a
location); a dialect defines an op by subclassing it with a `name` and, where it has rules,
`verify_()`, `infer_result_types()`, `fold()` and `canonicalize_patterns`. Subclasses with a
name register themselves, so the parser and builders can find them by name.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator, Sequence, TypeVar

from .attributes import Attribute
from .diagnostics import Diagnostic, VerifyError
from .location import Location, UNKNOWN_LOC
from .printer import print_op
from .traits import (Commutative, ElementwiseTrait, IsolatedFromAbove, NoTerminator, Pure,  # noqa: F401
                     SymbolTable, Terminator, Trait)
from .types import Type


OpT = TypeVar("OpT", bound="Operation")


# ---------------------------------------------------------------------------- values
@dataclass(eq=False)
class Use:
    """One operand slot: `owner.operands[index]` is the value."""

    owner: "Operation"
    index: int


class Value:
    """An SSA value: the result of an op or an argument of a block."""

    __slots__ = ("type", "uses", "name_hint")

    def __init__(self, type: Type, name_hint: str | None = None):
        self.type = type
        self.uses: list[Use] = []
        self.name_hint = name_hint

    @property
    def owner(self) -> "Operation | Block":
        raise NotImplementedError

    @property
    def has_uses(self) -> bool:
        return bool(self.uses)

    @property
    def users(self) -> list["Operation"]:
        """The ops using this value, each once, in use order."""
        seen: dict[int, Operation] = {}
        for use in self.uses:
            seen.setdefault(id(use.owner), use.owner)
        return list(seen.values())

    def replace_all_uses_with(self, new: "Value") -> None:
        if new is self:
            return
        for use in list(self.uses):
            use.owner.set_operand(use.index, new)

    def replace_uses_where(self, new: "Value", predicate) -> None:
        """Replace the uses for which `predicate(use)` holds."""
        for use in list(self.uses):
            if predicate(use):
                use.owner.set_operand(use.index, new)

    def parent_block(self) -> "Block | None":
        raise NotImplementedError


class OpResult(Value):
    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: "Operation", index: int):
        super().__init__(type)
        self.op = op
        self.index = index

    @property
    def owner(self) -> "Operation":
        return self.op

    def parent_block(self) -> "Block | None":
        return self.op.parent

    def __repr__(self) -> str:
        return f"<OpResult #{self.index} of {self.op.name}: {self.type}>"


class BlockArgument(Value):
    __slots__ = ("block", "index")

    def __init__(self, type: Type, block: "Block", index: int):
        super().__init__(type)
        self.block = block
        self.index = index

    @property
    def owner(self) -> "Block":
        return self.block

    def parent_block(self) -> "Block":
        return self.block

    def __repr__(self) -> str:
        return f"<BlockArgument #{self.index}: {self.type}>"


# ---------------------------------------------------------------------------- registry
OP_REGISTRY: dict[str, type["Operation"]] = {}


def lookup_op(name: str) -> type["Operation"] | None:
    return OP_REGISTRY.get(name)


# ---------------------------------------------------------------------------- operations
class Operation:
    """A generic operation; dialect ops subclass it with a class-level `name`."""

    name: ClassVar[str] = ""
    traits: ClassVar[tuple[type[Trait], ...]] = ()
    # "generic" prints `"d.op"(...)`; "short" prints `d.op %a, %b {attrs} : types` (no regions);
    # subclasses may instead override `print_custom` / `parse_custom` (e.g. func.func).
    assembly: ClassVar[str] = "generic"
    # Canonicalization patterns (RewritePattern instances) contributed by this op.
    canonicalize_patterns: ClassVar[tuple] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("name"):
            OP_REGISTRY[cls.name] = cls

    def __init__(
        self,
        operands: Sequence[Value] = (),
        result_types: Sequence[Type] = (),
        attributes: dict[str, Attribute] | None = None,
        regions: Sequence["Region"] = (),
        successors: Sequence["Block"] = (),
        location: Location = UNKNOWN_LOC,
        name: str | None = None,
    ):
        if name is not None and name != type(self).name:
            self.op_name = name
        self._operands: list[Value] = []
        self.results: list[OpResult] = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attributes: dict[str, Attribute] = dict(attributes or {})
        self.regions: list[Region] = []
        self.successors: list[Block] = list(successors)
        self.location = location
        self.parent: Block | None = None
        for v in operands:
            self._add_operand(v)
        for r in regions:
            self.add_region(r)

    # -- identity
    @property
    def op_name(self) -> str:
        return self.__dict__.get("_op_name", type(self).name)

    @op_name.setter
    def op_name(self, value: str) -> None:
        self.__dict__["_op_name"] = value

    @property
    def dialect(self) -> str:
        return self.op_name.split(".", 1)[0]

    def __repr__(self) -> str:
        return f"<{self.op_name} at {self.location}>"

    @classmethod
    def has_trait_cls(cls, trait: type[Trait]) -> bool:
        return any(issubclass(t, trait) for t in cls.traits)

    def has_trait(self, trait: type[Trait]) -> bool:
        return type(self).has_trait_cls(trait)

    # -- operands
    @property
    def operands(self) -> tuple[Value, ...]:
        return tuple(self._operands)

    @property
    def num_operands(self) -> int:
        return len(self._operands)

    def operand(self, i: int) -> Value:
        return self._operands[i]

    def _add_operand(self, v: Value) -> None:
        if not isinstance(v, Value):
            raise TypeError(f"operand of '{self.op_name}' must be a Value, got {type(v).__name__}")
        v.uses.append(Use(self, len(self._operands)))
        self._operands.append(v)

    def set_operand(self, i: int, v: Value) -> None:
        old = self._operands[i]
        if old is v:
            return
        for k, use in enumerate(old.uses):
            if use.owner is self and use.index == i:
                del old.uses[k]
                break
        self._operands[i] = v
        v.uses.append(Use(self, i))

    def set_operands(self, values: Sequence[Value]) -> None:
        self.drop_operand_uses()
        self._operands = []
        for v in values:
            self._add_operand(v)

    def drop_operand_uses(self) -> None:
        for i, v in enumerate(self._operands):
            v.uses[:] = [u for u in v.uses if not (u.owner is self and u.index == i)]

    # -- results
    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise ValueError(f"'{self.op_name}' has {len(self.results)} results, not one")
        return self.results[0]

    @property
    def result_types(self) -> list[Type]:
        return [r.type for r in self.results]

    # -- regions
    def add_region(self, region: "Region") -> None:
        if region.parent is not None:
            raise ValueError("region already belongs to an op")
        region.parent = self
        self.regions.append(region)

    @property
    def parent_op(self) -> "Operation | None":
        return self.parent.parent_op if self.parent is not None else None

    def enclosing(self, cls: "type[OpT]") -> "OpT | None":
        """The nearest op around this one that is a `cls`."""
        op = self.parent_op
        while op is not None and not isinstance(op, cls):
            op = op.parent_op
        return op

    def is_ancestor_of(self, other: "Operation") -> bool:
        op: Operation | None = other
        while op is not None:
            if op is self:
                return True
            op = op.parent_op
        return False

    # -- per-op hooks, overridden by dialects
    def verify_(self) -> None:
        """Check this op's own rules; raise `self.error(...)` on a violation."""

    @classmethod
    def infer_result_types(cls, operand_types: Sequence[Type], attributes: dict[str, Attribute]) -> list[Type]:
        """Result types from operand types and attributes (ops that can infer override)."""
        raise NotImplementedError(f"'{cls.name}' cannot infer its result types")

    def fold(self) -> "list[Attribute | Value] | None":
        """Return replacements for the results (constants as attributes, or existing values)."""
        return None

    def error(self, message: str) -> VerifyError:
        return VerifyError(Diagnostic(f"'{self.op_name}' op {message}", self.location))

    # -- traversal
    def walk(self, post_order: bool = False) -> Iterator["Operation"]:
        """Every op nested in this one (this one included), pre-order by default.

        Safe against erasing the op just yielded (children are listed before yielding).
        """
        if not post_order:
            yield self
        for region in self.regions:
            for block in region.blocks:
                for op in list(block.ops):
                    yield from op.walk(post_order)
        if post_order:
            yield self

    # -- mutation
    def detach(self) -> "Operation":
        """Remove from its block without touching uses."""
        if self.parent is not None:
            self.parent.ops.remove(self)
            self.parent = None
        return self

    def erase(self, check_uses: bool = True) -> None:
        """Remove from its block and drop all uses it makes (nested ops too)."""
        if check_uses:
            for r in self.results:
                if r.uses:
                    raise ValueError(f"cannot erase '{self.op_name}': result #{r.index} still has uses")
        self.detach()
        for op in self.walk(post_order=True):
            op.drop_operand_uses()

    def replace_with(self, values: Sequence[Value]) -> None:
        """Replace all uses of the results with `values`, then erase this op."""
        if len(values) != len(self.results):
            raise ValueError(f"'{self.op_name}' has {len(self.results)} results, got {len(values)} replacements")
        for r, v in zip(self.results, values):
            r.replace_all_uses_with(v)
        self.erase()

    def clone(self, value_map: dict[Value, Value] | None = None,
              block_map: "dict[Block, Block] | None" = None) -> "Operation":
        """Deep copy; operands are remapped through `value_map` (which is extended)."""
        value_map = {} if value_map is None else value_map
        block_map = {} if block_map is None else block_map
        new = type(self).__new__(type(self))
        Operation.__init__(
            new,
            [value_map.get(v, v) for v in self._operands],
            [r.type for r in self.results],
            dict(self.attributes),
            (),
            [block_map.get(b, b) for b in self.successors],
            self.location,
        )
        if "_op_name" in self.__dict__:
            new.op_name = self.op_name
        for old, res in zip(self.results, new.results):
            res.name_hint = old.name_hint
            value_map[old] = res
        for region in self.regions:
            new.add_region(region.clone(value_map, block_map))
        return new

    # -- construction helper
    @classmethod
    def build(cls, operands: Sequence[Value] = (), attributes: dict[str, Attribute] | None = None,
              result_types: Sequence[Type] | None = None, regions: Sequence["Region"] = (),
              location: Location = UNKNOWN_LOC) -> "Operation":
        """Create an op, inferring result types when they are not given."""
        attributes = dict(attributes or {})
        if result_types is None:
            result_types = cls.infer_result_types([v.type for v in operands], attributes)
        return cls(operands, result_types, attributes, regions, (), location)

    def __str__(self) -> str:
        return print_op(self)


def create_op(name: str, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
              attributes: dict[str, Attribute] | None = None, regions: Sequence["Region"] = (),
              successors: Sequence["Block"] = (), location: Location = UNKNOWN_LOC,
              allow_unregistered: bool = False) -> Operation:
    """Instantiate the registered class for `name` (or a generic op when allowed)."""
    cls = OP_REGISTRY.get(name)
    if cls is None:
        if not allow_unregistered:
            raise KeyError(name)
        return Operation(operands, result_types, attributes, regions, successors, location, name=name)
    op = cls.__new__(cls)
    Operation.__init__(op, operands, result_types, attributes, regions, successors, location)
    return op


# ---------------------------------------------------------------------------- blocks and regions
class Block:
    """A list of ops with typed arguments; the ops run in order."""

    def __init__(self, arg_types: Iterable[Type] = (), ops: Iterable[Operation] = ()):
        self.args: list[BlockArgument] = [BlockArgument(t, self, i) for i, t in enumerate(arg_types)]
        self.ops: list[Operation] = []
        self.parent: Region | None = None
        for op in ops:
            self.append(op)

    @property
    def parent_op(self) -> Operation | None:
        return self.parent.parent if self.parent is not None else None

    def add_argument(self, type: Type) -> BlockArgument:
        arg = BlockArgument(type, self, len(self.args))
        self.args.append(arg)
        return arg

    def erase_argument(self, index: int) -> None:
        arg = self.args[index]
        if arg.uses:
            raise ValueError(f"cannot erase block argument #{index}: it still has uses")
        del self.args[index]
        for i, a in enumerate(self.args):
            a.index = i

    def _adopt(self, op: Operation) -> None:
        if op.parent is not None:
            raise ValueError(f"'{op.op_name}' already belongs to a block")
        op.parent = self

    def append(self, op: Operation) -> Operation:
        self._adopt(op)
        self.ops.append(op)
        return op

    def insert(self, index: int, op: Operation) -> Operation:
        self._adopt(op)
        self.ops.insert(index, op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor), op)

    def insert_after(self, anchor: Operation, op: Operation) -> Operation:
        return self.insert(self.ops.index(anchor) + 1, op)

    @property
    def terminator(self) -> Operation | None:
        if self.ops and self.ops[-1].has_trait(Terminator):
            return self.ops[-1]
        return None

    def __iter__(self) -> Iterator[Operation]:
        return iter(self.ops)

    def __len__(self) -> int:
        return len(self.ops)


class Region:
    """A list of blocks owned by an op; the first block is the entry."""

    def __init__(self, blocks: Iterable[Block] = ()):
        self.blocks: list[Block] = []
        self.parent: Operation | None = None
        for b in blocks:
            self.add_block(b)

    def add_block(self, block: Block) -> Block:
        if block.parent is not None:
            raise ValueError("block already belongs to a region")
        block.parent = self
        self.blocks.append(block)
        return block

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    @property
    def block(self) -> Block:
        """The only block of a single-block region."""
        if len(self.blocks) != 1:
            raise ValueError(f"region has {len(self.blocks)} blocks, expected one")
        return self.blocks[0]

    def clone(self, value_map: dict[Value, Value] | None = None,
              block_map: dict[Block, Block] | None = None) -> "Region":
        value_map = {} if value_map is None else value_map
        block_map = {} if block_map is None else block_map
        new = Region()
        for b in self.blocks:  # first create all blocks so successors can be remapped
            nb = Block([a.type for a in b.args])
            for old, arg in zip(b.args, nb.args):
                arg.name_hint = old.name_hint
                value_map[old] = arg
            block_map[b] = nb
            new.add_block(nb)
        for b in self.blocks:
            nb = block_map[b]
            for op in b.ops:
                nb.append(op.clone(value_map, block_map))
        return new
