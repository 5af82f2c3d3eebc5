"""Reference values and ulp distances for checking the inline math (tests and tools only).

References are numpy in float64 for f32 results and in np.longdouble (x87 80-bit on x86-64) for
f64 results, so the reference is itself far below half an ulp of the checked dtype.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..dialects.elementwise import TABLE
from .mpmath_longdouble import to_longdouble


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0, e) / (1.0 + e)


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def _special(fn_float: Callable[[float], float], mp_name: str, tiny: Callable, far: Callable
             ) -> Callable[[np.ndarray], np.ndarray]:
    """A function numpy lacks: `math` in float64 (for float32 results), mpmath at 30 digits in
    np.longdouble (for float64 results), with the easy ends taken without calling either:
    `tiny(x)` below 2^-40 (the leading term is exact to far below an ulp) and `far(x)`
    where the value is a constant (beyond |x| = 28 for erf and erfc)."""
    def ref(x: np.ndarray) -> np.ndarray:
        out = np.empty_like(x)
        a = np.abs(x)
        small, big = a < 2.0 ** -40, ~(a <= 28)
        mid = ~(small | big)
        out[small], out[big] = tiny(x[small]), far(x[big])
        if x.dtype == np.float64:
            out[mid] = [fn_float(v) for v in x[mid].tolist()]
        else:
            import mpmath
            with mpmath.workdps(30):
                fn, mpf = getattr(mpmath, mp_name), mpmath.mpf
                out[mid] = to_longdouble([fn(mpf(v)) for v in x[mid].astype(np.float64).tolist()])
        return out
    return ref


_TWO_OVER_SQRT_PI = np.longdouble("1.12837916709551257389615890312154517")
_erf = _special(math.erf, "erf", lambda x: x * _TWO_OVER_SQRT_PI,
                lambda x: np.where(np.isnan(x), x, np.sign(x)))
_erfc = _special(math.erfc, "erfc", lambda x: 1 - x * _TWO_OVER_SQRT_PI,
                 lambda x: np.where(np.isnan(x), x, np.where(x > 0, 0.0, 2.0)))

@dataclass(frozen=True)
class PerElementReference:
    """A function numpy lacks, every element through `fn_float` (float64, for float32 results)
    or `mp_fn` (mpmath at 30 digits, np.longdouble, for float64 results), but for the ends
    where a series is exact to far below an ulp of the checked dtype, computed in the wide
    dtype: `tiny(x)` for 0 < |x| < 2^-40 (the next term is ~x^2 = 2^-80 relative) and `huge(x)`
    for x > 2^40 (the next term is ~x^-2). Random bit patterns put most samples there, and one
    element through mpmath costs 10-60 µs (`every_element` skips the ends: the tests compare).
    `on_array` (optional) is `fn_float` over a whole float64 array at once (the elementwise
    table's reference: the same function, the same bits, without a numpy scalar per element).
    `mp_fn(mp, v, approx)` gets `fn_float(v)` as `approx` where `newton` (a start for Newton's
    method; None otherwise); the non-finite v and the poles (integers <= 0) take `fn_float`'s
    value as it is."""

    fn_float: Callable[[float], float]
    mp_fn: Callable
    tiny: Callable | None = None
    huge: Callable | None = None
    on_array: Callable[[np.ndarray], np.ndarray] | None = None
    newton: bool = False

    def ends(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(small, big): the elements `tiny` and `huge` take."""
        a = np.abs(x)
        small = (a < 2.0 ** -40) & (a > 0) if self.tiny is not None else np.zeros(x.shape, bool)
        big = (x > 2.0 ** 40) & np.isfinite(x) if self.huge is not None else np.zeros(x.shape, bool)
        return small, big

    def __call__(self, x: np.ndarray) -> np.ndarray:
        small, big = self.ends(x)
        mid = ~(small | big)
        out = np.empty_like(x)
        if small.any():
            out[small] = self.tiny(x[small])
        if big.any():
            out[big] = self.huge(x[big])
        out[mid] = self.every_element(x[mid])
        return out

    def float64(self, x: np.ndarray) -> np.ndarray:
        """`fn_float` over a float64 array."""
        if self.on_array is not None:
            return np.asarray(self.on_array(x), dtype=np.float64)
        return np.array([self.fn_float(v) for v in x.tolist()], dtype=np.float64)

    def every_element(self, x: np.ndarray) -> np.ndarray:
        if x.dtype == np.float64:
            return self.float64(x)
        import mpmath
        v = x.astype(np.float64)  # exact: the checked values are float64
        plain = ~np.isfinite(v) | ((v <= 0) & (v == np.floor(v)))
        rest = v[~plain]
        out = np.empty(x.shape, dtype=np.longdouble)
        out[plain] = self.float64(v[plain])
        starts = self.float64(rest).tolist() if self.newton else [None] * rest.size
        with mpmath.workdps(30):
            mpf, fn = mpmath.mpf, self.mp_fn
            out[~plain] = to_longdouble([fn(mpmath, mpf(a), b) for a, b in zip(rest.tolist(), starts)])
        return out


# Euler's constant and log(2 pi) / 2, to longdouble's precision
_EULER = np.longdouble("0.577215664901532860606512090082402431")
_HALF_LOG_TWO_PI = np.longdouble("0.918938533204672741780329736405617640")
_SQRT_PI_OVER_TWO = np.longdouble("0.886226925452758013649083741671139183")


def _gamma_tiny(x: np.ndarray) -> np.ndarray:
    return 1 / x - _EULER.astype(x.dtype)  # Gamma(x) = 1/x - gamma + O(x)


def _gammaln_tiny(x: np.ndarray) -> np.ndarray:
    return -np.log(np.abs(x)) - _EULER.astype(x.dtype) * x  # log|Gamma(x)| = -log|x| - gamma x + O(x^2)


def _gammaln_huge(x: np.ndarray) -> np.ndarray:
    """Stirling's series: (x - 1/2) log x - x + log(2 pi)/2 + 1/(12 x) + O(x^-3)."""
    return (x - 0.5) * np.log(x) - x + _HALF_LOG_TWO_PI.astype(x.dtype) + 1 / (12 * x)


def _psi_tiny(x: np.ndarray) -> np.ndarray:
    return -1 / x - _EULER.astype(x.dtype)  # psi(x) = -1/x - gamma + O(x)


def _psi_huge(x: np.ndarray) -> np.ndarray:
    return np.log(x) - 1 / (2 * x) - 1 / (12 * x * x)  # + O(x^-4)


def _erfinv_tiny(x: np.ndarray) -> np.ndarray:
    return x * _SQRT_PI_OVER_TWO.astype(x.dtype)  # erfinv(x) = sqrt(pi)/2 x (1 + pi x^2/12 + ...)


def _two_over_sqrt_pi(mp):
    """2/sqrt(pi) at mp's precision (computed once per precision: ~10 µs each time)."""
    prec = mp.mp.prec
    if prec not in _TWO_OVER_SQRT_PI_MP:
        _TWO_OVER_SQRT_PI_MP[prec] = 2 / mp.sqrt(mp.pi)
    return _TWO_OVER_SQRT_PI_MP[prec]


_TWO_OVER_SQRT_PI_MP: dict = {}


def _erfinv_mp(mp, v, approx: float):
    """erfinv(v) to ~30 digits: the float64 reference `approx` plus one Newton step in mpmath
    (mpmath's own erfinv is too slow for samples of this size)."""
    if not abs(v) < 1:
        return mp.sign(v) * mp.inf if abs(v) == 1 else mp.nan
    x = mp.mpf(approx)
    return x - (mp.erf(x) - v) / (_two_over_sqrt_pi(mp) * mp.exp(-x * x))


def _erfcinv_mp(mp, v, approx: float):
    """erfcinv(v) to ~30 digits: the float64 reference `approx` (within an ulp) plus one Newton
    step on erfc in mpmath, which squares its error (accurate for denormal v too: mpmath's erfc
    does not underflow)."""
    if not 0 < v < 2:
        return mp.inf if v == 0 else -mp.inf if v == 2 else mp.nan
    r = mp.mpf(approx)
    return r + (mp.erfc(r) - v) / (_two_over_sqrt_pi(mp) * mp.exp(-r * r))


def _erfcx_tiny(x: np.ndarray) -> np.ndarray:
    return 1 - x * _TWO_OVER_SQRT_PI.astype(x.dtype)  # erfcx(x) = 1 - 2x/sqrt(pi) + x^2 - ...


def _erfcx_huge(x: np.ndarray) -> np.ndarray:
    return (_TWO_OVER_SQRT_PI / 2).astype(x.dtype) / x * (1 - 1 / (2 * x * x))  # + O(x^-5)


def _erfcx_mp(mp, v):
    """erfcx(v) to ~30 digits: erfc(v) exp(v^2) while v^2 keeps its digits at 30 (v < 1000), the
    asymptotic series beyond (its 12th term is below 1e-60 there); inf below -27 (2 exp(v^2)
    overflows every dtype there: no formatting of a huge mpmath value)."""
    if v < -27:
        return mp.inf
    if v < 1000:
        return mp.erfc(v) * mp.exp(v * v)
    u = 1 / (2 * v * v)
    return mp.fsum((-1) ** k * mp.fac2(2 * k - 1) * u ** k for k in range(12)) / (v * mp.sqrt(mp.pi))


_PI = np.longdouble("3.14159265358979323846264338327950288")
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798)


def _trigamma(x: np.ndarray) -> np.ndarray:
    """psi'(x) in x's dtype (np.longdouble for float64 results, whose 64-bit mantissa keeps the
    reference ~2^-62 relative), vectorized: 24 steps of the recurrence (summed smallest first)
    onto the asymptotic series at w >= 24 (to B_18: below 2^-70 there); x < 0 by the reflection
    pi^2/sin^2(pi r) - psi'(1 - x), r = x - rint(x); scipy's values at the poles. mpmath's
    psi(1, x) takes ~0.7 ms a value: this, microseconds."""
    x = np.asarray(x)
    out = np.empty_like(x)
    pos = x > 0
    z = np.where(pos, x, 1 - x)  # 1 - x is exact for the x < 0 that are not integers
    n = np.where(z < 24, np.ceil(24 - z), 0)
    w = z + n
    r = 1 / w
    series = np.zeros_like(x)
    for b2k in reversed(_BERNOULLI):
        series = series * r * r + x.dtype.type(b2k)
    total = r + r * r / 2 + series * r ** 3
    for k in range(23, -1, -1):
        total = total + np.where(k < n, 1 / ((z + k) * (z + k)), 0)
    out[pos] = total[pos]
    neg = ~pos
    frac = x[neg] - np.rint(x[neg])
    pi = _PI.astype(x.dtype)
    out[neg] = (pi / np.sin(pi * frac)) ** 2 - total[neg]
    out[neg & (x == np.rint(x))] = np.inf  # 0, the negative integers, -inf
    out[x == np.inf] = 0
    out[np.isnan(x)] = np.nan
    return out


def _lgamma_float(x: float) -> float:
    return float(TABLE["gammaln"].reference(np.float64(x)))


def _digamma_float(x: float) -> float:
    return float(TABLE["psi"].reference(np.float64(x)))


REFERENCES: dict[str, Callable[..., np.ndarray]] = {
    "exp": np.exp, "log": np.log, "log1p": np.log1p, "expm1": np.expm1, "tanh": np.tanh,
    "sigmoid": _sigmoid, "softplus": _softplus, "sin": np.sin, "cos": np.cos,
    "pow": np.power, "sqrt": np.sqrt, "erf": _erf, "erfc": _erfc,
    "arctan": np.arctan, "arctan2": np.arctan2, "arcsin": np.arcsin, "arccos": np.arccos,
    "gammaln": PerElementReference(_lgamma_float, lambda mp, v, _: mp.log(abs(mp.gamma(v))),
                                   _gammaln_tiny, _gammaln_huge, TABLE["gammaln"].reference),
    "psi": PerElementReference(_digamma_float, lambda mp, v, _: mp.digamma(v), _psi_tiny, _psi_huge,
                               TABLE["psi"].reference),
    "erfinv": PerElementReference(lambda v: float(TABLE["erfinv"].reference(np.float64(v))),
                                  _erfinv_mp, _erfinv_tiny, None, TABLE["erfinv"].reference, newton=True),
    "erfcinv": PerElementReference(lambda v: float(TABLE["erfcinv"].reference(np.float64(v))),
                                   _erfcinv_mp, None, None, TABLE["erfcinv"].reference, newton=True),
    # below -27 2 exp(x^2) overflows every dtype here: inf without formatting a huge mpmath value
    "erfcx": PerElementReference(lambda v: float(TABLE["erfcx"].reference(np.float64(v))),
                                 lambda mp, v, _: _erfcx_mp(mp, v),
                                 _erfcx_tiny, _erfcx_huge, TABLE["erfcx"].reference),
    "tri_gamma": _trigamma,
    # past 180 Gamma overflows float64 by far: inf (formatting mpmath's huge values is slow)
    "gamma": PerElementReference(lambda v: float(TABLE["gamma"].reference(np.float64(v))),
                                 lambda mp, v, _: mp.gamma(v) if v < 180 else mp.inf, _gamma_tiny, None,
                                 TABLE["gamma"].reference),
}
# below this Gamma is denormal or zero and the emitter returns +-0 (docs/mathlib.md)
GAMMA_UNDERFLOW = {"float32": -34.0, "float64": -170.0}


def one_at_a_time(name: str, x: np.ndarray) -> np.ndarray:
    """Which elements of x `reference(name, x)` computes one by one (mpmath, or a Python float
    function), the slow ones; it takes the others vectorized."""
    ref = REFERENCES[name]
    with np.errstate(all="ignore"):
        w = x.astype(wide(x.dtype))
    if isinstance(ref, PerElementReference):
        small, big = ref.ends(w)
        return ~(small | big)
    if name in ("erf", "erfc"):  # _special's middle
        a = np.abs(w)
        return (a >= 2.0 ** -40) & (a <= 28)
    return np.zeros(x.shape, bool)


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


def random_bits(dtype, n: int, seed: int = 0, stratified: bool = False) -> np.ndarray:
    """Random bit patterns as floats: every exponent about equally likely (NaNs included).
    `stratified`: one pattern drawn in each of n equal slices of the bit patterns, so every
    sign and exponent gets its share exactly (a smaller n covers the format as evenly)."""
    rng = np.random.default_rng(seed)
    width = 32 if np.dtype(dtype) == np.float32 else 64
    if stratified:
        step = (1 << width) // n
        bits = rng.permutation(np.arange(n, dtype=np.uint64) * np.uint64(step)
                               + rng.integers(0, step, n, dtype=np.uint64))
    else:
        bits = rng.integers(0, 2**width, n, dtype=np.uint64)
    if width == 32:
        return bits.astype(np.uint32).view(np.float32)
    return bits.view(np.float64)


def _unit(rng: np.random.Generator, n: int, stratified: bool) -> np.ndarray:
    """n draws in [0, 1): independent, or `stratified` (one in each of n equal slices)."""
    if stratified:  # in random order, so that the sets of two-argument functions pair at random
        return rng.permutation((np.arange(n) + rng.uniform(0.0, 1.0, n)) / n)
    return rng.uniform(0.0, 1.0, n)


def uniform(dtype, lo: float, hi: float, n: int, seed: int = 1, stratified: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    with np.errstate(over="ignore"):
        if stratified:
            return (lo + (hi - lo) * _unit(rng, n, True)).astype(dtype)
        return rng.uniform(lo, hi, n).astype(dtype)


def log_uniform(dtype, lo_exp: float, hi_exp: float, n: int, seed: int = 2,
                signed: bool = True, stratified: bool = False) -> np.ndarray:
    """|x| = 2^u with u uniform in [lo_exp, hi_exp] (`stratified`: one u in each of n equal
    slices); random signs if ``signed``."""
    rng = np.random.default_rng(seed)
    if stratified:
        x = np.exp2(lo_exp + (hi_exp - lo_exp) * _unit(rng, n, True))
    else:
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


def sample_sets(name: str, dtype, n: int, seed: int = 0, stratified: bool = False) -> list[tuple[str, tuple]]:
    """Labelled input sets (tuples of arrays, one per argument) covering ``name``'s domain.

    ``n`` is the size of the random-bits set (all finite and special floats, every exponent);
    the focused ranges get n/4 each. `stratified`: every set drawn one value per equal slice
    of its range (the GPU's tests: the same ranges and bounds from fewer values)."""
    dtype = np.dtype(dtype)
    m = max(n // 4, 1)
    draw = {"stratified": stratified}
    bits = random_bits(dtype, n, seed, **draw)
    if name == "pow":
        hi = 20.0 if dtype == np.float32 else 60.0
        ys = 30.0 if dtype == np.float32 else 17.0
        neg_x = -log_uniform(dtype, -hi, hi, m, seed + 1, signed=False, **draw)
        int_y = np.round(uniform(dtype, -ys, ys, m, seed + 2, **draw)).astype(dtype)
        near1 = (1.0 + uniform(np.float64, -1e-3, 1e-3, m, seed + 3, **draw)).astype(dtype)
        big_y = uniform(dtype, -1e4, 1e4, m, seed + 4, **draw)
        edge = edge_values(dtype)
        ex, ey = np.meshgrid(edge, edge)
        return [("random bits", (bits, random_bits(dtype, n, seed + 9, **draw))),
                (f"|x| in 2^[-{hi:g},{hi:g}], |y| < {ys:g}",
                 (log_uniform(dtype, -hi, hi, m, seed + 5, signed=False, **draw),
                  uniform(dtype, -ys, ys, m, seed + 6, **draw))),
                ("x < 0, integer y", (neg_x, int_y)),
                ("x near 1, |y| < 1e4", (near1, big_y)),
                ("special pairs", (ex.ravel(), ey.ravel()))]
    if name == "arctan2":  # every quadrant, ratios from tiny to huge, ties, the special pairs
        edge = edge_values(dtype)
        ex, ey = np.meshgrid(edge, edge)
        hi = 60.0 if dtype == np.float32 else 500.0
        near = uniform(dtype, -5, 5, m, seed + 3, **draw)
        return [("random bits", (bits, random_bits(dtype, n, seed + 9, **draw))),
                ("uniform [-5, 5]^2", (uniform(dtype, -5, 5, m, seed + 1, **draw),
                                      uniform(dtype, -5, 5, m, seed + 2, **draw))),
                (f"|y|, |x| log-uniform in 2^[-{hi:g},{hi:g}]",
                 (log_uniform(dtype, -hi, hi, m, seed + 4, **draw), log_uniform(dtype, -hi, hi, m, seed + 5, **draw))),
                ("y near +-x", (near, (near * (1 + uniform(np.float64, -0.1, 0.1, m, seed + 6, **draw))
                                       * np.where(np.arange(m) % 2, 1, -1)).astype(dtype))),
                ("special pairs", (ey.ravel(), ex.ravel()))]
    if name == "tri_gamma":  # x > 0 (the recurrence and the series) and x in (-30, 0) (the reflection)
        return [("random bits", (bits,)), ("uniform (0, 30]", (uniform(dtype, 1e-6, 30, m, seed + 1, **draw),)),
                ("x log-uniform in 2^[-60, 20]", (log_uniform(dtype, -60, 20, m, seed + 2, signed=False, **draw),)),
                ("uniform (-30, 0)", (uniform(dtype, -30, -1e-6, m, seed + 3, **draw),)),
                ("x near 10, 12 (the series' start)", (uniform(dtype, 9, 13, m, seed + 4, **draw),)),
                ("edge values", (edge_values(dtype),))]
    if name == "erfcx":  # x < 0 up to where 2 exp(x^2) overflows; the pieces' hand-overs
        low, zero = (-9.4, 10.1) if dtype == np.float32 else (-26.6, 27.25)
        ends = np.concatenate([uniform(dtype, c - 0.05, c + 0.05, m // 4, seed + 4 + k, **draw)
                               for k, c in enumerate((0.75, 2.0, 4.0, zero))])
        return [("random bits", (bits,)), (f"uniform [{low}, 40]", (uniform(dtype, low, 40, m, seed + 1, **draw),)),
                ("|x| log-uniform in 2^[-60, 8]", (log_uniform(dtype, -60, 8, m, seed + 2, **draw),)),
                (f"|x| near 0.75, 2, 4, {zero}", (ends * np.where(np.arange(ends.size) % 2, 1, -1).astype(dtype),)),
                ("edge values", (edge_values(dtype),))]
    if name in ("arcsin", "arccos"):  # [-1, 1], and 1 - |x| down to the last float below 1
        p = 53 if dtype == np.float64 else 24
        signs = np.where(np.arange(m) % 2, 1.0, -1.0)
        near1 = (signs * (1 - log_uniform(np.float64, -p, -1, m, seed + 3, signed=False, **draw))).astype(dtype)
        return [("random bits", (bits,)), ("uniform [-1, 1]", (uniform(dtype, -1, 1, m, seed + 1, **draw),)),
                ("|x| log-uniform in 2^[-60, 0]", (log_uniform(dtype, -60, 0, m, seed + 2, **draw),)),
                (f"1 - |x| log-uniform in 2^[-{p}, -1]", (near1,)), ("edge values", (edge_values(dtype),))]
    if name in ("sin", "cos"):
        lim = TRIG_LIMIT[dtype.name]
        inside = bits[~(np.abs(bits) > lim)]  # keeps NaN
        edge = np.concatenate([edge_values(dtype), np.array([np.inf, -np.inf], dtype)])
        return [(f"random bits, |x| <= 2^{int(np.log2(lim))}", (inside,)),
                ("|x| < 10", (uniform(dtype, -10, 10, m, seed + 1, **draw),)),
                (f"|x| log-uniform to 2^{int(np.log2(lim))}",
                 (log_uniform(dtype, -30, np.log2(lim), m, seed + 2, **draw),)),
                ("edge values", (edge[~(np.abs(edge) > lim)],))]
    if name in ("gammaln", "psi"):  # ulps on x > 0 (negative x: absolute error, near the roots)
        positive = bits[~(bits <= 0)]
        edge = edge_values(dtype)
        return [("random bits, x > 0", (positive,)),
                ("uniform (0, 30]", (uniform(dtype, 1e-6, 30, m, seed + 1, **draw),)),
                ("x log-uniform in 2^[-60, 20]", (log_uniform(dtype, -60, 20, m, seed + 2, signed=False, **draw),)),
                ("x near 0.5, 1, 1.5, 2, 2.5, 10, 12",
                 (np.concatenate([uniform(dtype, c * 0.97, c * 1.03, m // 7, seed + 3 + k, **draw)
                                  for k, c in enumerate((0.5, 1, 1.5, 2, 2.5, 10, 12))]),)),
                ("edge values, x > 0", (edge[~(edge <= 0)],))]
    if name == "gamma":
        low = GAMMA_UNDERFLOW[dtype.name]
        edge = edge_values(dtype)
        top = 35.0 if dtype == np.float32 else 171.6
        return [(f"random bits, x > {low:g}", (bits[~(bits <= low)],)),
                (f"uniform (0, {top:g})", (uniform(dtype, 1e-6, top, m, seed + 1, **draw),)),
                (f"uniform ({low:g}, 0)", (uniform(dtype, low, -1e-6, m, seed + 2, **draw),)),
                ("|x| log-uniform in 2^[-60, 5]", (log_uniform(dtype, -60, 5, m, seed + 3, **draw),)),
                ("x near 0.5, 1, 1.5, 2, 2.5, 10, 12",
                 (np.concatenate([uniform(dtype, c * 0.97, c * 1.03, m // 7, seed + 4 + k, **draw)
                                  for k, c in enumerate((0.5, 1, 1.5, 2, 2.5, 10, 12))]),)),
                (f"edge values, x > {low:g}", (edge[~(edge <= low)],))]
    if name == "erfcinv":
        p = 1074 if dtype == np.float64 else 149
        if dtype == np.float64:
            m = max(m // 4, 1)  # its mpmath reference (a Newton step on erfc) is the slow part
        tiny = log_uniform(np.float64, -p, 0, m, seed + 2, signed=False, **draw).astype(dtype)
        return [("random bits", (bits,)), ("uniform [0, 2]", (uniform(dtype, 0, 2, m, seed + 1, **draw),)),
                (f"x log-uniform in 2^[-{p}, 0]", (tiny,)),
                ("2 - x log-uniform in 2^[-p, 0]",
                 ((2 - log_uniform(np.float64, -53 if dtype == np.float64 else -24, 0, m, seed + 3,
                                   signed=False, **draw)).astype(dtype),)),
                ("edge values", (edge_values(dtype),))]
    if name == "erfinv":
        edge = edge_values(dtype)
        near1 = 1 - log_uniform(np.float64, -53 if dtype == np.float64 else -24, -1, m, seed + 3, signed=False, **draw)
        return [("random bits", (bits,)), ("uniform [-1, 1]", (uniform(dtype, -1, 1, m, seed + 1, **draw),)),
                ("|x| log-uniform in 2^[-60, 0]", (log_uniform(dtype, -60, 0, m, seed + 2, **draw),)),
                ("1 - x log-uniform in 2^[-p, -1]", (near1.astype(dtype),)), ("edge values", (edge,))]
    focus = {"exp": (-750, 750), "expm1": (-50, 90), "log": (0, 10), "log1p": (-1, 4),
             "tanh": (-20, 20), "sigmoid": (-750, 100), "softplus": (-750, 100),
             "sqrt": (0, 100), "erf": (-6, 6), "erfc": (-6, 28), "arctan": (-5, 5)}[name]
    sets = [("random bits", (bits,)),
            (f"uniform [{focus[0]}, {focus[1]}]", (uniform(dtype, *focus, m, seed + 1, **draw),)),
            ("|x| log-uniform in 2^[-60, 8]", (log_uniform(dtype, -60, 8, m, seed + 2, **draw),)),
            ("edge values", (edge_values(dtype),))]
    if name in ("log1p", "expm1", "tanh"):
        sets.append(("|x| < 1e-3", (uniform(dtype, -1e-3, 1e-3, m, seed + 3, **draw),)))
    if name == "exp":  # where the two-factor scaling matters: denormal results, overflow
        lo, den, hi = (-104, -87, 89) if dtype == np.float32 else (-746, -708, 710)
        edge = np.concatenate([uniform(dtype, lo, den, m // 2, seed + 4, **draw),
                               uniform(dtype, hi - 2, hi, m // 2, seed + 5, **draw)])
        sets.append((f"x in [{lo}, {den}] or [{hi - 2}, {hi}]", (edge,)))
    if name == "tanh":  # where the polynomial hands over to 1 - 2/(e^2x + 1)
        signs = np.where(np.arange(m) % 2, 1, -1).astype(dtype)
        sets.append(("|x| in [0.45, 0.65]", (uniform(dtype, 0.45, 0.65, m, seed + 4, **draw) * signs,)))
    if name in ("sigmoid", "softplus"):
        sets.append(("uniform [-20, 20]", (uniform(dtype, -20, 20, m, seed + 4, **draw),)))
    if name == "arctan":  # where one interval of the reduction hands over to the next
        ends = np.concatenate([uniform(dtype, c * 0.97, c * 1.03, m // 4, seed + 4 + k, **draw)
                               for k, c in enumerate((7 / 16, 11 / 16, 19 / 16, 39 / 16))])
        signs = np.where(np.arange(ends.size) % 2, 1, -1).astype(dtype)
        sets.append(("|x| near 7/16, 11/16, 19/16, 39/16", (ends * signs,)))
    if name in ("erf", "erfc"):  # where one piece hands over to the next
        ends = np.concatenate([uniform(dtype, c - 0.05, c + 0.05, m // 3, seed + 4 + k, **draw)
                               for k, c in enumerate((0.75, 2.0, 4.0))])
        sets.append(("|x| near 0.75, 2, 4", (ends * np.where(np.arange(ends.size) % 2, 1, -1).astype(dtype),)))
    return sets
