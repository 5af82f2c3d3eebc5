"""The entry point's ABI as both of its emitters see it (`convert_to_llvm`'s flat entry point and
`numpy_abi`'s array-object wrapper): its symbol, the order of its memref arguments, and which of
them may alias. The ABI itself is described in `convert_to_llvm`."""
from __future__ import annotations

from llvmlite import ir

from ..dialects import loop as L
from ..dialects.builtin import MemRefType
from ..dialects.func import FuncOp
from ..ir.core import Value
from ..ir.diagnostics import UnsupportedError

I32 = ir.IntType(32)
PTR = ir.PointerType()


def entry_symbol(func: FuncOp) -> str:
    """The exported name; prefixed so that a function called `free` or `exp` clashes with nothing."""
    return "irc." + func.sym_name


def entry_arg_layout(func: FuncOp) -> list[tuple[str, int, int]]:
    """(kind, arg/result number, rank) per memref in ABI order: ("in", i, r) / ("out", j, r)."""
    layout = [("in", i, a.type.rank) for i, a in enumerate(func.args)]
    layout += [("out", j, t.rank) for j, t in enumerate(func.function_type.results)]
    return layout


def may_alias(func: FuncOp) -> set[tuple[str, int]]:
    """The ("in", N) and ("out", k) pointers that the caller may make equal: result k marked
    `irc.inplace = N` (an update written over shared variable N's storage) — no `noalias`."""
    out: set[tuple[str, int]] = set()
    for k in range(len(func.function_type.results)):
        n = func.res_attrs(k).get("irc.inplace")
        if n is not None:
            out |= {("in", n.value), ("out", k)}  # type: ignore[attr-defined]
    return out


def check_entry_abi(func: FuncOp) -> None:
    """The function fits the entry ABI: memref arguments, and results that are distinct
    `loop.alloc`s of the function body (the caller allocates them)."""
    ft = func.function_type
    for what, types in (("argument", ft.inputs), ("result", ft.results)):
        for k, t in enumerate(types):
            if not isinstance(t, MemRefType):
                raise UnsupportedError(f"convert-to-llvm: '{func.sym_name}' has {what} #{k} of type {t}; "
                                       f"compiled functions take and return tensors or memrefs only",
                                       func.location)
    ret = func.body.terminator
    seen: set[Value] = set()
    for k, v in enumerate(ret.operands if ret is not None else ()):
        owner = v.owner
        if not isinstance(owner, L.AllocOp) or owner.parent is not func.body or v in seen:
            raise UnsupportedError(f"convert-to-llvm: result #{k} of '{func.sym_name}' must be a "
                                   f"distinct loop.alloc of the function body (the caller allocates "
                                   f"results)", ret.location)
        seen.add(v)
