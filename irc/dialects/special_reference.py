"""Float64 references (Python has none, and scipy is not a dependency) of the elementwise
table's Bessel functions J_v, I_v and of chi2sf: the numpy semantics the reference evaluator
runs. The same algorithms as the math library's (codegen_llvm/mathlib_bessel.py,
mathlib_chi2sf.py; their docstrings give the reasons), on Python floats, with the same domain:
|v| <= 10 and 0 < k <= 100, NaN beyond."""
from __future__ import annotations

import math

V_MAX = 10.0
A_MAX = 50.0


def _series(v: float, a: float, sign: float, terms: int) -> float:
    q, t, s = sign * a * a / 4, 1.0, 1.0
    for k in range(1, terms):
        t = t * q / (k * (v + k))
        s += t
    try:
        lead = math.pow(a / 2, v) if a > 0 or v >= 0 else math.inf
    except OverflowError:
        lead = math.inf
    gamma = 1.0 if v == 0 else v * math.gamma(v)
    return lead / gamma * s


def _miller_j(v: float, a: float, n_top: int = 64) -> float:
    m = math.floor(v)
    nu = v - m
    weights, rising = [1.0], 1.0
    for k in range(1, n_top // 2 + 1):
        if k > 1:
            rising *= (nu + k - 1) / k
        weights.append((nu + 2 * k) * rising)
    after, f = 0.0, 1.0
    total, out = weights[n_top // 2] * f, 0.0
    for n in range(n_top, -int(V_MAX), -1):
        after, f = f, 2 * (nu + n) / a * f - after
        if n - 1 >= 0 and (n - 1) % 2 == 0:
            total += weights[(n - 1) // 2] * f
        if n - 1 == m:
            out = f
    return out * math.pow(a / 2, nu) / math.gamma(nu + 1) / total


def _asymptotic_terms(v: float, a: float, count: int = 20) -> list[float]:
    terms = [1.0]
    for k in range(1, count):
        terms.append(terms[-1] * (4 * v * v - (2 * k - 1) ** 2) / (8 * a * k))
    return terms


def _hankel_j(v: float, a: float) -> float:
    t = _asymptotic_terms(v, a)
    p = sum(x * (1 if k % 4 == 0 else -1) for k, x in enumerate(t) if k % 2 == 0)
    q = sum(x * (1 if k % 4 == 1 else -1) for k, x in enumerate(t) if k % 2 == 1)
    phase = (v / 2 + 0.25) * math.pi
    cos_chi = math.cos(a) * math.cos(phase) + math.sin(a) * math.sin(phase)
    sin_chi = math.sin(a) * math.cos(phase) - math.cos(a) * math.sin(phase)
    return math.sqrt(2 / (math.pi * a)) * (p * cos_chi - q * sin_chi)


def _asymptotic_i(v: float, a: float) -> float:
    s = sum(x * (-1) ** k for k, x in enumerate(_asymptotic_terms(v, a)))
    half = math.exp(a / 2) if a < 1419 else math.inf
    return half * (half * s / math.sqrt(2 * math.pi * a))


def _bessel(v: float, x: float, kind: str) -> float:
    if math.isnan(v) or math.isnan(x) or not abs(v) <= V_MAX:
        return math.nan
    integer = v == math.floor(v)
    if x < 0 and not integer:
        return math.nan
    order = -v if integer and v < 0 else v
    a = abs(x)
    if kind == "J":
        if a == math.inf:
            value = 0.0
        elif a < 2:
            value = _series(order, a, -1.0, 20)
        else:
            value = _miller_j(order, a) if a < 25 else _hankel_j(order, a)
        flip = (integer and v < 0) != (x < 0)
    else:
        value = math.inf if a == math.inf else _series(order, a, 1.0, 50) if a < 25 else _asymptotic_i(order, a)
        flip = x < 0
    odd = integer and int(order) % 2 == 1
    return -value if odd and flip else value


def bessel_j(v: float, x: float) -> float:
    """J_v(x) of real order |v| <= 10 (NaN for x < 0 and a non-integer order, as scipy's jv)."""
    return _bessel(v, x, "J")


def bessel_i(v: float, x: float) -> float:
    """I_v(x) of real order |v| <= 10 (NaN for x < 0 and a non-integer order, as scipy's iv)."""
    return _bessel(v, x, "I")


def chi2_sf(x: float, k: float) -> float:
    """P(X > x), X chi-squared with 0 < k <= 100 degrees of freedom: Q(k/2, x/2)."""
    a, z = k / 2, x / 2
    if math.isnan(x) or not 0 < a <= A_MAX:
        return math.nan
    if z <= 0:
        return 1.0
    if z == math.inf:
        return 0.0
    scaled = math.exp(a * math.log(z) - z - math.lgamma(a + 1))
    if z < a + 1:
        term = total = 1.0
        for n in range(1, 96):
            term *= z / (a + n)
            total += term
        return 1 - scaled * total
    fraction = z + 193 - a
    for i in range(96, 0, -1):
        fraction = (z + 2 * i - 1 - a) + (-i * (i - a)) / fraction
    return scaled * a / fraction
