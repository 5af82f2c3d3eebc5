"""A builder that inserts new ops at an insertion point (end of a block, before/after an op)."""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

from .attributes import Attribute
from .core import Block, Operation, Value, create_op, OP_REGISTRY
from .location import Location, UNKNOWN_LOC
from .types import Type


@dataclass
class InsertionPoint:
    """Where the next op goes: before `anchor` in `block`, or at its end when `anchor` is None."""

    block: Block
    anchor: Operation | None = None

    @staticmethod
    def at_end(block: Block) -> "InsertionPoint":
        return InsertionPoint(block)

    @staticmethod
    def at_start(block: Block) -> "InsertionPoint":
        return InsertionPoint(block, block.ops[0] if block.ops else None)

    @staticmethod
    def before(op: Operation) -> "InsertionPoint":
        assert op.parent is not None, "op is not in a block"
        return InsertionPoint(op.parent, op)

    @staticmethod
    def after(op: Operation) -> "InsertionPoint":
        block = op.parent
        assert block is not None, "op is not in a block"
        i = block.ops.index(op)
        return InsertionPoint(block, block.ops[i + 1] if i + 1 < len(block.ops) else None)


class Builder:
    """Creates ops and inserts them; `location` is stamped on ops that get none."""

    def __init__(self, insertion_point: InsertionPoint | None = None, location: Location = UNKNOWN_LOC):
        self.insertion_point = insertion_point
        self.location = location

    def insert(self, op: Operation) -> Operation:
        ip = self.insertion_point
        if ip is None:
            raise ValueError("builder has no insertion point")
        if ip.anchor is None:
            ip.block.append(op)
        else:
            ip.block.insert_before(ip.anchor, op)
        return op

    def create(self, op: str | type[Operation], operands: Sequence[Value] = (),
               attributes: dict[str, Attribute] | None = None, result_types: Sequence[Type] | None = None,
               regions=(), location: Location | None = None) -> Operation:
        """Build (inferring result types when not given) and insert an op by class or name."""
        cls = OP_REGISTRY[op] if isinstance(op, str) else op
        loc = location if location is not None else self.location
        return self.insert(cls.build(operands, attributes, result_types, regions, loc))

    def create_generic(self, name: str, operands: Sequence[Value], result_types: Sequence[Type],
                       attributes: dict[str, Attribute] | None = None, regions=(),
                       location: Location | None = None) -> Operation:
        loc = location if location is not None else self.location
        return self.insert(create_op(name, operands, result_types, attributes, regions, (), loc))

    @contextmanager
    def at(self, ip: InsertionPoint) -> Iterator["Builder"]:
        """Temporarily move the insertion point."""
        saved = self.insertion_point
        self.insertion_point = ip
        try:
            yield self
        finally:
            self.insertion_point = saved

    @contextmanager
    def at_location(self, location: Location) -> Iterator["Builder"]:
        saved = self.location
        self.location = location
        try:
            yield self
        finally:
            self.location = saved
