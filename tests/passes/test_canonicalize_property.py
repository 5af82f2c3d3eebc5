"""Property: canonicalize (and stabilize) keep the numpy-evaluated result of random elementwise
graphs, within float tolerances. Graphs mix inputs, splat constants chosen to trigger the
identities (0, 1, 2), broadcasting (a 1-sized operand) and shared subexpressions."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from irc.dialects import load_all
from irc.dialects.builtin import ModuleOp, TensorType
from irc.dialects.func import FuncOp, ReturnOp
from irc.dialects.tensor import ConstantOp
from irc.ir.builder import Builder, InsertionPoint
from irc.ir.pass_manager import PassManager
from irc.ir.types import f64
from irc.runtime.reference import ReferenceExecutor

load_all()

UNARY = ["neg", "exp", "tanh", "sigmoid", "abs", "square"]
BINARY = ["add", "sub", "mul", "maximum", "minimum"]
N = 5
VEC = TensorType((N,), f64)
ONE = TensorType((1,), f64)


@st.composite
def graphs(draw):
    """A list of steps: ("unary", name, i) / ("binary", name, i, j) / ("const", value, wide)."""
    steps = []
    n_values = 2  # the two arguments
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "const"]))
        if kind == "const":
            steps.append(("const", draw(st.sampled_from([0.0, 1.0, 2.0, -1.5])), draw(st.booleans())))
        elif kind == "unary":
            steps.append(("unary", draw(st.sampled_from(UNARY)), draw(st.integers(0, n_values - 1))))
        else:
            steps.append(("binary", draw(st.sampled_from(BINARY)),
                          draw(st.integers(0, n_values - 1)), draw(st.integers(0, n_values - 1))))
        n_values += 1
    return steps


def build(steps) -> ModuleOp:
    func = FuncOp.create("f", [VEC, VEC], [VEC])
    b = Builder(InsertionPoint.at_end(func.body))
    values = list(func.args)
    for step in steps:
        if step[0] == "const":
            _, v, wide = step
            values.append(b.insert(ConstantOp.from_array(np.full(N if wide else 1, v), VEC if wide else ONE)).result)
        elif step[0] == "unary":
            values.append(b.create(f"tensor.{step[1]}", [values[step[2]]]).result)
        else:
            values.append(b.create(f"tensor.{step[1]}", [values[step[2]], values[step[3]]]).result)
    # Return something of the full shape that depends on the last value.
    last = values[-1]
    out = b.create("tensor.add", [last, func.args[0]]).result if last.type != VEC else last
    func.body.append(ReturnOp([out]))
    return ModuleOp.create([func])


def run(module: ModuleOp, x, y):
    func = module.body.ops[0]
    return ReferenceExecutor(func).run([x, y])[0]


@settings(max_examples=150, deadline=None)
@given(graphs(), st.lists(st.floats(-3, 3), min_size=2 * N, max_size=2 * N))
def test_canonicalize_and_stabilize_preserve_results(steps, data):
    x, y = np.array(data[:N]), np.array(data[N:])
    before = run(build(steps), x, y)
    module = build(steps)
    PassManager.parse("canonicalize,stabilize,specialize,canonicalize").run(module)
    after = run(module, x, y)
    np.testing.assert_allclose(after, before, rtol=1e-9, atol=1e-12)
