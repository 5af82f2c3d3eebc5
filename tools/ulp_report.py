"""Measure the inline mathlib's accuracy: max ulp error per function and dtype over its domain.

    python tools/ulp_report.py [--n 4000000] [--only exp,log] [--scalar] [--markdown]
    python tools/ulp_report.py --exhaustive --only exp,tanh     # every float32, ~1 min each

Each function is JIT-compiled as an explicit <8 x float> / <4 x double> loop (``--scalar``: a
scalar loop) and compared with numpy in float64 (for f32) or long double (for f64).  The
domain column names the input sets; the worst input is printed with --verbose.
--exhaustive runs the float32 version of each unary function on all 2^32 bit patterns
(sin/cos: those within the accuracy domain).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from irc.codegen_llvm.mathlib import ARITY, MATH_EMITTERS  # noqa: E402
from irc.codegen_cpu.mathlib_jit import compile_kernel  # noqa: E402
from irc.codegen_llvm.mathlib_ulp import (TRIG_LIMIT, reference, sample_sets,  # noqa: E402
                                         ulp_error)

DOMAIN = {
    "exp": "all floats", "expm1": "all floats", "log": "all floats", "log1p": "all floats",
    "tanh": "all floats", "sigmoid": "all floats", "softplus": "all floats",
    "sqrt": "all floats", "pow": "all (x, y) pairs", "arctan": "all floats", "arcsin": "all floats",
    "arccos": "all floats", "arctan2": "all (y, x) pairs", "erfcx": "all floats", "tri_gamma": "all floats",
}

# measured on sampled points by tests/codegen_cpu/test_mathlib_bessel.py (no fast reference here)
OWN_TESTS = {"j0", "j1", "jv", "i0", "i1", "iv", "chi2sf"}


def measure(name: str, dtype, n: int, lanes: int | None, verbose: bool) -> tuple[float, str]:
    fn, _ = compile_kernel(MATH_EMITTERS[name], dtype, ARITY[name], lanes)
    worst = 0.0
    for label, xs in sample_sets(name, dtype, n):
        got = fn(*xs)
        err = ulp_error(got, reference(name, *xs))
        i = int(np.argmax(err))
        if verbose:
            args = ", ".join(repr(x[i]) for x in xs)
            print(f"  {name:8s} {np.dtype(dtype).name:7s} {label:32s} {err[i]:8.3f} ulp "
                  f"at ({args}) -> {got[i]!r}")
        worst = max(worst, float(err[i]))
    if name in ("sin", "cos"):
        domain = f"abs(x) <= 2^{int(np.log2(TRIG_LIMIT[np.dtype(dtype).name]))}"
    else:
        domain = DOMAIN[name]
    return worst, domain


def exhaustive_f32(name: str, lanes: int | None, chunk: int = 1 << 22) -> tuple[float, float]:
    """(max ulp, worst x) of the float32 function over every bit pattern."""
    fn, _ = compile_kernel(MATH_EMITTERS[name], np.float32, 1, lanes)
    worst, at = 0.0, 0.0
    lim = TRIG_LIMIT["float32"] if name in ("sin", "cos") else np.inf
    for start in range(0, 1 << 32, chunk):
        x = np.arange(start, start + chunk, dtype=np.uint64).astype(np.uint32).view(np.float32)
        if name in ("sin", "cos"):
            x = x[~(np.abs(x) > lim)]
        err = ulp_error(fn(x), reference(name, x))
        i = int(np.argmax(err))
        if err[i] > worst:
            worst, at = float(err[i]), float(x[i])
    return worst, at


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=4_000_000, help="random-bit samples per set")
    ap.add_argument("--only", default="", help="comma-separated functions")
    ap.add_argument("--scalar", action="store_true", help="scalar loop instead of vectors")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    ap.add_argument("--verbose", action="store_true", help="worst input of every set")
    ap.add_argument("--exhaustive", action="store_true",
                    help="float32 only: every bit pattern instead of samples")
    args = ap.parse_args(argv)
    if args.exhaustive:
        names = [s for s in args.only.split(",") if s] or [k for k in MATH_EMITTERS
                                                              if ARITY[k] == 1 and k not in OWN_TESTS]
        for name in names:
            t = time.perf_counter()
            worst, at = exhaustive_f32(name, None if args.scalar else 8)
            print(f"{name:10s} float32  {worst:8.3f} ulp at x = {at!r} "
                  f"(all 2^32 inputs, {time.perf_counter() - t:.0f} s)", flush=True)
        return 0
    # the Bessel functions and chi2sf are measured by tests/codegen_cpu/test_mathlib_bessel.py
    names = [s for s in args.only.split(",") if s] or [k for k in MATH_EMITTERS if k not in OWN_TESTS]
    rows = []
    t0 = time.perf_counter()
    for name in names:
        for dtype in (np.float32, np.float64):
            lanes = None if args.scalar else (8 if dtype == np.float32 else 4)
            n = args.n if dtype == np.float32 else args.n // 2
            worst, domain = measure(name, dtype, n, lanes, args.verbose)
            rows.append((name, np.dtype(dtype).name, worst, domain))
    if args.markdown:
        print("| function | dtype | max ulp | domain |\n|---|---|---|---|")
        for r in rows:
            print(f"| {r[0]} | {r[1]} | {r[2]:.3f} | {r[3]} |")
    else:
        print(f"{'function':10s} {'dtype':8s} {'max-ulp':>8s}  domain")
        for r in rows:
            print(f"{r[0]:10s} {r[1]:8s} {r[2]:8.3f}  {r[3]}")
    print(f"({args.n} random-bit samples per f32 set, {args.n // 2} per f64 set, "
          f"{time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
