"""The math library as the GPU runs it (the NVPTX flavour: f32 exp through `ex2.approx` behind a
Cody–Waite reduction; everything else the shared polynomials): ulp error against numpy's float64
(float32 results) or long double (float64 results) references, over the CPU's sample sets drawn
stratified (the same ranges, one value per equal slice of each: 2^19 float32 and 2^17 float64
random-bit patterns, a quarter of that per focused range), plus, for float32, a sweep of the
whole format: 4096 patterns in every binade of either sign (2^21 inputs, one per slice of 1024
consecutive patterns). Each function is compiled once and called once on all its points.

Stated bounds (max ulp; the measured values are in docs/mathlib.md): the CPU's, except f32 exp,
which adds `ex2.approx`'s own error."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.codegen_llvm.mathlib import ARITY, MATH_EMITTERS
from irc.codegen_llvm.mathlib_ulp import TRIG_LIMIT, random_bits, reference, sample_sets, ulp_error

F32, F64 = np.float32, np.float64
FRONTEND = {"exp": T.exp, "log": T.log, "log1p": T.log1p, "expm1": T.expm1, "tanh": T.tanh,
            "sigmoid": T.nnet.sigmoid, "softplus": T.nnet.softplus, "sin": T.sin, "cos": T.cos,
            "sqrt": T.sqrt, "pow": lambda x, y: x ** y, "erf": T.erf, "erfc": T.erfc,
            "erfinv": T.erfinv, "erfcinv": T.erfcinv, "gamma": T.gamma, "gammaln": T.gammaln, "psi": T.psi,
            "arctan": T.arctan, "arctan2": T.arctan2, "arcsin": T.arcsin, "arccos": T.arccos, "erfcx": T.erfcx,
            "tri_gamma": T.tri_gamma, "j0": T.j0, "j1": T.j1, "jv": T.jv, "i0": T.i0, "i1": T.i1, "iv": T.iv,
            "chi2sf": T.chi2sf}
# Checked against the CPU's kernels on sampled points (test_gpu_matches_cpu_on_sampled_points):
# their mpmath references are too slow for these sweeps (tests/codegen_cpu/test_mathlib_bessel.py)
SAMPLED = {"j0", "j1", "jv", "i0", "i1", "iv", "chi2sf"}
# Functions swept over the whole float32 format (the others' domains are ranges: their sample sets)
SWEPT = {"exp", "log", "log1p", "expm1", "tanh", "sigmoid", "softplus", "sin", "cos", "sqrt", "arctan",
         "arcsin", "arccos"}
BOUNDS = {
    "exp": (2.5, 1.0), "log": (1.0, 1.0), "log1p": (1.0, 1.0), "expm1": (1.5, 1.5),
    "tanh": (1.75, 1.75), "sigmoid": (1.75, 1.75), "softplus": (1.75, 1.75), "sin": (2.5, 1.5),
    "cos": (2.5, 1.5), "pow": (0.501, 1.5), "sqrt": (0.5, 0.5), "erf": (1.5, 1.5),
    "erfc": (3.5, 3.6), "erfinv": (3.0, 2.5), "erfcinv": (1.0, 2.0), "gamma": (6.5, 7.0),
    "gammaln": (7.5, 7.5), "psi": (4.5, 4.5), "arctan": (1.0, 1.0), "arctan2": (1.0, 1.0),
    "arcsin": (1.0, 1.0), "arccos": (1.0, 1.0), "erfcx": (2.0, 1.75), "tri_gamma": (3.5, 6.0),
}
MEASURED: dict = {}


def gpu_function(name: str, dtype):
    args = [T.vector(f"x{k}", dtype=np.dtype(dtype).name) for k in range(ARITY[name])]
    with irc.config.change_flags(device="cuda"):
        return irc.function(args, FRONTEND[name](*args))


SAMPLES = {F32: 1 << 19, F64: 1 << 17}  # random-bit patterns; each focused range gets a quarter
SWEEP = 1 << 21  # float32 patterns, 4096 per binade


def float32_sweep() -> np.ndarray:
    """One pattern in each slice of 1024 consecutive float32 bit patterns: every binade of either
    sign evenly, subnormals, infinities and NaNs included."""
    return random_bits(F32, SWEEP, seed=64, stratified=True)


@pytest.mark.parametrize("dtype", [F32, F64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(set(MATH_EMITTERS) - SAMPLED))
def test_gpu_ulp(name, dtype):
    bound = BOUNDS[name][0 if dtype == F32 else 1]
    f = gpu_function(name, dtype)
    sets = sample_sets(name, dtype, SAMPLES[dtype], stratified=True)
    if dtype == F32 and name in SWEPT:
        xs = float32_sweep()
        if name in ("sin", "cos"):
            xs = xs[~(np.abs(xs) > TRIG_LIMIT["float32"])]
        sets.append(("float32 sweep, 4096 per binade", (xs,)))
    args = [np.concatenate([xs[k] for _, xs in sets]) for k in range(ARITY[name])]
    with np.errstate(all="ignore"):
        got = f(*args)  # one call for every set
        err = ulp_error(got, reference(name, *args))
    worst, start = 0.0, 0
    for label, xs in sets:
        end = start + len(xs[0])
        i = start + int(np.argmax(err[start:end]))
        worst = max(worst, float(err[i]))
        assert err[i] <= bound, (f"{name} {np.dtype(dtype).name} [{label}]: {err[i]:.3f} ulp at "
                                 f"{[x[i] for x in args]} -> {got[i]!r}")
        start = end
    print(f"\nGPU {name} {np.dtype(dtype).name}: max {worst:.3f} ulp (bound {bound})")


@pytest.mark.parametrize("dtype", [F32, F64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(SAMPLED))
def test_gpu_matches_cpu_on_sampled_points(name, dtype):
    """The same float64 computation as the CPU's (NVPTX may contract a product and a sum into an
    fma where the CPU rounds twice): within 2 float32 ulps, or 1e-12 relative / 1e-14 absolute
    in float64 (J's zeros: its values are O(1) around them)."""
    rng = np.random.default_rng(9)
    n = 4096
    if ARITY[name] == 1:
        args = [rng.uniform(-30, 30, n).astype(dtype)]
    elif name == "chi2sf":
        k = rng.uniform(0.1, 100, n)
        args = [(k * np.exp(rng.uniform(-3, 1.5, n))).astype(dtype), k.astype(dtype)]
    else:
        args = [rng.uniform(-10, 10, n).astype(dtype), rng.uniform(0, 60, n).astype(dtype)]
    gpu = gpu_function(name, dtype)(*args)
    syms = [T.vector(f"x{k}", dtype=np.dtype(dtype).name) for k in range(ARITY[name])]
    cpu = irc.function(syms, FRONTEND[name](*syms))(*args)
    if dtype == F32:
        assert ulp_error(gpu, cpu.astype(F64)).max() <= 2.0
    else:
        np.testing.assert_allclose(gpu, cpu, rtol=1e-12, atol=1e-14)
