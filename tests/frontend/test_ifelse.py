"""`irc.ifelse.ifelse`: lazy (only the taken branch runs), several outputs, gradients and R-ops,
and type errors naming the user's line. Values against numpy: float64 exactly or to 1e-12."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.ifelse import IfElse, ifelse
from irc.runtime.errors import IndexOutOfRangeError


def compile_quietly(inputs, outputs):
    """Compiles, failing on any warning (a fallback to the reference executor warns)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return irc.function(inputs, outputs)


def test_tutorial_shape_scalar_branches_run_natively():
    a, b = T.dscalars("a", "b")
    x, y = T.dmatrices("x", "y")
    f = compile_quietly([a, b, x, y], ifelse(T.lt(a, b), T.mean(x), T.mean(y)))
    xv, yv = np.arange(6.0).reshape(2, 3), -np.ones((4, 5))
    assert f(0.0, 1.0, xv, yv) == xv.mean()
    assert f(1.0, 0.0, xv, yv) == -1.0
    assert "loop.if" in f.ir("loop")


def test_only_the_taken_branch_runs():
    """An index out of range in the other branch is never evaluated (it would raise)."""
    c = T.dscalar("c")
    v = T.dvector("v")
    i = T.lscalar("i")
    f = compile_quietly([c, v, i], ifelse(c > 0, v[i], v[0] * 10))
    data = np.array([1.0, 2.0, 3.0])
    assert f(-1.0, data, 99) == 10.0
    assert f(1.0, data, 2) == 3.0
    with pytest.raises(IndexOutOfRangeError):
        f(1.0, data, 99)


def test_several_outputs_and_code_after_the_branch():
    c = T.lscalar("c")
    v = T.dvector("v")
    r0, r1 = ifelse(c, [v * 2, v.sum()], [v + 1, (v * v).sum()])
    f = compile_quietly([c, v], [r0, r1, r0.sum() + r1])
    data = np.array([1.0, -2.0, 4.0])
    np.testing.assert_array_equal(f(3, data)[0], data * 2)
    assert f(3, data)[1] == data.sum() and f(3, data)[2] == (data * 2).sum() + data.sum()
    np.testing.assert_array_equal(f(0, data)[0], data + 1)
    assert f(0, data)[1] == (data * data).sum()


def test_value_shared_with_the_rest_is_computed_once_outside():
    c = T.dscalar("c")
    v = T.dvector("v")
    e = T.exp(v)
    f = compile_quietly([c, v], [ifelse(c > 0, e * 2, v), e])
    tensor_ir = f.ir("tensor")
    assert tensor_ir.count("tensor.exp") == 1
    then_region = tensor_ir.split('"tensor.if"')[1]
    assert "tensor.mul" in then_region and "tensor.exp" not in then_region
    data = np.array([0.0, 1.0])
    np.testing.assert_allclose(f(1.0, data)[0], 2 * np.exp(data), rtol=1e-12)
    np.testing.assert_array_equal(f(-1.0, data)[0], data)


def test_elementwise_ops_in_a_branch_are_fused():
    """fuse-elementwise works on each branch like on a function body: exp, mul and add are one
    `tensor.fused` in the then-branch."""
    c = T.dscalar("c")
    x = T.dvector("x")
    f = compile_quietly([c, x], ifelse(c > 0, T.exp(x) * 2.0 + 1.0, x))
    then_region = f.ir("optimized").split('"tensor.if"')[1].split("}, {")[0]
    assert then_region.count("tensor.fused") == 1
    assert "tensor.exp" not in then_region
    data = np.array([0.0, 1.0, -2.0])
    np.testing.assert_allclose(f(1.0, data), np.exp(data) * 2.0 + 1.0, rtol=1e-12)
    np.testing.assert_array_equal(f(-1.0, data), data)


def test_a_branch_fuses_ops_reading_a_value_computed_before_the_if():
    c = T.dscalar("c")
    x = T.dvector("x")
    e = T.exp(x)
    f = compile_quietly([c, x], [ifelse(c > 0, T.log(e + 1.0) * e, x), e])
    then_region = f.ir("optimized").split('"tensor.if"')[1].split("}, {")[0]
    assert then_region.count("tensor.fused") == 1 and "tensor.mul" not in then_region
    data = np.array([0.0, 1.0, -2.0])
    np.testing.assert_allclose(f(1.0, data)[0], np.log(np.exp(data) + 1.0) * np.exp(data), rtol=1e-12)
    np.testing.assert_array_equal(f(-1.0, data)[0], data)


def test_branches_of_different_sizes_fall_back_with_a_warning():
    """A result whose size depends on the branch cannot be allocated by the caller: the
    function runs in the reference executor (still lazily), with a warning naming the line."""
    c = T.dscalar("c")
    v, w = T.dvectors("v", "w")
    with pytest.warns(RuntimeWarning, match="tensor.if"):
        f = irc.function([c, v, w], ifelse(c > 0, v, w * 2))
    np.testing.assert_array_equal(f(1.0, np.ones(2), np.ones(5)), np.ones(2))
    np.testing.assert_array_equal(f(-1.0, np.ones(2), np.ones(5)), 2 * np.ones(5))


def test_gradient_flows_to_the_taken_branch():
    c = T.dscalar("c")
    x, y = T.dvectors("x", "y")
    cost = ifelse(c > 0, (x ** 2).sum(), (3 * x).sum() + y.sum())
    gx, gy = T.grad(cost, [x, y])
    f = compile_quietly([c, x, y], [gx, gy])
    xv, yv = np.array([1.0, 2.0, 3.0]), np.array([5.0, 6.0, 7.0])
    g = f(1.0, xv, yv)
    np.testing.assert_allclose(g[0], 2 * xv, rtol=1e-12)
    np.testing.assert_array_equal(g[1], np.zeros(3))
    g = f(-1.0, xv, yv)
    np.testing.assert_array_equal(g[0], 3 * np.ones(3))
    np.testing.assert_array_equal(g[1], np.ones(3))


def test_gradient_against_finite_differences():
    c = T.dscalar("c")
    x = T.dvector("x")
    cost = ifelse(c > 0, T.tanh(x).sum() * 2, T.sin(x).prod())
    f = irc.function([c, x], cost)
    g = irc.function([c, x], T.grad(cost, x))
    xv = np.array([0.3, -0.7, 1.1])
    for cv in (1.0, -1.0):
        eps = 1e-6
        fd = [(f(cv, xv + eps * e) - f(cv, xv - eps * e)) / (2 * eps) for e in np.eye(3)]
        np.testing.assert_allclose(g(cv, xv), fd, rtol=1e-6, atol=1e-8)


def test_rop_takes_the_taken_branch_tangent():
    c = T.dscalar("c")
    x, y, v = T.dvectors("x", "y", "v")
    r = T.Rop(ifelse(c > 0, x * x, x + y), x, v)
    f = irc.function([c, x, y, v], r)
    xv, vv = np.array([1.0, 2.0]), np.array([0.5, -1.0])
    np.testing.assert_allclose(f(1.0, xv, xv, vv), 2 * xv * vv, rtol=1e-12)
    np.testing.assert_array_equal(f(-1.0, xv, xv, vv), vv)


def test_broadcast_patterns_are_joined():
    c = T.dscalar("c")
    r = T.drow("r")
    m = T.dmatrix("m")
    out = ifelse(c > 0, r, m)
    assert out.broadcastable == (False, False)
    assert ifelse(c > 0, r, r).broadcastable == (True, False)


def test_branches_that_differ_in_type_name_the_users_line():
    c = T.dscalar("c")
    x = T.dvector("x")
    with pytest.raises(TypeError, match=r"dtype and ndim.*test_ifelse.py"):
        ifelse(c > 0, x, T.fvector("y"))
    with pytest.raises(TypeError, match=r"float64, vector.*float64, matrix"):
        ifelse(c > 0, x, T.dmatrix("m"))
    with pytest.raises(ValueError, match="then-branch has 2 value"):
        ifelse(c > 0, [x, x], [x])
    with pytest.raises(TypeError, match="condition must be a scalar"):
        ifelse(x, x, x)


def test_python_numbers_take_the_other_branch_dtype():
    c = T.lscalar("c")
    x = T.fscalar("x")
    out = ifelse(c, x, 0)
    assert out.dtype == "float32"
    f = irc.function([c, x], out)
    assert f(1, np.float32(2.5)) == np.float32(2.5) and f(0, np.float32(2.5)) == 0


def test_reference_executor_is_lazy_too():
    c = T.dscalar("c")
    v = T.dvector("v")
    i = T.lscalar("i")
    f = irc.function([c, v, i], ifelse(c > 0, v[i], v[0]), mode=irc.Mode(linker="py"))
    assert f(-1.0, np.array([4.0, 5.0]), 7) == 4.0


def test_names_and_op():
    c = T.dscalar("c")
    x = T.dvector("x")
    out = ifelse(c > 0, x, x * 2, name="pick")
    assert out.name == "pick" and isinstance(out.owner.op, IfElse)
    assert irc.ifelse.ifelse is ifelse


def test_inspection_and_graph_evaluation():
    """The compiled graph shows Theano's `if{}` (an `IfElse`); the graph-level evaluator picks
    the taken branch."""
    from irc.frontend.evaluate import evaluate
    c = T.dscalar("c")
    x = T.dvector("x")
    out = ifelse(c > 0, x * 2, x)
    f = irc.function([c, x], out)
    last = f.maker.fgraph.toposort()[-1]
    assert str(last.op) == "if{}" and isinstance(last.op, IfElse)
    np.testing.assert_array_equal(evaluate(out, {c: 1.0, x: [1.0, 2.0]}), [2.0, 4.0])
    np.testing.assert_array_equal(evaluate(out, {c: -1.0, x: [1.0, 2.0]}), [1.0, 2.0])
