"""Property: `insert-transfers` keeps the numpy results of random graphs (the reference
executor runs transfers as the identity, so results must be bit-identical), and the placed
IR keeps the rules: every elementwise op on the device, reductions on the host, each value
copied at most once per placement and never straight back, results where their attributes
say; a second run changes nothing; the whole GPU pipeline keeps the results too.

Graphs read a host input `x` and a device-resident shared variable `w` (through a host copy,
as the frontend lowers it), mix elementwise ops, constants, sums broadcast back, sizes and
dimshuffles, and return one value on the host, one on the device (`irc.device`) and the
update of `w` (`irc.update`)."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from irc.dialects import load_all
from irc.dialects.builtin import ModuleOp, TensorType
from irc.dialects.func import FuncOp, ReturnOp
from irc.dialects.tensor import ConstantOp
from irc.ir.attributes import DenseArrayAttr, IntegerAttr, StringAttr, TypeAttr
from irc.ir.builder import Builder, InsertionPoint
from irc.ir.pass_manager import PassManager
from irc.ir.printer import print_op
from irc.ir.types import f64
from irc.passes.insert_transfers import DEVICE, HOST, placement_rule
from irc.passes.pipelines import pipeline_for
from irc.runtime.reference import ReferenceExecutor

load_all()

N = 6
VEC = TensorType((N,), f64)
DVEC = VEC.with_device("cuda")
UNARY = ["neg", "exp", "tanh", "abs"]
BINARY = ["add", "sub", "mul", "maximum"]


@st.composite
def graphs(draw):
    steps = []
    n = 2  # x and the host view of w
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "const", "sum", "size", "select"]))
        pick = lambda: draw(st.integers(0, n - 1))  # noqa: E731
        if kind == "const":
            steps.append(("const", draw(st.floats(-2, 2)), draw(st.booleans())))
        elif kind == "unary":
            steps.append(("unary", draw(st.sampled_from(UNARY)), pick()))
        elif kind == "binary":
            steps.append(("binary", draw(st.sampled_from(BINARY)), pick(), pick()))
        elif kind == "select":
            steps.append(("select", pick(), pick(), pick()))
        else:
            steps.append((kind, pick()))
        n += 1
    outs = (draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)))
    return steps, outs


def _full(b: Builder, v, like):
    """`v` as a full-length vector (a broadcast of a 1-element one)."""
    return v if v.type == VEC else b.create("tensor.add", [v, like]).result


def build(steps, outs) -> ModuleOp:
    func = FuncOp.create("f", [VEC, DVEC], [], [{}, {"irc.shared": StringAttr("w")}])
    b = Builder(InsertionPoint.at_end(func.body))
    x = func.args[0]
    values = [x, b.create("tensor.to_host", [func.args[1]]).result]
    for step in steps:
        kind = step[0]
        if kind == "const":
            _, c, wide = step
            shape = N if wide else 1
            values.append(b.insert(ConstantOp.from_array(np.full(shape, c), TensorType((shape,), f64))).result)
        elif kind == "unary":
            values.append(b.create(f"tensor.{step[1]}", [values[step[2]]]).result)
        elif kind == "binary":
            values.append(b.create(f"tensor.{step[1]}", [values[step[2]], values[step[3]]]).result)
        elif kind == "select":
            cond = b.create("tensor.gt", [values[step[1]], values[step[2]]]).result
            values.append(b.create("tensor.select", [cond, values[step[2]], values[step[3]]]).result)
        elif kind == "sum":
            s = b.create("tensor.reduce", [values[step[1]]],
                         {"kind": StringAttr("sum"), "axes": DenseArrayAttr((0,))}).result
            values.append(b.create("tensor.dimshuffle", [s], {"pattern": DenseArrayAttr((-1,))}).result)
        else:  # the size of a value, as a float
            d = b.create("tensor.dim", [values[step[1]]], {"axis": IntegerAttr(0)}).result
            f = b.create("tensor.cast", [d], {"to": TypeAttr(f64)}).result
            values.append(b.create("tensor.dimshuffle", [f], {"pattern": DenseArrayAttr((-1,))}).result)
    results = [_full(b, values[i], x) for i in outs]
    func.body.append(ReturnOp(results))
    func.update_function_type()
    func.set_res_attrs([{}, {"irc.device": StringAttr("cuda")}, {"irc.update": IntegerAttr(1)}])
    return ModuleOp.create([func])


def run(module: ModuleOp, x, w):
    return ReferenceExecutor(module.body.ops[0]).run([x, w])


def check_placement(func: FuncOp) -> None:
    copies: set[tuple[int, str | None]] = set()
    for op in func.body.ops:
        name = op.op_name
        if name in ("tensor.to_device", "tensor.to_host"):
            src = op.operands[0]
            key = (id(src), op.results[0].type.device)
            assert key not in copies, f"{src} copied twice to the same placement"
            copies.add(key)
            owner = src.owner
            assert not (getattr(owner, "op_name", "") in ("tensor.to_device", "tensor.to_host")), \
                "a copy of a copy (a round trip)"
        elif name.startswith("tensor.") and name != "tensor.constant":
            rule = placement_rule(op)
            where = {r.type.device for r in op.results}
            if rule == DEVICE:
                assert where == {"cuda"}, f"{name} should be on the device"
            elif rule == HOST:
                assert where == {None}, f"{name} should be on the host"
    types = func.function_type.results
    assert (types[0].device, types[1].device, types[2].device) == (None, "cuda", "cuda")


@settings(max_examples=120, deadline=None)
@given(graphs(), st.lists(st.floats(-3, 3), min_size=2 * N, max_size=2 * N))
def test_insert_transfers_keeps_results_and_rules(graph, data):
    x, w = np.array(data[:N]), np.array(data[N:])
    before = run(build(*graph), x, w)
    module = build(*graph)
    PassManager.parse("insert-transfers").run(module)  # verifies after the pass
    check_placement(module.body.ops[0])
    for got, want in zip(run(module, x, w), before):
        np.testing.assert_array_equal(got, want)
    once = print_op(module)
    PassManager.parse("insert-transfers").run(module)
    assert print_op(module) == once


@settings(max_examples=60, deadline=None)
@given(graphs(), st.lists(st.floats(-3, 3), min_size=2 * N, max_size=2 * N))
def test_gpu_pipeline_keeps_results(graph, data):
    x, w = np.array(data[:N]), np.array(data[N:])
    before = run(build(*graph), x, w)
    module = build(*graph)
    PassManager.parse(pipeline_for("FAST_RUN", device="cuda")).run(module)
    for got, want in zip(run(module, x, w), before):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
