"""Reference values and ulp distances for checking the inline math (tests and tools only).

References are numpy in float64 for f32 results and in np.longdouble (x87 80-bit on x86-64) for
f64 results, so the reference is itself far below half an ulp of the checked dtype.
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0, e) / (1.0 + e)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


REFERENCES: dict[str, Callable[..., np.ndarray]] = {
    "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "tanh": np.tanh,
    "sigmoid": _sigmoid, "softplus": _softplus, "sin": np.sin, "cos": np.cos,
    "pow": np.power, "sqrt": np.sqrt,
}


def wide(dtype) -> type:
    return np.float64 if np.dtype(dtype) == np.float32 else np.longdouble


def reference(name: str, *xs: np.ndarray) -> np.ndarray:
    """The function in the wider precision (not rounded to the checked dtype)."""
    w = wide(xs[0].dtype)
    with np.errstate(all="ignore"):
        return REFERENCES[name](*[x.astype(w) for x in xs])


def ulp_error(got: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """|got - ref| in ulps of the checked dtype, the ulp being that of the binade holding the
    exact |ref| (denormal spacing below the normal range).  Non-finite or NaN results count 0
    when they match the rounded reference exactly, else inf."""
    dtype = got.dtype
    info = np.finfo(dtype)
    with np.errstate(all="ignore"):
        ref_t = ref.astype(dtype)
        finite = np.isfinite(ref_t) & np.isfinite(got)
        _, e = np.frexp(np.abs(ref))
        e = np.maximum(e - 1, info.minexp) - info.nmant
        ulp = np.ldexp(np.ones_like(ref), e)
        err = np.abs(got.astype(ref.dtype) - ref) / ulp
        same = (got == ref_t) | (np.isnan(got) & np.isnan(ref_t))
        return np.where(finite, err, np.where(same, 0.0, np.inf))


def random_bits(dtype, n: int, seed: int = 0) -> np.ndarray:
    """Random bit patterns as floats: every exponent about equally likely (NaNs included)."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype) == np.float32:
        return rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return rng.integers(0, 2**64, n, dtype=np.uint64).view(np.float64)


def uniform(dtype, lo: float, hi: float, n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        return rng.uniform(lo, hi, n).astype(dtype)


def log_uniform(dtype, lo_exp: float, hi_exp: float, n: int, seed: int = 2,
                signed: bool = True) -> np.ndarray:
    """|x| = 2^u with u uniform in [lo_exp, hi_exp]; random signs if ``signed``."""
    rng = np.random.default_rng(seed)
    x = np.exp2(rng.uniform(lo_exp, hi_exp, n))
    if signed:
        x = x * np.where(rng.integers(0, 2, n) == 0, 1.0, -1.0)
    with np.errstate(over="ignore"):
        return x.astype(dtype)


# Accuracy domains of sin/cos (exact quadrant; beyond it results are bounded but inaccurate).
TRIG_LIMIT = {"float32": 2.0 ** 24, "float64": 2.0 ** 52}

EDGE_VALUES = (0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 1e-30, -1e-30, 1e-300,
               float("inf"), float("-inf"), float("nan"), 88.7, 89.0, -87.3, -103.0, -104.5,
               709.7, 710.0, -745.0, -746.0, 20.0, -20.0, 0.6931471805599453)


def edge_values(dtype) -> np.ndarray:
    info = np.finfo(dtype)
    extra = [info.max, -info.max, info.tiny, -info.tiny, info.smallest_subnormal,
             -info.smallest_subnormal, info.eps, -info.eps]
    with np.errstate(over="ignore"):
        return np.array(list(EDGE_VALUES) + extra, dtype=np.float64).astype(dtype)


def sample_sets(name: str, dtype, n: int, seed: int = 0) -> list[tuple[str, tuple]]:
    """Labelled input sets (tuples of arrays, one per argument) covering ``name``'s domain.

    ``n`` is the size of the random-bits set (all finite and special floats, every exponent);
    the focused ranges get n/4 each."""
    dtype = np.dtype(dtype)
    m = max(n // 4, 1)
    bits = random_bits(dtype, n, seed)
    if name == "pow":
        hi = 20.0 if dtype == np.float32 else 60.0
        ys = 30.0 if dtype == np.float32 else 17.0
        neg_x = -log_uniform(dtype, -hi, hi, m, seed + 1, signed=False)
        int_y = np.round(uniform(dtype, -ys, ys, m, seed + 2)).astype(dtype)
        near1 = (1.0 + uniform(np.float64, -1e-3, 1e-3, m, seed + 3)).astype(dtype)
        big_y = uniform(dtype, -1e4, 1e4, m, seed + 4)
        edge = edge_values(dtype)
        ex, ey = np.meshgrid(edge, edge)
        return [("random bits", (bits, random_bits(dtype, n, seed + 9))),
                (f"|x| in 2^[-{hi:g},{hi:g}], |y| < {ys:g}",
                 (log_uniform(dtype, -hi, hi, m, seed + 5, signed=False),
                  uniform(dtype, -ys, ys, m, seed + 6))),
                ("x < 0, integer y", (neg_x, int_y)),
                ("x near 1, |y| < 1e4", (near1, big_y)),
                ("special pairs", (ex.ravel(), ey.ravel()))]
    if name in ("sin", "cos"):
        lim = TRIG_LIMIT[dtype.name]
        inside = bits[~(np.abs(bits) > lim)]  # keeps NaN
        edge = np.concatenate([edge_values(dtype), np.array([np.inf, -np.inf], dtype)])
        return [(f"random bits, |x| <= 2^{int(np.log2(lim))}", (inside,)),
                ("|x| < 10", (uniform(dtype, -10, 10, m, seed + 1),)),
                (f"|x| log-uniform to 2^{int(np.log2(lim))}",
                 (log_uniform(dtype, -30, np.log2(lim), m, seed + 2),)),
                ("edge values", (edge[~(np.abs(edge) > lim)],))]
    focus = {"exp": (-750, 750), "expm1": (-50, 90), "log": (0, 10), "log1p": (-1, 4),
             "tanh": (-20, 20), "sigmoid": (-750, 100), "softplus": (-750, 100),
             "sqrt": (0, 100)}[name]
    sets = [("random bits", (bits,)),
            (f"uniform [{focus[0]}, {focus[1]}]", (uniform(dtype, *focus, m, seed + 1),)),
            ("|x| log-uniform in 2^[-60, 8]", (log_uniform(dtype, -60, 8, m, seed + 2),)),
            ("edge values", (edge_values(dtype),))]
    if name in ("log1p", "expm1", "tanh"):
        sets.append(("|x| < 1e-3", (uniform(dtype, -1e-3, 1e-3, m, seed + 3),)))
    if name == "exp":  # where the two-factor scaling matters: denormal results, overflow
        lo, den, hi = (-104, -87, 89) if dtype == np.float32 else (-746, -708, 710)
        edge = np.concatenate([uniform(dtype, lo, den, m // 2, seed + 4),
                               uniform(dtype, hi - 2, hi, m // 2, seed + 5)])
        sets.append((f"x in [{lo}, {den}] or [{hi - 2}, {hi}]", (edge,)))
    if name == "tanh":  # where the polynomial hands over to 1 - 2/(e^2x + 1)
        signs = np.where(np.arange(m) % 2, 1, -1).astype(dtype)
        sets.append(("|x| in [0.45, 0.65]", (uniform(dtype, 0.45, 0.65, m, seed + 4) * signs,)))
    if name in ("sigmoid", "softplus"):
        sets.append(("uniform [-20, 20]", (uniform(dtype, -20, 20, m, seed + 4),)))
    return sets
