"""Kernels as modules of their own: each outlined parallel nest (`outline_parallel.py`) is
emitted into its own LLVM module, named by a hash of what it computes, so that it is compiled
once per machine whatever function or program it appears in.

The key of a kernel is its loop IR (the nest printed with the values it reads from outside
named by position, no name hints or locations; a model's float constants left out, since they
are passed: `liftable_constants`) plus how each of those values reaches it: a constant (its
value, compiled in), or an argument (its LLVM type, whether it is a `noalias` pointer, and
which other argument it equals). That is everything the nest's LLVM code depends on besides
the code generator, whose identity the caller adds (`salt`). Loop bounds are arguments unless
the function knew them as constants, so a kernel of a function on `?` shapes serves every
shape.

The function that launches a kernel declares `@irc.k.<key>` (the thread pool's callback,
`void (ptr ctx, i64 lo, i64 hi)`, or a plain function for an `irc.kernel` loop, see
`outline_kernel.py`) and its object file is linked with the kernels' objects when they are
loaded; a kernel may call kernels too (a gemm's parallel nest calls its register tile), and
its cache entry names them. A key met twice in one function is emitted once: the products
of one dtype and layout of A share one register tile.
"""
from __future__ import annotations

import hashlib
import math
from contextlib import contextmanager
from typing import Callable, Iterator

from llvmlite import ir

from ..codegen_llvm.memref_desc import MemRef
from ..dialects.loop import KERNEL
from ..ir.attributes import StringAttr
from ..ir.core import Operation, Value
from ..ir.printer import print_op_in_context
from .linked_objects import decode_linked, encode_linked  # noqa: F401 (the entry format, imported from here)

KERNEL_PREFIX = "irc.k."


def kernel_symbol(key: str) -> str:
    """The exported name of a kernel's callback (the body and constants are internal)."""
    return KERNEL_PREFIX + key


class KernelSet:
    """The kernels one function needs: objects already compiled (from `lookup`, the caller's
    cache: entries as `encode_linked` writes them) and modules still to compile, by key, and
    which kernels each emitted one calls (a gemm's parallel kernel calls its register tile).
    A cached kernel counts only with everything it calls; else it is emitted again."""

    def __init__(self, salt: str, lookup: Callable[[str], bytes | None] = lambda key: None) -> None:
        self.salt = salt
        self.lookup = lookup
        self.objects: dict[str, bytes] = {}         # compiled (found by `lookup`)
        self.modules: dict[str, ir.Module] = {}     # emitted here, to compile
        self.calls: dict[str, list[str]] = {}       # emitted kernel -> the kernels it calls
        self._emitting: list[str] = []

    def key(self, nest: Operation, captured: list[Value], context: list[str],
            lifted: list[Operation] = ()) -> str:
        """The kernel's key: its text (the `lifted` constants' values left out: they are
        passed), the description of its inputs, the salt."""
        with values_hidden(lifted):
            text = print_op_in_context(nest, captured)
        h = hashlib.sha256()
        for part in (self.salt, text, *context):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()

    def needs_module(self, key: str) -> bool:
        """Record that the function (or the kernel being emitted) calls `key`; True when its
        module must be emitted now (not met before, not in the cache with all it calls)."""
        if self._emitting:
            calls = self.calls[self._emitting[-1]]
            if key not in calls:
                calls.append(key)
        return key not in self.objects and key not in self.modules and not self._load(key)

    @contextmanager
    def emitting(self, key: str) -> Iterator[None]:
        """Emitting `key`'s module: the kernels met meanwhile are the ones it calls."""
        self.calls[key] = []
        self._emitting.append(key)
        try:
            yield
        finally:
            self._emitting.pop()

    @property
    def emitting_any(self) -> bool:
        """True while a kernel's module is being emitted (what is met is inside a kernel)."""
        return bool(self._emitting)

    def add_module(self, key: str, module: ir.Module) -> None:
        self.modules[key] = module

    def keys(self) -> list[str]:
        """Every kernel the function links with."""
        return [*self.objects, *self.modules]

    def _load(self, key: str, loading: frozenset = frozenset()) -> bool:
        body = self.lookup(key) if key not in loading else None  # (a cycle: a forged entry)
        linked = decode_linked(body) if body is not None else None
        if linked is None:
            return False
        calls, obj = linked
        inner = loading | {key}
        if not all(k in self.objects or k in self.modules or self._load(k, inner) for k in calls):
            return False
        self.objects[key] = obj
        return True


# float constants that stay compiled into a kernel: the ones that shape its arithmetic (an
# accumulator's start, a sigmoid's 1, a halving), not a model's hyperparameters
STRUCTURAL_FLOATS = frozenset({0.0, 1.0, -1.0, 0.5, -0.5, 2.0})


def liftable_constants(nest: Operation) -> list[Operation]:
    """The float `scalar.constant`s of a kernel that are passed to it instead of compiled in (a
    learning rate, a regularization weight, a product's alpha): so that a model with other
    hyperparameters reuses the kernels of one compiled before. Passing one costs a register
    (it is loop-invariant) and changes no result."""
    inner = {id(x) for op in nest.walk() if op is not nest and op.op_name == "loop.for"
             and KERNEL in op.attributes for x in op.walk()}  # a kernel of its own keeps its constants
    out = []
    for op in nest.walk():
        if op.op_name == "scalar.constant" and op.result.type.is_float and id(op) not in inner:
            value = op.attributes["value"].value
            if math.isfinite(value) and value not in STRUCTURAL_FLOATS:
                out.append(op)
    return out


@contextmanager
def values_hidden(constants: list[Operation]) -> Iterator[None]:
    """The constants print `value = "passed"` (no real constant does) for the block."""
    saved = [op.attributes["value"] for op in constants]
    for op in constants:
        op.attributes["value"] = StringAttr("passed")
    try:
        yield
    finally:
        for op, attr in zip(constants, saved):
            op.attributes["value"] = attr


def describe_inputs(parts: list[object], slot_of: dict[int, int], noalias: set[int]) -> list[str]:
    """One line per captured value (`MemRef` or LLVM value): how each of its parts reaches the
    kernel (see the module docstring)."""

    def part(v: ir.Value) -> str:
        k = slot_of.get(id(v))
        if k is None:
            return f"const {v}"
        flags = " noalias" if id(v) in noalias else ""
        return f"arg{k} {v.type}{flags}"

    lines = []
    for x in parts:
        if isinstance(x, MemRef):
            fields = [x.ptr, x.offset, *x.sizes, *x.strides]
            lines.append(f"memref {x.type}: " + ", ".join(part(v) for v in fields))
        else:
            lines.append(part(x))
    return lines
