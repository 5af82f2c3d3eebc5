"""Measure the float16 accuracy of irc's own kernels: compiled functions on float16 tensors
(float16 storage, float32 arithmetic), through `irc.function` on the CPU backend.

    python tools/ulp_f16_report.py [--markdown] [--n 1000000]

Elementwise functions run on every one of the 65,536 halves (binary ones on `--n` random
pairs of halves); a few fused chains, reductions, softmax and a product on random data.
Errors are in ulps of float16 against the same expression in float64 (long double where the
mathlib's references use it) on the exact half inputs; gammaln and psi for x <= 0 (absolute
accuracy only near their roots, docs/mathlib.md) and gamma below -34 (returns +-0) are left
out, as in the float32 tables. The GPU computes the same float32 math library on the values it
widens on load and rounds on store, so the elementwise bounds carry over (see docs/mathlib.md).
"""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import irc  # noqa: E402
import irc.tensor as T  # noqa: E402
from irc.codegen_llvm.mathlib_ulp import reference, ulp_error  # noqa: E402

HALF = T.TensorType("float16", (False,))
HALF_MATRIX = T.TensorType("float16", (False, False))
ALL_HALVES = np.arange(2 ** 16, dtype=np.uint16).view(np.float16)

UNARY = {
    "exp": T.exp, "log": T.log, "log1p": T.log1p, "expm1": T.expm1, "tanh": T.tanh,
    "sigmoid": T.nnet.sigmoid, "softplus": T.nnet.softplus, "sin": T.sin, "cos": T.cos,
    "sqrt": T.sqrt, "erf": T.erf, "erfc": T.erfc, "gammaln": T.gammaln, "psi": T.psi,
    "erfinv": T.erfinv, "erfcinv": T.erfcinv, "gamma": T.gamma,
}


def _compiled(build, *types):
    inputs = [t() for t in types]
    return irc.function(inputs, build(*inputs), on_unused_input="ignore")


def unary(name: str) -> tuple[float, str]:
    f = _compiled(UNARY[name], HALF)
    xs = ALL_HALVES
    if name in ("gammaln", "psi"):
        xs = xs[~(xs <= 0)]
    elif name == "gamma":
        xs = xs[~(xs < -34)]
    got = f(xs)
    ref = reference(name, xs.astype(np.float32))  # exact halves, the reference in float64
    domain = {"gammaln": "x > 0", "psi": "x > 0", "gamma": "x >= -34"}.get(name, "all halves")
    return float(ulp_error(got, ref).max()), domain


def binary(n: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    x, y = (rng.integers(0, 2 ** 16, n).astype(np.uint16).view(np.float16) for _ in "xy")
    out = {}
    for name, build, ref in (("add", lambda a, b: a + b, np.add), ("mul", lambda a, b: a * b, np.multiply),
                             ("div", lambda a, b: a / b, np.divide), ("pow", T.pow, np.power)):
        got = _compiled(build, HALF, HALF)(x, y)
        with np.errstate(all="ignore"):
            want = ref(x.astype(np.float64), y.astype(np.float64))
        out[name] = float(ulp_error(got, want).max())
    return out


def chains(n: int) -> dict[str, float]:
    """Fused elementwise chains on moderate values (a fused region: one kernel)."""
    rng = np.random.default_rng(1)
    x, w, b = (rng.uniform(-4, 4, n).astype(np.float16) for _ in range(3))
    x64, w64, b64 = (v.astype(np.float64) for v in (x, w, b))
    out = {}
    for name, build, want in (
            ("sigmoid(x*w + b)", lambda a, c, d: T.nnet.sigmoid(a * c + d), 1 / (1 + np.exp(-(x64 * w64 + b64)))),
            ("exp(-x*x) * w", lambda a, c, d: T.exp(-a * a) * c, np.exp(-x64 * x64) * w64),
            ("tanh(x) * w + b", lambda a, c, d: T.tanh(a) * c + d, np.tanh(x64) * w64 + b64)):
        got = _compiled(build, HALF, HALF, HALF)(x, w, b)
        out[name] = float(ulp_error(got, want).max())
    return out


def reductions() -> dict[str, float]:
    """Sums accumulate in float32 and round once; softmax's sum too; a product of float16
    matrices accumulates in float32. Positive data, so the ulp is that of a large result."""
    rng = np.random.default_rng(2)
    out = {}
    m = rng.uniform(0, 1, (64, 4096)).astype(np.float16)
    m64 = m.astype(np.float64)
    out["sum over 4096 (rows of a 64x4096 matrix)"] = float(
        ulp_error(_compiled(lambda a: a.sum(axis=1), HALF_MATRIX)(m), m64.sum(axis=1)).max())
    out["mean over 4096"] = float(ulp_error(_compiled(lambda a: a.mean(axis=1), HALF_MATRIX)(m),
                                            m64.mean(axis=1)).max())
    s = rng.uniform(-4, 4, (64, 1000)).astype(np.float16)
    e = np.exp(s.astype(np.float64) - s.astype(np.float64).max(axis=1, keepdims=True))
    out["softmax over 1000"] = float(ulp_error(_compiled(T.nnet.softmax, HALF_MATRIX)(s),
                                               e / e.sum(axis=1, keepdims=True)).max())
    a = rng.uniform(0, 1, (64, 256)).astype(np.float16)
    b = rng.uniform(0, 1, (256, 64)).astype(np.float16)
    out["dot (64x256)(256x64)"] = float(ulp_error(_compiled(T.dot, HALF_MATRIX, HALF_MATRIX)(a, b),
                                                  a.astype(np.float64) @ b.astype(np.float64)).max())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--n", type=int, default=1_000_000, help="random pairs for binary ops and chains")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    rows = [(name, *unary(name)) for name in UNARY]
    rows += [(name, err, f"{args.n:,} random pairs") for name, err in binary(args.n).items()]
    rows += [(name, err, f"{args.n:,} random x, w, b in [-4, 4]") for name, err in chains(args.n).items()]
    rows += [(name, err, "uniform [0, 1) (softmax: [-4, 4])") for name, err in reductions().items()]
    if args.markdown:
        print("| kernel | max ulp (float16) | inputs |\n|---|---|---|")
        for name, err, domain in rows:
            print(f"| {name} | {err:.4f} | {domain} |")
    else:
        for name, err, domain in rows:
            print(f"{name:44s} {err:9.4f}  {domain}")
    print(f"({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
