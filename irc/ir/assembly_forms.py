"""Reusable custom text forms, so dialects do not each write the same printer and parser."""
from __future__ import annotations


class OperandListForm:
    """`name %a, %b {attrs} : t1, t2` (or a bare `name`): the form of terminators that pass
    values on (`func.return`, `loop.yield`, `scalar.yield`). Mix in before `Operation`."""

    def print_custom(self, printer) -> None:
        operands = self.operands  # type: ignore[attr-defined]
        if operands:
            printer.write(" ", printer.names(operands))
        printer.write(printer.attr_dict(self.attributes))  # type: ignore[attr-defined]
        if operands:
            printer.write(" : ", printer.types(v.type for v in operands))

    @classmethod
    def parse_custom(cls, parser):
        # `%x =` / `%x:2 =` after a bare terminator starts the next op, not an operand list.
        after = parser.peek(1)
        next_op = after == "=" or (after == ":" and parser.peek(2).isdigit())
        refs = [] if next_op else parser.parse_operand_refs()
        attrs = parser.parse_optional_attr_dict()
        types: list = []
        if refs:
            parser.expect(":", "':' and the operand types")
            types = parser.parse_type_list()
        return parser.create(cls, parser.resolve_operands(refs, types), (), attrs)
