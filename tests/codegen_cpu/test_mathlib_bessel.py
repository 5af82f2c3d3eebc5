"""The math library's Bessel functions J_v, I_v (j0, j1, jv, i0, i1, iv) and chi2sf against
mpmath at 30 digits, in float32 and float64, on a few thousand sampled points each (these
kernels are long: the big random-bit sweeps of test_mathlib.py would take minutes here).

Error measure and bounds (docs/mathlib.md, "Bessel functions and chi2sf"):
* I_v, chi2sf: ulps of the result (the usual measure);
* J_v: ulps of max(|J_v(x)|, |J_{v+1}(x)|, sqrt(2/(pi x)) where x > |v|) — J oscillates, and
  near its zeros (and, for negative non-integer orders, near the recurrence's cancellations)
  the error is absolute, in units of the function's local size.
float32 is computed in float64 and rounded once: within 1 ulp (0.5 + the float64 error).
"""
from __future__ import annotations

import math
from functools import partial

import numpy as np
import pytest

from irc.codegen_cpu.mathlib_jit import compile_kernel
from irc.codegen_llvm.mathlib import ARITY, MATH_EMITTERS
from irc.codegen_llvm.mathlib_ulp import ulp_error
from irc.codegen_cpu import ulp_reference_store as stored

from mathlib_kernels import kernel

mp = pytest.importorskip("mpmath")

F32, F64 = np.float32, np.float64
N = 1000                                   # points per sample set
# measured on these sets: J 29 (the recurrence near x = 25), I 12, float32 0.5
BESSEL_BOUNDS = {("J", F64): 32.0, ("I", F64): 16.0, ("J", F32): 1.0, ("I", F32): 1.0}
CHI2SF_BOUNDS = {F64: 10.0, F32: 1.0}     # k >= 2 (measured 8.0 and 0.5)
CHI2SF_SMALL_K_BOUND = 128.0               # float64, 0.05 <= k < 2 (measured 84): 1 - P cancels where Q is small

def mp_bessel(kind: str, v: float, x: float) -> float:
    with mp.workdps(30):
        return float(mp.re((mp.besselj if kind == "J" else mp.besseli)(v, x)))  # (x < 0: an mpc)


def mp_chi2sf(k: float, x: float) -> float:
    with mp.workdps(30):
        return float(mp.gammainc(k / 2, x / 2, mp.inf, regularized=True))


def mp_values(stem: str, fn, *inputs: np.ndarray) -> np.ndarray:
    """`fn` at every element of `inputs` (mpmath at 30 digits: ~1 ms a value for I_v), stored
    in tests/codegen_cpu/ulp_references/bessel/`stem`.npz and spot-checked (ulp_reference_store)."""
    return stored.values(stored.FOLDER / "bessel" / f"{stem}.npz", fn, *inputs)


def bessel_scale(kind: str, v: np.ndarray, x: np.ndarray, ref: np.ndarray, stem: str) -> np.ndarray:
    """What the error is measured in ulps of (module docstring); J_{v+1} stored as `stem`-next."""
    if kind == "I":
        return np.abs(ref)
    nxt = mp_values(f"{stem}-next", lambda a, b: mp_bessel("J", a + 1, b), v, x)
    envelope = np.where(np.abs(x) > np.abs(v), np.sqrt(2 / (np.pi * np.maximum(np.abs(x), 1e-300))), 0)
    return np.maximum.reduce([np.abs(ref), np.abs(nxt), envelope])


def order_argument_sets(rng: np.random.Generator):
    """(label, v, x): orders in [-10, 10] (a quarter of them integers) over each method's range."""
    def orders(n):
        v = rng.uniform(-10, 10, n)
        v[: n // 4] = np.round(v[: n // 4])
        return v
    yield "series, x in (0, 2)", orders(N), rng.uniform(0, 2, N)
    yield "recurrence / series, x in [2, 25)", orders(N), rng.uniform(2, 25, N)
    yield "asymptotic, x in [25, 1000)", orders(N // 2), np.exp(rng.uniform(np.log(25), np.log(1000), N // 2))
    v = np.round(rng.uniform(-10, 10, N // 2))
    yield "integer orders, x < 0", v, -np.exp(rng.uniform(-5, 4, N // 2))


@pytest.mark.parametrize("dtype", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("kind", ["J", "I"])
def test_jv_iv_against_mpmath(kind, dtype):
    fn = kernel("jv" if kind == "J" else "iv", dtype, 4)
    bound = BESSEL_BOUNDS[(kind, dtype)]
    rng = np.random.default_rng(0 if kind == "J" else 1)
    for index, (label, v, x) in enumerate(order_argument_sets(rng)):
        v, x = v.astype(dtype), x.astype(dtype)
        if kind == "I":  # keep I finite in float32 (it grows like e^x)
            x = x[np.abs(x) < (80 if dtype == F32 else 700)]
            v = v[: x.size]
        stem = f"{kind}v-{np.dtype(dtype).name}-set{index}"
        ref = mp_values(stem, partial(mp_bessel, kind), v, x)
        got = fn(v, x).astype(np.float64)
        scale = bessel_scale(kind, v.astype(np.float64), x.astype(np.float64), ref, stem)
        finite = np.isfinite(ref) & (scale > np.finfo(dtype).tiny)
        err = np.abs(got - ref)[finite] / np.spacing(scale[finite].astype(dtype)).astype(np.float64)
        i = int(np.argmax(err))
        assert err[i] <= bound, f"{kind} {label}: {err[i]:.1f} ulp at v={v[finite][i]!r} x={x[finite][i]!r}"


@pytest.mark.parametrize("dtype", [F32, F64], ids=["float32", "float64"])
@pytest.mark.parametrize("name,kind,order", [("j0", "J", 0), ("j1", "J", 1), ("i0", "I", 0), ("i1", "I", 1)])
def test_fixed_orders_match_jv_iv(name, kind, order, dtype):
    """j0, j1, i0, i1 are jv/iv at a constant order: bit for bit the same, and within the bounds."""
    rng = np.random.default_rng(order)
    x = np.concatenate([rng.uniform(-30, 30, 500), np.exp(rng.uniform(-20, 6, 200))]).astype(dtype)
    got = kernel(name, dtype)(x)
    np.testing.assert_array_equal(got, kernel("jv" if kind == "J" else "iv", dtype)(np.full_like(x, order), x))
    stem = f"{name}-{np.dtype(dtype).name}"
    ref = mp_values(stem, partial(mp_bessel, kind, order), x)
    finite = np.isfinite(ref.astype(dtype))   # I overflows float32 past |x| ~ 93
    np.testing.assert_array_equal(got[~finite], ref[~finite].astype(dtype))
    x, got, ref = x[finite], got[finite], ref[finite]
    scale = bessel_scale(kind, np.full(x.size, float(order)), x.astype(np.float64), ref, stem)
    err = np.abs(got - ref) / np.spacing(scale.astype(dtype)).astype(np.float64)
    assert err.max() <= BESSEL_BOUNDS[(kind, dtype)], x[np.argmax(err)]


def chi2sf_sets(rng: np.random.Generator):
    k = rng.uniform(2, 100, N)
    yield "k in [2, 100), x around k", k, k * np.exp(rng.uniform(-3, 1.5, N))
    k = rng.uniform(0.05, 2, N // 2)
    yield "k in [0.05, 2)", k, k * np.exp(rng.uniform(-5, 4, N // 2))
    yield "k = 1, the tester's", np.ones(N // 2), rng.uniform(0, 60, N // 2)


@pytest.mark.parametrize("dtype", [F32, F64], ids=["float32", "float64"])
def test_chi2sf_against_mpmath(dtype):
    fn = kernel("chi2sf", dtype, 4)
    for index, (label, k, x) in enumerate(chi2sf_sets(np.random.default_rng(2))):
        k, x = k.astype(dtype), x.astype(dtype)
        ref = mp_values(f"chi2sf-{np.dtype(dtype).name}-set{index}", mp_chi2sf, k, x)
        err = ulp_error(fn(x, k), ref.astype(np.float64 if dtype == F32 else np.longdouble))
        small_k = dtype == F64 and not label.startswith("k in [2")
        bound = CHI2SF_SMALL_K_BOUND if small_k else CHI2SF_BOUNDS[dtype]
        i = int(np.argmax(err))
        assert err[i] <= bound, f"chi2sf {label}: {err[i]:.1f} ulp at x={x[i]!r} k={k[i]!r}"


INF, NAN = math.inf, math.nan
# (name, v or None, x, expected): exact; scipy's conventions except at x = +-inf, where the limits are
SPECIALS = [
    ("jv", 0.0, 0.0, 1.0), ("jv", 1.0, 0.0, 0.0), ("jv", 2.5, 0.0, 0.0), ("jv", -0.5, 0.0, INF),
    ("jv", -1.5, 0.0, -INF), ("jv", 0.5, -1.0, NAN), ("jv", 2.0, INF, 0.0), ("jv", 11.0, 3.0, NAN),
    ("jv", -10.5, 3.0, NAN), ("jv", NAN, 1.0, NAN), ("jv", 1.0, NAN, NAN), ("jv", INF, 1.0, NAN),
    ("iv", 0.0, 0.0, 1.0), ("iv", 1.0, 0.0, 0.0), ("iv", -0.5, 0.0, INF), ("iv", 0.5, -2.0, NAN),
    ("iv", 2.0, INF, INF), ("iv", 0.0, 800.0, INF), ("iv", 1.0, -INF, -INF), ("iv", 2.0, -INF, INF),
]


@pytest.mark.parametrize("lanes", [None, 4])
def test_special_values(lanes):
    for name, v, x, want in SPECIALS:
        got = kernel(name, F64, lanes)(np.array([v] * 4), np.array([x] * 4))[0]
        assert (math.isnan(got) and math.isnan(want)) or got == want, (name, v, x, got)
    x = np.array([-1.0, 0.0, 1e-300, INF, NAN, 2000.0, 3.0, 3.0, 3.0, 3.0])
    k = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, -1.0, 101.0, NAN])
    got = kernel("chi2sf", F64, lanes)(x, k)
    np.testing.assert_array_equal(got, [1.0, 1.0, 1.0, 0.0, NAN, 0.0, NAN, NAN, NAN, NAN])


def test_negative_arguments_follow_the_integer_orders_parity():
    x = np.array([0.5, 3.0, 7.0, 30.0])
    for name in ("jv", "iv"):
        for n in (-3.0, -2.0, 1.0, 2.0, 5.0):
            pos = kernel(name, F64)(np.full(4, n), x)
            neg = kernel(name, F64)(np.full(4, n), -x)
            np.testing.assert_array_equal(neg, pos * (-1) ** int(n))
    # J_{-n} = (-1)^n J_n, I_{-n} = I_n
    np.testing.assert_array_equal(kernel("jv", F64)(np.full(4, -3.0), x), -kernel("jv", F64)(np.full(4, 3.0), x))
    np.testing.assert_array_equal(kernel("iv", F64)(np.full(4, -3.0), x), kernel("iv", F64)(np.full(4, 3.0), x))


@pytest.mark.parametrize("name", ["jv", "iv", "chi2sf", "j0", "i1"])
@pytest.mark.parametrize("dtype", [F32, F64], ids=["float32", "float64"])
def test_scalar_kernel_matches_vector_kernel(name, dtype):
    rng = np.random.default_rng(4)
    xs = [rng.uniform(-12, 40, 2003).astype(dtype) for _ in range(ARITY[name])]
    if name == "chi2sf":
        xs[1] = np.abs(xs[1])
    np.testing.assert_array_equal(kernel(name, dtype)(*xs), kernel(name, dtype, 8 if dtype == F32 else 4)(*xs))


@pytest.mark.parametrize("name", ["j0", "j1", "i0", "i1", "jv", "iv", "chi2sf"])
def test_half_within_one_ulp(name):
    """half goes through float and the float64 computation: rounded twice, so within 1 ulp."""
    rng = np.random.default_rng(5)
    x = rng.uniform(0, 12, 3000).astype(np.float16)
    xs = [x] if ARITY[name] == 1 else [rng.uniform(0.5, 6, 3000).astype(np.float16), x]
    if name == "chi2sf":
        xs = xs[::-1]
    got = compile_kernel(MATH_EMITTERS[name], np.float16, ARITY[name], 8)[0](*xs)
    want = kernel(name, F64)(*[a.astype(F64) for a in xs])
    assert ulp_error(got, want).max() <= 1.0
