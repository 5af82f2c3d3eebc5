"""Micro benchmark of the inline mathlib against numpy, one thread, data in L2.

    python tools/bench_mathlib.py [--fn exp,tanh] [--dtype float32,float64] [--n 230400]
                                  [--lo -5 --hi 5] [--targets host,x86-64-v3] [--asm]

Each kernel is the scalar loop ``void kernel(T* in, T* out, i64 n)`` around the emitter,
optimized by the new pass manager at O3 with loop and SLP vectorization and JIT-compiled with
MCJIT for each target CPU (host: AVX-512 on znver4/5, <16 x float>; x86-64-v3: AVX2).  Prints
the median µs per call over rounds of calls (the machine is shared: compare ratios taken in one
run), the vector widths in the optimized IR, the instruction count of the hot loop (the block
with most vector instructions) and its divisions, and numpy's time where numpy has the
function (sigmoid: scipy's expit; softplus: np.logaddexp(0, x); erf, erfc: scipy.special).  --asm prints the hot loops.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import re
import sys
from typing import Callable

import numpy as np
from llvmlite import binding as llvm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from irc.codegen_llvm.mathlib import ARITY, MATH_EMITTERS  # noqa: E402
from irc.codegen_cpu.mathlib_jit import build_kernel_module  # noqa: E402
from bench_common import median_us  # noqa: E402  (tools/ is on the path: this script's folder)

_ENGINES = []
CTYPE = {np.dtype(np.float32): ctypes.c_float, np.dtype(np.float64): ctypes.c_double}


def numpy_reference(name: str) -> Callable | None:
    if name == "sigmoid":
        try:
            from scipy.special import expit
        except ImportError:
            return None
        return expit
    if name == "softplus":
        return lambda x: np.logaddexp(0, x)
    if name in ("erf", "erfc"):
        try:
            import scipy.special
        except ImportError:
            return None
        return getattr(scipy.special, name)
    return getattr(np, name, None)


def target_machine(cpu: str):
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    if cpu == "host":
        return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                            features=llvm.get_host_cpu_features().flatten(),
                                            opt=3, jit=True)
    return target.create_target_machine(cpu=cpu, opt=3, jit=True)


def hot_loop(asm: str) -> list[str]:
    """The instructions of the basic block using the widest vector registers most."""
    blocks: list[list[str]] = [[]]
    for line in asm.splitlines():
        s = line.strip()
        if re.match(r"^\.?LBB\d+_\d+:", s):
            blocks.append([])
        elif s and not s.startswith((".", "#")) and not s.endswith(":"):
            blocks[-1].append(s)
    return max(blocks, key=lambda blk: tuple(sum((r in i) for i in blk) for r in ("zmm", "ymm")))


def jit(fn_name: str, dtype: np.dtype, cpu: str):
    tm = target_machine(cpu)
    mod = llvm.parse_assembly(str(build_kernel_module(MATH_EMITTERS[fn_name], dtype)))
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    pto = llvm.create_pipeline_tuning_options()
    pto.speed_level = 3
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    text = str(mod)
    asm = target_machine(cpu).emit_assembly(mod)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    _ENGINES.append(engine)
    ptr = ctypes.POINTER(CTYPE[dtype])
    cfn = ctypes.CFUNCTYPE(None, ptr, ptr, ctypes.c_int64)(engine.get_function_address("kernel"))
    elem = "float" if dtype == np.float32 else "double"
    widths = sorted({int(w) for w in re.findall(rf"<(\d+) x {elem}>", text)})
    return cfn, widths, hot_loop(asm)


def main(argv: list[str] | None = None) -> int:
    unary = sorted(k for k in MATH_EMITTERS if ARITY[k] == 1)
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fn", default="exp", help=f"comma-separated, of {','.join(unary)}")
    ap.add_argument("--dtype", default="float32", help="comma-separated: float32,float64")
    ap.add_argument("--n", type=int, default=230_400)
    ap.add_argument("--calls", type=int, default=100, help="calls per timed round")
    ap.add_argument("--lo", type=float, default=-5.0, help="inputs uniform in [lo, hi]")
    ap.add_argument("--hi", type=float, default=5.0)
    ap.add_argument("--targets", default="host,x86-64-v3")
    ap.add_argument("--asm", action="store_true", help="print the hot loop of each kernel")
    args = ap.parse_args(argv)
    names = args.fn.split(",")
    for name in names:
        if name not in unary:
            ap.error(f"unknown function {name!r}")
    print(f"n = {args.n:,}, x uniform in [{args.lo:g}, {args.hi:g}] (|x| + 0.1 for log, sqrt), "
          f"µs per call, median of 15 rounds x {args.calls}")
    for dt in args.dtype.split(","):
        dtype = np.dtype(dt)
        x = np.random.default_rng(0).uniform(args.lo, args.hi, args.n).astype(dtype)
        for name in names:
            xi = np.abs(x) + dtype.type(0.1) if name in ("log", "sqrt", "log1p") else x
            out = np.empty_like(xi)
            ptr = ctypes.POINTER(CTYPE[dtype])
            px, pout = xi.ctypes.data_as(ptr), out.ctypes.data_as(ptr)
            for cpu in args.targets.split(","):
                cfn, widths, loop = jit(name, dtype, cpu)
                us = median_us(lambda: cfn(px, pout, args.n), 15, args.calls, warmup=0)
                label = llvm.get_host_cpu_name() if cpu == "host" else cpu
                divs = sum(i.startswith(("vdiv", "div")) for i in loop)
                print(f"  {name:8s} {dt:7s} irc [{label:9s}] {us:8.1f} µs   widths {widths}, "
                      f"hot loop {len(loop)} instructions, {divs} div")
                if args.asm:
                    print("    " + "\n    ".join(loop))
            ref = numpy_reference(name)
            if ref is not None:
                with np.errstate(all="ignore"):
                    us = median_us(lambda: ref(xi), 15, args.calls, warmup=0)
                print(f"  {name:8s} {dt:7s} numpy             {us:8.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
