"""Complex scalar ops (`c64`, `c128`) as LLVM instructions on their two parts.

A complex number is an LLVM `{float, float}` (`{double, double}`): numpy's layout in memory
(real part first), so buffers are read and written in place, and LLVM's SROA takes the pair
apart into two registers. Every op is written over the parts with the real ops of
`ScalarEmitter` (the inline math library included), with numpy's formulas and special values
where numpy defines them: division by Smith's method, |z| as a hypot that neither overflows
nor underflows, sqrt by the stable half-angle form, exp keeping a zero imaginary part exact.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from llvmlite import ir

from ..ir.types import ScalarType
from .mathlib_common import intrinsic

if TYPE_CHECKING:  # the real emitter calls this module: no import cycle at run time
    from .scalar_emit import ScalarEmitter

Pair = tuple[ir.Value, ir.Value]


class ComplexEmitter:
    """Emits `scalar.<name>` on complex operands through `real` (a `ScalarEmitter`)."""

    def __init__(self, real: "ScalarEmitter"):
        self.real = real
        self.b = real.b

    # ------------------------------------------------------------------ parts
    def parts(self, z: ir.Value) -> Pair:
        return self.b.extract_value(z, 0), self.b.extract_value(z, 1)

    def pack(self, re: ir.Value, im: ir.Value) -> ir.Value:
        ty = ir.LiteralStructType([re.type, re.type])
        return self.b.insert_value(self.b.insert_value(ir.Constant(ty, ir.Undefined), re, 0), im, 1)

    def r(self, name: str, *args: ir.Value) -> ir.Value:
        """A real op on parts of type `self.part`."""
        return self.real.emit(name, list(args), self.part)

    def k(self, value: float) -> ir.Constant:
        return ir.Constant(self.part_llvm, value)

    # ------------------------------------------------------------------ entry
    def emit(self, name: str, args: Sequence[ir.Value], t: ScalarType) -> ir.Value:
        """`name` on `args` whose value-operand type is `t` (complex, or a real one for
        `complex`/`complex_from_polar`, and for `real`/`imag`/`conj`/`angle` on reals)."""
        self.part = t.component
        self.part_llvm = args[-1].type.elements[0] if t.is_complex else args[-1].type
        method = getattr(self, "op_" + name, None)
        if method is None:
            raise NotImplementedError(f"no code generation for 'scalar.{name}' on {t}")
        if name in ("select",):
            return method(args)
        if name in ("real", "conj") and not t.is_complex:  # a real number is its own real part, conjugate
            return args[0]
        if name == "imag" and not t.is_complex:
            return ir.Constant(args[0].type, 0.0 if t.is_float else 0)
        if name == "angle" and not t.is_complex:
            return method((args[0], self.k(0.0)))
        return method(*[self.parts(a) if t.is_complex else a for a in args])

    # ------------------------------------------------------------------ building and taking apart
    def op_complex(self, re, im):
        return self.pack(re, im)

    def op_complex_from_polar(self, r, theta):
        return self.pack(self.r("mul", r, self.r("cos", theta)), self.r("mul", r, self.r("sin", theta)))

    def op_real(self, z):
        return z[0]

    def op_imag(self, z):
        return z[1]

    def op_conj(self, z):
        return self.pack(z[0], self.r("neg", z[1]))

    def op_angle(self, z):
        return self.r("arctan2", z[1], z[0])

    def op_select(self, args):
        return self.b.select(args[0], args[1], args[2])

    # ------------------------------------------------------------------ arithmetic
    def op_add(self, x, y):
        return self.pack(self.r("add", x[0], y[0]), self.r("add", x[1], y[1]))

    def op_sub(self, x, y):
        return self.pack(self.r("sub", x[0], y[0]), self.r("sub", x[1], y[1]))

    def op_neg(self, x):
        return self.pack(self.r("neg", x[0]), self.r("neg", x[1]))

    def _mul(self, x: Pair, y: Pair) -> Pair:
        (a, b), (c, d) = x, y
        return (self.r("sub", self.r("mul", a, c), self.r("mul", b, d)),
                self.r("add", self.r("mul", a, d), self.r("mul", b, c)))

    def op_mul(self, x, y):
        return self.pack(*self._mul(x, y))

    def op_square(self, x):
        return self.pack(*self._mul(x, x))

    def _div(self, x: Pair, y: Pair) -> Pair:
        """Smith's method as numpy writes it: scale by the larger part of the divisor (no square
        of it overflows), then multiply by the reciprocal of the scaled denominator; a zero
        divisor gives numpy's x / |0| (inf or nan parts)."""
        b = self.b
        (a, bi), (c, d) = x, y
        ac, ad = self.r("abs", c), self.r("abs", d)
        c_larger = b.fcmp_ordered(">=", ac, ad)
        ratio = self.r("div", b.select(c_larger, d, c), b.select(c_larger, c, d))
        den = self.r("add", b.select(c_larger, c, d), self.r("mul", b.select(c_larger, d, c), ratio))
        scale = self.r("div", self.k(1.0), den)
        re1 = self.r("mul", self.r("add", a, self.r("mul", bi, ratio)), scale)
        im1 = self.r("mul", self.r("sub", bi, self.r("mul", a, ratio)), scale)
        re2 = self.r("mul", self.r("add", self.r("mul", a, ratio), bi), scale)
        im2 = self.r("mul", self.r("sub", self.r("mul", bi, ratio), a), scale)
        re, im = b.select(c_larger, re1, re2), b.select(c_larger, im1, im2)
        zero = b.and_(b.fcmp_ordered("==", ac, self.k(0.0)), b.fcmp_ordered("==", ad, self.k(0.0)))
        return (b.select(zero, self.r("div", a, ac), re), b.select(zero, self.r("div", bi, ad), im))

    def op_div(self, x, y):
        return self.pack(*self._div(x, y))

    def op_reciprocal(self, x):
        return self.pack(*self._div((self.k(1.0), self.k(0.0)), x))

    def op_eq(self, x, y):
        return self.b.and_(self.r("eq", x[0], y[0]), self.r("eq", x[1], y[1]))

    def op_ne(self, x, y):
        return self.b.or_(self.r("ne", x[0], y[0]), self.r("ne", x[1], y[1]))

    def _less(self, x: Pair, y: Pair, or_equal: bool) -> ir.Value:
        """numpy's x < y (x <= y) of complex numbers: by real part, then imaginary part;
        false when a part is NaN."""
        b = self.b
        no_nan_im = b.and_(b.fcmp_ordered("ord", x[1], x[1]), b.fcmp_ordered("ord", y[1], y[1]))
        real_less = b.and_(b.fcmp_ordered("<", x[0], y[0]), no_nan_im)
        im_less = b.fcmp_ordered("<=" if or_equal else "<", x[1], y[1])
        return b.or_(real_less, b.and_(b.fcmp_ordered("==", x[0], y[0]), im_less))

    def op_lt(self, x, y):
        return self._less(x, y, False)

    def op_le(self, x, y):
        return self._less(x, y, True)

    def op_gt(self, x, y):
        return self._less(y, x, False)

    def op_ge(self, x, y):
        return self._less(y, x, True)

    def _lexicographic(self, x: Pair, y: Pair, greater: bool) -> ir.Value:
        """numpy's maximum/minimum of complex numbers: ordered by real part, then imaginary
        part; a NaN part in either makes that one the result (the first when both)."""
        b = self.b
        first, strict = (">=", ">") if greater else ("<=", "<")
        pick_x = b.or_(b.fcmp_ordered(strict, x[0], y[0]),
                       b.and_(b.fcmp_ordered("==", x[0], y[0]), b.fcmp_ordered(first, x[1], y[1])))
        nan_x = b.or_(b.fcmp_unordered("uno", x[0], x[0]), b.fcmp_unordered("uno", x[1], x[1]))
        nan_y = b.or_(b.fcmp_unordered("uno", y[0], y[0]), b.fcmp_unordered("uno", y[1], y[1]))
        pick_x = b.or_(nan_x, b.and_(pick_x, b.not_(nan_y)))
        return b.select(pick_x, self.pack(*x), self.pack(*y))

    def op_maximum(self, x, y):
        return self._lexicographic(x, y, True)

    def op_minimum(self, x, y):
        return self._lexicographic(x, y, False)

    # ------------------------------------------------------------------ modulus
    def _hypot(self, a: ir.Value, c: ir.Value) -> ir.Value:
        """sqrt(a² + c²) as big·sqrt(1 + (small/big)²): no overflow or underflow on the way;
        inf when either part is infinite (a NaN in the other included), as numpy's hypot."""
        b = self.b
        aa, ac = self.r("abs", a), self.r("abs", c)
        big, small = self.r("maximum", aa, ac), self.r("minimum", aa, ac)
        q = self.r("div", small, big)
        h = self.r("mul", big, self.r("sqrt", self.r("add", self.k(1.0), self.r("mul", q, q))))
        h = b.select(b.fcmp_ordered("==", big, self.k(0.0)), self.k(0.0), h)
        inf = self.k(math.inf)
        infinite = b.or_(b.fcmp_ordered("==", aa, inf), b.fcmp_ordered("==", ac, inf))
        return b.select(infinite, inf, h)

    def op_abs(self, x):
        return self._hypot(*x)

    # ------------------------------------------------------------------ exponentials and logarithms
    def _exp(self, x: Pair) -> Pair:
        b = self.b
        e = self.r("exp", x[0])
        im_zero = b.fcmp_ordered("==", x[1], self.k(0.0))  # exp(a + 0j) = exp(a) + 0j, inf included
        re = b.select(im_zero, e, self.r("mul", e, self.r("cos", x[1])))
        im = b.select(im_zero, x[1], self.r("mul", e, self.r("sin", x[1])))
        return re, im

    def op_exp(self, x):
        return self.pack(*self._exp(x))

    def op_expm1(self, x):
        """numpy's form: expm1(a)·cos b − 2 sin²(b/2) + i·exp(a)·sin b (no cancellation near 0)."""
        a, c = x
        s = self.r("sin", self.r("mul", c, self.k(0.5)))
        re = self.r("sub", self.r("mul", self.r("expm1", a), self.r("cos", c)),
                    self.r("mul", self.k(2.0), self.r("mul", s, s)))
        return self.pack(re, self.r("mul", self.r("exp", a), self.r("sin", c)))

    def _log(self, x: Pair) -> Pair:
        return self.r("log", self._hypot(*x)), self.r("arctan2", x[1], x[0])

    def op_log(self, x):
        return self.pack(*self._log(x))

    def op_log1p(self, x):
        return self.pack(*self._log((self.r("add", x[0], self.k(1.0)), x[1])))

    def _sqrt(self, x: Pair) -> Pair:
        """t = sqrt((|a| + |z|)/2); a ≥ 0: (t, b/2t), else (|b|/2t, ±t) — no cancellation; an
        infinite imaginary part gives (inf, b), as numpy."""
        b = self.b
        a, c = x
        t = self.r("sqrt", self.r("mul", self.k(0.5), self.r("add", self.r("abs", a), self._hypot(a, c))))
        two_t = self.r("add", t, t)
        non_negative = b.fcmp_ordered(">=", a, self.k(0.0))
        re = b.select(non_negative, t, self.r("div", self.r("abs", c), two_t))
        im = b.select(non_negative, self.r("div", c, two_t), intrinsic(b, "copysign", [t, c]))
        zero = b.and_(b.fcmp_ordered("==", a, self.k(0.0)), b.fcmp_ordered("==", c, self.k(0.0)))
        re, im = b.select(zero, self.k(0.0), re), b.select(zero, c, im)
        inf_im = b.fcmp_ordered("==", self.r("abs", c), self.k(math.inf))
        return b.select(inf_im, self.k(math.inf), re), b.select(inf_im, c, im)

    def op_sqrt(self, x):
        return self.pack(*self._sqrt(x))

    def op_pow(self, x, y):
        """numpy's: a real integer exponent |n| < 100 by repeated squaring (exact where the
        products are: (1+1j)**2 is 2j), 1/x**|n| for a negative one; exp(y·log x) otherwise;
        0 ** y is 1 for y = 0 and 0 for another y."""
        b = self.b
        re, im = self._exp(self._mul(y, self._log(x)))
        n = self.r("abs", y[0])
        integral = b.and_(b.and_(b.fcmp_ordered("==", y[1], self.k(0.0)),
                                 b.fcmp_ordered("==", self.r("floor", y[0]), y[0])),
                          b.fcmp_ordered("<", n, self.k(100.0)))
        whole = self._integer_power(x, n)
        whole = self._select(b.fcmp_ordered("<", y[0], self.k(0.0)), self._div((self.k(1.0), self.k(0.0)), whole),
                             whole)
        re, im = self._select(integral, whole, (re, im))
        x_zero = b.and_(b.fcmp_ordered("==", x[0], self.k(0.0)), b.fcmp_ordered("==", x[1], self.k(0.0)))
        y_zero = b.and_(b.fcmp_ordered("==", y[0], self.k(0.0)), b.fcmp_ordered("==", y[1], self.k(0.0)))
        zero_re = b.select(y_zero, self.k(1.0), self.k(0.0))
        re = b.select(x_zero, zero_re, re)
        im = b.select(x_zero, self.k(0.0), im)
        return self.pack(re, im)

    def _integer_power(self, x: Pair, n: ir.Value) -> Pair:
        """x**n for a whole n in [0, 100) (a float): the binary powers of x the bits of n select,
        multiplied in numpy's order; straight-line (selects), so a loop over it vectorizes."""
        result: Pair = (self.k(1.0), self.k(0.0))
        power = x
        rest = n
        for bit in range(7):
            half = self.r("floor", self.r("mul", rest, self.k(0.5)))
            odd = self.b.fcmp_ordered("!=", self.r("sub", rest, self.r("add", half, half)), self.k(0.0))
            result = self._select(odd, self._mul(result, power), result)
            rest = half
            if bit < 6:
                power = self._mul(power, power)
        return result

    def _select(self, cond: ir.Value, x: Pair, y: Pair) -> Pair:
        return self.b.select(cond, x[0], y[0]), self.b.select(cond, x[1], y[1])

    # ------------------------------------------------------------------ trigonometric and hyperbolic
    def _sinh(self, x: Pair) -> Pair:
        a, c = x
        return self.r("mul", self.r("sinh", a), self.r("cos", c)), self.r("mul", self.r("cosh", a), self.r("sin", c))

    def _cosh(self, x: Pair) -> Pair:
        a, c = x
        return self.r("mul", self.r("cosh", a), self.r("cos", c)), self.r("mul", self.r("sinh", a), self.r("sin", c))

    def _tanh(self, x: Pair) -> Pair:
        """(sinh 2a, sin 2b) / (cosh 2a + cos 2b); beyond |a| = 20 the real part is ±1 and the
        imaginary part 4·sin b·cos b·e^(−2|a|) (the general form would divide inf by inf)."""
        b = self.b
        a, c = x
        a2, c2 = self.r("add", a, a), self.r("add", c, c)
        den = self.r("add", self.r("cosh", a2), self.r("cos", c2))
        re, im = self.r("div", self.r("sinh", a2), den), self.r("div", self.r("sin", c2), den)
        far = b.fcmp_ordered(">", self.r("abs", a), self.k(20.0))
        far_im = self.r("mul", self.r("mul", self.k(2.0), self.r("sin", c2)),
                        self.r("exp", self.r("neg", self.r("abs", a2))))
        return b.select(far, self.r("sign", a), re), b.select(far, far_im, im)

    def _times_i(self, x: Pair) -> Pair:
        return self.r("neg", x[1]), x[0]

    def _times_minus_i(self, x: Pair) -> Pair:
        return x[1], self.r("neg", x[0])

    def op_sinh(self, x):
        return self.pack(*self._sinh(x))

    def op_cosh(self, x):
        return self.pack(*self._cosh(x))

    def op_tanh(self, x):
        return self.pack(*self._tanh(x))

    def op_sin(self, x):  # sin z = −i sinh(iz)
        return self.pack(*self._times_minus_i(self._sinh(self._times_i(x))))

    def op_cos(self, x):  # cos z = cosh(iz)
        return self.pack(*self._cosh(self._times_i(x)))

    def op_tan(self, x):  # tan z = −i tanh(iz)
        return self.pack(*self._times_minus_i(self._tanh(self._times_i(x))))

    # ------------------------------------------------------------------ inverse functions
    def _arcsinh(self, x: Pair) -> Pair:
        """log(z + sqrt(z² + 1)) on the right half-plane, odd symmetry on the left (no
        cancellation of z against the root)."""
        b = self.b
        negative = b.fcmp_ordered("<", x[0], self.k(0.0))
        z = (b.select(negative, self.r("neg", x[0]), x[0]), b.select(negative, self.r("neg", x[1]), x[1]))
        sq = self._mul(z, z)
        root = self._sqrt((self.r("add", sq[0], self.k(1.0)), sq[1]))
        re, im = self._log((self.r("add", z[0], root[0]), self.r("add", z[1], root[1])))
        return b.select(negative, self.r("neg", re), re), b.select(negative, self.r("neg", im), im)

    def _arctanh(self, x: Pair) -> Pair:
        """½·(log(1 + z) − log(1 − z))."""
        lp = self._log((self.r("add", self.k(1.0), x[0]), x[1]))
        lm = self._log((self.r("sub", self.k(1.0), x[0]), self.r("neg", x[1])))
        half = self.k(0.5)
        return self.r("mul", half, self.r("sub", lp[0], lm[0])), self.r("mul", half, self.r("sub", lp[1], lm[1]))

    def op_arcsinh(self, x):
        return self.pack(*self._arcsinh(x))

    def op_arctanh(self, x):
        return self.pack(*self._arctanh(x))

    def op_arccosh(self, x):
        """log(z + sqrt(z + 1)·sqrt(z − 1)) (the principal branch numpy takes)."""
        p = self._sqrt((self.r("add", x[0], self.k(1.0)), x[1]))
        m = self._sqrt((self.r("sub", x[0], self.k(1.0)), x[1]))
        pm = self._mul(p, m)
        return self.pack(*self._log((self.r("add", x[0], pm[0]), self.r("add", x[1], pm[1]))))

    def op_arcsin(self, x):  # arcsin z = −i arcsinh(iz)
        return self.pack(*self._times_minus_i(self._arcsinh(self._times_i(x))))

    def op_arccos(self, x):  # arccos z = π/2 − arcsin z
        s = self._times_minus_i(self._arcsinh(self._times_i(x)))
        return self.pack(self.r("sub", self.k(math.pi / 2), s[0]), self.r("neg", s[1]))

    def op_arctan(self, x):  # arctan z = −i arctanh(iz)
        return self.pack(*self._times_minus_i(self._arctanh(self._times_i(x))))

    # ------------------------------------------------------------------ casts
    def cast(self, x: ir.Value, src: ScalarType, dst: ScalarType, part: ir.Type) -> ir.Value:
        """Between complex types part by part; a real to complex with a zero imaginary part;
        complex to real keeps the real part (numpy's astype), to bool tests both parts."""
        b = self.b
        if src.is_complex and dst.is_complex:
            re, im = self.parts(x)
            return self.pack(self.real.cast(re, src.component, dst.component),
                             self.real.cast(im, src.component, dst.component))
        if dst.is_complex:
            re = self.real.cast(x, src, dst.component)
            return self.pack(re, ir.Constant(re.type, 0.0))
        re, im = self.parts(x)
        if dst.is_bool:
            return b.or_(self.real.cast(re, src.component, dst), self.real.cast(im, src.component, dst))
        return self.real.cast(re, src.component, dst)
