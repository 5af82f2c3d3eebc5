"""`scalar` ops to LLVM instructions, with numpy's semantics (NaN propagation in maximum and
minimum, floor division and modulo with the divisor's sign, `ne` true on NaN, integer division
by zero giving 0 and INT_MIN // -1 giving INT_MIN instead of a trap).

Everything emitted works on scalars and vectors alike and calls no libm function, so LLVM's
loop and SLP vectorizers can widen it. `fastmath` flags are given per op by the caller (the
reduction accumulators get `reassoc`).
"""
from __future__ import annotations

from typing import Callable, Sequence

from llvmlite import ir

from ..dialects.elementwise import Expr, lookup
from ..ir.types import ScalarType
from .complex_emit import ComplexEmitter
from .math_hook import math_emitters, sqrt
from .mathlib_common import intrinsic


# ops that build or take apart complex numbers, whatever their operands' type
COMPLEX_ONLY = ("real", "imag", "conj", "angle", "complex", "complex_from_polar")


def llvm_type(t: ScalarType) -> ir.Type:
    """The register type of a scalar (`i1` stays `i1`; memory holds it as a byte; a complex
    number is a pair `{float, float}` of its real and imaginary parts, numpy's layout)."""
    if t.is_complex:
        part = llvm_type(t.component)
        return ir.LiteralStructType([part, part])
    if t.is_float:
        return {16: ir.HalfType(), 32: ir.FloatType(), 64: ir.DoubleType()}[t.bitwidth]
    return ir.IntType(1 if t.is_bool else t.bitwidth)


def memory_type(t: ScalarType) -> ir.Type:
    """How an element sits in a buffer: numpy stores booleans as one byte."""
    return ir.IntType(8) if t.is_bool else llvm_type(t)


def constant(t: ScalarType, value) -> ir.Constant:
    if t.is_complex:
        z = complex(value.array.item()) if hasattr(value, "array") else complex(value)
        return ir.Constant(llvm_type(t), [constant(t.component, z.real), constant(t.component, z.imag)])
    if t.is_float:
        return ir.Constant(llvm_type(t), float(value))
    if t.is_bool:
        return ir.Constant(llvm_type(t), int(bool(value)))
    bits = int(value) & ((1 << t.bitwidth) - 1)  # two's complement: an unsigned value past INT_MAX too
    return ir.Constant(llvm_type(t), bits - (1 << t.bitwidth) if bits >> (t.bitwidth - 1) else bits)


class ScalarEmitter:
    """Emits one scalar op at a time into `builder`; transcendental functions come from the
    `math` table (name -> emitter, see `math_hook.py`): the CPU's inline mathlib by default,
    a target's own flavour otherwise (NVPTX: `irc.codegen_ptx.mathlib_nvptx`)."""

    def __init__(self, builder: ir.IRBuilder, math: dict[str, Callable[..., ir.Value]] | None = None):
        self.b = builder
        self.math = math if math is not None else math_emitters()

    # ------------------------------------------------------------------ entry
    def emit(self, name: str, args: Sequence[ir.Value], t: ScalarType, fastmath: tuple[str, ...] = ()
             ) -> ir.Value:
        """`scalar.<name>` on `args` whose (value-operand) element type is `t`."""
        short = name.split(".", 1)[-1]
        if t.is_complex or short in COMPLEX_ONLY:
            return ComplexEmitter(self).emit(short, args, t)
        method = getattr(self, "op_" + short, None)
        if method is not None:
            return method(args, t, fastmath)
        if short in self.math and t.is_float:
            return self.math[short](self.b, *args)
        row = lookup(short)
        if row.expansion is not None:
            return self.expand(row.expansion, dict(zip("xyz", args)), t)
        raise NotImplementedError(f"no code generation for 'scalar.{short}' on {t} "
                                  f"(the mathlib has no emitter for it)")

    def expand(self, expr: Expr, env: dict[str, ir.Value], t: ScalarType) -> ir.Value:
        """Emit a table expansion (`relu` = `maximum(x, 0.0)`) over already emitted values."""
        if isinstance(expr, str):
            return env[expr]
        if isinstance(expr, (int, float)):
            return constant(t, expr)
        row = lookup(expr[0])
        args = [self.expand(a, env, t) for a in expr[1:]]
        return self.emit(row.name, args, t)

    # ------------------------------------------------------------------ helpers
    def _zero(self, like: ir.Value) -> ir.Constant:
        ty = like.type
        return ir.Constant(ty, 0.0 if isinstance(ty, (ir.FloatType, ir.DoubleType, ir.HalfType)) else 0)

    # ------------------------------------------------------------------ arithmetic
    def op_add(self, a, t, fm):
        return self.b.fadd(a[0], a[1], flags=fm) if t.is_float else self.b.add(a[0], a[1])

    def op_sub(self, a, t, fm):
        return self.b.fsub(a[0], a[1], flags=fm) if t.is_float else self.b.sub(a[0], a[1])

    def op_mul(self, a, t, fm):
        if t.is_bool:
            return self.b.and_(a[0], a[1])
        return self.b.fmul(a[0], a[1], flags=fm) if t.is_float else self.b.mul(a[0], a[1])

    def op_div(self, a, t, fm):
        return self.b.fdiv(a[0], a[1], flags=fm)

    def op_neg(self, a, t, fm):
        return self.b.fneg(a[0]) if t.is_float else self.b.neg(a[0])

    def op_abs(self, a, t, fm):
        if t.is_float:
            return intrinsic(self.b, "fabs", [a[0]])
        if t.is_unsigned:
            return a[0]
        neg = self.b.icmp_signed("<", a[0], self._zero(a[0]))
        return self.b.select(neg, self.b.neg(a[0]), a[0])

    def op_sqrt(self, a, t, fm):
        return sqrt(self.b, a[0])

    def op_square(self, a, t, fm):
        return self.op_mul([a[0], a[0]], t, fm)

    def op_reciprocal(self, a, t, fm):
        return self.b.fdiv(constant(t, 1.0), a[0])

    def op_sign(self, a, t, fm):
        x = a[0]
        zero, one, minus = constant(t, 0), constant(t, 1), constant(t, -1)
        if t.is_float:
            pos = self.b.fcmp_ordered(">", x, zero)
            neg = self.b.fcmp_ordered("<", x, zero)
        elif t.is_unsigned:
            return self.b.select(self.b.icmp_unsigned(">", x, zero), one, zero)
        else:
            pos = self.b.icmp_signed(">", x, zero)
            neg = self.b.icmp_signed("<", x, zero)
        return self.b.select(pos, one, self.b.select(neg, minus, x))  # keeps NaN and signed zero

    def op_floor(self, a, t, fm):
        return intrinsic(self.b, "floor", [a[0]])

    def op_ceil(self, a, t, fm):
        return intrinsic(self.b, "ceil", [a[0]])

    def op_round(self, a, t, fm):
        return intrinsic(self.b, "rint", [a[0]])

    def op_round_away(self, a, t, fm):
        return intrinsic(self.b, "round", [a[0]])

    def op_logical_not(self, a, t, fm):
        return self.b.xor(a[0], ir.Constant(a[0].type, 1))

    def op_floordiv(self, a, t, fm):
        x, y = a
        if t.is_float:
            return self._float_floordiv(x, y)
        if t.is_unsigned:
            return self._unsigned_div_mod(x, y)[0]
        return self._int_floordiv_mod(x, y)[0]

    def _float_floordiv(self, x, y):
        """numpy's `npy_floor_divide`: (x - fmod(x, y)) / y, corrected by one where the
        remainder's sign differs from y's, then rounded to the nearest integer; not
        floor(x / y), which is off by one where the quotient rounds up to an integer, and
        finite for an infinite x (numpy: NaN). Half is computed in float, as numpy does."""
        b = self.b
        if isinstance(x.type, ir.HalfType):
            f = ir.FloatType()
            return b.fptrunc(self._float_floordiv(b.fpext(x, f), b.fpext(y, f)), x.type)
        zero, one, half = (ir.Constant(x.type, v) for v in (0.0, 1.0, 0.5))
        mod = b.frem(x, y)
        div = b.fdiv(b.fsub(x, mod), y)
        fix = b.and_(b.fcmp_ordered("!=", mod, zero),
                     b.xor(b.fcmp_ordered("<", y, zero), b.fcmp_ordered("<", mod, zero)))
        div = b.select(fix, b.fsub(div, one), div)
        whole = intrinsic(b, "floor", [div])
        whole = b.select(b.fcmp_ordered(">", b.fsub(div, whole), half), b.fadd(whole, one), whole)
        quotient = b.fdiv(x, y)
        whole = b.select(b.fcmp_ordered("==", div, zero), intrinsic(b, "copysign", [zero, quotient]), whole)
        return b.select(b.fcmp_ordered("==", y, zero), quotient, whole)

    def op_mod(self, a, t, fm):
        x, y = a
        if t.is_float:
            b = self.b
            r = b.frem(x, y)
            zero = constant(t, 0.0)
            # numpy: the result takes the divisor's sign, a zero one included
            fix = b.and_(b.fcmp_ordered("!=", r, zero),
                         b.xor(b.fcmp_ordered("<", r, zero), b.fcmp_ordered("<", y, zero)))
            r = b.select(fix, b.fadd(r, y), r)
            return b.select(b.fcmp_ordered("==", r, zero), intrinsic(b, "copysign", [zero, y]), r)
        if t.is_unsigned:
            return self._unsigned_div_mod(x, y)[1]
        return self._int_floordiv_mod(x, y)[1]

    def _unsigned_div_mod(self, x, y):
        """numpy's unsigned `//` and `%`: a zero divisor gives 0 and 0 (the hardware would trap)."""
        b = self.b
        zero = self._zero(x)
        y_is_zero = b.icmp_unsigned("==", y, zero)
        safe = b.select(y_is_zero, ir.Constant(x.type, 1), y)
        return b.select(y_is_zero, zero, b.udiv(x, safe)), b.select(y_is_zero, zero, b.urem(x, safe))

    def _int_floordiv_mod(self, x, y):
        """numpy's integer `//` and `%`. The hardware divide traps (SIGFPE) on a zero divisor
        and on INT_MIN / -1, so it never sees those: y = 0 gives 0 and 0 (numpy's values),
        y = -1 gives -x wrapping (INT_MIN // -1 = INT_MIN, as numpy) and 0."""
        b = self.b
        zero = self._zero(x)
        one = ir.Constant(x.type, 1)
        minus_one = ir.Constant(x.type, -1)
        y_is_zero = b.icmp_signed("==", y, zero)
        y_is_minus_one = b.icmp_signed("==", y, minus_one)
        safe = b.select(b.or_(y_is_zero, y_is_minus_one), one, y)
        q = b.sdiv(x, safe)
        r = b.srem(x, safe)
        adjust = b.and_(b.icmp_signed("!=", r, zero),
                        b.xor(b.icmp_signed("<", r, zero), b.icmp_signed("<", safe, zero)))
        q = b.select(adjust, b.sub(q, one), q)
        r = b.select(adjust, b.add(r, safe), r)
        q = b.select(y_is_minus_one, b.sub(zero, x), q)  # plain `sub`: wraps, no poison
        return b.select(y_is_zero, zero, q), b.select(y_is_zero, zero, r)

    def op_maximum(self, a, t, fm):
        if t.is_float:
            return intrinsic(self.b, "maximum", list(a))  # NaN-propagating, like numpy
        if t.is_bool:
            return self.b.or_(a[0], a[1])
        return intrinsic(self.b, "umax" if t.is_unsigned else "smax", list(a))

    def op_minimum(self, a, t, fm):
        if t.is_float:
            return intrinsic(self.b, "minimum", list(a))
        if t.is_bool:
            return self.b.and_(a[0], a[1])
        return intrinsic(self.b, "umin" if t.is_unsigned else "smin", list(a))

    def op_and(self, a, t, fm):
        return self.b.and_(a[0], a[1])

    def op_or(self, a, t, fm):
        return self.b.or_(a[0], a[1])

    def op_xor(self, a, t, fm):
        return self.b.xor(a[0], a[1])

    def op_pow(self, a, t, fm):
        if not t.is_float:
            return self._int_pow(a[0], a[1], t.is_unsigned)
        if "pow" in self.math:
            return self.math["pow"](self.b, a[0], a[1])
        raise NotImplementedError(f"no code generation for 'scalar.pow' on {t}")

    def _int_pow(self, x, n, unsigned: bool = False):
        """x ** n by squaring, wrapping on overflow like numpy. Straight-line (one step per
        exponent bit, selects instead of branches) so loops over it still vectorize. numpy
        raises for a negative exponent, and so does a compiled function: `lower-to-loops`
        checks the exponents before the nest (tensor_to_loop/integer_power.py). A negative n
        that reaches this code anyway (a bare `scalar.pow`) gives the integer part of
        1 / x**|n|, never a trap: 1 for x = 1, +-1 for x = -1, and 0 otherwise, x = 0 included."""
        b = self.b
        ty = x.type
        zero, one, minus_one = (ir.Constant(ty, v) for v in (0, 1, -1))
        result, base = one, x
        for bit in range(ty.width if unsigned else ty.width - 1):  # a non-negative n: sign bit 0
            set_ = b.icmp_unsigned("!=", b.and_(n, ir.Constant(ty, 1 << bit)), zero)
            result = b.select(set_, b.mul(result, base), result)
            base = b.mul(base, base)
        n_odd = b.icmp_unsigned("!=", b.and_(n, one), zero)
        of_minus_one = b.select(n_odd, minus_one, one)
        if unsigned:
            return result
        negative = b.select(b.icmp_signed("==", x, one), one,
                            b.select(b.icmp_signed("==", x, minus_one), of_minus_one, zero))
        return b.select(b.icmp_signed("<", n, zero), negative, result)

    # ------------------------------------------------------------------ comparisons, select
    def _cmp(self, op: str, a, t):
        if t.is_float:
            if op == "!=":  # numpy: NaN != anything
                return self.b.fcmp_unordered(op, a[0], a[1])
            return self.b.fcmp_ordered(op, a[0], a[1])
        if t.is_bool or t.is_unsigned:
            return self.b.icmp_unsigned(op, a[0], a[1])
        return self.b.icmp_signed(op, a[0], a[1])

    def op_eq(self, a, t, fm):
        return self._cmp("==", a, t)

    def op_ne(self, a, t, fm):
        return self._cmp("!=", a, t)

    def op_lt(self, a, t, fm):
        return self._cmp("<", a, t)

    def op_le(self, a, t, fm):
        return self._cmp("<=", a, t)

    def op_gt(self, a, t, fm):
        return self._cmp(">", a, t)

    def op_ge(self, a, t, fm):
        return self._cmp(">=", a, t)

    def op_fma(self, a, t, fm):
        """One rounding, and one instruction on every FMA-capable target (what the product
        kernels count on: a separate multiply and add would halve their peak)."""
        return intrinsic(self.b, "fma", list(a))

    def op_select(self, a, t, fm):
        return self.b.select(a[0], a[1], a[2])

    # ------------------------------------------------------------------ casts
    def cast(self, x: ir.Value, src: ScalarType, dst: ScalarType) -> ir.Value:
        """numpy's `astype`: floats truncate toward zero into integers; anything to i1 is `!= 0`."""
        b = self.b
        to = llvm_type(dst)
        if src == dst:
            return x
        if src.is_complex or dst.is_complex:
            return ComplexEmitter(self).cast(x, src, dst, to)
        if dst.is_bool:
            if src.is_float:
                return b.fcmp_unordered("!=", x, constant(src, 0.0))
            return b.icmp_unsigned("!=", x, constant(src, 0))
        if src.is_float and dst.is_float:
            return b.fpext(x, to) if dst.bitwidth > src.bitwidth else b.fptrunc(x, to)
        if src.is_float and dst.is_unsigned:
            return self._float_to_unsigned(x, dst)
        if src.is_float:
            return b.call(_sat_cast(b.module, x.type, to), [x])
        if dst.is_float:
            return b.uitofp(x, to) if src.is_bool or src.is_unsigned else b.sitofp(x, to)
        if dst.bitwidth > src.bitwidth:
            return b.zext(x, to) if src.is_bool or src.is_unsigned else b.sext(x, to)
        if dst.bitwidth < src.bitwidth:
            return b.trunc(x, to)
        return x

    def _float_to_unsigned(self, x: ir.Value, dst: ScalarType) -> ir.Value:
        """numpy's float to unsigned on x86: a negative value wraps as its int64 does (-1.0 to
        uint8 is 255), values up to 2^64 convert exactly (uint64)."""
        b = self.b
        i64 = ir.IntType(64)
        signed = b.call(_sat_cast(b.module, x.type, i64), [x])
        if dst.bitwidth == 64:
            unsigned = b.call(_sat_cast(b.module, x.type, i64, unsigned=True), [x])
            negative = b.fcmp_ordered("<", x, ir.Constant(x.type, 0.0))
            return b.select(negative, signed, unsigned)
        return b.trunc(signed, llvm_type(dst))


def _sat_cast(module: ir.Module, src: ir.Type, dst: ir.Type, unsigned: bool = False) -> ir.Function:
    """`llvm.fptosi.sat` (`fptoui.sat`): defined for every input (NaN gives 0), unlike a plain fptosi."""
    fs = "f32" if isinstance(src, ir.FloatType) else ("f16" if isinstance(src, ir.HalfType) else "f64")
    name = f"llvm.fpto{'u' if unsigned else 's'}i.sat.i{dst.width}.{fs}"
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(dst, [src]), name=name)
    return fn
