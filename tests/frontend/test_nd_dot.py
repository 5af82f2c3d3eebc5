"""`T.dot` of operands of any rank as Theano's (numpy.dot: a sum over the last axis of a and the
second-to-last of b), `tensordot`, `batched_dot` (`[i] = dot(a[i], b[i])`, every rank) and
`batched_tensordot`, against numpy (float64 to 1e-12 relative, float32 to 1e-5), with
gradients against central differences (1e-6 relative)."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T

RNG = np.random.RandomState(7)
SHAPES = {  # (a, b) shapes numpy.dot accepts: the last dim of a meets b's second-to-last
    "tensor3.matrix": ((2, 3, 4), (4, 5)),
    "tensor3.vector": ((2, 3, 4), (4,)),
    "matrix.tensor3": ((3, 4), (2, 4, 5)),
    "vector.tensor3": ((4,), (2, 4, 5)),
    "tensor3.tensor3": ((2, 3, 4), (3, 4, 2)),
    "tensor4.matrix": ((2, 1, 3, 4), (4, 2)),
    "vector.tensor4": ((4,), (2, 3, 4, 2)),
}


def _symbol(shape, dtype="float64", name=None):
    return T.tensor(dtype, (False,) * len(shape), name=name)


@pytest.mark.parametrize("case", sorted(SHAPES))
def test_dot_is_numpy_dot(case):
    sa, sb = SHAPES[case]
    a, b = _symbol(sa, name="a"), _symbol(sb, name="b")
    out = T.dot(a, b)
    A, B = RNG.normal(size=sa), RNG.normal(size=sb)
    want = np.dot(A, B)
    assert out.ndim == want.ndim
    got = irc.function([a, b], out)(A, B)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_lstm_form_float32_runs_on_the_matrix_product():
    """lstm.py: `T.dot(state_below, W)` with a (steps, samples, dim) tensor3 of floatX."""
    x, W = T.ftensor3("x"), T.fmatrix("W")
    f = irc.function([x, W], T.dot(x, W) + 1)
    X = RNG.normal(size=(5, 3, 4)).astype("float32")
    Wv = RNG.normal(size=(4, 8)).astype("float32")
    got = f(X, Wv)
    assert got.dtype == np.float32 and got.shape == (5, 3, 8)
    np.testing.assert_allclose(got, np.dot(X, Wv) + 1, rtol=1e-5, atol=1e-6)
    kinds = {type(node.op).__name__ for node in f.maker.fgraph.toposort()}
    assert kinds & {"CGemm", "Gemm", "Dot22", "Dot"}, kinds  # one matrix product, not a reduction


def test_integer_and_mixed_dtypes_follow_numpy():
    a, b = T.ltensor3("a"), T.imatrix("b")
    A, B = RNG.randint(-5, 5, size=(2, 3, 4)), RNG.randint(-5, 5, size=(4, 2)).astype("int32")
    got = irc.function([a, b], T.dot(a, b))(A, B)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, np.dot(A, B))


def test_methods_and_scalars():
    a, s = T.dtensor3("a"), T.dscalar("s")
    m = T.dmatrix("m")
    A, M = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(4, 2))
    f = irc.function([a, m, s], [a.dot(m), a @ m, T.dot(a, s)])
    d1, d2, d3 = f(A, M, 2.5)
    np.testing.assert_allclose(d1, np.dot(A, M), rtol=1e-12)
    np.testing.assert_allclose(d2, A @ M, rtol=1e-12)
    np.testing.assert_allclose(d3, A * 2.5, rtol=1e-12)


def test_mismatched_inner_dims_fail_at_run_time():
    a, b = T.dtensor3("a"), T.dmatrix("b")
    f = irc.function([a, b], T.dot(a, b))
    with pytest.raises(ValueError):
        f(np.zeros((2, 3, 4)), np.zeros((5, 2)))


@pytest.mark.parametrize("axes, sb", [(2, (4, 5, 2, 3)), (1, (5, 2, 3, 4)), (0, (2, 3, 5, 3)),
                                      ([[1, 2], [0, 1]], (4, 5, 2, 3)), ([[0], [2]], (2, 4, 3, 2)),
                                      (([2, 0], [1, 3]), (2, 5, 4, 3))])
def test_tensordot_is_numpy_tensordot(axes, sb):
    a, b = T.dtensor3("a"), T.dtensor4("b")
    A, B = RNG.normal(size=(3, 4, 5)), RNG.normal(size=sb)
    want = np.tensordot(A, B, axes)
    got = irc.function([a, b], T.tensordot(a, b, axes))(A, B)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def _loop(fn, A, B):
    return np.stack([fn(a, b) for a, b in zip(A, B)])


@pytest.mark.parametrize("sa, sb", [((3,), (3, 4)), ((3, 4), (3,)), ((3, 4), (3, 4)), ((3, 2, 4), (3, 4)),
                                    ((3, 4), (3, 4, 2)), ((3, 2, 4), (3, 4, 5)), ((3, 2, 2, 4), (3, 4, 5)),
                                    ((3, 2, 4), (3, 2, 4, 5)), ((3,), (3, 2, 2))])
def test_batched_dot_is_dot_per_batch_index(sa, sb):
    a, b = _symbol(sa, name="a"), _symbol(sb, name="b")
    A, B = RNG.normal(size=sa), RNG.normal(size=sb)
    want = _loop(np.dot, A, B)
    got = irc.function([a, b], T.batched_dot(a, b))(A, B)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("axes, sx, sy", [(1, (2, 3, 4), (2, 4, 5)), (2, (2, 3, 4, 5), (2, 4, 5, 6)),
                                          ([[1], [2]], (2, 3, 4), (2, 5, 3)),
                                          ([[1, 3], [1, 2]], (2, 3, 4, 5), (2, 3, 5, 6))])
def test_batched_tensordot(axes, sx, sy):
    x, y = _symbol(sx, name="x"), _symbol(sy, name="y")
    X, Y = RNG.normal(size=sx), RNG.normal(size=sy)
    core = axes if isinstance(axes, int) else [[d - 1 for d in axes[0]], [d - 1 for d in axes[1]]]
    want = _loop(lambda p, q: np.tensordot(p, q, core), X, Y)
    got = irc.function([x, y], T.batched_tensordot(x, y, axes))(X, Y)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_batched_errors():
    with pytest.raises(TypeError, match="batch"):
        T.batched_dot(T.dscalar(), T.dmatrix())
    with pytest.raises(ValueError, match="batch axis"):
        T.batched_tensordot(T.dtensor3(), T.dtensor3(), [[0], [1]])


def _numeric_grad(f, values, k, eps=1e-6):
    g = np.zeros_like(values[k])
    for idx in np.ndindex(*values[k].shape):
        plus, minus = [v.copy() for v in values], [v.copy() for v in values]
        plus[k][idx] += eps
        minus[k][idx] -= eps
        g[idx] = (f(*plus) - f(*minus)) / (2 * eps)
    return g


@pytest.mark.parametrize("build, sa, sb", [
    (T.dot, (2, 3, 4), (4, 2)), (T.dot, (3, 4), (2, 4, 2)), (T.dot, (4,), (2, 4, 3)),
    (T.dot, (2, 2, 3), (2, 3, 2)), (lambda a, b: T.tensordot(a, b, [[0, 2], [1, 0]]), (3, 2, 4), (4, 3, 2)),
    (T.batched_dot, (2, 3, 4), (2, 4, 2)), (T.batched_dot, (2, 2, 2, 3), (2, 3, 2)),
])
def test_gradients_match_central_differences(build, sa, sb):
    a, b = _symbol(sa, name="a"), _symbol(sb, name="b")
    out = build(a, b)
    A, B = RNG.normal(size=sa), RNG.normal(size=sb)
    weights = T.constant(RNG.uniform(0.5, 1.5, size=irc.function([a, b], out)(A, B).shape))
    cost = (out * weights).sum()
    f_cost = irc.function([a, b], cost)
    grads = irc.function([a, b], T.grad(cost, [a, b]))(A, B)
    for k, g in enumerate(grads):
        assert g.shape == (A, B)[k].shape
        np.testing.assert_allclose(g, _numeric_grad(lambda *v: float(f_cost(*v)), [A, B], k),
                                   rtol=1e-6, atol=1e-8)
