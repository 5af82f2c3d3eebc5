"""Loop lowering of `tensor.random`: one `loop.parallel` over the sample's elements, each
computing its own Philox4x32-10 block from (key, counter = (flat index, draw)) in `scalar` ops
and transforming its words (the definition, with the counter layout: `dialects/philox.py`).

The 32-bit words are held in i64 (always in [0, 2^32)): a product of two words wraps in i64,
and its high word is `(p floordiv 2^32) and 0xffffffff` (the floor of a wrapped negative
product is the arithmetic shift, whose low 32 bits are the unsigned high word). No loop-carried
state: every element is independent, so the loop is parallel and a GPU kernel can run it."""
from __future__ import annotations

import math

from ...dialects.builtin import TensorType
from ...dialects.philox import MASK32, MULTIPLIERS, ROUNDS, WEYL
from ...dialects.tensor_random import STATE_SIZE
from ...ir.core import Operation, Value
from ...ir.types import ScalarType, f32, i64, index
from ..loop_builder import Index, LoopBuilder
from .context import FuncLowering, lowering
from .index_trace import index_of


class _Words:
    """32-bit word arithmetic on i64 scalars for one element's block."""

    def __init__(self, lb: LoopBuilder):
        self.lb = lb
        self._consts: dict[int, Value] = {}

    def const(self, value: int) -> Value:
        """An i64 constant, made once per element body."""
        if value not in self._consts:
            self._consts[value] = self.lb.scalar_const(value, i64)
        return self._consts[value]

    def op(self, name: str, a: Value, b: Value) -> Value:
        return self.lb.scalar(name, [a, b])

    def low(self, x: Value) -> Value:
        return self.op("and", x, self.const(MASK32))

    def high(self, x: Value) -> Value:
        return self.low(self.op("floordiv", x, self.const(1 << 32)))

    def block(self, key: list[Value], counter: list[Value]) -> list[Value]:
        """Philox4x32-10 of (key, counter): four words."""
        k0, k1 = key
        c0, c1, c2, c3 = counter
        for r in range(ROUNDS):
            if r:
                k0 = self.low(self.op("add", k0, self.const(WEYL[0])))
                k1 = self.low(self.op("add", k1, self.const(WEYL[1])))
            p0 = self.op("mul", self.const(MULTIPLIERS[0]), c0)
            p1 = self.op("mul", self.const(MULTIPLIERS[1]), c2)
            c0, c1, c2, c3 = (self.op("xor", self.op("xor", self.high(p1), c1), k0), self.low(p1),
                              self.op("xor", self.op("xor", self.high(p0), c3), k1), self.low(p0))
        return [c0, c1, c2, c3]

    def uniform(self, hi: Value, lo: Value, t: ScalarType) -> Value:
        """U[0, 1) with a full mantissa: 24 bits of `hi` (f32), or 27 of `hi` and 26 of `lo` (f64)."""
        lb = self.lb
        if t == f32:
            bits = self.op("floordiv", hi, self.const(1 << 8))
            scale = 2.0 ** -24
        else:
            bits = self.op("add", self.op("mul", self.op("floordiv", hi, self.const(1 << 5)), self.const(1 << 26)),
                           self.op("floordiv", lo, self.const(1 << 6)))
            scale = 2.0 ** -53
        return lb.scalar("mul", [lb.cast(bits, t), lb.scalar_const(scale, t)])


def _normal(lb: LoopBuilder, u1: Value, u2: Value, t: ScalarType) -> Value:
    """Box-Muller, cosine branch: sqrt(-2 log(1 - u1)) cos(2 pi u2) (1 - u1 is in (0, 1])."""
    log = lb.scalar("log", [lb.scalar("sub", [lb.scalar_const(1.0, t), u1])])
    radius = lb.scalar("sqrt", [lb.scalar("mul", [lb.scalar_const(-2.0, t), log])])
    angle = lb.scalar("mul", [lb.scalar_const(2 * math.pi, t), u2])
    return lb.scalar("mul", [radius, lb.scalar("cos", [angle])])


def _flat_index(lb: LoopBuilder, ivs: list[Index], sizes: list[Index]) -> Index:
    flat = lb.const(0)
    for iv, n in zip(ivs, sizes):
        flat = lb.add(lb.mul(flat, n), iv)
    return flat


def _sizes(ctx: FuncLowering, op: Operation) -> list[Index]:
    """The sample's sizes: index arithmetic on the arguments' sizes where they come from there
    (the caller can then size a returned sample), else the values read where the op stands,
    checked non-negative."""
    lb = ctx.lb
    sizes = []
    for k, v in enumerate(op.operands[1:]):
        n = index_of(ctx, v)
        if n is None:
            n = lb.cast(ctx.broadcast_load(v, []), index)
            lb.assert_nonnegative(n, f"'tensor.random': size {k} is negative")
        sizes.append(n)
    return sizes


@lowering("tensor.random")
def _random(ctx: FuncLowering, op: Operation) -> None:
    lb = ctx.lb
    state = ctx.materialize(op.operand(0))
    lb.assert_eq(ctx.sizes_of(state)[0], lb.const(STATE_SIZE),
                 f"'tensor.random': the generator state must hold {STATE_SIZE} values [key0, key1, draw]")
    t: TensorType = op.results[0].type
    sizes = ctx.result_sizes(t, _sizes(ctx, op))
    out = ctx.alloc(t, sizes)
    distribution = op.attributes["distribution"].value
    with ctx.nest(sizes, t.device) as ivs:
        words = _Words(lb)
        k0, k1, draw = (lb.load(state, [lb.const(k)]) for k in range(STATE_SIZE))
        i = lb.cast(_flat_index(lb, ivs, sizes), i64)
        w = words.block([k0, k1], [words.low(i), words.high(i), words.low(draw), words.high(draw)])
        value = words.uniform(w[0], w[1], t.element)
        if distribution == "normal":
            u2 = words.uniform(w[1], w[1], t.element) if t.element == f32 else words.uniform(w[2], w[3], t.element)
            value = _normal(lb, value, u2, t.element)
        lb.store(value, out, ivs)
    ctx.bind(op.results[0], out, sizes, contiguous=True)
