"""`fuse-matvec` and the lowering of `tensor.fused_matvec` compute what the unfused graph does:
the reference executor before and after the pass, native code, and `irc.function` with the
fusion on and off against numpy (float64), in float32 and float64, for odd sizes, strided
inputs and every reduction kind; the same bits with one thread or several."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from irc.dialects import load_all
from irc.ir.parser import parse_module
from irc.ir.printer import print_op
from irc.ir.pass_manager import PassManager
from irc.ir.verifier import verify
from irc.runtime import threads
from irc.runtime.native import compile_cpu, lower_module
from irc.runtime.reference import ReferenceExecutor

from fusion_graphs import lr_training_function

load_all()
SIZES = [(1, 1), (1, 3), (3, 1), (3, 5), (5, 7), (7, 3), (7, 7), (9, 2), (400, 784), (1000, 3)]


def _close(got, want, dtype, scale_by=None) -> None:
    rtol, atol = (2e-4, 2e-5) if dtype == np.float32 else (1e-10, 1e-12)
    for g, w in zip(got, want):
        w = np.asarray(w, dtype=np.float64)
        scale = max(1.0, float(np.max(np.abs(w))) if w.size else 1.0)
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64), w, rtol=rtol, atol=atol * scale)


# ---------------------------------------------------------------------------- IR level
def _graph(el: str, kind: str) -> str:
    """z = 2·A·x + y1; p = (z·c > y) with c broadcast; e = exp(-|z - y|); sum/max/... of e;
    g = (z - y)·c; out = 0.5·Aᵀ·g + 1.5·y2. The group is a tensor.fused_reduce over the rows."""
    return f"""func.func @f(%A: tensor<?x?x{el}>, %x: tensor<?x{el}>, %y1: tensor<?x{el}>, %y: tensor<?x{el}>, %c: tensor<1x{el}>, %y2: tensor<?x{el}>) -> (tensor<?xi1>, tensor<?x{el}>, tensor<{el}>, tensor<?x{el}>) {{
  %z = tensor.gemv %A, %x, %y1 {{alpha = 2.0, beta = 1.0}} : (tensor<?x?x{el}>, tensor<?x{el}>, tensor<?x{el}>) -> tensor<?x{el}>
  %r:4 = tensor.fused_reduce(%a = %z, %b = %y, %s = %c) {{axes = array<i64: 0>, kind = "{kind}"}} : (tensor<?x{el}>, tensor<?x{el}>, tensor<1x{el}>) -> (tensor<?xi1>, tensor<?x{el}>, tensor<?x{el}>, tensor<{el}>) {{
    %zs = scalar.mul %a, %s : {el}
    %p = scalar.gt %zs, %b : ({el}, {el}) -> i1
    %d = scalar.sub %a, %b : {el}
    %ad = scalar.abs %d : {el}
    %n = scalar.neg %ad : {el}
    %e = scalar.exp %n : {el}
    %g = scalar.mul %d, %s : {el}
    scalar.yield %p, %e, %g, %e : i1, {el}, {el}, {el}
  }}
  %At = tensor.dimshuffle %A {{pattern = array<i64: 1, 0>}} : tensor<?x?x{el}>
  %o = tensor.gemv %At, %r#2, %y2 {{alpha = 0.5, beta = 1.5}} : (tensor<?x?x{el}>, tensor<?x{el}>, tensor<?x{el}>) -> tensor<?x{el}>
  func.return %r#0, %r#1, %r#3, %o : tensor<?xi1>, tensor<?x{el}>, tensor<{el}>, tensor<?x{el}>
}}
"""


_NATIVE: dict[str, object] = {}


def _native(fused):
    """`fused` compiled (without the disk cache), once per module text: the sizes of one
    element type and reduction kind share one module, and so its native code."""
    text = print_op(fused)
    if text not in _NATIVE:
        _NATIVE[text] = compile_cpu(fused, use_cache=False)
    return _NATIVE[text]


def _args(m: int, k: int, dtype, seed: int = 0, strided: bool = False) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    A = rng.uniform(-1, 1, (2 * m, 3 * k) if strided else (m, k)).astype(dtype)
    A = A[::2, ::3] if strided else A
    vec = lambda n: rng.uniform(-1, 1, n).astype(dtype)  # noqa: E731
    return [A, vec(k), vec(m), vec(m), np.array([0.75], dtype), vec(k)]


@pytest.mark.parametrize("m, k", SIZES)
@pytest.mark.parametrize("el, kind", [("f32", "sum"), ("f64", "max"), ("f32", "min"), ("f64", "prod"),
                                      ("f64", "sum")])
def test_pass_and_lowering_agree_with_the_reference(m: int, k: int, el: str, kind: str) -> None:
    dtype = np.float32 if el == "f32" else np.float64
    text = _graph(el, kind)
    plain, fused = parse_module(text), parse_module(text)
    PassManager.parse("fuse-matvec").run(fused)
    verify(fused)
    names = [op.op_name for op in fused.body.ops[0].body.ops]
    assert names == ["tensor.fused_matvec", "func.return"], names
    args = _args(m, k, dtype, seed=m * 31 + k, strided=(m, k) == (7, 7))
    want = ReferenceExecutor(plain.body.ops[0]).run(args)
    ref = ReferenceExecutor(fused.body.ops[0]).run(args)
    native = _native(fused)(*args)
    np.testing.assert_array_equal(ref[0], want[0])
    np.testing.assert_array_equal(native[0], want[0])
    _close(ref[1:], want[1:], dtype)
    _close(native[1:], want[1:], dtype)
    assert [a.dtype for a in native] == [np.bool_, dtype, dtype, dtype]


def test_lowering_checks_run_time_sizes() -> None:
    fused = parse_module(_graph("f32", "sum"))
    PassManager.parse("fuse-matvec").run(fused)
    fn = compile_cpu(fused, use_cache=False)
    A, x, y1, y, c, y2 = _args(6, 4, np.float32)
    with pytest.raises(Exception, match="row operand #2 differs from A.s rows"):
        fn(A, x, y1[:5], y, c, y2)
    with pytest.raises(Exception, match="y2 differs from A's columns"):
        fn(A, x, y1, y, c, y2[:3])


# ---------------------------------------------------------------------------- logistic regression
def _lr(dtype: str, excluding: str, X: np.ndarray):
    return lr_training_function(dtype, excluding, X.shape[1])


@functools.lru_cache(maxsize=None)
def shared_lr(dtype: str, excluding: str):
    """One training step per dtype and rewrite set for every size (its graph does not depend
    on the size: w's length is its value's); the cases set w and b to their start."""
    return lr_training_function(dtype, excluding, 1)


def _lr_numpy(X, Y, steps: int):
    """The same steps in float64; returns the last step's outputs, w, b and the margin X·w + b."""
    w, b = np.full(X.shape[1], 0.01), 0.0
    for _ in range(steps):
        z = X @ w + b
        p = 1 / (1 + np.exp(-z))
        xent = -Y * np.log(p) - (1 - Y) * np.log(1 - p)
        g = (p - Y) / X.shape[0]
        w, b = w - 0.1 * (X.T @ g + 0.02 * w), b - 0.1 * g.sum()
    return p > 0.5, xent, w, b, z


@pytest.mark.parametrize("m, k", SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logistic_regression_steps(m: int, k: int, dtype: str) -> None:
    """Several training steps, fused (one fused_matvec) and unfused, against numpy."""
    rng = np.random.default_rng(m + 7 * k)
    X = rng.standard_normal((m, k)).astype(dtype)
    Y = (rng.random(m) > 0.5).astype(dtype)
    steps = 4
    want = _lr_numpy(X.astype(np.float64), Y.astype(np.float64), steps)
    clear = np.abs(want[4]) > 1e-3  # predictions far enough from the boundary to be exact
    for excluding in ("", "fusion:inplace"):
        f, w, b = shared_lr(dtype, excluding)
        w.set_value(np.full(k, 0.01, dtype))  # lr_training_function's start, k features
        b.set_value(np.asarray(0.0, dtype))
        ops = f.ir("optimized")
        assert ("tensor.fused_matvec" in ops) == (excluding == ""), ops
        for _ in range(steps):
            pred, xent = f(X, Y)
        np.testing.assert_array_equal(pred[clear], want[0][clear])
        _close([xent, w.get_value(), b.get_value()], want[1:4], np.dtype(dtype).type)
        assert w.get_value().dtype == np.dtype(dtype) and xent.dtype == np.dtype(dtype)


@pytest.mark.parametrize("layout", ["fortran", "sliced"])
def test_logistic_regression_strided_data(layout: str) -> None:
    rng = np.random.default_rng(3)
    base = rng.standard_normal((66, 45)).astype(np.float32)
    X = np.asfortranarray(base) if layout == "fortran" else base[::2, ::3]
    Y = (rng.random(X.shape[0]) > 0.5).astype(np.float32)
    want = _lr_numpy(np.array(X, np.float64), Y.astype(np.float64), 3)
    f, w, b = _lr("float32", "", X)
    for _ in range(3):
        pred, xent = f(X, Y)
    _close([xent, w.get_value(), b.get_value()], want[1:4], np.float32)


def test_logistic_regression_is_one_pass_over_x() -> None:
    """The whole step is one fused_matvec (no gemv, no fused_reduce left), seen as CGemv by
    Theano-style code; 1/n, b and sum(g) stay scalars (only b's update is a one-element
    buffer); the shared updates are still done in place."""
    f, w, b = _lr("float32", "", np.zeros((4, 3), np.float32))
    text = f.ir("optimized")
    assert text.count("tensor.fused_matvec") == 1
    assert "tensor.gemv" not in text and "tensor.fused_reduce" not in text and "tensor.reduce" not in text
    assert "CGemv" in [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    loop = lower_module(f.maker.module).body.ops[0]
    allocs = [str(op.results[0].type) for op in loop.body.ops if op.op_name == "loop.alloc"]
    assert allocs.count("memref<f32>") == 1 and "memref<i64>" not in allocs
    marks = [loop.res_attrs(i).get("irc.inplace") for i in range(4)]
    assert [m.value if m is not None else None for m in marks] == [None, None, 2, 3]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_same_bits_with_any_thread_count(dtype: str) -> None:
    """Each chunk of rows is summed on its own, whatever thread runs it: the same bits."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((301, 57)).astype(dtype)
    Y = (rng.random(301) > 0.5).astype(dtype)
    before = threads.num_threads()
    threads.tune(min_work=0)
    try:
        runs = []
        for n in (1, 2, 3):
            threads.set_num_threads(n)
            f, w, b = _lr(dtype, "", X)
            outs = [f(X, Y) for _ in range(3)][-1]
            runs.append([*outs, w.get_value(), b.get_value()])
        for other in runs[1:]:
            for a, c in zip(runs[0], other):
                assert np.array_equal(a, c)
    finally:
        threads.tune(min_work=100_000)
        threads.set_num_threads(before)
