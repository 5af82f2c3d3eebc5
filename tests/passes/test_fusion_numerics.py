"""Fused builds compute what unfused ones do: reference semantics (`tensor_eval`), native code,
and `irc.function` with fusion on and off (`optimizer_excluding=fusion`)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects import load_all
from irc.dialects.builtin import ModuleOp
from irc.ir.parser import parse_module
from irc.ir.pass_manager import PassManager
from irc.runtime.reference import ReferenceExecutor

from fusion_graphs import big_graph_text

load_all()
RTOL = 1e-5  # float32: fused and unfused builds may round a few ulp apart (FMA contraction)


def _fused(text: str, pipeline: str = "fuse-elementwise") -> ModuleOp:
    m = parse_module(text)
    PassManager.parse(pipeline).run(m)
    return m


def _ops(m: ModuleOp) -> list[str]:
    return [op.op_name for op in m.body.ops[0].body.ops]


def test_reference_semantics_of_fused_graph() -> None:
    text = big_graph_text(400, seed=3)
    plain, fused = parse_module(text), _fused(text, "fuse-elementwise,inplace")
    fused_ops = [n for n in _ops(fused) if n.startswith("tensor.fused")]
    assert len(fused_ops) > 5 and "tensor.reduce" not in _ops(fused)
    assert len(_ops(fused)) < len(_ops(plain)) // 3
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(257).astype(np.float32) for _ in range(2)]
    want = ReferenceExecutor(plain.body.ops[0]).run(args)
    got = ReferenceExecutor(fused.body.ops[0]).run(args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=1e-6)


def test_native_fused_graph_matches_reference() -> None:
    from irc.runtime.native import compile_cpu
    text = big_graph_text(300, seed=5)
    fused = _fused(text, "fuse-elementwise,inplace")
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(1000).astype(np.float32) for _ in range(2)]
    want = ReferenceExecutor(parse_module(text).body.ops[0]).run(args)
    got = compile_cpu(fused, use_cache=False)(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)  # native math: a few ulp


SUM_EXP_MUL = """
func.func @f(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>, %b: tensor<1x?xf32>)
    -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.exp %x : tensor<?x?xf32>
  %m = tensor.mul %e, %y : tensor<?x?xf32>
  %r = tensor.reduce %m {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %a = tensor.add %x, %b : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %t = tensor.tanh %a : tensor<?x?xf32>
  %c = tensor.reduce %t {axes = array<i64: 0>, kind = "max"} : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %r, %c : tensor<?xf32>, tensor<?xf32>
}
"""


def test_fused_reduction_is_one_loop_nest_without_temporaries() -> None:
    from irc.runtime.native import compile_cpu, lower_module
    fused = _fused(SUM_EXP_MUL)
    assert _ops(fused).count("tensor.fused_reduce") == 2 and "tensor.reduce" not in _ops(fused)
    loop = lower_module(fused).body.ops[0]
    allocs = [op for op in loop.body.ops if op.op_name == "loop.alloc"]
    assert len(allocs) == 2  # the two results, nothing in between
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((37, 53)).astype(np.float32), rng.random((37, 53)).astype(np.float32)
    b = rng.standard_normal((1, 53)).astype(np.float32)
    r, c = compile_cpu(fused, use_cache=False)(x, y, b)
    np.testing.assert_allclose(r, (np.exp(x) * y).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(c, np.tanh(x + b).max(axis=0), rtol=1e-5)
    ref = ReferenceExecutor(fused.body.ops[0]).run([x, y, b])
    np.testing.assert_allclose(ref[0], r, rtol=1e-5)


def _count(f, name: str) -> int:
    return f.ir("optimized").count(name)


def test_tutorial_two_outputs_one_fused_op() -> None:
    """`irc.function([x, y], [x + y, x - y])`: both outputs come from one fused op (one loop)."""
    x, y = T.fvector("x"), T.fvector("y")
    f = irc.function([x, y], [x + y, x - y])
    assert _count(f, "tensor.fused(") == 1 and _count(f, "tensor.add") == 0
    a, b = np.arange(5, dtype=np.float32), np.ones(5, np.float32)
    s, d = f(a, b)
    np.testing.assert_array_equal(s, a + b)
    np.testing.assert_array_equal(d, a - b)


def _chain(x):
    return T.tanh(T.exp(-x * 0.5) + 1.0) * x - T.sigmoid(x) / (1.0 + abs(x))


@pytest.mark.parametrize("excluding", ["fusion", "inplace", "fusion:inplace"])
def test_optimizer_excluding_turns_passes_off(excluding: str) -> None:
    x = T.fvector("x")
    with irc.config.change_flags(optimizer_excluding=excluding):
        off = irc.function([x], _chain(x))
    on = irc.function([x], _chain(x))
    assert _count(on, "tensor.fused") == 1 and "inplace" not in on.ir("optimized")
    if "fusion" in excluding:
        assert _count(off, "tensor.fused") == 0
        if "inplace" not in excluding:
            assert "inplace = array" in off.ir("optimized")
    if "inplace" in excluding:
        assert "inplace = array" not in off.ir("optimized")
    v = np.linspace(-3, 3, 1001).astype(np.float32)
    np.testing.assert_allclose(on(v), off(v), rtol=RTOL, atol=1e-6)


def test_debugmode_agrees_with_fused_build() -> None:
    x, y = T.fmatrix("x"), T.fvector("y")
    out = [T.sum(T.exp(x) * y, axis=1), _chain(y)]
    fused = irc.function([x, y], out)
    debug = irc.function([x, y], out, mode="DebugMode")
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((8, 6)).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    for g, w in zip(fused(a, b), debug(a, b)):
        np.testing.assert_allclose(g, w, rtol=RTOL, atol=1e-6)
    assert "tensor.fused_reduce" in fused.ir("optimized")
