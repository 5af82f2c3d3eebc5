"""The entry point's ABI as both of its emitters see it (`convert_to_llvm`'s flat entry point and
`numpy_abi`'s array-object wrapper): its symbol, the order of its memref arguments, and which of
them may alias. The ABI itself is described in `convert_to_llvm`."""
from __future__ import annotations

from llvmlite import ir

from ..dialects.func import FuncOp

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
