"""Multi-output fused reductions and one-element scalars compute what the unfused graph does:
the reference executor on both sides, native code, and `irc.function` with fusion on and off
against numpy; float32 and float64. Fusion never makes a cycle (random graphs)."""
from __future__ import annotations

import numpy as np
import pytest

from irc.dialects import load_all
from irc.ir.parser import parse_module
from irc.ir.pass_manager import PassManager
from irc.ir.verifier import verify
from irc.passes.fusion_groups import Group, Grouping
from irc.runtime.native import compile_cpu, lower_module
from irc.runtime.reference import ReferenceExecutor

from fusion_graphs import big_graph_text, lr_training_function, reduce_graph_text

load_all()
TOL = {"f32": dict(rtol=2e-5, atol=2e-5), "f64": dict(rtol=1e-12, atol=1e-12)}
NATIVE_TOL = {"f32": dict(rtol=1e-4, atol=1e-4), "f64": dict(rtol=1e-9, atol=1e-9)}  # mathlib: a few ulp


def _fused(text: str):
    m = parse_module(text)
    PassManager.parse("fuse-elementwise,inplace").run(m)
    verify(m)
    return m


def _close(got, want, tol) -> None:
    for g, w in zip(got, want):
        scale = max(1.0, float(np.max(np.abs(w))) if np.size(w) else 1.0)
        np.testing.assert_allclose(g, w, rtol=tol["rtol"], atol=tol["atol"] * scale)


@pytest.mark.parametrize("seed", range(10))
def test_random_reduction_graphs_agree(seed: int) -> None:
    dtype = "f32" if seed % 2 else "f64"
    text = reduce_graph_text(40, seed, dtype)
    plain, fused = parse_module(text), _fused(text)
    rng = np.random.default_rng(seed)
    np_dtype = np.float32 if dtype == "f32" else np.float64
    args = [rng.uniform(-1, 1, (6, 9)).astype(np_dtype) for _ in range(2)]
    want = ReferenceExecutor(plain.body.ops[0]).run(args)
    _close(ReferenceExecutor(fused.body.ops[0]).run(args), want, TOL[dtype])
    _close(compile_cpu(fused, use_cache=False)(*args), want, NATIVE_TOL[dtype])


def test_random_graphs_use_multi_output_reductions() -> None:
    """The generator exercises what it should: kept-and-reduced results, no reduce left that
    could have joined its producer's loop nest with the same kind and axes."""
    kept_and_reduced = 0
    for seed in range(10):
        fused = _fused(reduce_graph_text(40, seed))
        for op in fused.body.ops[0].body.ops:
            if op.op_name == "tensor.fused_reduce" and 0 < op.num_elementwise:
                kept_and_reduced += 1
    assert kept_and_reduced >= 5


def _contracted_edges(g: Grouping):
    for node in list(g.order):
        for succ in g.successors(node):
            yield node, succ


@pytest.mark.parametrize("text", [reduce_graph_text(60, 3), reduce_graph_text(60, 4, "f64"),
                                  big_graph_text(300, seed=1)])
def test_contracted_graph_keeps_a_topological_order(text: str) -> None:
    """Pearce–Kelly's invariant after every merge: each edge between groups (or ops) goes
    forward in `order`, so the fused function can be ordered (no cycle)."""
    block = parse_module(text).body.ops[0].body
    g = Grouping(block, 64, 16)
    g.run()
    nodes = set(g.order)
    assert all(isinstance(n, Group) or n in g.pos for n in nodes)
    for a, b in _contracted_edges(g):
        assert g.order[a] < g.order[b], (a, b)


# ---------------------------------------------------------------------------- logistic regression
def _lr(dtype: str, excluding: str, n: int = 60, feats: int = 17):
    rng = np.random.default_rng(5)
    np_dtype = np.float32 if dtype == "float32" else np.float64
    X = rng.standard_normal((n, feats)).astype(np_dtype)
    Y = (rng.random(n) > 0.5).astype(np_dtype)
    return (*lr_training_function(dtype, excluding, feats), X, Y)


def _lr_numpy(X, Y, w, b, steps: int):
    n = X.shape[0]
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(X @ w) - b))
        xent = -Y * np.log(p) - (1 - Y) * np.log(1 - p)
        g = (p - Y) / n
        w, b = w - 0.1 * (X.T @ g + 0.02 * w), b - 0.1 * g.sum()
    return p > 0.5, xent, w, b


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logistic_regression_fused_matches_unfused_and_numpy(dtype: str) -> None:
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    runs = []
    for excluding in ("", "fusion:inplace"):
        f, w, b, X, Y = _lr(dtype, excluding)
        w0, b0 = w.get_value().copy(), float(b.get_value())
        for _ in range(8):
            pred, xent = f(X, Y)
        runs.append((pred, xent, w.get_value(), float(b.get_value())))
    want = _lr_numpy(X.astype(np.float64), Y.astype(np.float64), w0.astype(np.float64), b0, 8)
    for pred, xent, wv, bv in runs:
        assert wv.dtype == np.dtype(dtype) and xent.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(pred, want[0])
        np.testing.assert_allclose(xent, want[1], **tol)
        np.testing.assert_allclose(wv, want[2], **tol)
        np.testing.assert_allclose(bv, want[3], **tol)


def test_logistic_regression_step_is_one_elementwise_pass() -> None:
    """The gradient vector, the predictions, the cross-entropy and the gradient's sum come from
    one loop nest; 1/n, b and the sum are scalars: the only one-element buffer is b's update.
    (`fuse-matvec` off: it would take this loop nest into the products with X.)"""
    f, *_ = _lr("float32", "fuse-matvec")
    text = f.ir("optimized")
    assert text.count("tensor.fused_reduce") == 1 and "tensor.reduce" not in text
    fr = [op for op in f.maker.module.body.ops[0].body.ops if op.op_name == "tensor.fused_reduce"][0]
    types = [str(r.type) for r in fr.results]
    assert types == ["tensor<?xi1>", "tensor<?xf32>", "tensor<?xf32>", "tensor<f32>"]
    loop = lower_module(f.maker.module).body.ops[0]
    allocs = [op for op in loop.body.ops if op.op_name == "loop.alloc"]
    assert [str(a.results[0].type) for a in allocs].count("memref<f32>") == 1
    assert not any(str(a.results[0].type) == "memref<i64>" for a in allocs)
    marks = [loop.res_attrs(k).get("irc.inplace") for k in range(4)]
    assert [m.value if m is not None else None for m in marks] == [None, None, 2, 3]
