"""`stabilize`: rewrite numerically fragile forms into stable ones (Theano's stabilize phase).

Without these, logistic regression trained in float32 overflows `exp` and ends in NaN:

    1/(1+exp(-x))      -> sigmoid(x)          1/(1+exp(x))  -> sigmoid(-x)
    1 - sigmoid(x)     -> sigmoid(-x)         log(sigmoid(x)) -> -softplus(-x)
    log(1+exp(x)), log1p(exp(x)) -> softplus(x)
    log(1+x)           -> log1p(x)            exp(x) - 1    -> expm1(x)
    -a - b             -> -(a + b)            (exposes exp(-(...)) to the rules above)
    x / (1+exp(a))     -> x * sigmoid(-a)

the softmax family (`stabilize_softmax.py`: softmax and log-softmax written by hand,
`log(softmax(x))` -> `log_softmax(x)`, a cross-entropy's gradient without division by p),
and, for the gradients reverse mode writes (products of `gz`, `out`, `1/u`, `exp(-x)`), the
product-tree rules of `product_tree.py`: cancel a factor above and below the line,
`sigmoid(x)*exp(-x)` -> `sigmoid(-x)`, and distribute a product over a sum when a factor then
cancels. Cancelling `s/s` assumes `s` is finite and non-zero, as Theano's canonizer did.

Every rule keeps the result type; a match whose types would change (through broadcasting) is
left alone.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.pass_manager import Pass, option, register_pass
from ..ir.rewriter import PatternRewriter, RewritePattern, apply_patterns_greedily
from ..ir.core import Operation
from ..ir.transforms import eliminate_common_subexpressions
from .product_tree import Product, cancel, flatten, summands
from .stabilize_softmax import SOFTMAX_PATTERNS
from .tensor_match import is_float_tensor, is_splat, producer


class _FloatPattern(RewritePattern):
    """Only float tensors are stabilized (integers have nothing to overflow into NaN)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if not op.results or not is_float_tensor(op.results[0]):
            return False
        return self.rewrite(op, rewriter)

    def rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        raise NotImplementedError


def _one_plus(value) -> "object | None":
    """`v` when `value` is `1 + v` or `v + 1`."""
    add = producer(value, "tensor.add")
    if add is None:
        return None
    a, b = add.operands
    if is_splat(a, 1.0) and b.type == value.type:
        return b
    if is_splat(b, 1.0) and a.type == value.type:
        return a
    return None


class NegSubToNegAdd(_FloatPattern):
    """`-a - b` → `-(a + b)`: exact in IEEE arithmetic, and shows `exp(-(...))` as a negation."""

    root = "tensor.sub"

    def rewrite(self, op, rewriter):
        neg = producer(op.operands[0], "tensor.neg")
        if neg is None:
            return False
        total = rewriter.create("tensor.add", [neg.operands[0], op.operands[1]])
        rewriter.replace_op(op, rewriter.create("tensor.neg", [total.result]))
        return True


def _exp_argument_of_one_plus(value):
    """`a` when `value` is `1 + exp(a)` (either order) and `a` has `value`'s type."""
    e = _one_plus(value)
    exp = producer(e, "tensor.exp") if e is not None else None
    if exp is None or exp.operands[0].type != value.type:
        return None
    return exp.operands[0]


def _sigmoid_of_reciprocal(op, denominator, rewriter) -> bool:
    """Replace `op` = 1/denominator by a sigmoid when denominator is `1 + exp(a)`."""
    arg = _exp_argument_of_one_plus(denominator)
    if arg is None or arg.type != op.result.type:
        return False
    rewriter.replace_op(op, [_sigmoid_of_negated(arg, rewriter)])
    return True


class ReciprocalOfOnePlusExp(_FloatPattern):
    """`1/(1+exp(-x))` → `sigmoid(x)`; `1/(1+exp(x))` → `sigmoid(-x)`."""

    root = "tensor.div"

    def rewrite(self, op, rewriter):
        num, den = op.operands
        return is_splat(num, 1.0) and _sigmoid_of_reciprocal(op, den, rewriter)


class DivByOnePlusExp(_FloatPattern):
    """`x / (1+exp(a))` → `x * sigmoid(-a)`: what reverse mode writes for `d(1/u)`."""

    root = "tensor.div"
    benefit = 0  # after the plain sigmoid rule

    def rewrite(self, op, rewriter):
        num, den = op.operands
        arg = _exp_argument_of_one_plus(den)
        if arg is None:
            return False
        sig = _sigmoid_of_negated(arg, rewriter)
        new = rewriter.create("tensor.mul", [num, sig])
        if new.result.type != op.result.type:
            return False
        rewriter.replace_op(op, new)
        return True


def _sigmoid_of_negated(x, rewriter):
    """`sigmoid(-x)`, reading through a negation of x."""
    return rewriter.create("tensor.sigmoid", [_negate(x, rewriter)]).result


def _negate(x, rewriter):
    """`-x`, reading through a negation (`-(-y)` is `y`) instead of stacking another."""
    neg = producer(x, "tensor.neg")
    return neg.operands[0] if neg is not None else rewriter.create("tensor.neg", [x]).result


class SimplifyProduct(_FloatPattern):
    """Cancel factors, merge sigmoid·exp pairs and distribute over sums (see product_tree)."""

    root = None

    def rewrite(self, op, rewriter):
        if op.op_name not in ("tensor.mul", "tensor.div"):
            return False
        target = op.result
        simplified, made, changed = cancel(flatten(target))
        terms = self._distribute(simplified, made)
        if terms is None and not changed:
            return False
        if terms is None:
            terms = [(1, simplified, made)]
        built = []
        for sign, product, sigmoids in terms:
            value = self._build(product, sigmoids, rewriter)
            if value is None:
                return False
            built.append((sign, value))
        sign0, result = built[0]
        if sign0 < 0:
            result = rewriter.create("tensor.neg", [result]).result
        for sign, value in built[1:]:
            result = rewriter.create("tensor.add" if sign > 0 else "tensor.sub", [result, value]).result
        if result.type != target.type:
            return False  # leftovers are dead and erased by the driver
        rewriter.replace_op(op, [result])
        return True

    @staticmethod
    def _distribute(p: Product, made):
        """Split over the first sum factor whose summands then cancel something, or None."""
        for i, leaf in enumerate(p.nums):
            parts = summands(leaf)
            if parts is None:
                continue
            rest = Product(p.sign, p.nums[:i] + p.nums[i + 1:], p.dens)
            expanded = []
            useful = False
            for sign, value in parts:
                q, sig, changed = cancel(rest.times(flatten(value)))
                useful |= changed
                expanded.append((sign, q, made + sig))
            if useful:
                return expanded
        return None

    @staticmethod
    def _build(p: Product, sigmoids, rewriter):
        factors = [_sigmoid_of_negated(x, rewriter) for _, x in sigmoids] + list(p.nums)
        if not factors:
            return None  # everything cancelled: leave it (needs a broadcast constant of 1)
        value = factors[0]
        for f in factors[1:]:
            value = rewriter.create("tensor.mul", [value, f]).result
        for d in p.dens:
            value = rewriter.create("tensor.div", [value, d]).result
        if p.sign < 0:
            value = rewriter.create("tensor.neg", [value]).result
        return value


class ReciprocalOfOnePlusExpUnary(_FloatPattern):
    """Same rule when the frontend wrote `1/u` as `reciprocal(u)`."""

    root = "tensor.reciprocal"

    def rewrite(self, op, rewriter):
        return _sigmoid_of_reciprocal(op, op.operands[0], rewriter)


class OneMinusSigmoid(_FloatPattern):
    """`1 - sigmoid(x)` → `sigmoid(-x)` (no cancellation when sigmoid(x) is near 1)."""

    root = "tensor.sub"

    def rewrite(self, op, rewriter):
        one, s = op.operands
        sig = producer(s, "tensor.sigmoid")
        if sig is None or not is_splat(one, 1.0) or s.type != op.result.type:
            return False
        rewriter.replace_op(op, [_sigmoid_of_negated(sig.operands[0], rewriter)])
        return True


class LogSigmoid(_FloatPattern):
    """`log(sigmoid(x))` → `-softplus(-x)`, finite where sigmoid underflows to 0."""

    root = "tensor.log"

    def rewrite(self, op, rewriter):
        sig = producer(op.operands[0], "tensor.sigmoid")
        if sig is None:
            return False
        minus_x = _negate(sig.operands[0], rewriter)
        sp = rewriter.create("tensor.softplus", [minus_x])
        rewriter.replace_op(op, rewriter.create("tensor.neg", [sp.result]))
        return True


class LogOnePlus(_FloatPattern):
    """`log(1+exp(x))` → `softplus(x)`; otherwise `log(1+x)` → `log1p(x)`."""

    root = "tensor.log"

    def rewrite(self, op, rewriter):
        v = _one_plus(op.operands[0])
        if v is None:
            return False
        exp = producer(v, "tensor.exp")
        if exp is not None:
            rewriter.replace_op(op, rewriter.create("tensor.softplus", [exp.operands[0]]))
        else:
            rewriter.replace_op(op, rewriter.create("tensor.log1p", [v]))
        return True


class Log1pExp(_FloatPattern):
    """`log1p(exp(x))` → `softplus(x)`."""

    root = "tensor.log1p"

    def rewrite(self, op, rewriter):
        exp = producer(op.operands[0], "tensor.exp")
        if exp is None:
            return False
        rewriter.replace_op(op, rewriter.create("tensor.softplus", [exp.operands[0]]))
        return True


class ExpMinusOne(_FloatPattern):
    """`exp(x) - 1` → `expm1(x)`, accurate for small x."""

    root = "tensor.sub"

    def rewrite(self, op, rewriter):
        a, one = op.operands
        exp = producer(a, "tensor.exp")
        if exp is None or not is_splat(one, 1.0) or a.type != op.result.type:
            return False
        rewriter.replace_op(op, rewriter.create("tensor.expm1", [exp.operands[0]]))
        return True


STABILIZE_PATTERNS: tuple[RewritePattern, ...] = (
    NegSubToNegAdd(), ReciprocalOfOnePlusExp(), ReciprocalOfOnePlusExpUnary(), OneMinusSigmoid(),
    LogSigmoid(), LogOnePlus(), Log1pExp(), ExpMinusOne(), DivByOnePlusExp(), SimplifyProduct(),
    *SOFTMAX_PATTERNS,
)


@register_pass
@dataclass
class Stabilize(Pass):
    """Numerically stable rewrites (sigmoid, softplus, log1p, expm1, softmax forms)."""

    name = "stabilize"
    summary = "Rewrite fragile forms: 1/(1+exp(-x)) -> sigmoid, log(sigmoid) -> -softplus, ..."
    tags = ("stabilize", "fast_run")
    max_iterations: int = option(10, "rewrite rounds at most", minimum=1)

    def run(self, module: Operation) -> None:
        # Factors cancel only when equal values are one value: CSE between rounds.
        for _ in range(self.max_iterations):
            changed = apply_patterns_greedily(module, STABILIZE_PATTERNS,
                                              max_iterations=self.max_iterations, stats=self.stats)
            merged = eliminate_common_subexpressions(module)
            self.stats["cse"] += merged
            if not changed and not merged:
                return
