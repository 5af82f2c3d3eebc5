"""Minimax polynomial fits for the inline math (a developer tool; backends never import it).

The coefficient tables in ``mathlib_exp_log.py`` and ``mathlib_activation.py`` come from here:

    python -m irc.codegen_llvm.mathlib_remez            # prints every table with its error
    python -m irc.codegen_llvm.mathlib_remez --erf      # the erf/erfc tables (mathlib_erf.py)
    python -m irc.codegen_llvm.mathlib_remez --gamma    # lgamma/psi kernels (mathlib_gamma.py)
    python -m irc.codegen_llvm.mathlib_remez --erfinv   # erfinv (mathlib_erfinv.py)
    python -m irc.codegen_llvm.mathlib_remez --atan     # arctan's kernel (mathlib_atan.py)
    python -m irc.codegen_llvm.mathlib_remez --erfcx    # erfcx below 0.75 (mathlib_erfcx.py)

``fit`` runs the Remez exchange in mpmath (60 digits) on a weighted error
``w(x) * (f(x) - fixed(x) - sum c_j x^p_j)`` (relative error by default), so the fitted error
is not limited by float64; ``fit_rounded`` then rounds the coefficients to the target format
one at a time, from the lowest power up, re-optimizing the higher ones after each rounding
(a linear program on a dense grid, scipy) so that they absorb it.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Sequence

import mpmath as mp
import numpy as np

DPS = 60  # decimal digits for every fit

Fn = Callable[[mp.mpf], mp.mpf]


@dataclass
class Fit:
    coeffs: list[float]  # one per power, already rounded where asked
    powers: list[int]
    max_err: float  # max weighted error over the interval (with the coefficients as given)
    exact: list = field(default_factory=list, repr=False)  # unrounded (mpf), from ``fit``


def _precise(fn: Callable) -> Callable:
    """Run ``fn`` at DPS digits without touching mpmath's global precision."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with mp.workdps(DPS):
            return fn(*args, **kwargs)

    return wrapper


def _relative(f: Fn) -> Fn:
    """The weight 1/|f| of a relative error (at x = 0 taken just beside it)."""
    return lambda x: 1 / abs(f(x if x != 0 else mp.mpf(2) ** -200))


def _basis(x: mp.mpf, powers: Sequence[int]) -> list[mp.mpf]:
    return [x ** p for p in powers]


def _err(f: Fn, fixed: Fn, w: Fn, powers: Sequence[int], c: Sequence[mp.mpf], x: mp.mpf) -> mp.mpf:
    return w(x) * (f(x) - fixed(x) - mp.fsum(ci * bi for ci, bi in zip(c, _basis(x, powers))))


def _extrema(e: Callable[[mp.mpf], mp.mpf], lo: float, hi: float, n: int,
             grid: int) -> list[mp.mpf]:
    """n alternating extrema of e on [lo, hi], found on a dense Chebyshev-like grid."""
    xs = [mp.mpf(lo) + (mp.mpf(hi) - lo) * (1 - mp.cos(mp.pi * i / (grid - 1))) / 2
          for i in range(grid)]
    es = [e(x) for x in xs]
    # one candidate per run of equal sign: its largest |e|
    cands: list[tuple[mp.mpf, mp.mpf]] = []
    for x, v in zip(xs, es):
        if cands and mp.sign(v) == mp.sign(cands[-1][1]):
            if abs(v) > abs(cands[-1][1]):
                cands[-1] = (x, v)
        else:
            cands.append((x, v))
    while len(cands) > n:  # drop the smallest at either end (keeps alternation)
        if abs(cands[0][1]) < abs(cands[-1][1]):
            cands.pop(0)
        else:
            cands.pop()
    if len(cands) < n:
        raise ValueError(f"Remez: found {len(cands)} alternations, need {n}")
    return [x for x, _ in cands]


@_precise
def fit(f: Fn, lo: float, hi: float, powers: Sequence[int], fixed: Fn = lambda x: 0,
        weight: Fn | None = None, iterations: int = 40, grid: int = 2000,
        floor: float = 1 / 16) -> Fit:
    """Minimax coefficients for ``powers`` (an arithmetic progression m, m+s, ...).

    The error w*(f - fixed - x^m*Q(x^s)) is fitted as (w*x^m) * (g - Q(x^s)) with
    g = (f - fixed)/x^m, so that the basis is a plain polynomial (a Haar system) even when
    the error vanishes to high order at 0 (exp: 1 + r fixed; tanh: odd powers).  The factor
    x^m is floored at (floor*(hi-lo))^m: a weight that vanishes inside the interval breaks the
    alternation theorem, and the error near 0 is far below the level anyway."""
    w = weight or _relative(f)
    m, n = powers[0], len(powers)
    s = powers[1] - powers[0] if n > 1 else 1
    if list(powers) != [m + s * j for j in range(n)]:
        raise ValueError("powers must be an arithmetic progression")

    def g(x: mp.mpf) -> mp.mpf:
        if x == 0:
            x = mp.mpf(2) ** -200
        with mp.workdps(DPS * 3):
            return (f(x) - fixed(x)) / x ** m

    x0 = mp.mpf(floor) * (mp.mpf(hi) - lo)

    def wg(x: mp.mpf) -> mp.mpf:
        if abs(x) < x0:
            x = x0 if x >= 0 else -x0
        return w(x) * abs(x) ** m

    def err(c: Sequence[mp.mpf], x: mp.mpf) -> mp.mpf:
        return wg(x) * (g(x) - mp.polyval(list(reversed(c)), x ** s))

    xs = [mp.mpf(lo) + (mp.mpf(hi) - lo) * (1 - mp.cos(mp.pi * i / n)) / 2
          for i in range(n + 1)]
    c: list[mp.mpf] = []
    for _ in range(iterations):
        rows = [[x ** (s * j) for j in range(n)] + [(-1) ** i / wg(x)] for i, x in enumerate(xs)]
        sol = mp.lu_solve(mp.matrix(rows), mp.matrix([g(x) for x in xs]))
        c = [sol[i] for i in range(n)]
        lev = abs(sol[n])
        xs = _extrema(lambda x: err(c, x), lo, hi, n + 1, grid)
        worst = max(abs(err(c, x)) for x in xs)
        if worst <= lev * (1 + mp.mpf(2) ** -12):
            break
    return Fit([float(ci) for ci in c], list(powers),
               max_error(f, lo, hi, powers, c, fixed, w, grid), exact=c)


@_precise
def max_error(f: Fn, lo: float, hi: float, powers: Sequence[int], coeffs: Sequence,
              fixed: Fn = lambda x: 0, weight: Fn | None = None, grid: int = 3000) -> float:
    w = weight or _relative(f)
    c = [mp.mpf(ci) for ci in coeffs]
    xs = [mp.mpf(lo) + (mp.mpf(hi) - lo) * i / (grid - 1) for i in range(grid)]
    return float(max(abs(_err(f, fixed, w, powers, c, x)) for x in xs if x != 0))


def round_to(value: float, dtype) -> float:
    return float(np.asarray(value, dtype=np.float64).astype(dtype))


def _lp_correct(f: Fn, lo: float, hi: float, powers: Sequence[int], coeffs: Sequence,
                free: Sequence[int], fixed: Fn, w: Fn, grid: int = 2000) -> list[mp.mpf]:
    """Change the coefficients at indices ``free`` to minimize the max weighted error on a
    dense grid (a linear program in the corrections: works for any basis, Haar or not)."""
    from scipy.optimize import linprog

    c = [mp.mpf(ci) for ci in coeffs]
    xs = [mp.mpf(lo) + (mp.mpf(hi) - lo) * (1 - mp.cos(mp.pi * i / (grid - 1))) / 2
          for i in range(grid)]
    e0 = np.array([float(_err(f, fixed, w, powers, c, x)) for x in xs])
    scale = float(np.max(np.abs(e0))) or 1.0
    phi = np.array([[float(w(x) * x ** powers[j]) for j in free] for x in xs])
    col = np.max(np.abs(phi), axis=0)
    phi = phi / col
    # variables: the corrections, d_j * col_j / scale, and the level t (in units of scale)
    n = len(free)
    ones = np.ones((grid, 1))
    a_ub = np.vstack([np.hstack([-phi, -ones]), np.hstack([phi, -ones])])
    b_ub = np.concatenate([-e0 / scale, e0 / scale])
    cost = np.zeros(n + 1)
    cost[-1] = 1.0
    res = linprog(cost, A_ub=a_ub, b_ub=b_ub, bounds=[(None, None)] * n + [(0, None)],
                  method="highs")
    if not res.success:
        raise RuntimeError(f"minimax LP failed: {res.message}")
    for k, j in enumerate(free):
        c[j] += mp.mpf(float(res.x[k])) * mp.mpf(scale) / mp.mpf(float(col[k]))
    return c


@_precise
def fit_rounded(f: Fn, lo: float, hi: float, powers: Sequence[int], dtype,
                fixed: Fn = lambda x: 0, weight: Fn | None = None) -> Fit:
    """``fit``, then round the coefficients to ``dtype`` lowest power first; after each
    rounding the higher ones are re-optimized (``_lp_correct``) to absorb it."""
    w = weight or _relative(f)
    c = list(fit(f, lo, hi, powers, fixed, weight).exact)
    for i in range(len(powers)):
        c[i] = mp.mpf(round_to(float(c[i]), dtype))
        if i + 1 < len(powers):
            c = _lp_correct(f, lo, hi, powers, c, range(i + 1, len(powers)), fixed, w)
    done = [float(ci) for ci in c]
    return Fit(done, list(powers), max_error(f, lo, hi, powers, done, fixed, weight))


def _show(name: str, fit_: Fit, digits: int) -> None:
    print(f"# {name}: max rel error {fit_.max_err:.3e} (2^{np.log2(fit_.max_err):.1f})")
    print("(" + ", ".join(f'"{_hex(c, digits)}"' for c in fit_.coeffs) + ")")


def _hex(c: float, digits: int) -> str:
    """float.hex trimmed to ``digits`` hex digits after the point (f32: 6, f64: 13)."""
    h = float.hex(c)
    mant, exp = h.split("p")
    head, frac = mant.split(".")
    return f"{head}.{frac[:digits]}p{exp}"


def tables() -> dict[str, tuple[Fit, int]]:
    """Every table the emitters use, by name: (fit, hex digits of its format)."""
    half_ln2 = float(mp.log(2) / 2) * (1 + 2 ** -10)  # rint ties and the reduction's rounding
    one_plus_r = lambda x: 1 + x  # noqa: E731
    ident = lambda x: x  # noqa: E731
    two_s = lambda s: 2 * s  # noqa: E731
    odd = [3 + 2 * j for j in range(11)]
    return {
        "EXP_P f32: exp(r) = 1 + r + sum c_j r^j, j = 2..6, |r| <= ln2/2":
            (fit_rounded(mp.exp, -half_ln2, half_ln2, range(2, 7), np.float32, one_plus_r), 6),
        "EXP_P f64: exp(r) = 1 + r + sum c_j r^j, j = 2..11, |r| <= ln2/2":
            (fit_rounded(mp.exp, -half_ln2, half_ln2, range(2, 12), np.float64, one_plus_r), 13),
        "TANH_P f32: tanh(a) = a + sum c_j a^(2j+3), a in [0, 0.55]":
            (fit_rounded(mp.tanh, 0, 0.55, odd[:5], np.float32, ident), 6),
        "TANH_P f64: tanh(a) = a + sum c_j a^(2j+3), a in [0, 0.55]":
            (fit_rounded(mp.tanh, 0, 0.55, odd, np.float64, ident), 13),
        "LOG1P_Q_F32: log1p(f) = f + sum c_j f^j, j = 2..10, f in [-1/4, 1/2]":
            (fit_rounded(mp.log1p, -0.25, 0.5, range(2, 11), np.float32, ident), 6),
        "LOG1P_R_F64: 2 atanh(s) = 2s + sum c_j s^(2j+3), |s| <= 0.2":
            (fit_rounded(lambda s: 2 * mp.atanh(s), 0, 0.2001, odd[:8], np.float64, two_s), 13),
    }


def _erfcx_centered(center: float) -> Fn:
    return lambda v: mp.erfc(v + center) * mp.exp((v + center) ** 2)


def _erfcx_asymptotic(u: mp.mpf) -> mp.mpf:
    """a erfcx(a) as a function of u = 1/a^2."""
    a = 1 / mp.sqrt(u)
    return a * mp.erfc(a) * mp.exp(a * a)


def erf_tables() -> dict[str, tuple[Fit, int]]:
    """The tables of ``mathlib_erf.py`` (slower: a few minutes for the f64 ones)."""
    ident = lambda x: x  # noqa: E731
    odd = [1 + 2 * j for j in range(11)]
    return {
        "ERF_P f32: erf(x) = x + sum c_j x^(2j+1), x in [0, 0.75]":
            (fit_rounded(mp.erf, 0, 0.75, odd[:7], np.float32, ident), 6),
        "ERF_P f64": (fit_rounded(mp.erf, 0, 0.75, odd, np.float64, ident), 13),
        "ERFCX f32 [0.75, 2]: erfcx(1.375 + v)":
            (fit_rounded(_erfcx_centered(1.375), -0.625, 0.625, range(9), np.float32), 6),
        "ERFCX f32 [2, 10.1]: a erfcx(a) in u = 1/a^2":
            (fit_rounded(_erfcx_asymptotic, 1 / 10.1 ** 2, 0.25, range(10), np.float32), 6),
        "ERFCX f64 [0.75, 2]": (fit_rounded(_erfcx_centered(1.375), -0.625, 0.625, range(20), np.float64), 13),
        "ERFCX f64 [2, 4]: erfcx(3 + v)": (fit_rounded(_erfcx_centered(3.0), -1, 1, range(18), np.float64), 13),
        "ERFCX f64 [4, 27.25]: a erfcx(a) in u = 1/a^2":
            (fit_rounded(_erfcx_asymptotic, 1 / 27.25 ** 2, 1 / 16, range(14), np.float64), 13),
    }


def gamma_tables() -> dict[str, tuple[Fit, int]]:
    """The kernels of ``mathlib_gamma.py``: lgamma(2 + v) = v P(v) on |v| <= 1/2 and
    psi(x0 + v) = v P(v) on [1, 2], x0 the positive root of psi."""
    with mp.workdps(DPS):
        x0 = mp.findroot(mp.digamma, 1.46)
    lgamma = lambda v: mp.loggamma(2 + v)  # noqa: E731
    psi = lambda v: mp.digamma(x0 + v)  # noqa: E731
    lo, hi = float(1 - x0), float(2 - x0)
    return {
        "LGAMMA_P f32": (fit_rounded(lgamma, -0.5, 0.5, range(1, 11), np.float32), 6),
        "LGAMMA_P f64": (fit_rounded(lgamma, -0.5, 0.5, range(1, 21), np.float64), 13),
        "PSI_P f32": (fit_rounded(psi, lo, hi, range(1, 11), np.float32), 6),
        "PSI_P f64": (fit_rounded(psi, lo, hi, range(1, 23), np.float64), 13),
    }


def _erfinv_over_x(w: mp.mpf) -> mp.mpf:
    """erfinv(x)/x as a function of w = -log(1 - x^2) (sqrt(pi)/2 at w = 0)."""
    if w <= 0:
        return mp.sqrt(mp.pi) / 2
    x = mp.sqrt(-mp.expm1(-w))
    return mp.erfinv(x) / x


def erfinv_tables() -> dict[str, tuple[Fit, int]]:
    """The tables of ``mathlib_erfinv.py`` (float32; float64 refines them by Newton steps):
    P(w - 2.5) for w < 5, Q(sqrt(w) - 3) up to the last float32 below 1 (sqrt(w) = 4.1).
    Slow: mpmath's erfinv at 180 digits, several minutes."""
    central = lambda v: _erfinv_over_x(v + 2.5)  # noqa: E731
    tail = lambda v: _erfinv_over_x((v + 3) ** 2)  # noqa: E731
    lo = float(mp.sqrt(5)) - 3
    return {
        "ERFINV_P (float32)": (fit_rounded(central, -2.5, 2.5, range(10), np.float32), 6),
        "ERFINV_Q (float32)": (fit_rounded(tail, lo, 4.1 - 3, range(10), np.float32), 6),
    }


def atan_tables() -> dict[str, tuple[Fit, int]]:
    """The arctan kernel of ``mathlib_atan.py``: arctan(t) = t + sum c_j t^(2j+3), |t| <= 7/16."""
    ident = lambda x: x  # noqa: E731
    odd = [3 + 2 * j for j in range(11)]
    return {
        "ATAN_P f32": (fit_rounded(mp.atan, 0, 0.4375, odd[:5], np.float32, ident), 6),
        "ATAN_P f64": (fit_rounded(mp.atan, 0, 0.4375, odd, np.float64, ident), 13),
    }


def erfcx_tables() -> dict[str, tuple[Fit, int]]:
    """erfcx(a) = 1 + a P(a) on [0, 0.75] (``mathlib_erfcx.py``; the f64 fit takes minutes)."""
    erfcx = lambda x: mp.erfc(x) * mp.exp(x * x)  # noqa: E731
    one = lambda x: 1  # noqa: E731
    return {
        "ERFCX_NEAR f32": (fit_rounded(erfcx, 0, 0.75, range(1, 9), np.float32, one), 6),
        "ERFCX_NEAR f64": (fit_rounded(erfcx, 0, 0.75, range(1, 16), np.float64, one), 13),
    }


def main() -> None:
    import sys
    chosen = (erf_tables() if "--erf" in sys.argv else gamma_tables() if "--gamma" in sys.argv
              else erfinv_tables() if "--erfinv" in sys.argv else atan_tables() if "--atan" in sys.argv
              else erfcx_tables() if "--erfcx" in sys.argv else tables())
    for name, (fit_, digits) in chosen.items():
        _show(name, fit_, digits)


if __name__ == "__main__":
    main()
