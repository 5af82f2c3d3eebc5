"""`convert-to-nvvm`: the `gpu.func` kernels of a module as an LLVM module for
`nvptx64-nvidia-cuda` (reached through `compile_kernels` / `irc-opt -t ptx`).

Each kernel is a `ptx_kernel` function taking the parameters of `abi.kernel_params`. Pointer
parameters are `noalias` (unless outline-kernels marked the argument `irc.may_alias`: an
update written over its input) and aligned: to 16 bytes for contiguous memrefs, so the NVPTX
load-store vectorizer turns the 4 adjacent accesses of a multi-item step into one
`ld.global.nc.v4`/`st.global.v4`. float16 is stored as f16 and computed in f32 (converted on
load, rounded on store and at every cast to f16). Scalar ops come from the shared
`ScalarEmitter` with the NVPTX math table.
"""
from __future__ import annotations

import numpy as np
import llvmlite.binding as llvm
from llvmlite import ir

from ..codegen_llvm import memref_desc as M
from ..codegen_llvm.loop_emit import LoopEmitter
from ..codegen_llvm.memref_desc import I64, MemRef, i64
from ..codegen_llvm.scalar_emit import memory_type
from ..dialects import gpu as G
from ..dialects.builtin import MemRefType, ModuleOp
from ..ir.core import Operation
from ..ir.types import ScalarType, f16, f32
from .abi import VECTOR_ALIGN, kernel_params
from .mathlib_nvptx import NVPTX_MATH

TRIPLE = "nvptx64-nvidia-cuda"
DATA_LAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
PTR = ir.PointerType()
I32 = ir.IntType(32)
SREGS = {"gpu.thread_id": "tid", "gpu.block_id": "ctaid", "gpu.block_dim": "ntid", "gpu.grid_dim": "nctaid"}
GLOBAL_ADDRSPACE = 1


def kernels(module: ModuleOp) -> list[G.GpuFuncOp]:
    return [op for op in module.body.ops if isinstance(op, G.GpuFuncOp)]


def convert_to_nvvm(module: ModuleOp, name: str = "irc_kernels") -> ir.Module:
    """Every `gpu.func` of `module` as a kernel of one LLVM module."""
    return convert_kernels_to_nvvm(kernels(module), name)


def convert_kernels_to_nvvm(funcs: list[G.GpuFuncOp], name: str = "irc_kernels") -> ir.Module:
    """The given kernels (distinct names) as one LLVM module: a kernel's code depends on its own
    body only, so any subset of a module's kernels converts to the same functions."""
    llmod = ir.Module(name=name)
    llmod.triple = TRIPLE
    llmod.data_layout = DATA_LAYOUT
    for k in funcs:
        KernelConverter(llmod, k).convert()
    return llmod


def compute_type(t: ScalarType) -> ScalarType:
    """The type a scalar is computed in: f16 is stored as f16 but computed in f32."""
    return f32 if t == f16 else t


def may_alias_args(kernel: G.GpuFuncOp) -> set[int]:
    attr = kernel.attributes.get("irc.may_alias")
    return set(attr) if attr is not None else set()  # type: ignore[arg-type]


class KernelConverter(LoopEmitter):
    """Emits one kernel: its parameters, special registers, barriers and f16 storage; the rest
    is `LoopEmitter`'s (a `loop.parallel` inside a kernel runs sequentially in each thread)."""

    pass_name = "convert-to-nvvm"
    scope = " in a kernel"

    def __init__(self, llmod: ir.Module, kernel: G.GpuFuncOp):
        super().__init__(llmod, _target_data(), NVPTX_MATH)
        self.kernel = kernel

    def convert(self) -> ir.Function:
        params = kernel_params(self.kernel)
        types = self.kernel.function_type.inputs
        lltypes = [PTR if p.kind == "ptr" else (I64 if p.kind != "scalar" else memory_type(types[p.arg]))
                   for p in params]
        fn = ir.Function(self.llmod, ir.FunctionType(ir.VoidType(), lltypes), name=self.kernel.sym_name)
        fn.calling_convention = "ptx_kernel"
        fn.attributes.add("nounwind")
        self.enter_builder(ir.IRBuilder(fn.append_basic_block("entry")), self.values)
        aliased = may_alias_args(self.kernel)
        by_arg: dict[int, list] = {}
        for p, a in zip(params, fn.args):
            by_arg.setdefault(p.arg, []).append((p, a))
        for i, (t, arg) in enumerate(zip(types, self.kernel.body.args)):
            parts = by_arg[i]
            if isinstance(t, MemRefType):
                self.values[arg] = self._memref_param(t, parts, i not in aliased)
            else:
                v = parts[0][1]
                self.values[arg] = self.from_memory(v, t) if isinstance(t, ScalarType) else v
        self.block(self.kernel.body)
        return fn

    def _memref_param(self, t: MemRefType, parts, noalias: bool) -> MemRef:
        ptr = parts[0][1]
        if noalias:
            ptr.add_attribute("noalias")
        ptr.attributes.align = VECTOR_ALIGN if t.strides is None else self.item_size(t.element)
        sizes_in = {p.axis: a for p, a in parts if p.kind == "size"}
        strides_in = {p.axis: a for p, a in parts if p.kind == "stride"}
        sizes = [i64(d) if d is not None else sizes_in[a] for a, d in enumerate(t.shape)]
        if t.strides is None:
            return M.contiguous(self.b, t, ptr, sizes)
        strides = [i64(s) if s is not None else strides_in[a] for a, s in enumerate(t.strides)]
        return MemRef(t, ptr, i64(0), sizes, strides)

    # ------------------------------------------------------------------ kernel ops
    def _sreg(self, op: Operation) -> None:
        name = f"llvm.nvvm.read.ptx.sreg.{SREGS[op.op_name]}.x"
        fn = self.llmod.globals.get(name)
        if fn is None:
            fn = ir.Function(self.llmod, ir.FunctionType(I32, []), name=name)
        self.values[op.result] = self.b.zext(self.b.call(fn, []), I64)

    op_gpu_thread_id = op_gpu_block_id = op_gpu_block_dim = op_gpu_grid_dim = _sreg

    def op_gpu_return(self, op: Operation) -> None:
        self.b.ret_void()

    def op_gpu_barrier(self, op: Operation) -> None:
        name = "llvm.nvvm.barrier0"
        fn = self.llmod.globals.get(name) or ir.Function(self.llmod, ir.FunctionType(ir.VoidType(), []), name=name)
        self.b.call(fn, [])

    def op_gpu_shuffle_xor(self, op: Operation) -> None:
        """`shfl.sync.bfly` over the whole warp, in 32-bit pieces: a 64-bit value as two halves,
        a narrower one widened first (f16 is already computed in f32)."""
        b = self.b
        v = self.get(op.operand(0))
        offset = b.trunc(self.get(op.operand(1)), I32)
        t = v.type
        if isinstance(t, ir.FloatType):
            self.values[op.result] = self._shuffle(v, offset, "f32")
            return
        if isinstance(t, ir.DoubleType) or t == I64:
            bits = b.bitcast(v, I64) if isinstance(t, ir.DoubleType) else v
            low = self._shuffle(b.trunc(bits, I32), offset, "i32")
            high = self._shuffle(b.trunc(b.lshr(bits, I64(32)), I32), offset, "i32")
            joined = b.or_(b.zext(low, I64), b.shl(b.zext(high, I64), I64(32)))
            self.values[op.result] = b.bitcast(joined, t) if isinstance(t, ir.DoubleType) else joined
            return
        wide = t != I32
        word = b.zext(v, I32) if wide else v
        out = self._shuffle(word, offset, "i32")
        self.values[op.result] = b.trunc(out, t) if wide else out

    def _shuffle(self, v: ir.Value, offset: ir.Value, kind: str) -> ir.Value:
        name = f"llvm.nvvm.shfl.sync.bfly.{kind}"
        fn = self.llmod.globals.get(name) or ir.Function(
            self.llmod, ir.FunctionType(v.type, [I32, v.type, I32, I32]), name=name)
        return self.b.call(fn, [I32(-1), v, offset, I32(31)])  # all 32 lanes, the whole warp

    def op_loop_global(self, op: Operation) -> None:
        self.global_constant(op, f"{self.kernel.sym_name}.const{len(self.llmod.globals)}", VECTOR_ALIGN,
                             GLOBAL_ADDRSPACE)

    # ------------------------------------------------------------------ f16: stored as f16, computed in f32
    def from_memory(self, v: ir.Value, t: ScalarType) -> ir.Value:
        return self.b.fpext(v, ir.FloatType()) if t == f16 else super().from_memory(v, t)

    def to_memory(self, v: ir.Value, t: ScalarType) -> ir.Value:
        return self.b.fptrunc(v, ir.HalfType()) if t == f16 else super().to_memory(v, t)

    def compute_type(self, t: ScalarType) -> ScalarType:
        return compute_type(t)

    def scalar_constant(self, t: ScalarType, value) -> ir.Value:
        if t == f16:  # the f16 value, held in f32
            value = float(np.float16(value))
        return super().scalar_constant(compute_type(t), value)

    def cast(self, x: ir.Value, src: ScalarType, dst: ScalarType) -> ir.Value:
        v = super().cast(x, compute_type(src), compute_type(dst))
        if dst == f16 and src != f16:  # round to f16, keep computing in f32
            v = self.b.fpext(self.b.fptrunc(v, ir.HalfType()), ir.FloatType())
        return v


_TD = None


def _target_data():
    """NVPTX's data layout (element sizes)."""
    global _TD
    if _TD is None:
        _TD = llvm.create_target_data(DATA_LAYOUT)
    return _TD
