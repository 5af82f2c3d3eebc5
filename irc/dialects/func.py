"""`func`: functions, returns and calls. One `irc.function` is one `func.func`.

Argument and result attributes (`irc.shared`, `irc.update`, `irc.borrow`) are kept as
`arg_attrs`/`res_attrs` array-of-dict attributes, as MLIR does."""
from __future__ import annotations

from typing import Sequence

from ..ir.attributes import ArrayAttr, Attribute, DictAttr, StringAttr, TypeAttr
from ..ir.core import Block, IsolatedFromAbove, Operation, Pure, Region, Terminator
from ..ir.location import Location, UNKNOWN_LOC
from ..ir.types import FunctionType, Type


def _dict_attrs(dicts: Sequence[dict[str, Attribute]]) -> ArrayAttr:
    return ArrayAttr(tuple(DictAttr(tuple(sorted(d.items()))) for d in dicts))


class FuncOp(Operation):
    """`func.func @name(%a: t {attrs}) -> (t {attrs}) { ... }`."""

    name = "func.func"
    traits = (IsolatedFromAbove,)

    @staticmethod
    def create(sym_name: str, arg_types: Sequence[Type], result_types: Sequence[Type],
               arg_attrs: Sequence[dict[str, Attribute]] | None = None,
               res_attrs: Sequence[dict[str, Attribute]] | None = None,
               location: Location = UNKNOWN_LOC) -> "FuncOp":
        attrs: dict[str, Attribute] = {
            "sym_name": StringAttr(sym_name),
            "function_type": TypeAttr(FunctionType(tuple(arg_types), tuple(result_types))),
        }
        if arg_attrs and any(arg_attrs):
            attrs["arg_attrs"] = _dict_attrs(arg_attrs)
        if res_attrs and any(res_attrs):
            attrs["res_attrs"] = _dict_attrs(res_attrs)
        return FuncOp([], [], attrs, [Region([Block(arg_types)])], (), location)

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
                             f"({', '.join(str(a.type) for a in entry.args)} vs {', '.join(map(str, ft.inputs))})")
        for key, n in (("arg_attrs", len(ft.inputs)), ("res_attrs", len(ft.results))):
            arr = self.attributes.get(key)
            if arr is not None and (not isinstance(arr, ArrayAttr) or len(arr) != n
                                    or not all(isinstance(d, DictAttr) for d in arr)):
                raise self.error(f"'{key}' must be an array of {n} dictionaries")


class ReturnOp(Operation):
    """`func.return %a, %b : t1, t2` — ends a function; types must match its results."""

    name = "func.return"
    traits = (Terminator, Pure)

    def verify_(self) -> None:
        func = self.parent_op
        if not isinstance(func, FuncOp):
            raise self.error("must be inside a 'func.func'")
        expected = func.function_type.results
        got = tuple(v.type for v in self.operands)
        if got != expected:
            raise self.error(f"returns ({', '.join(map(str, got))}) but the function type says "
                             f"({', '.join(map(str, expected))})")


class CallOp(Operation):
    """`func.call @f(%a) : (t) -> t`."""

    name = "func.call"

    @property
    def callee(self) -> str:
        return self.attributes["callee"].name  # type: ignore[attr-defined]

    def verify_(self) -> None:
        from ..ir.attributes import SymbolRefAttr
        if not isinstance(self.attributes.get("callee"), SymbolRefAttr):
            raise self.error("requires a 'callee' symbol reference")
