"""A second entry point that takes numpy arrays themselves (`PyObject*`), so a Python call
passes one pointer per array instead of a data pointer, sizes and strides: reading
`arr.ctypes.data` costs about a microsecond per array, reading the fields here costs nothing.

    i32 @name.np(ptr %in0, ..., ptr %out0, ...)   ; each a PyArrayObject*

It loads `data`, `dimensions` and `strides` at the byte offsets of numpy's `PyArrayObject_fields`
(given by the runtime, which checks them against a live array first) and calls the flat entry
point of `convert_to_llvm`, which LLVM inlines.
"""
from __future__ import annotations

from llvmlite import ir

from ..codegen_llvm.memref_desc import I64, i64
from ..dialects.func import FuncOp
from .array_layout import ArrayLayout, numpy_symbol_of
from .entry_abi import I32, PTR, entry_arg_layout, entry_symbol


def numpy_symbol(func: FuncOp) -> str:
    return numpy_symbol_of(entry_symbol(func))




def emit_numpy_wrapper(llmod: ir.Module, func: FuncOp, layout: ArrayLayout) -> ir.Function:
    core = llmod.globals[entry_symbol(func)]
    slots = entry_arg_layout(func)
    fn = ir.Function(llmod, ir.FunctionType(I32, [PTR] * len(slots)), name=numpy_symbol(func))
    fn.attributes.add("nounwind")
    b = ir.IRBuilder(fn.append_basic_block("entry"))

    def field(obj: ir.Value, offset: int) -> ir.Value:
        addr = b.gep(obj, [i64(offset)], inbounds=True, source_etype=ir.IntType(8))
        return b.load(addr, typ=PTR, align=8)

    args: list[ir.Value] = []
    for obj, (kind, _, rank) in zip(fn.args, slots):
        args.append(field(obj, layout.data))
        if kind == "in":
            dims, strides = field(obj, layout.dims), field(obj, layout.strides)
            for arr in (dims, strides):
                for axis in range(rank):
                    p = b.gep(arr, [i64(axis)], inbounds=True, source_etype=I64)
                    args.append(b.load(p, typ=I64, align=8))
    b.ret(b.call(core, args))
    return fn
