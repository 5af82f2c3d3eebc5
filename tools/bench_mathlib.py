"""Micro benchmark: exp over 230,400 float32 through the inline mathlib vs numpy.

    python tools/bench_mathlib.py [--fn exp] [--n 230400] [--repeat 2000]

The kernel is the scalar loop ``void kernel(float* in, float* out, i64 n)`` calling
``emit_exp``, optimized by the new pass manager at O3 with loop and SLP vectorization and
JIT-compiled with MCJIT, once for the host CPU and once for x86-64-v3 (AVX2, <8 x float>).
Prints µs per call and the vector widths found in the optimized IR.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import re
import sys
import time

import numpy as np
from llvmlite import binding as llvm

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from irc.codegen_cpu.mathlib import MATH_EMITTERS  # noqa: E402
from irc.codegen_cpu.mathlib_jit import build_kernel_module  # noqa: E402

_ENGINES = []


def target_machine(cpu: str):
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    if cpu == "host":
        return target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                            features=llvm.get_host_cpu_features().flatten(),
                                            opt=3, jit=True)
    return target.create_target_machine(cpu=cpu, opt=3, jit=True)


def jit(fn_name: str, cpu: str):
    tm = target_machine(cpu)
    mod = llvm.parse_assembly(str(build_kernel_module(MATH_EMITTERS[fn_name], np.float32)))
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    pto = llvm.create_pipeline_tuning_options()
    pto.speed_level = 3
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pb = llvm.create_pass_builder(tm, pto)
    pb.getModulePassManager().run(mod, pb)
    text = str(mod)
    engine = llvm.create_mcjit_compiler(mod, tm)
    engine.finalize_object()
    _ENGINES.append(engine)
    fptr = ctypes.POINTER(ctypes.c_float)
    cfn = ctypes.CFUNCTYPE(None, fptr, fptr, ctypes.c_int64)(engine.get_function_address("kernel"))
    widths = sorted({int(w) for w in re.findall(r"<(\d+) x float>", text)})
    return cfn, widths, text


def best_of(fn, repeat: int, rounds: int = 5) -> float:
    """Best mean over ``rounds`` batches of ``repeat`` calls, in µs."""
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - t) / repeat * 1e6)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--fn", default="exp", choices=sorted(k for k in MATH_EMITTERS if k != "pow"))
    ap.add_argument("--n", type=int, default=230_400)
    ap.add_argument("--repeat", type=int, default=500)
    args = ap.parse_args(argv)
    x = np.random.default_rng(0).uniform(-10, 10, args.n).astype(np.float32)
    out = np.empty_like(x)
    fptr = ctypes.POINTER(ctypes.c_float)
    px, pout = x.ctypes.data_as(fptr), out.ctypes.data_as(fptr)
    ref = getattr(np, args.fn, None)
    print(f"{args.fn} over {args.n:,} float32, µs per call (best of 5 x {args.repeat})")
    for cpu in ("host", "x86-64-v3"):
        cfn, widths, _ = jit(args.fn, cpu)
        us = best_of(lambda: cfn(px, pout, args.n), args.repeat)
        name = llvm.get_host_cpu_name() if cpu == "host" else cpu
        print(f"  irc inline {args.fn:8s} [{name:9s}] {us:8.1f} µs   vector widths "
              f"{['<%d x float>' % w for w in widths]}")
    if ref is not None:
        got = out.copy()
        want = ref(x.astype(np.float64)).astype(np.float32)
        print(f"  max |rel err| vs float64 numpy: "
              f"{np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-30)):.2e}")
        print(f"  numpy np.{args.fn}(x)             {best_of(lambda: ref(x), args.repeat):8.1f} µs")
        print(f"  numpy np.{args.fn}(x, out=out)    "
              f"{best_of(lambda: ref(x, out=out), args.repeat):8.1f} µs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
