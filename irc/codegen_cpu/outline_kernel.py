"""Outlining of a `loop.for` marked `irc.kernel` (a one-trip loop grouping a piece that many
products share, such as the gemm micro-kernel: `LoopBuilder.kernel`) into a function of its
own module, called where the loop was:

    call void @irc.k.<key>(<captured values>)

The function is keyed like a parallel kernel (`kernel_split.py`), so the ten gemms of a
training step, whatever their layouts, scalings and epilogues, call one compiled copy of the
register tile per dtype and tile shape instead of each carrying its own ~400 `fma`s through
LLVM. The values it reads from outside are passed one by one (a pointer keeps its
`noalias`); constants are compiled in and are part of the key.

A serial nest left in the function's own module (a reduction of a whole array held as a
scalar, a copy, a scan over a vector: `serial_nest`) is outlined the same way, unmarked: that
module is compiled with two cheap passes (`target.GLUE_PASSES`), which leave a loop scalar,
while a kernel gets the O2 pipeline and its vectorizers. Such a loop's results (the sums it
carries) are the function's return value: one scalar, or a struct of them.
"""
from __future__ import annotations

from llvmlite import ir

from ..codegen_llvm.memref_desc import MemRef
from ..codegen_llvm.scalar_emit import llvm_type
from ..dialects import loop as L
from ..ir.core import Operation, Value
from ..ir.types import ScalarType
from ..ir.transforms import values_from_above
from .kernel_split import KernelSet, describe_inputs, kernel_symbol


def flatten_captures(conv, captured: list[Value]) -> tuple[list[ir.Value], dict[int, int]]:
    """The LLVM values that carry `captured` into a function of another module (constants
    stay out: they are compiled in), and each one's argument position by id."""
    flat: list[ir.Value] = []
    slot_of: dict[int, int] = {}
    for v in captured:
        x = conv.get(v)
        for part in ([x.ptr, x.offset, *x.sizes, *x.strides] if isinstance(x, MemRef) else [x]):
            if not isinstance(part, ir.Constant) and id(part) not in slot_of:
                slot_of[id(part)] = len(flat)
                flat.append(part)
    return flat, slot_of


def remap_captures(conv, captured: list[Value], fn: ir.Function, slot_of: dict[int, int]) -> dict[Value, object]:
    """The IR-to-LLVM mapping inside `fn`: each captured value as its arguments."""

    def remap(v: ir.Value) -> ir.Value:
        k = slot_of.get(id(v))
        return v if k is None else fn.args[k]

    values: dict[Value, object] = {}
    for v in captured:
        x = conv.get(v)
        values[v] = (MemRef(x.type, remap(x.ptr), remap(x.offset), [remap(s) for s in x.sizes],
                            [remap(s) for s in x.strides]) if isinstance(x, MemRef) else remap(x))
    return values


def mark_noalias(conv, fn: ir.Function, flat: list[ir.Value]) -> None:
    """`noalias` on the arguments that carry a pointer known to alias no other (and the
    arguments remembered as such, for what is outlined from inside `fn`)."""
    for arg, v in zip(fn.args, flat):
        if isinstance(v.type, ir.PointerType) and id(v) in conv.noalias:
            arg.add_attribute("noalias")
            conv.noalias.add(id(arg))


class KernelCallOutliner:
    """Outlines one `irc.kernel` loop of the function `conv` is converting."""

    def __init__(self, conv, kernels: KernelSet) -> None:
        self.conv = conv
        self.kernels = kernels

    def emit(self, op: L.ForOp) -> None:
        conv = self.conv
        captured = values_from_above(op, with_operands=True)
        flat, slot_of = flatten_captures(conv, captured)
        key = self.kernels.key(op, captured, describe_inputs([conv.get(v) for v in captured], slot_of, conv.noalias))
        name = kernel_symbol(key)
        fn_type = ir.FunctionType(_return_type(conv, op), [v.type for v in flat])
        if self.kernels.needs_module(key):
            self.kernels.add_module(key, self._module(op, key, fn_type, captured, flat, slot_of))
        callee = conv.llmod.globals.get(name)
        if callee is None:
            callee = ir.Function(conv.llmod, fn_type, name=name)
            callee.attributes.add("nounwind")
        returned = conv.b.call(callee, flat)
        if len(op.results) == 1:
            conv.values[op.results[0]] = returned
        else:  # none, or a struct of them
            for k, r in enumerate(op.results):
                conv.values[r] = conv.b.extract_value(returned, k)

    def _module(self, op: L.ForOp, key: str, fn_type: ir.FunctionType, captured: list[Value],
                flat: list[ir.Value], slot_of: dict[int, int]) -> ir.Module:
        conv = self.conv
        module = ir.Module(name="kernel")
        fn = ir.Function(module, fn_type, name=kernel_symbol(key))
        fn.attributes.add("nounwind")
        mark_noalias(conv, fn, flat)
        saved = conv.llmod, conv.b, conv.scalar, conv.values
        conv.llmod = module
        conv.enter_builder(ir.IRBuilder(fn.append_basic_block("entry")), remap_captures(conv, captured, fn, slot_of))
        try:
            with self.kernels.emitting(key):
                conv.op_loop_for(op, outline=False)
            results = [conv.get(r) for r in op.results]
            if not results:
                conv.b.ret_void()
            elif len(results) == 1:
                conv.b.ret(results[0])
            else:
                packed = ir.Constant(fn_type.return_type, ir.Undefined)
                for k, v in enumerate(results):
                    packed = conv.b.insert_value(packed, v, k)
                conv.b.ret(packed)
        finally:
            conv.llmod, conv.b, conv.scalar, conv.values = saved
        return module


def _return_type(conv, op: L.ForOp) -> ir.Type:
    """What the outlined loop returns: nothing, its one result, or a struct of its results
    (as the converter computes them)."""
    types = [llvm_type(conv.compute_type(r.type)) for r in op.results]
    return ir.VoidType() if not types else types[0] if len(types) == 1 else ir.LiteralStructType(types)


# what a serial nest may hold to be outlined: element access, views, index arithmetic and the
# scalar ops; not allocations (their frees follow the function's paths), checks (they return
# the function's error code), parallel nests, nor anything the host alone provides
_SERIAL_OPS = frozenset(f"loop.{name}" for name in (
    "dim", "transpose", "subview", "broadcast", "reshape", "load", "prefetch", "align_gap", "store", "for", "if",
    "yield", "constant", "add", "sub", "mul", "floordiv", "min", "max"))


def serial_nest(op: Operation) -> bool:
    """A top-level `loop.for` of the function's own module that reads or writes memory, holds
    only what a kernel can hold, and carries only scalars: compiled as a kernel (see above)."""
    if not all(isinstance(r.type, ScalarType) for r in op.results):
        return False
    touches = False
    for inner in op.walk():
        name = inner.op_name
        if not (name in _SERIAL_OPS or name.startswith("scalar.")):
            return False
        touches = touches or name in ("loop.load", "loop.store")
    return touches
