"""The math library as the GPU runs it (the NVPTX flavour: f32 exp through `ex2.approx` behind a
Cody–Waite reduction; everything else the shared polynomials): ulp error against numpy's float64
(float32 results) or long double (float64 results) references, over the same sample sets as the
CPU's tests plus, for float32, every 64th bit pattern of the whole format (67 million inputs).

Stated bounds (max ulp; the measured values are in docs/mathlib.md): the CPU's, except f32 exp,
which adds `ex2.approx`'s own error."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.codegen_llvm.mathlib import ARITY, MATH_EMITTERS
from irc.codegen_llvm.mathlib_ulp import TRIG_LIMIT, reference, sample_sets, ulp_error

F32, F64 = np.float32, np.float64
FRONTEND = {"exp": T.exp, "log": T.log, "log1p": T.log1p, "expm1": T.expm1, "tanh": T.tanh,
            "sigmoid": T.nnet.sigmoid, "softplus": T.nnet.softplus, "sin": T.sin, "cos": T.cos,
            "sqrt": T.sqrt, "pow": lambda x, y: x ** y, "erf": T.erf, "erfc": T.erfc,
            "erfinv": T.erfinv, "erfcinv": T.erfcinv, "gamma": T.gamma, "gammaln": T.gammaln, "psi": T.psi}
# Functions swept over every 64th float32 (the others' domains are ranges: their sample sets)
SWEPT = {"exp", "log", "log1p", "expm1", "tanh", "sigmoid", "softplus", "sin", "cos", "sqrt"}
BOUNDS = {
    "exp": (2.5, 1.0), "log": (1.0, 1.0), "log1p": (1.0, 1.0), "expm1": (1.5, 1.5),
    "tanh": (1.75, 1.75), "sigmoid": (1.75, 1.75), "softplus": (1.75, 1.75), "sin": (2.5, 1.5),
    "cos": (2.5, 1.5), "pow": (0.501, 1.5), "sqrt": (0.5, 0.5), "erf": (1.5, 1.5),
    "erfc": (3.5, 3.5), "erfinv": (3.0, 2.5), "erfcinv": (1.0, 2.0), "gamma": (6.5, 7.0),
    "gammaln": (7.5, 7.5), "psi": (4.5, 4.5),
}
MEASURED: dict = {}


def gpu_function(name: str, dtype):
    args = [T.vector(f"x{k}", dtype=np.dtype(dtype).name) for k in range(ARITY[name])]
    with irc.config.change_flags(device="cuda"):
        return irc.function(args, FRONTEND[name](*args))


def every_64th_float32() -> np.ndarray:
    return (np.arange(0, 2 ** 32, 64, dtype=np.uint64).astype(np.uint32)).view(np.float32)


@pytest.mark.parametrize("dtype", [F32, F64], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(MATH_EMITTERS))
def test_gpu_ulp(name, dtype):
    bound = BOUNDS[name][0 if dtype == F32 else 1]
    f = gpu_function(name, dtype)
    sets = sample_sets(name, dtype, 2_000_000 if dtype == F32 else 500_000)
    if dtype == F32 and name in SWEPT:
        xs = every_64th_float32()
        if name in ("sin", "cos"):
            xs = xs[~(np.abs(xs) > TRIG_LIMIT["float32"])]
        sets.append(("every 64th float32", (xs,)))
    worst = 0.0
    for label, xs in sets:
        with np.errstate(all="ignore"):
            got = f(*xs)
            err = ulp_error(got, reference(name, *xs))
        i = int(np.argmax(err))
        worst = max(worst, float(err[i]))
        assert err[i] <= bound, (f"{name} {np.dtype(dtype).name} [{label}]: {err[i]:.3f} ulp at "
                                 f"{[x[i] for x in xs]} -> {got[i]!r}")
    print(f"\nGPU {name} {np.dtype(dtype).name}: max {worst:.3f} ulp (bound {bound})")
