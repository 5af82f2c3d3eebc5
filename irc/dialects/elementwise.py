"""The table of elementwise operations: the single source for `scalar.<name>` and `tensor.<name>`.

Each row (`Elementwise`) gives what every level needs to know about one scalar function: its
arity, a numpy reference (the semantics), the result-dtype rule, which element kinds it takes,
its derivative and its scalar form. Adding an op is adding one row to `TABLE`; the dialects,
the reference evaluator and the tests pick it up.

Expressions (`Expr`) are data, so the frontend can build them without this module knowing it:
an expression is a symbol (`"x"`, `"y"`, `"z"` for the inputs, `"out"` for the result, `"gz"`
for the incoming gradient), a float constant, or a tuple `(op_name, *args)` over this table's
op names. A derivative gives one expression per input: the gradient flowing to that input
(before the frontend sums it over broadcast dimensions); a constant expression means that
constant broadcast to the input's shape (`0.0`: zero almost everywhere, e.g. `floor`); `None`
means no gradient flows to that input at all (comparisons, logical ops, `select`'s condition).
`expansion`, where given, writes a composite op over simpler rows: the scalar form a backend
may lower instead of the op itself (`relu` = `maximum(x, 0.0)`).

Rounding: `round` rounds half to even (numpy's `rint`, and Theano's `round_half_to_even`, the
default since Theano 0.9); `round_away` rounds half away from zero (`round_half_away_from_zero`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Mapping, Sequence, Union

import numpy as np

from ..ir.types import ScalarType, c64, c128, f32, f64, i1, scalar_from_numpy
from .special_reference import bessel_i, bessel_j, chi2_sf

Expr = Union[str, float, tuple]
SYMBOLS = ("x", "y", "z", "out", "gz")
INPUT_SYMBOLS = ("x", "y", "z")


@dataclass(frozen=True)
class Elementwise:
    """One elementwise op. `kinds` lists accepted element kinds: f(loat), i(nteger), b(ool),
    c(omplex). `result`: "same" (the operands' type), "bool" (i1: comparisons), "real" (a
    complex operand's component type, a real one's own: abs, real, imag, angle), "complex"
    (the complex type of float operands: complex, complex_from_polar)."""

    name: str
    arity: int
    reference: Callable[..., np.ndarray]
    derivative: tuple[Expr | None, ...]
    result: str = "same"          # "same": the inputs' type; "bool": i1 (comparisons)
    kinds: str = "fi"
    commutative: bool = False
    expansion: Expr | None = None

    @property
    def float_only(self) -> bool:
        return not set(self.kinds) - set("fc")

    @property
    def integer_only(self) -> bool:
        return "f" not in self.kinds

    @property
    def is_comparison(self) -> bool:
        return self.result == "bool"

    @property
    def scalar_name(self) -> str:
        return f"scalar.{self.name}"

    @property
    def tensor_name(self) -> str:
        return f"tensor.{self.name}"

    @property
    def value_operands(self) -> range:
        """Indices of the operands whose types must agree (all but `select`'s condition)."""
        return range(1, 3) if self.name == "select" else range(self.arity)


# ---------------------------------------------------------------------------- numpy references
def _sigmoid(x):
    x = np.asarray(x)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _softplus(x):
    x = np.asarray(x)
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def _relu(x):
    return np.maximum(x, 0)


def _round_away(x):
    x = np.asarray(x)
    t = np.trunc(x)
    return t + np.where(np.abs(x - t) >= 0.5, np.sign(x), 0)


def _logical_not(x):
    return np.logical_not(x)


def _per_element(fn: Callable[[float], float]) -> Callable:
    """A Python float function applied to every element, keeping the input's float dtype
    (math.erf and math.erfc are correctly rounded to within an ulp in float64)."""
    ufunc = np.frompyfunc(fn, 1, 1)

    def apply(x):
        x = np.asarray(x)
        return np.asarray(ufunc(x)).astype(x.dtype if x.dtype.kind == "f" else np.float64)
    apply.__name__ = fn.__name__
    return apply


_TWO_OVER_SQRT_PI = 1.1283791670955126  # d erf / dx = 2/sqrt(pi) exp(-x^2)
_HALF_EXP_SQUARED = ("mul", ("exp", ("mul", 0.5, ("abs", "x"))), ("mul", 0.5, ("exp", ("mul", 0.5, ("abs", "x")))))


_DEG, _RAD = math.pi / 180.0, 180.0 / math.pi


def _erfinv(y: float) -> float:
    """erfinv in float64 (Python has none): Newton's method on erf (|y| < 1/2) or on erfc
    against 1 - |y|, which is exact there, so the tail keeps its relative accuracy."""
    if math.isnan(y) or abs(y) > 1:
        return math.nan
    if abs(y) == 1:
        return math.copysign(math.inf, y)
    a = abs(y)
    x = math.sqrt(-math.log((1 - a) * (1 + a)))  # a start within a factor ~1.2 (Giles)
    x = x * 0.8 if a > 0.5 else a * math.sqrt(math.pi) / 2
    for _ in range(60):
        slope = 2 / math.sqrt(math.pi) * math.exp(-x * x)
        step = (math.erf(x) - a) / slope if a <= 0.5 else -(math.erfc(x) - (1 - a)) / slope
        x -= step
        if abs(step) <= 1e-17 * x:
            break
    return math.copysign(x, y)


def _erfcinv(x: float) -> float:
    """erfcinv in float64: erfinv(1 - x) where 1 - x is exact (x >= 1/2, and 2 - x for x > 1),
    else Newton's method on erfc — in logs below the normal range, through erfc's asymptotic
    series (erfc itself is denormal there)."""
    if math.isnan(x) or not 0 <= x <= 2:
        return math.nan
    if x > 1:
        return -_erfcinv(2 - x)
    if x == 0:
        return math.inf
    if x >= 0.5:
        return _erfinv(1 - x)
    r = math.sqrt(-math.log(x))
    for _ in range(100):
        if x > 1e-300:
            step = (math.erfc(r) - x) / (2 / math.sqrt(math.pi) * math.exp(-r * r))
        else:
            u = 0.5 / (r * r)
            series = 1 + sum((-1) ** k * math.prod(range(1, 2 * k, 2)) * u ** k for k in range(1, 9))
            log_erfc = -r * r - math.log(r * math.sqrt(math.pi)) + math.log(series)
            step = (log_erfc - math.log(x)) / (2 * r + 1 / r)
        r += step
        if abs(step) <= 2e-16 * r:  # Newton doubles the digits: one more step is below an ulp
            break
    return r


def _gamma(x: float) -> float:
    """Gamma with scipy's values at the poles: +-inf at +-0, NaN at the negative integers and
    -inf; +inf on overflow."""
    if math.isnan(x) or x == -math.inf or (x < 0 and x == math.floor(x)):
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    try:
        return math.gamma(x)
    except OverflowError:
        return math.inf


def _lgamma(x: float) -> float:
    """log |Gamma(x)| with scipy's values at the poles (+inf) and at -inf (-inf)."""
    if x == -math.inf:
        return -math.inf
    try:
        return math.lgamma(x)
    except ValueError:
        return math.inf


def _digamma(x: float) -> float:
    """psi(x) in float64 (Python has none): reflection below 1/2, the recurrence up to 20 (an
    exact sum), then the asymptotic series (about 1e-15 relative, absolute near the root
    1.4616...)."""
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    if x == 0:
        return math.copysign(math.inf, -x)
    if x <= 0 and x == math.floor(x):
        return math.nan
    if x < 0.5:
        return _digamma(1 - x) - math.pi / math.tan(math.pi * x)
    terms = []
    while x < 20:
        terms.append(-1 / x)
        x += 1
    t = 1 / (x * x)
    series = t * (1 / 12 - t * (1 / 120 - t * (1 / 252 - t * (1 / 240 - t * (1 / 132 - t * 691 / 32760)))))
    return math.fsum(terms + [math.log(x), -0.5 / x, -series])


def _square_parts(x: float) -> tuple[float, float]:
    """(hi, lo) with hi + lo = x² exactly (Dekker's split; |x| < 1e150)."""
    big = x * 134217729.0  # 2^27 + 1
    xh = big - (big - x)
    xl = x - xh
    hi = x * x
    return hi, ((xh * xh - hi) + 2 * xh * xl) + xl * xl


def _erfcx(x: float) -> float:
    """exp(x²)·erfc(x) in float64 (Python has none), to a few ulp: exp of the exact square
    (hi + lo) times math.erfc below 26; the asymptotic series beyond (erfc underflows there);
    2·exp(x²) − erfcx(−x) for x < 0 (inf once it overflows)."""
    if math.isnan(x):
        return math.nan
    if x < 0:
        hi, lo = _square_parts(max(x, -27.0))
        try:
            return 2 * math.exp(hi) * (1 + lo) - _erfcx(-x)
        except OverflowError:
            return math.inf
    if x >= 26:
        u = 1 / (x * x)
        series = 1.0
        for k in range(7, 0, -1):  # sum_k (-1)^k (2k-1)!!/2^k u^k, k = 0..7, by Horner
            series = 1 - (2 * k - 1) / 2 * u * series
        return series / (x * math.sqrt(math.pi))
    hi, lo = _square_parts(x)
    return math.exp(hi) * (1 + lo) * math.erfc(x)


def _trigamma(x: float) -> float:
    """psi'(x) in float64 (Python has none), with scipy's values at the poles (+inf, -inf
    included): the recurrence up to 20 (an exact sum), then the asymptotic series to B_16;
    x <= 0 by the reflection pi^2/sin^2(pi x) - psi'(1 - x)."""
    if math.isnan(x):
        return math.nan
    if x == math.inf:
        return 0.0
    if x == -math.inf or x <= 0 and x == math.floor(x):
        return math.inf
    if x < 0:
        s = math.sin(math.pi * (x - round(x)))
        return (math.pi / s) ** 2 - _trigamma(1 - x)
    terms = []
    while x < 20:
        try:
            terms.append(1 / (x * x))
        except ZeroDivisionError:  # x * x underflowed
            return math.inf
        x += 1
    r = 1 / x
    series = 0.0
    for b2k in (-3617 / 510, 7 / 6, -691 / 2730, 5 / 66, -1 / 30, 1 / 42, -1 / 30, 1 / 6):
        series = series * r * r + b2k
    return math.fsum(terms + [r, r * r / 2, series * r ** 3])


def _per_pair(fn: Callable[[float, float], float]) -> Callable:
    """A Python function of two floats applied to every broadcast pair, in the operands'
    common float dtype (float64 for integers)."""
    ufunc = np.frompyfunc(fn, 2, 1)

    def apply(x, y):
        x, y = np.asarray(x), np.asarray(y)
        dtype = np.result_type(x, y)
        return np.asarray(ufunc(x, y)).astype(dtype if dtype.kind == "f" else np.float64)
    apply.__name__ = fn.__name__
    return apply


def _fma(x, y, z):
    """x·y + z rounded once: exactly, through float64, for float16 and float32 operands (their
    product is exact there, and so is the sum for float16); float64 operands round twice."""
    x, y, z = np.asarray(x), np.asarray(y), np.asarray(z)
    t = np.result_type(x, y, z)
    if t.kind == "f" and t.itemsize < 8:
        return (x.astype(np.float64) * y + z).astype(t)
    return x * y + z


def _power(x, y):
    """numpy's power: integers to negative integer powers raise numpy's ValueError ("Integers
    to negative integer powers are not allowed."), and so does compiled code, whose lowering
    checks the exponents first (conversion/tensor_to_loop/integer_power.py)."""
    return np.power(np.asarray(x), np.asarray(y))


# ---------------------------------------------------------------------------- the table
def _row(name: str, arity: int, reference: Callable, derivative, **kw) -> Elementwise:
    if arity == 1 and not (isinstance(derivative, tuple) and len(derivative) == 1):
        derivative = (derivative,)  # a unary row may give its one expression bare
    return Elementwise(name, arity, reference, derivative, **kw)


_ZERO = 0.0
_U = "f"  # float-only unary math

TABLE_ROWS: tuple[Elementwise, ...] = (
    # -- unary
    _row("neg", 1, np.negative, ("neg", "gz")),
    _row("abs", 1, np.abs, ("mul", "gz", ("sign", "x"))),
    _row("exp", 1, np.exp, ("mul", "gz", "out"), kinds=_U),
    _row("log", 1, np.log, ("div", "gz", "x"), kinds=_U),
    _row("log1p", 1, np.log1p, ("div", "gz", ("add", 1.0, "x")), kinds=_U),
    _row("expm1", 1, np.expm1, ("mul", "gz", ("add", "out", 1.0)), kinds=_U),
    _row("sqrt", 1, np.sqrt, ("div", "gz", ("mul", 2.0, "out")), kinds=_U),
    _row("sin", 1, np.sin, ("mul", "gz", ("cos", "x")), kinds=_U),
    _row("cos", 1, np.cos, ("neg", ("mul", "gz", ("sin", "x"))), kinds=_U),
    _row("tanh", 1, np.tanh, ("mul", "gz", ("sub", 1.0, ("square", "out"))), kinds=_U),
    _row("sigmoid", 1, _sigmoid, ("mul", "gz", ("mul", "out", ("sub", 1.0, "out"))), kinds=_U,
         expansion=("select", ("ge", "x", 0.0),
                    ("reciprocal", ("add", 1.0, ("exp", ("neg", "x")))),
                    ("div", ("exp", "x"), ("add", 1.0, ("exp", "x"))))),
    _row("softplus", 1, _softplus, ("mul", "gz", ("sigmoid", "x")), kinds=_U,
         expansion=("add", ("log1p", ("exp", ("neg", ("abs", "x")))), ("maximum", "x", 0.0))),
    _row("erf", 1, _per_element(math.erf),
         ("mul", "gz", ("mul", _TWO_OVER_SQRT_PI, ("exp", ("neg", ("square", "x"))))), kinds=_U),
    _row("erfc", 1, _per_element(math.erfc),
         ("neg", ("mul", "gz", ("mul", _TWO_OVER_SQRT_PI, ("exp", ("neg", ("square", "x")))))), kinds=_U),
    _row("erfinv", 1, _per_element(_erfinv),
         ("mul", "gz", ("mul", 0.886226925452758, ("exp", ("square", "out")))), kinds=_U),
    _row("erfcinv", 1, _per_element(_erfcinv),
         ("neg", ("mul", "gz", ("mul", 0.886226925452758, ("exp", ("square", "out"))))), kinds=_U),
    _row("erfcx", 1, _per_element(_erfcx),  # d/dx = 2x·erfcx(x) − 2/√π
         ("mul", "gz", ("sub", ("mul", ("mul", 2.0, "x"), "out"), _TWO_OVER_SQRT_PI)), kinds=_U),
    _row("gammaln", 1, _per_element(_lgamma), ("mul", "gz", ("psi", "x")), kinds=_U),
    _row("gamma", 1, _per_element(_gamma), ("mul", "gz", ("mul", "out", ("psi", "x"))), kinds=_U),
    _row("psi", 1, _per_element(_digamma), ("mul", "gz", ("tri_gamma", "x")), kinds=_U),
    _row("tri_gamma", 1, _per_element(_trigamma), None, kinds=_U),  # no gradient (as Theano)
    # Bessel functions of the first kind (codegen_llvm/mathlib_bessel.py): j0' = -j1,
    # j1' = (j0 - J_2)/2, i0' = i1, i1' = (i0 + I_2)/2; jv(v, x), iv(v, x) by x only (Theano: v's
    # gradient is undefined)
    _row("j0", 1, _per_element(lambda x: bessel_j(0.0, x)), ("neg", ("mul", "gz", ("j1", "x"))), kinds=_U),
    _row("j1", 1, _per_element(lambda x: bessel_j(1.0, x)),
         ("mul", "gz", ("mul", 0.5, ("sub", ("j0", "x"), ("jv", 2.0, "x")))), kinds=_U),
    _row("i0", 1, _per_element(lambda x: bessel_i(0.0, x)), ("mul", "gz", ("i1", "x")), kinds=_U),
    _row("i1", 1, _per_element(lambda x: bessel_i(1.0, x)),
         ("mul", "gz", ("mul", 0.5, ("add", ("i0", "x"), ("iv", 2.0, "x")))), kinds=_U),
    # hyperbolic and inverse hyperbolic functions, tan, as expansions over the rows above: where
    # a form would overflow early or cancel, another takes over (|x| ≥ 80: e·(e/2), e = exp(|x|/2);
    # |x| ≥ 2: log|x| + log1p(√(1 ± 1/x²)), no square of x; the odd ones on |x|), every form
    # computed and one selected; tan is sin/cos, as accurate as they are (within their reduced range)
    _row("sinh", 1, np.sinh, ("mul", "gz", ("cosh", "x")), kinds=_U,
         expansion=("select", ("lt", ("abs", "x"), 80.0),
                    ("mul", 0.5, ("sub", ("expm1", "x"), ("expm1", ("neg", "x")))),
                    ("mul", ("sign", "x"), _HALF_EXP_SQUARED))),
    _row("cosh", 1, np.cosh, ("mul", "gz", ("sinh", "x")), kinds=_U,
         expansion=("select", ("lt", ("abs", "x"), 80.0),
                    ("mul", 0.5, ("add", ("exp", "x"), ("exp", ("neg", "x")))),
                    _HALF_EXP_SQUARED)),
    _row("tan", 1, np.tan, ("mul", "gz", ("add", 1.0, ("square", "out"))), kinds=_U,
         expansion=("div", ("sin", "x"), ("cos", "x"))),
    _row("arcsinh", 1, np.arcsinh, ("div", "gz", ("sqrt", ("add", ("square", "x"), 1.0))), kinds=_U,
         expansion=("mul", ("sign", "x"), ("select", ("lt", ("abs", "x"), 2.0),
                                          ("log1p", ("add", ("abs", "x"), ("div", ("square", "x"),
                                                     ("add", 1.0, ("sqrt", ("add", 1.0, ("square", "x"))))))),
                                          ("add", ("log", ("abs", "x")),
                                           ("log1p", ("sqrt", ("add", 1.0, ("reciprocal", ("square", "x"))))))))),
    _row("arccosh", 1, np.arccosh, ("div", "gz", ("sqrt", ("sub", ("square", "x"), 1.0))), kinds=_U,
         expansion=("select", ("lt", "x", 2.0),
                    ("log1p", ("add", ("sub", "x", 1.0), ("mul", ("sqrt", ("sub", "x", 1.0)), ("sqrt", ("add", "x", 1.0))))),
                    ("add", ("log", "x"), ("log1p", ("sqrt", ("mul", ("sub", 1.0, ("reciprocal", "x")),
                                                            ("add", 1.0, ("reciprocal", "x")))))))),
    _row("arctanh", 1, np.arctanh, ("div", "gz", ("sub", 1.0, ("square", "x"))), kinds=_U,
         expansion=("mul", ("mul", 0.5, ("sign", "x")),
                    ("log1p", ("div", ("mul", 2.0, ("abs", "x")), ("sub", 1.0, ("abs", "x")))))),
    # inverse trigonometric functions: the math library's arctan kernel (codegen_llvm/mathlib_atan.py)
    _row("arctan", 1, np.arctan, ("div", "gz", ("add", 1.0, ("square", "x"))), kinds=_U),
    _row("arcsin", 1, np.arcsin, ("div", "gz", ("sqrt", ("sub", 1.0, ("square", "x")))), kinds=_U),
    _row("arccos", 1, np.arccos, ("neg", ("div", "gz", ("sqrt", ("sub", 1.0, ("square", "x"))))), kinds=_U),
    _row("trunc", 1, np.trunc, _ZERO, kinds=_U, expansion=("select", ("lt", "x", 0.0), ("ceil", "x"), ("floor", "x"))),
    _row("deg2rad", 1, np.deg2rad, ("mul", "gz", _DEG), kinds=_U, expansion=("mul", "x", _DEG)),
    _row("rad2deg", 1, np.rad2deg, ("mul", "gz", _RAD), kinds=_U, expansion=("mul", "x", _RAD)),
    _row("relu", 1, _relu, ("select", ("gt", "x", 0.0), "gz", 0.0),
         expansion=("maximum", "x", 0.0)),
    _row("sign", 1, np.sign, _ZERO),
    _row("floor", 1, np.floor, _ZERO, kinds=_U),
    _row("ceil", 1, np.ceil, _ZERO, kinds=_U),
    _row("round", 1, np.rint, _ZERO, kinds=_U),
    _row("round_away", 1, _round_away, _ZERO, kinds=_U),
    _row("reciprocal", 1, np.reciprocal, ("neg", ("mul", "gz", ("square", "out"))), kinds=_U,
         expansion=("div", 1.0, "x")),
    _row("square", 1, np.square, ("mul", "gz", ("mul", 2.0, "x")), expansion=("mul", "x", "x")),
    _row("logical_not", 1, _logical_not, (None,), kinds="b"),
    # -- binary arithmetic
    _row("add", 2, np.add, ("gz", "gz"), commutative=True),
    _row("sub", 2, np.subtract, ("gz", ("neg", "gz"))),
    _row("mul", 2, np.multiply, (("mul", "gz", "y"), ("mul", "gz", "x")), commutative=True),
    _row("div", 2, np.true_divide, (("div", "gz", "y"), ("neg", ("div", ("mul", "gz", "out"), "y"))),
         kinds="f"),
    _row("floordiv", 2, np.floor_divide, (_ZERO, _ZERO)),
    _row("mod", 2, np.mod, ("gz", ("neg", ("mul", "gz", ("floordiv", "x", "y"))))),
    _row("pow", 2, _power, (("mul", "gz", ("mul", "y", ("pow", "x", ("sub", "y", 1.0)))),
                              ("mul", "gz", ("mul", "out", ("log", "x"))))),
    # arctan2(a, b), the angle of the point (b, a): d/da = b/(a² + b²), d/db = −a/(a² + b²)
    # ("x" and "y" are the operands in order: here a and b)
    _row("arctan2", 2, np.arctan2, (("div", ("mul", "gz", "y"), ("add", ("square", "x"), ("square", "y"))),
                                    ("neg", ("div", ("mul", "gz", "x"), ("add", ("square", "x"), ("square", "y"))))),
         kinds="f"),
    # jv(v, x), iv(v, x): "x" is the order v, "y" the argument; chi2sf(x, k): no gradient (as Theano)
    _row("jv", 2, _per_pair(bessel_j), (None, ("mul", "gz", ("mul", 0.5, ("sub", ("jv", ("sub", "x", 1.0), "y"),
                                                                        ("jv", ("add", "x", 1.0), "y"))))),
         kinds="f"),
    _row("iv", 2, _per_pair(bessel_i), (None, ("mul", "gz", ("mul", 0.5, ("add", ("iv", ("sub", "x", 1.0), "y"),
                                                                        ("iv", ("add", "x", 1.0), "y"))))),
         kinds="f"),
    _row("chi2sf", 2, _per_pair(chi2_sf), (None, None), kinds="f"),
    _row("maximum", 2, np.maximum, (("select", ("ge", "x", "y"), "gz", 0.0),
                                    ("select", ("lt", "x", "y"), "gz", 0.0)),
         kinds="fib", commutative=True),
    _row("minimum", 2, np.minimum, (("select", ("le", "x", "y"), "gz", 0.0),
                                    ("select", ("gt", "x", "y"), "gz", 0.0)),
         kinds="fib", commutative=True),
    # -- bitwise on integers, logical on i1
    _row("and", 2, np.bitwise_and, (None, None), kinds="ib", commutative=True),
    _row("or", 2, np.bitwise_or, (None, None), kinds="ib", commutative=True),
    _row("xor", 2, np.bitwise_xor, (None, None), kinds="ib", commutative=True),
    # -- comparisons (result i1)
    _row("eq", 2, np.equal, (None, None), result="bool", kinds="fib", commutative=True),
    _row("ne", 2, np.not_equal, (None, None), result="bool", kinds="fib", commutative=True),
    _row("lt", 2, np.less, (None, None), result="bool", kinds="fib"),
    _row("le", 2, np.less_equal, (None, None), result="bool", kinds="fib"),
    _row("gt", 2, np.greater, (None, None), result="bool", kinds="fib"),
    _row("ge", 2, np.greater_equal, (None, None), result="bool", kinds="fib"),
    # -- ternary: select(cond: i1, a, b); fma(a, b, c) = a·b + c rounded once (the
    #    multiply-add of product kernels; numpy's reference rounds twice)
    _row("fma", 3, _fma, (("mul", "gz", "y"), ("mul", "gz", "x"), "gz"), kinds="f",
         expansion=("add", ("mul", "x", "y"), "z")),
    _row("select", 3, np.where, (None, ("select", "x", "gz", 0.0), ("select", "x", 0.0, "gz")),
         kinds="fib"),
)

# -- complex numbers: the rows that also take complex operands (numpy's meaning; the CPU code
#    generator writes them over the two parts: codegen_llvm/complex_emit.py), then the rows that
#    take complex numbers apart or build them (Theano's real, imag, conj, angle, complex,
#    complex_from_polar; on real operands real/conj are the identity, imag is 0 and angle 0 or π;
#    real, imag and conj keep an integer or bool dtype, as numpy and Theano)
COMPLEX_CAPABLE = ("neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sinh",
                   "cosh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "reciprocal",
                   "square", "add", "sub", "mul", "div", "pow", "maximum", "minimum", "eq", "ne", "select",
                   "lt", "le", "gt", "ge")  # orderings: numpy's (by real part, then imaginary part)
_REAL_RESULT = ("abs",)


def _complex(re, im):
    """re + i·im, in complex64 for float32 (or narrower) parts, else complex128."""
    re, im = np.asarray(re), np.asarray(im)
    dtype = np.complex64 if np.result_type(re, im).itemsize <= 4 else np.complex128
    out = np.empty(np.broadcast(re, im).shape, dtype)
    out.real, out.imag = re, im
    return out


def _complex_from_polar(r, theta):
    return _complex(r * np.cos(theta), r * np.sin(theta))


COMPLEX_ROWS: tuple[Elementwise, ...] = (
    _row("real", 1, np.real, ("complex", "gz", 0.0), kinds="fibc", result="real"),
    _row("imag", 1, np.imag, ("complex", 0.0, "gz"), kinds="fibc", result="real"),
    _row("conj", 1, np.conjugate, ("conj", "gz"), kinds="fibc"),
    _row("angle", 1, np.angle, ("div", ("mul", "gz", ("complex", ("neg", ("imag", "x")), ("real", "x"))),
                                ("square", ("abs", "x"))), kinds="fc", result="real"),
    _row("complex", 2, _complex, (("real", "gz"), ("imag", "gz")), kinds="f", result="complex"),
    _row("complex_from_polar", 2, _complex_from_polar,
         (("add", ("mul", ("real", "gz"), ("cos", "y")), ("mul", ("imag", "gz"), ("sin", "y"))),
          ("mul", "x", ("sub", ("mul", ("imag", "gz"), ("cos", "y")), ("mul", ("real", "gz"), ("sin", "y"))))),
         kinds="f", result="complex"),
)


def _accepting_complex(row: Elementwise) -> Elementwise:
    if row.name not in COMPLEX_CAPABLE:
        return row
    result = "real" if row.name in _REAL_RESULT else row.result
    return replace(row, kinds=row.kinds + "c", result=result)


TABLE_ROWS = tuple(_accepting_complex(row) for row in TABLE_ROWS) + COMPLEX_ROWS

TABLE: dict[str, Elementwise] = {row.name: row for row in TABLE_ROWS}


def lookup(name: str) -> Elementwise:
    """The row for `name` (`"exp"`, `"tensor.exp"` and `"scalar.exp"` all work)."""
    return TABLE[name.split(".", 1)[-1]]


# ---------------------------------------------------------------------------- type rules
def element_kind(t: ScalarType) -> str:
    if t.is_complex:
        return "c"
    return "b" if t.is_bool else ("f" if t.is_float else "i")


_KIND_WORDS = {"f": "float", "i": "integer", "b": "i1", "c": "complex"}


def check_element_types(row: Elementwise, types: Sequence[ScalarType]) -> ScalarType:
    """The result element type of `row` applied to `types`, or a ValueError saying why not.

    The dialects require the value operands to have one type already (the frontend casts)."""
    if len(types) != row.arity:
        raise ValueError(f"expects {row.arity} operand(s), got {len(types)}")
    if row.name == "select" and types[0] != i1:
        raise ValueError(f"condition must have element type i1, got {types[0]}")
    values = [types[i] for i in row.value_operands]
    if any(t != values[0] for t in values):
        raise ValueError("operands must have the same element type, got "
                         + ", ".join(str(t) for t in values))
    t = values[0]
    if element_kind(t) not in row.kinds:
        allowed = " or ".join(_KIND_WORDS[k] for k in row.kinds)
        raise ValueError(f"needs {allowed} operands, got {t}")
    if row.result == "real":
        return t.component
    if row.result == "complex":
        return c64 if t.bitwidth <= 32 else c128
    return i1 if row.result == "bool" else t


def promote(types: Sequence[ScalarType]) -> ScalarType:
    """numpy's promotion of several element types (what the frontend casts operands to)."""
    return scalar_from_numpy(np.result_type(*[t.numpy_name for t in types]).name)


def upgrade_to_float(t: ScalarType) -> ScalarType:
    """Theano's rule for float-only ops on integers: small integers to f32, others to f64."""
    if t.is_float:
        return t
    return f32 if t.name in ("i1", "i8", "i16", "ui8", "ui16") else f64


def operand_type_for(row: Elementwise, types: Sequence[ScalarType]) -> ScalarType:
    """The common element type the frontend should cast `row`'s value operands to."""
    values = [types[i] for i in row.value_operands]
    t = promote(values)
    if row.float_only:
        return upgrade_to_float(t)
    if t.is_bool and "b" not in row.kinds:
        return scalar_from_numpy("int8")
    return t


# ---------------------------------------------------------------------------- expressions
def evaluate_expression(expr: Expr, env: Mapping[str, object]):
    """Evaluate a derivative or expansion expression with numpy; `env` maps symbols to arrays.

    Float constants stay Python floats, so numpy keeps the dtype of the arrays they meet."""
    if isinstance(expr, str):
        if expr not in env:
            raise KeyError(f"expression uses '{expr}' but no value was given for it")
        return env[expr]
    if isinstance(expr, (int, float)):
        return float(expr)
    if isinstance(expr, tuple) and expr and isinstance(expr[0], str):
        row = lookup(expr[0])
        args = [evaluate_expression(a, env) for a in expr[1:]]
        if len(args) != row.arity:
            raise ValueError(f"'{row.name}' takes {row.arity} argument(s) in {expr!r}")
        with np.errstate(all="ignore"):
            return row.reference(*args)
    raise ValueError(f"malformed expression {expr!r}")


def expression_ops(expr: Expr) -> set[str]:
    """The op names an expression uses (to check that every one is in the table)."""
    if isinstance(expr, tuple):
        out = {expr[0]}
        for a in expr[1:]:
            out |= expression_ops(a)
        return out
    return set()


def expression_symbols(expr: Expr) -> set[str]:
    if isinstance(expr, str):
        return {expr}
    if isinstance(expr, tuple):
        out: set[str] = set()
        for a in expr[1:]:
            out |= expression_symbols(a)
        return out
    return set()
