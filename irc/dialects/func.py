"""`func`: functions, returns and calls. One `irc.function` is one `func.func`.

Argument and result attributes (`irc.shared`, `irc.update`, `irc.borrow`) are kept as
`arg_attrs`/`res_attrs` array-of-dict attributes, as MLIR does."""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import (ArrayAttr, Attribute, DictAttr, IntegerAttr, StringAttr, SymbolRefAttr, TypeAttr,
                             UnitAttr)
from ..ir.assembly_forms import OperandListForm
from ..ir.core import Block, IsolatedFromAbove, Operation, Pure, Region, Terminator
from ..ir.location import Location, UNKNOWN_LOC
from ..ir.types import FunctionType, Type


def types_text(types: Sequence[Type]) -> str:
    """`(t1, t2)`: a list of types as errors quote it."""
    return "(" + ", ".join(map(str, types)) + ")"


def _dict_attrs(dicts: Sequence[dict[str, Attribute]]) -> ArrayAttr:
    return ArrayAttr(tuple(DictAttr(tuple(sorted(d.items()))) for d in dicts))


class FuncOp(Operation):
    """`func.func @name(%a: t {attrs}) -> (t {attrs}) { ... }`."""

    name = "func.func"
    traits = (IsolatedFromAbove,)

    @classmethod
    def create(cls, sym_name: str, arg_types: Sequence[Type], result_types: Sequence[Type],
               arg_attrs: Sequence[dict[str, Attribute]] | None = None,
               res_attrs: Sequence[dict[str, Attribute]] | None = None,
               location: Location = UNKNOWN_LOC) -> "FuncOp":
        """A function (or, called on a subclass, that op) with an empty entry block taking `arg_types`."""
        attrs: dict[str, Attribute] = {
            "sym_name": StringAttr(sym_name),
            "function_type": TypeAttr(FunctionType(tuple(arg_types), tuple(result_types))),
        }
        if arg_attrs and any(arg_attrs):
            attrs["arg_attrs"] = _dict_attrs(arg_attrs)
        if res_attrs and any(res_attrs):
            attrs["res_attrs"] = _dict_attrs(res_attrs)
        return cls([], [], attrs, [Region([Block(arg_types)])], (), location)

    @property
    def sym_name(self) -> str:
        return self.attributes["sym_name"].value  # type: ignore[attr-defined]

    @property
    def function_type(self) -> FunctionType:
        return self.attributes["function_type"].value  # type: ignore[attr-defined]

    @property
    def body(self) -> Block:
        return self.regions[0].blocks[0]

    @property
    def args(self):
        return self.body.args

    def arg_attrs(self, i: int) -> dict[str, Attribute]:
        arr = self.attributes.get("arg_attrs")
        return arr.value[i].as_dict() if isinstance(arr, ArrayAttr) else {}

    def res_attrs(self, i: int) -> dict[str, Attribute]:
        arr = self.attributes.get("res_attrs")
        return arr.value[i].as_dict() if isinstance(arr, ArrayAttr) else {}

    def set_arg_attrs(self, dicts: Sequence[dict[str, Attribute]]) -> None:
        self.attributes["arg_attrs"] = _dict_attrs(dicts)

    def set_res_attrs(self, dicts: Sequence[dict[str, Attribute]]) -> None:
        self.attributes["res_attrs"] = _dict_attrs(dicts)

    def update_function_type(self) -> None:
        """Recompute the signature from the entry block and the return op."""
        ret = self.body.terminator
        results = tuple(v.type for v in ret.operands) if ret is not None else ()
        self.attributes["function_type"] = TypeAttr(FunctionType(tuple(a.type for a in self.body.args), results))

    # -- text: func.func @f(%a: t {attrs}, ...) -> (t {attrs}, ...) attributes {...} { ... }
    _SIGNATURE_KEYS = ("sym_name", "function_type", "arg_attrs", "res_attrs")

    def _signature_dicts(self, key: str, n: int) -> list[dict[str, Attribute]] | None:
        arr = self.attributes.get(key)
        if arr is None:
            return [{}] * n
        if not isinstance(arr, ArrayAttr) or len(arr) != n or not all(isinstance(d, DictAttr) for d in arr):
            return None
        return [d.as_dict() for d in arr]  # type: ignore[attr-defined]

    def print_custom(self, printer) -> bool | None:
        sym, ftype = self.attributes.get("sym_name"), self.attributes.get("function_type")
        if (not isinstance(sym, StringAttr) or not isinstance(ftype, TypeAttr)
                or not isinstance(ftype.value, FunctionType) or len(self.regions) != 1):
            return False
        ft = ftype.value
        blocks = self.regions[0].blocks
        if blocks and (tuple(a.type for a in blocks[0].args) != ft.inputs
                       or printer.is_branch_target(blocks[0])):
            return False
        arg_attrs = self._signature_dicts("arg_attrs", len(ft.inputs))
        res_attrs = self._signature_dicts("res_attrs", len(ft.results))
        if arg_attrs is None or res_attrs is None:
            return False
        args = [(printer.name(blocks[0].args[i]) + ": " if blocks else "") + printer.type(t)
                + printer.attr_dict(arg_attrs[i]) for i, t in enumerate(ft.inputs)]
        printer.write(" ", str(SymbolRefAttr(sym.value)), "(", ", ".join(args), ")")
        if len(ft.results) == 1 and not res_attrs[0] and not isinstance(ft.results[0], FunctionType):
            printer.write(" -> ", printer.type(ft.results[0]))
        elif ft.results:
            results = [printer.type(t) + printer.attr_dict(d) for t, d in zip(ft.results, res_attrs)]
            printer.write(" -> (", ", ".join(results), ")")
        rest = printer.attr_dict(self.attributes, self._SIGNATURE_KEYS)
        if rest:
            printer.write(" attributes", rest)
        if blocks:
            printer.write(" ")
            printer.print_region(self.regions[0], entry_args=False, empty_block=False)
        return None

    @classmethod
    def parse_custom(cls, parser) -> "FuncOp":
        name = parser.parse_symbol()
        parser.expect("(")
        args: list[tuple[int | None, Type]] = []
        arg_attrs: list[dict[str, Attribute]] = []
        if not parser.accept(")"):
            while True:
                ref = parser.parse_value_def() if parser.peek()[:1] == "%" else None
                if ref is not None:
                    parser.expect(":")
                args.append((ref, parser.parse_type()))
                arg_attrs.append(parser.parse_optional_attr_dict())
                if not parser.accept(","):
                    break
            parser.expect(")", "')' or ','")
        results: list[Type] = []
        res_attrs: list[dict[str, Attribute]] = []
        if parser.accept("->"):
            if parser.accept("("):
                while parser.peek() != ")":
                    results.append(parser.parse_type())
                    res_attrs.append(parser.parse_optional_attr_dict())
                    if not parser.accept(","):
                        break
                parser.expect(")", "')' or ','")
            else:
                results.append(parser.parse_type())
                res_attrs.append({})
        attrs = parser.parse_attr_dict() if parser.accept("attributes") else {}
        region = Region()
        if parser.peek() == "{":
            if any(ref is None for ref, _ in args):
                raise parser.error("a function with a body needs named arguments (%name: type)")
            region = parser.parse_region(entry_args=args)
        attrs["sym_name"] = StringAttr(name)
        attrs["function_type"] = TypeAttr(FunctionType(tuple(t for _, t in args), tuple(results)))
        if any(arg_attrs):
            attrs["arg_attrs"] = _dict_attrs(arg_attrs)
        if any(res_attrs):
            attrs["res_attrs"] = _dict_attrs(res_attrs)
        return parser.create(cls, (), (), attrs, [region])

    def verify_(self) -> None:
        if not isinstance(self.attributes.get("sym_name"), StringAttr):
            raise self.error("requires a 'sym_name' string attribute")
        ftype = self.attributes.get("function_type")
        if not isinstance(ftype, TypeAttr) or not isinstance(ftype.value, FunctionType):
            raise self.error("requires a 'function_type' attribute")
        if len(self.regions) != 1 or not self.regions[0].blocks:
            raise self.error("must have a body")
        ft = ftype.value
        entry = self.body
        if tuple(a.type for a in entry.args) != ft.inputs:
            raise self.error("entry block arguments do not match the function type "
                             f"{types_text([a.type for a in entry.args])} vs {types_text(ft.inputs)}")
        for key, n in (("arg_attrs", len(ft.inputs)), ("res_attrs", len(ft.results))):
            arr = self.attributes.get(key)
            if arr is not None and (not isinstance(arr, ArrayAttr) or len(arr) != n
                                    or not all(isinstance(d, DictAttr) for d in arr)):
                raise self.error(f"'{key}' must be an array of {n} dictionaries")
        parent = self.parent_op
        if parent is not None and parent.op_name != "builtin.module":
            raise self.error(f"must be directly inside a 'builtin.module', not inside '{parent.op_name}'")
        # (the verifier checks the blocks of a multi-block body, and misplaced terminators)
        if len(self.regions[0].blocks) == 1 and not any(op.has_trait(Terminator) for op in entry.ops):
            raise self.error("the body must end with a terminator ('func.return')")
        self._verify_irc_attrs(ft)

    def _verify_irc_attrs(self, ft: FunctionType) -> None:
        """The signature attributes the runtime and the passes act on (see the module doc)."""
        for i in range(len(ft.inputs)):
            shared = self.arg_attrs(i).get("irc.shared")
            if shared is not None and not isinstance(shared, StringAttr):
                raise self.error(f"argument #{i}: 'irc.shared' must be a string (the variable's name)")
        for k, t in enumerate(ft.results):
            attrs = self.res_attrs(k)
            for key in ("irc.update", "irc.inplace"):
                arg = attrs.get(key)
                if arg is None:
                    continue
                if not isinstance(arg, IntegerAttr) or not 0 <= arg.value < len(ft.inputs):
                    raise self.error(f"result #{k}: '{key}' must be the index of an argument "
                                     f"(0 to {len(ft.inputs) - 1}), got {arg}")
                if not _same_kind(ft.inputs[arg.value], t):
                    raise self.error(f"result #{k} of type {t} cannot replace argument #{arg.value} "
                                     f"of type {ft.inputs[arg.value]} ('{key}')")
            if "irc.borrow" in attrs and not isinstance(attrs["irc.borrow"], UnitAttr):
                raise self.error(f"result #{k}: 'irc.borrow' is a flag (unit), got {attrs['irc.borrow']}")


def _same_kind(a: Type, b: Type) -> bool:
    """Same element type and rank (a loop-level argument is a strided view of its result)."""
    if hasattr(a, "shape") and hasattr(b, "shape"):
        return getattr(a, "element", None) == getattr(b, "element", None) and len(a.shape) == len(b.shape)
    return a == b


class ReturnOp(OperandListForm, Operation):
    """`func.return %a, %b : t1, t2` — ends a function; types must match its results."""

    name = "func.return"
    traits = (Terminator, Pure)
    function_class: type[FuncOp] = FuncOp  # the function op it ends

    def verify_(self) -> None:
        func = self.parent_op
        if not isinstance(func, self.function_class):
            raise self.error(f"must be inside a '{self.function_class.name}'")
        expected = func.function_type.results
        got = tuple(v.type for v in self.operands)
        if got != expected:
            raise self.error(f"returns {types_text(got)} but the function type says {types_text(expected)}")


class CallOp(Operation):
    """`func.call @f(%a) : (t) -> t`."""

    name = "func.call"

    def print_custom(self, printer) -> bool | None:
        """`func.call @f(%a) {attrs} : (t) -> t`."""
        callee = self.attributes.get("callee")
        if not isinstance(callee, SymbolRefAttr):
            return False
        printer.write(" ", str(callee), "(", printer.names(self.operands), ")",
                      printer.attr_dict(self.attributes, ("callee",)), " : ",
                      printer.function_type([v.type for v in self.operands], self.result_types))
        return None

    @classmethod
    def parse_custom(cls, parser) -> "CallOp":
        callee = parser.parse_symbol()
        parser.expect("(")
        refs = parser.parse_operand_refs()
        parser.expect(")", "')' or ','")
        attrs = parser.parse_optional_attr_dict()
        parser.expect(":", "':' and the callee's function type")
        ft = parser.parse_function_type()
        attrs["callee"] = SymbolRefAttr(callee)
        return parser.create(cls, parser.resolve_operands(refs, ft.inputs), ft.results, attrs)

    @property
    def callee(self) -> str:
        return self.attributes["callee"].name  # type: ignore[attr-defined]

    def verify_(self) -> None:
        if not isinstance(self.attributes.get("callee"), SymbolRefAttr):
            raise self.error("requires a 'callee' symbol reference")
