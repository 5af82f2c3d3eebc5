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

from typing import Sequence

import numpy as np
from llvmlite import ir

from ..codegen_llvm import memref_desc as M
from ..codegen_llvm.constants import global_bytes
from ..codegen_llvm.memref_desc import I64, MemRef, i64
from ..codegen_llvm.scalar_emit import ScalarEmitter, constant, memory_type
from ..dialects import gpu as G
from ..dialects import loop as L
from ..dialects.builtin import MemRefType, ModuleOp
from ..ir.attributes import BoolAttr, FloatAttr, IntegerAttr
from ..ir.core import Block, Operation, Value
from ..ir.types import ScalarType, f16, f32, index
from .abi import VECTOR_ALIGN, kernel_params
from .mathlib_nvptx import NVPTX_MATH

TRIPLE = "nvptx64-nvidia-cuda"
DATA_LAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
PTR = ir.PointerType()
I32 = ir.IntType(32)
SREGS = {"gpu.thread_id": "tid", "gpu.block_id": "ctaid", "gpu.block_dim": "ntid", "gpu.grid_dim": "nctaid"}


def kernels(module: ModuleOp) -> list[G.GpuFuncOp]:
    return [op for op in module.body.ops if isinstance(op, G.GpuFuncOp)]


def convert_to_nvvm(module: ModuleOp, name: str = "irc_kernels") -> ir.Module:
    """Every `gpu.func` of `module` as a kernel of one LLVM module."""
    llmod = ir.Module(name=name)
    llmod.triple = TRIPLE
    llmod.data_layout = DATA_LAYOUT
    for k in kernels(module):
        KernelConverter(llmod, k).convert()
    return llmod


def compute_type(t: ScalarType) -> ScalarType:
    """The type a scalar is computed in: f16 is stored as f16 but computed in f32."""
    return f32 if t == f16 else t


def may_alias_args(kernel: G.GpuFuncOp) -> set[int]:
    attr = kernel.attributes.get("irc.may_alias")
    return set(attr) if attr is not None else set()  # type: ignore[arg-type]


class KernelConverter:
    """Emits one kernel, mapping IR values to LLVM values or `MemRef`s."""

    def __init__(self, llmod: ir.Module, kernel: G.GpuFuncOp):
        self.llmod = llmod
        self.kernel = kernel
        self.values: dict[Value, object] = {}

    def convert(self) -> ir.Function:
        params = kernel_params(self.kernel)
        types = self.kernel.function_type.inputs
        lltypes = [PTR if p.kind == "ptr" else (I64 if p.kind != "scalar" else memory_type(types[p.arg]))
                   for p in params]
        fn = ir.Function(self.llmod, ir.FunctionType(ir.VoidType(), lltypes), name=self.kernel.sym_name)
        fn.calling_convention = "ptx_kernel"
        fn.attributes.add("nounwind")
        self.b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.scalar = ScalarEmitter(self.b, NVPTX_MATH)
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
                if isinstance(t, ScalarType) and t.is_bool:
                    v = self.b.trunc(v, ir.IntType(1))
                elif t == f16:
                    v = self.b.fpext(v, ir.FloatType())
                self.values[arg] = v
        self.block(self.kernel.body)
        return fn

    def _memref_param(self, t: MemRefType, parts, noalias: bool) -> MemRef:
        ptr = parts[0][1]
        if noalias:
            ptr.add_attribute("noalias")
        item = memory_type(t.element).get_abi_size(_target_data())
        ptr.attributes.align = VECTOR_ALIGN if t.strides is None else item
        sizes_in = {p.axis: a for p, a in parts if p.kind == "size"}
        strides_in = {p.axis: a for p, a in parts if p.kind == "stride"}
        gptr = ptr
        sizes = [i64(d) if d is not None else sizes_in[a] for a, d in enumerate(t.shape)]
        if t.strides is None:
            return M.contiguous(self.b, t, gptr, sizes)
        strides = [i64(s) if s is not None else strides_in[a] for a, s in enumerate(t.strides)]
        return MemRef(t, gptr, i64(0), sizes, strides)

    # ------------------------------------------------------------------ ops
    def block(self, block: Block) -> None:
        for op in block.ops:
            self.op(op)

    def get(self, v: Value):
        return self.values[v]

    def op(self, op: Operation) -> None:
        name = op.op_name
        if name in SREGS:
            self.values[op.result] = self._sreg(SREGS[name])
            return
        method = getattr(self, "op_" + name.replace(".", "_"), None)
        if method is not None:
            method(op)
        elif name.startswith("scalar."):
            self.scalar_op(op)
        else:
            raise NotImplementedError(f"convert-to-nvvm: no lowering for '{name}' in a kernel "
                                      f"(at {op.location})")

    def _sreg(self, reg: str) -> ir.Value:
        name = f"llvm.nvvm.read.ptx.sreg.{reg}.x"
        fn = self.llmod.globals.get(name)
        if fn is None:
            fn = ir.Function(self.llmod, ir.FunctionType(I32, []), name=name)
        return self.b.zext(self.b.call(fn, []), I64)

    def op_gpu_return(self, op: Operation) -> None:
        self.b.ret_void()

    def op_gpu_barrier(self, op: Operation) -> None:
        name = "llvm.nvvm.barrier0"
        fn = self.llmod.globals.get(name) or ir.Function(self.llmod, ir.FunctionType(ir.VoidType(), []), name=name)
        self.b.call(fn, [])

    # -- buffers and views
    def op_loop_global(self, op: Operation) -> None:
        t: MemRefType = op.result.type
        data = global_bytes(op)
        arr = ir.ArrayType(ir.IntType(8), len(data))
        g = ir.GlobalVariable(self.llmod, arr, name=f"{self.kernel.sym_name}.const{len(self.llmod.globals)}",
                              addrspace=1)
        g.global_constant = True
        g.linkage = "internal"
        g.align = VECTOR_ALIGN
        g.initializer = ir.Constant(arr, data)
        self.values[op.result] = M.contiguous(self.b, t, g, [i64(d) for d in t.shape])

    def op_loop_dim(self, op: Operation) -> None:
        self.values[op.result] = self.get(op.operand(0)).sizes[op.attributes["axis"].value]

    def op_loop_transpose(self, op: Operation) -> None:
        self.values[op.result] = M.transpose(self.get(op.operand(0)), op.result.type, op.perm)

    def op_loop_subview(self, op: Operation) -> None:
        src: MemRef = self.get(op.operand(0))
        r = src.type.rank
        vals = [self.get(v) for v in op.operands[1:]]
        self.values[op.result] = M.subview(self.b, src, op.result.type, vals[:r], vals[r:2 * r], vals[2 * r:])

    def op_loop_broadcast(self, op: Operation) -> None:
        sizes = [self.get(v) for v in op.operands[1:]]
        self.values[op.result] = M.broadcast(self.get(op.operand(0)), op.result.type, op.dims, sizes)

    def op_loop_reshape(self, op: Operation) -> None:
        src: MemRef = self.get(op.operand(0))
        t: MemRefType = op.result.type
        dyn = iter(self.get(v) for v in op.operands[1:])
        sizes = [i64(d) if d is not None else next(dyn) for d in t.shape]
        self.values[op.result] = M.contiguous(self.b, t, src.ptr, sizes)

    # -- element access
    def op_loop_load(self, op: Operation) -> None:
        m: MemRef = self.get(op.operand(0))
        addr = m.address(self.b, [self.get(v) for v in op.operands[1:]])
        v = self.b.load(addr, typ=m.elem, align=m.elem.get_abi_size(_target_data()))
        if m.type.element.is_bool:
            v = self.b.trunc(v, ir.IntType(1))
        elif m.type.element == f16:
            v = self.b.fpext(v, ir.FloatType())
        self.values[op.result] = v

    def op_loop_store(self, op: Operation) -> None:
        m: MemRef = self.get(op.operand(1))
        v = self.get(op.operand(0))
        if m.type.element.is_bool:
            v = self.b.zext(v, ir.IntType(8))
        elif m.type.element == f16:
            v = self.b.fptrunc(v, ir.HalfType())
        addr = m.address(self.b, [self.get(x) for x in op.operands[2:]])
        self.b.store(v, addr, align=m.elem.get_abi_size(_target_data()))

    # -- loops
    def op_loop_for(self, op: Operation) -> None:
        lb, ub, step = (self.get(v) for v in op.operands[:3])
        inits = [self.get(v) for v in op.operands[3:]]
        for r, v in zip(op.results, self._loop(lb, ub, step, op.body, inits)):
            self.values[r] = v

    def op_loop_parallel(self, op: Operation) -> None:
        """A nest inside a kernel runs sequentially in each thread."""
        lbs, ubs, steps = op.bounds()
        self._nest(op.body, [(self.get(a), self.get(b), self.get(c)) for a, b, c in zip(lbs, ubs, steps)], [])

    def _nest(self, body: Block, dims, ivs: list) -> None:
        if len(ivs) == len(dims):
            for arg, iv in zip(body.args, ivs):
                self.values[arg] = iv
            for op in body.ops[:-1]:
                self.op(op)
            return
        lb, ub, step = dims[len(ivs)]
        self._loop(lb, ub, step, None, [], inner=lambda iv: self._nest(body, dims, ivs + [iv]))

    def _loop(self, lb, ub, step, body: Block | None, inits: Sequence[ir.Value], inner=None) -> list:
        b = self.b
        pre = b.block
        header = b.append_basic_block("loop.header")
        body_bb = b.append_basic_block("loop.body")
        exit_bb = b.append_basic_block("loop.exit")
        b.branch(header)
        b.position_at_end(header)
        iv = b.phi(I64, "iv")
        iv.add_incoming(lb, pre)
        phis = []
        for v in inits:
            p = b.phi(v.type)
            p.add_incoming(v, pre)
            phis.append(p)
        b.cbranch(b.icmp_signed("<", iv, ub), body_bb, exit_bb)
        b.position_at_end(body_bb)
        if body is not None:
            self.values[body.args[0]] = iv
            for arg, p in zip(body.args[1:], phis):
                self.values[arg] = p
            for op in body.ops[:-1]:
                self.op(op)
            yielded = [self.get(v) for v in body.terminator.operands]
        else:
            inner(iv)
            yielded = []
        nxt = b.add(iv, step, flags=("nsw",))
        latch = b.block
        iv.add_incoming(nxt, latch)
        for p, v in zip(phis, yielded):
            p.add_incoming(v, latch)
        b.branch(header)
        b.position_at_end(exit_bb)
        return phis

    # -- index arithmetic
    def op_loop_constant(self, op: Operation) -> None:
        self.values[op.result] = i64(op.value)

    def _binary(self, op: Operation, fn) -> None:
        a, c = (self.get(v) for v in op.operands)
        if isinstance(a, ir.Constant) and isinstance(c, ir.Constant):
            self.values[op.result] = i64(L.INDEX_BINARY[op.op_name](a.constant, c.constant))
        else:
            self.values[op.result] = fn(a, c)

    def op_loop_add(self, op):
        self._binary(op, lambda a, c: self.b.add(a, c, flags=("nsw",)))

    def op_loop_sub(self, op):
        self._binary(op, lambda a, c: self.b.sub(a, c, flags=("nsw",)))

    def op_loop_mul(self, op):
        self._binary(op, lambda a, c: self.b.mul(a, c, flags=("nsw",)))

    def op_loop_floordiv(self, op):
        self._binary(op, lambda a, c: self.scalar.op_floordiv([a, c], index, ()))

    def op_loop_min(self, op):
        self._binary(op, lambda a, c: self.b.select(self.b.icmp_signed("<", a, c), a, c))

    def op_loop_max(self, op):
        self._binary(op, lambda a, c: self.b.select(self.b.icmp_signed(">", a, c), a, c))

    # -- scalar computation
    def scalar_op(self, op: Operation) -> None:
        name = op.op_name
        if name == "scalar.constant":
            attr = op.attributes["value"]
            value = attr.value if isinstance(attr, (FloatAttr, IntegerAttr, BoolAttr)) else attr
            t = op.result.type
            if t == f16:  # the f16 value, held in f32
                value = float(np.float16(value))
            self.values[op.result] = constant(compute_type(t), value)
            return
        args = [self.get(v) for v in op.operands]
        if name == "scalar.cast":
            self.values[op.result] = self._cast(args[0], op.operand(0).type, op.result.type)
            return
        t: ScalarType = op.operand(1 if name == "scalar.select" else 0).type
        self.values[op.result] = self.scalar.emit(name, args, compute_type(t))

    def _cast(self, x: ir.Value, src: ScalarType, dst: ScalarType) -> ir.Value:
        v = self.scalar.cast(x, compute_type(src), compute_type(dst))
        if dst == f16 and src != f16:  # round to f16, keep computing in f32
            v = self.b.fpext(self.b.fptrunc(v, ir.HalfType()), ir.FloatType())
        return v


_TD = None


def _target_data():
    """NVPTX's data layout (element sizes)."""
    global _TD
    if _TD is None:
        import llvmlite.binding as llvm
        _TD = llvm.create_target_data(DATA_LAYOUT)
    return _TD
