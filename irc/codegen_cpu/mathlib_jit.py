"""JIT a math emitter into a numpy-callable loop kernel (for the mathlib tests and tools).

The kernel is ``void f(T* in0[, T* in1], T* out, i64 n)``.  ``lanes=None`` gives a scalar loop
(not run through the optimizer, so it stays scalar); ``lanes=W`` an explicit ``<W x T>`` loop
that needs n % W == 0 (``run`` pads).  ``optimize=True`` runs the O3 pipeline with loop and SLP
vectorization on the scalar loop, as the real CPU backend does.
"""
from __future__ import annotations

import ctypes
from typing import Callable

import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir

from .target import host_target_machine

Emitter = Callable[..., ir.Value]

_KEEP: list = []  # engines must outlive the ctypes functions they hand out


def build_kernel_module(emit: Emitter, dtype: np.dtype, arity: int = 1,
                        lanes: int | None = None, name: str = "kernel") -> ir.Module:
    """A module with one loop kernel applying ``emit`` elementwise."""
    scalar = {np.dtype(np.float16): ir.HalfType(), np.dtype(np.float32): ir.FloatType(),
              np.dtype(np.float64): ir.DoubleType()}[np.dtype(dtype)]
    vty = ir.VectorType(scalar, lanes) if lanes else scalar
    ptr = ir.PointerType(scalar)
    i64 = ir.IntType(64)
    mod = ir.Module(name=name)
    tm = host_target_machine()
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    fn = ir.Function(mod, ir.FunctionType(ir.VoidType(), [ptr] * (arity + 1) + [i64]), name)
    for a in fn.args[:-1]:
        a.add_attribute("noalias")
    *ins, out, n = fn.args
    entry, loop, done = (fn.append_basic_block(s) for s in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    step = lanes or 1
    b.cbranch(b.icmp_signed(">", n, ir.Constant(i64, 0)), loop, done)
    b.position_at_end(loop)
    i = b.phi(i64)
    i.add_incoming(ir.Constant(i64, 0), entry)
    align = scalar.get_abi_size(tm.target_data)

    def addr(p: ir.Value) -> ir.Value:
        q = b.gep(p, [i], inbounds=True)
        return b.bitcast(q, ir.PointerType(vty)) if lanes else q

    args = [b.load(addr(p), align=align) for p in ins]
    b.store(emit(b, *args), addr(out), align=align)
    nxt = b.add(i, ir.Constant(i64, step))
    i.add_incoming(nxt, loop)
    b.cbranch(b.icmp_signed("<", nxt, n), loop, done)
    b.position_at_end(done)
    b.ret_void()
    return mod


def optimize(mod: llvm.ModuleRef, level: int = 3) -> None:
    """The new pass manager at ``level`` with loop and SLP vectorization."""
    tm = host_target_machine()
    pto = llvm.create_pipeline_tuning_options()
    pto.speed_level = level
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)


def compile_kernel(emit: Emitter, dtype, arity: int = 1, lanes: int | None = None,
                   opt: bool = False) -> tuple[Callable, str]:
    """(numpy-level callable ``f(*inputs) -> out``, final LLVM IR text)."""
    return compile_kernel_text(str(build_kernel_module(emit, dtype, arity, lanes)), dtype, arity, lanes, opt)


def compile_kernel_text(text: str, dtype, arity: int = 1, lanes: int | None = None,
                        opt: bool = False) -> tuple[Callable, str]:
    """`compile_kernel` of a module `build_kernel_module` made already (its text): a caller
    that also reads the text builds it once."""
    dtype = np.dtype(dtype)
    mod = llvm.parse_assembly(text)
    mod.verify()
    if opt:
        optimize(mod)
    engine = llvm.create_mcjit_compiler(mod, host_target_machine())
    engine.finalize_object()
    _KEEP.append(engine)
    cptr = ctypes.POINTER({2: ctypes.c_uint16, 4: ctypes.c_float, 8: ctypes.c_double}[dtype.itemsize])
    cfn = ctypes.CFUNCTYPE(None, *([cptr] * (arity + 1)), ctypes.c_int64)(
        engine.get_function_address("kernel"))
    step = lanes or 1

    def run(*xs: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        xs = [np.ascontiguousarray(x, dtype=dtype) for x in xs]
        n = xs[0].size
        pad = (-n) % step
        if pad:
            xs = [np.concatenate([x.ravel(), np.ones(pad, dtype)]) for x in xs]
        if out is None or pad:
            out = np.empty(n + pad, dtype)
        cfn(*[x.ctypes.data_as(cptr) for x in xs], out.ctypes.data_as(cptr), n + pad)
        return out[:n] if pad else out

    return run, str(mod)
