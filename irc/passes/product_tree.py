"""Products as trees of factors, for the stabilizing rewrites of gradients.

A product tree is a nest of `mul`, `div` and `neg` over float tensors; it is read as a sign,
numerator factors and denominator factors. Gradients written by reverse mode are such trees
(`gz * out / u * exp(-x)`), and the rules that keep them finite work on factors:

    s / s            -> 1                  (cancel a factor above and below the line)
    sigmoid(x) * exp(-x) -> sigmoid(-x)    (the two overflow/underflow in opposite ways)
    (a/s + b) * s    -> a + b*s            (distribute only when that lets a factor cancel)
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.core import Value
from .tensor_match import producer

MAX_DEPTH = 8


@dataclass
class Product:
    sign: int = 1
    nums: list[Value] = field(default_factory=list)
    dens: list[Value] = field(default_factory=list)

    def times(self, other: "Product") -> "Product":
        return Product(self.sign * other.sign, self.nums + other.nums, self.dens + other.dens)


def flatten(value: Value, depth: int = 0) -> Product:
    """Read `value` as a product tree (leaves are values that are not mul/div/neg)."""
    op = producer(value)
    if op is None or depth >= MAX_DEPTH or op.results[0].type != value.type:
        return Product(nums=[value])
    name = op.op_name
    if name == "tensor.neg":
        inner = flatten(op.operands[0], depth + 1)
        return Product(-inner.sign, inner.nums, inner.dens)
    if name in ("tensor.mul", "tensor.div"):
        a, b = (flatten(v, depth + 1) if v.type == value.type else Product(nums=[v]) for v in op.operands)
        if name == "tensor.div":
            b = Product(b.sign, b.dens, b.nums)
        return a.times(b)
    return Product(nums=[value])


def summands(value: Value) -> list[tuple[int, Value]] | None:
    """`[(+1, a), (-1, b)]` for `a - b` (and `a + b`); None when `value` is not a sum."""
    op = producer(value)
    if op is None or op.op_name not in ("tensor.add", "tensor.sub") or op.results[0].type != value.type:
        return None
    a, b = op.operands
    if a.type != value.type or b.type != value.type:
        return None
    return [(1, a), (1 if op.op_name == "tensor.add" else -1, b)]


def _negated(value: Value) -> Value | None:
    op = producer(value, "tensor.neg")
    return op.operands[0] if op is not None else None


def _are_negations(a: Value, b: Value) -> bool:
    return _negated(a) is b or _negated(b) is a


def cancel(p: Product) -> tuple[Product, list[tuple[str, Value]], bool]:
    """Cancel equal factors and merge sigmoid·exp pairs.

    Returns the simplified product, the sigmoids to create (as `("neg", x)` meaning
    sigmoid(-x) or `("pos", x)` meaning sigmoid(x)), and whether anything changed."""
    nums, dens = list(p.nums), list(p.dens)
    changed = False
    for d in list(dens):
        if d in nums:
            nums.remove(d)
            dens.remove(d)
            changed = True
    made: list[tuple[str, Value]] = []
    i = 0
    while i < len(nums):
        sig = producer(nums[i], "tensor.sigmoid")
        partner = None
        if sig is not None:
            x = sig.operands[0]
            for j, other in enumerate(nums):
                exp = producer(other, "tensor.exp") if j != i else None
                if exp is not None and _are_negations(exp.operands[0], x):
                    partner = j
                    break
        if partner is None:
            i += 1
            continue
        # sigmoid(x) * exp(-x) = sigmoid(-x); the new factor is built by the caller.
        made.append(("neg", x))
        for k in sorted((i, partner), reverse=True):
            del nums[k]
        changed = True
    return Product(p.sign, nums, dens), made, changed
