"""The printer: IR to MLIR-syntax text, deterministic so that print, parse, print is the identity.

Names are assigned in one pass before printing (so a branch can name a block or value that is
defined further down): a value with a usable `name_hint` prints as `%hint` (`%hint_1`, ... on a
collision), other results and non-entry block arguments are numbered `%0, %1, ...`, entry-block
arguments `%arg0, %arg1, ...`; numbering restarts inside each `IsolatedFromAbove` op (a
function), and blocks are `^bb0, ^bb1, ...` in each region.

An op prints in its generic form, its `short` form, or through its class's
`print_custom(self, printer)`, which writes what follows the op name with the helpers below
(and may return False, before writing anything, to have a malformed op printed generically).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, Sequence

from .attributes import Attribute, format_attr_dict, quote_string
from .location import FileLineColLoc, Location
from .traits import IsolatedFromAbove
from .types import FunctionType, Type

if TYPE_CHECKING:  # annotations only: `core` prints ops through this module
    from .core import Block, Operation, Region, Value

_HINT = re.compile(r"[A-Za-z_$.\-][A-Za-z0-9_$.\-]*\Z")
_AUTO = re.compile(r"arg[0-9]+\Z")
UNKNOWN_VALUE = "%<<UNKNOWN SSA VALUE>>"


def usable_hint(hint: str | None) -> bool:
    """A hint prints as itself unless it could be mistaken for an automatic name."""
    return bool(hint) and _HINT.match(hint) is not None and _AUTO.match(hint) is None


class _Scope:
    """Naming state of one isolated scope: counters and the names taken by hints."""

    __slots__ = ("next_value", "next_arg", "taken", "suffix")

    def __init__(self) -> None:
        self.next_value = 0
        self.next_arg = 0
        self.taken: set[str] = set()
        self.suffix: dict[str, int] = {}

    def unique(self, hint: str) -> str:
        name = hint
        if name in self.taken:
            k = self.suffix.get(hint, 1)
            while f"{hint}_{k}" in self.taken:
                k += 1
            self.suffix[hint] = k + 1
            name = f"{hint}_{k}"
        self.taken.add(name)
        return "%" + name


class Printer:
    """Writes ops into `out` (a list of strings); custom forms call its helpers."""

    def __init__(self, generic: bool = False, debuginfo: bool = False, hints: bool = True):
        self.generic = generic
        self.debuginfo = debuginfo
        self.hints = hints  # False: every value numbered, whatever its name_hint
        self.out: list[str] = []
        self.indent = ""
        self._names: dict[Value, str] = {}
        self._blocks: dict[Block, str] = {}
        self._targets: set[Block] = set()  # blocks that some op branches to
        self._type_text: dict[int, tuple[Type, str]] = {}

    # ------------------------------------------------------------------ naming
    def assign_names(self, op: Operation) -> None:
        """Name `op`'s results and everything nested in it (done once, before printing)."""
        scope = _Scope()
        self._name_results(op, scope)
        self._name_regions(op, scope)

    def _name_results(self, op: Operation, scope: _Scope) -> None:
        results = op.results
        if not results:
            return
        hint = results[0].name_hint
        if self.hints and hint is not None and usable_hint(hint):
            base = scope.unique(hint)
        else:
            base = f"%{scope.next_value}"
            scope.next_value += 1
        names = self._names
        if len(results) == 1:
            names[results[0]] = base
        else:
            for r in results:
                names[r] = f"{base}#{r.index}"

    def _name_regions(self, op: Operation, scope: _Scope) -> None:
        if not op.regions:
            return
        if op.has_trait(IsolatedFromAbove):
            scope = _Scope()
        names = self._names
        for region in op.regions:
            for bi, block in enumerate(region.blocks):
                self._blocks[block] = f"^bb{bi}"
                for arg in block.args:
                    hint = arg.name_hint
                    if self.hints and hint is not None and usable_hint(hint):
                        names[arg] = scope.unique(hint)
                    elif bi == 0:
                        names[arg] = f"%arg{scope.next_arg}"
                        scope.next_arg += 1
                    else:
                        names[arg] = f"%{scope.next_value}"
                        scope.next_value += 1
                for inner in block.ops:
                    if inner.results:
                        self._name_results(inner, scope)
                    if inner.successors:
                        self._targets.update(inner.successors)
                    if inner.regions:
                        self._name_regions(inner, scope)

    # ------------------------------------------------------------------ helpers for custom forms
    def write(self, *parts: str) -> None:
        self.out.extend(parts)

    def name(self, value: Value) -> str:
        """`%name` of a value (`%0#1` for a result of a multi-result op)."""
        return self._names.get(value, UNKNOWN_VALUE)

    def names(self, values: Iterable[Value]) -> str:
        get = self._names.get
        return ", ".join([get(v, UNKNOWN_VALUE) for v in values])

    def block_name(self, block: Block) -> str:
        return self._blocks.get(block, "^<<UNKNOWN BLOCK>>")

    def is_branch_target(self, block: Block) -> bool:
        """Whether an op branches to `block` (its label must then be printed)."""
        return block in self._targets

    def type(self, t: Type) -> str:
        hit = self._type_text.get(id(t))
        if hit is None:
            hit = self._type_text[id(t)] = (t, str(t))  # keeps `t` alive so its id stays unique
        return hit[1]

    def types(self, ts: Iterable[Type]) -> str:
        return ", ".join([self.type(t) for t in ts])

    def function_type(self, inputs: Sequence[Type], results: Sequence[Type]) -> str:
        """`(a, b) -> c`, with the results in parentheses unless there is one non-function type."""
        ins = "(" + self.types(inputs) + ") -> "
        if len(results) == 1 and not isinstance(results[0], FunctionType):
            return ins + self.type(results[0])
        return ins + "(" + self.types(results) + ")"

    def attr(self, a: Attribute) -> str:
        return str(a)

    def attr_dict(self, attrs: dict[str, Attribute], elide: Iterable[str] = ()) -> str:
        """` {a = 1, b}` (leading space) or "" when nothing is left after eliding `elide`."""
        if elide:
            attrs = {k: v for k, v in attrs.items() if k not in elide}
        return " " + format_attr_dict(attrs) if attrs else ""

    def print_region(self, region: Region, entry_args: bool = True, empty_block: bool = True) -> None:
        """`{` blocks `}` at the current indentation. `entry_args=False` leaves out the entry
        block's label when its arguments were printed elsewhere (a function signature);
        `empty_block=False` prints an empty entry block as nothing (a module body). The entry
        label is printed anyway when a branch targets it; such custom forms should fall back."""
        out = self.out
        outer = self.indent
        inner = self.indent = outer + "  "
        out.append("{\n")
        for bi, block in enumerate(region.blocks):
            if bi or (entry_args and block.args) or (empty_block and not block.ops) or block in self._targets:
                out.append(outer + self.block_name(block))
                if block.args:
                    args = [f"{self.name(a)}: {self.type(a.type)}" for a in block.args]
                    out.append("(" + ", ".join(args) + ")")
                out.append(":\n")
            for op in block.ops:
                out.append(inner)
                self.print_op(op)
                out.append("\n")
        self.indent = outer
        out.append(outer + "}")

    # ------------------------------------------------------------------ ops
    def print_op(self, op: Operation) -> None:
        """Write one op (results, name, body, location) without indentation or newline."""
        out = self.out
        results = op.results
        if results:
            first = self._names.get(results[0], UNKNOWN_VALUE)
            if len(results) == 1:
                out.append(first + " = ")
            else:
                out.append(f"{first.partition('#')[0]}:{len(results)} = ")
        cls = type(op)
        if not self.generic:
            custom = getattr(cls, "print_custom", None)
            if custom is not None:
                mark = len(out)
                name = op.op_name
                out.append(name[8:] if name.startswith("builtin.") else name)
                if custom(op, self) is not False:  # False: malformed op, print it generically
                    if self.debuginfo:
                        out.append(format_location(op.location))
                    return
                del out[mark:]
            if cls.assembly == "short" and not op.regions and not op.successors:
                self.print_short(op)
                if self.debuginfo:
                    out.append(format_location(op.location))
                return
        self.print_generic(op)
        if self.debuginfo:
            out.append(format_location(op.location))

    def print_generic(self, op: Operation) -> None:
        """`"d.op"(%a)[^bb1] ({...}) {attrs} : (t) -> t` (after the result list)."""
        out = self.out
        get = self._names.get
        out.append('"' + op.op_name + '"(' + ", ".join([get(v, UNKNOWN_VALUE) for v in op._operands]) + ")")
        if op.successors:
            out.append("[" + ", ".join([self.block_name(b) for b in op.successors]) + "]")
        if op.regions:
            out.append(" (")
            for k, region in enumerate(op.regions):
                if k:
                    out.append(", ")
                self.print_region(region)
            out.append(")")
        if op.attributes:
            out.append(" " + format_attr_dict(op.attributes))
        out.append(" : " + self.function_type([v.type for v in op._operands], [r.type for r in op.results]))

    def print_short(self, op: Operation) -> None:
        """`d.op %a, %b {attrs} : (t1, t2) -> t3`, or `d.op %a : t` when all types are the same."""
        out = self.out
        get = self._names.get
        name = op.op_name
        operands = op._operands
        if operands:
            out.append(name + " " + ", ".join([get(v, UNKNOWN_VALUE) for v in operands]))
        else:
            out.append(name)
        if op.attributes:
            out.append(" " + format_attr_dict(op.attributes))
        types = [v.type for v in operands] + [r.type for r in op.results]
        first = types[0] if types else None
        uniform = first is not None and all(t is first or t == first for t in types)
        if uniform and not isinstance(first, FunctionType):
            out.append(" : " + self.type(first))
        else:
            out.append(" : " + self.function_type(types[:len(operands)], types[len(operands):]))


def format_location(loc: Location) -> str:
    """` loc("file":line:col)` with the file name escaped like any string, or ` loc(unknown)`."""
    if isinstance(loc, FileLineColLoc):
        return f" loc({quote_string(loc.filename)}:{loc.line}:{loc.col})"
    return " loc(unknown)"


def print_op_in_context(op: Operation, outside: Sequence[Value]) -> str:
    """The text of `op` with the values it reads from its surroundings named `%outside0`,
    `%outside1`, ... in the order given and the others numbered (name hints, which the lowering
    makes unique per function, are not used): two nests that compute the same thing from the
    same kinds of inputs print the same wherever they sit (a kernel's cache key)."""
    printer = Printer(hints=False)
    for k, v in enumerate(outside):
        printer._names[v] = f"%outside{k}"
    printer.assign_names(op)
    printer.print_op(op)
    return "".join(printer.out)


def print_op(op: Operation, generic: bool = False, debuginfo: bool = False) -> str:
    """The text of `op` and everything nested in it; a module's text ends with a newline."""
    printer = Printer(generic, debuginfo)
    printer.assign_names(op)
    printer.print_op(op)
    if op.op_name == "builtin.module":
        printer.out.append("\n")
    return "".join(printer.out)
