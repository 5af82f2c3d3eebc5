"""`T.grad`: every differentiable op checked against central finite differences (float64),
broadcasting undone in gradients, errors, consider_constant, jacobian and hessian."""
import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime.native_executor import NativeExecutor
from irc.dialects.elementwise import TABLE_ROWS
from irc.frontend.evaluate import evaluate
from irc.frontend.grad import DisconnectedInputError

rng = np.random.RandomState(1234)


def numeric_grad(f, values, eps=1e-6):
    grads = []
    for k, v in enumerate(values):
        g = np.zeros_like(v)
        for idx in np.ndindex(*v.shape):
            plus = [a.copy() for a in values]
            minus = [a.copy() for a in values]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (f(plus) - f(minus)) / (2 * eps)
        grads.append(g)
    return grads


def check_grad(build, values, broadcastable=None, rtol=1e-5, atol=1e-7, wrt=None):
    """Compare T.grad of sum(build(*inputs) * W) with finite differences; W is random so each
    output element weighs differently."""
    values = [np.asarray(v, dtype="float64") for v in values]
    pats = broadcastable or [tuple(n == 1 and False for n in v.shape) for v in values]
    syms = [T.tensor("float64", p, name=f"in{k}") for k, p in enumerate(pats)]
    out = build(*syms)
    shape = np.shape(evaluate(out, dict(zip(syms, values))))
    weights = T.constant(rng.uniform(0.5, 1.5, size=shape))
    cost = (out * weights).sum() if out.ndim else out * weights
    chosen = range(len(syms)) if wrt is None else wrt
    grads = T.grad(cost, [syms[k] for k in chosen])
    got = evaluate(grads, dict(zip(syms, values)))
    expected = numeric_grad(lambda vals: float(evaluate(cost, dict(zip(syms, vals)))), values)
    for k, g in zip(chosen, got):
        assert g.shape == values[k].shape, (k, g.shape)
        np.testing.assert_allclose(g, expected[k], rtol=rtol, atol=atol, err_msg=f"input {k}")
    for k, g in zip(chosen, grads):
        assert g.dtype == syms[k].dtype and g.broadcastable == syms[k].broadcastable or g.ndim == syms[k].ndim


# ---------------------------------------------------------------------------- every table row
_DOMAINS = {  # inputs chosen away from discontinuities and outside singularities
    "log": [[0.5, 1.3, 2.2]], "log1p": [[0.5, 1.3, 2.2]], "sqrt": [[0.5, 1.3, 2.2]],
    "erfinv": [[0.3, -0.7, 0.5, -0.2]], "erfcinv": [[0.3, 1.7, 0.9, 1.2]],
    "gamma": [[0.5, 1.3, 2.2, -0.4]],
    "arccosh": [[1.5, 3.0, 1.2]], "arctanh": [[0.3, -0.7, 0.5]],
    "arcsin": [[0.3, -0.7, 0.5]], "arccos": [[0.3, -0.7, 0.5]],
    "reciprocal": [[0.5, -1.3, 2.2]],
    "div": [[0.4, -1.2, 2.0], [0.7, 1.5, -0.9]],
    "pow": [[0.6, 1.3, 2.1], [1.5, -0.7, 2.2]],
    "floordiv": [[1.3, 2.7, 0.4], [0.7, 0.8, 0.9]],
    "mod": [[1.3, 2.7, 0.4], [0.7, 0.8, 0.9]],
    "maximum": [[0.3, -1.2, 2.0], [0.7, -1.5, 1.0]],
    "minimum": [[0.3, -1.2, 2.0], [0.7, -1.5, 1.0]],
    "jv": [[0.3, -0.7, 1.2, -1.6], [0.9, 0.4, 2.1, 0.6]],   # non-integer orders: x > 0
    "iv": [[0.3, -0.7, 1.2, -1.6], [0.9, 0.4, 2.1, 0.6]],
}
_DIFFERENTIABLE = [row for row in TABLE_ROWS
                   if "f" in row.kinds and any(d is not None for d in row.derivative)
                   and row.name != "select" and row.result != "complex"]  # (complex outputs: test_complex_dtypes.py)


@pytest.mark.parametrize("row", _DIFFERENTIABLE, ids=lambda r: r.name)
def test_elementwise_row_gradient(row):
    values = _DOMAINS.get(row.name) or [[0.3, -0.7, 1.2, -1.6][: 4] for _ in range(row.arity)]
    if row.arity == 2 and row.name not in _DOMAINS:
        values = [[0.3, -0.7, 1.2, -1.6], [0.9, 0.4, -1.1, 0.6]]
    wrt = [k for k, d in enumerate(row.derivative) if d is not None]  # jv, iv: by x only (as Theano)
    check_grad(lambda *xs: T.elemwise(row.name, *xs), values, wrt=wrt)


def test_select_gradient():
    cond = T.constant(np.array([True, False, True]))
    check_grad(lambda a, b: T.switch(cond, a, b), [[0.3, 1.0, -2.0], [1.5, -0.5, 0.25]])


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons_have_no_gradient(name):
    """A zero gradient (Theano's), not a disconnected input: x is in the cost's graph."""
    x = T.dvector("x")
    g = T.grad(T.cast(T.elemwise(name, x, 0.0), "float64").sum(), x)
    np.testing.assert_array_equal(evaluate(g, {x: np.ones(3)}), np.zeros(3))


# ---------------------------------------------------------------------------- broadcasting undone
def test_gradient_through_broadcasting():
    check_grad(lambda m, r: m * r + r, [rng.randn(3, 4), rng.randn(1, 4)],
               broadcastable=[(False, False), (True, False)])
    check_grad(lambda m, c: m / c, [rng.randn(3, 4), rng.rand(3, 1) + 1],
               broadcastable=[(False, False), (False, True)])
    check_grad(lambda m, v, s: m * v - s, [rng.randn(3, 4), rng.randn(4), rng.randn()],
               broadcastable=[(False, False), (False,), ()])
    check_grad(lambda m: m * 3.0 + 1.5, [rng.randn(2, 3)])


def test_broadcast_gradient_keeps_types():
    m, r = T.dmatrix("m"), T.drow("r")
    g = T.grad((m * r).sum(), r)
    assert g.broadcastable == (True, False) and g.dtype == "float64"
    f32 = T.fvector("f")
    assert T.grad((f32 * 0.5).sum(), f32).dtype == "float32"


# ---------------------------------------------------------------------------- structural ops
def test_dimshuffle_transpose_reshape_flatten_gradients():
    check_grad(lambda m: m.dimshuffle(1, "x", 0) * T.constant(np.arange(6.0).reshape(3, 1, 2)),
               [rng.randn(2, 3)])
    check_grad(lambda m: m.T, [rng.randn(2, 3)])
    check_grad(lambda m: m.reshape((3, 2)), [rng.randn(2, 3)])
    check_grad(lambda m: m.reshape((m.shape[1], -1)), [rng.randn(2, 3)])
    check_grad(lambda t: t.flatten(2), [rng.randn(2, 3, 2)])
    check_grad(lambda r: r.dimshuffle(1), [rng.randn(1, 3)], broadcastable=[(True, False)])


@pytest.mark.parametrize("name", ["sum", "mean", "max", "min", "prod", "var", "std"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 2)])
def test_reduction_gradients(name, axis):
    x = rng.uniform(0.5, 2.0, size=(2, 3, 2))
    check_grad(lambda t: getattr(t, name)(axis=axis), [x])
    check_grad(lambda t: getattr(t, name)(axis=axis, keepdims=True), [x])


def test_argmax_has_no_gradient():
    """Theano's test_arg_grad: zeros (and a constant the graph fixes)."""
    m = T.dmatrix()
    g = T.grad(T.cast(m.argmax(axis=1), "float64").sum(), m)
    np.testing.assert_array_equal(evaluate(g, {m: np.ones((2, 3))}), np.zeros((2, 3)))
    assert T.get_scalar_constant_value(T.grad(m.argmax(axis=0).sum(), m)) == 0.0


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4))])
def test_dot_gradients(shapes):
    check_grad(lambda a, b: T.dot(a, b), [rng.randn(*shapes[0]), rng.randn(*shapes[1])])


def test_subtensor_gradients():
    m = rng.randn(4, 5)
    for index in [1, -1, (slice(1, 3),), (slice(None, None, -1), 2), (slice(1, None, 2), slice(-3, None)),
                  (Ellipsis, 0), (None, 2)]:
        check_grad(lambda x: x[index], [m])


def test_set_and_inc_subtensor_gradients():
    check_grad(lambda x, v: T.set_subtensor(x[1], v), [rng.randn(3, 4), rng.randn(4)])
    check_grad(lambda x, v: T.inc_subtensor(x[:, 1:3], v), [rng.randn(3, 4), rng.randn(3, 2)])
    check_grad(lambda x, s: T.set_subtensor(x[0:2], s), [rng.randn(3, 4), rng.randn()],
               broadcastable=[(False, False), ()])


def test_concatenate_gradients():
    check_grad(lambda a, b, c: T.stack([a, b, c]), [rng.randn(), rng.randn(), rng.randn()],
               broadcastable=[(), (), ()])
    check_grad(lambda a, b: T.stack([a, b], axis=1), [rng.randn(3), rng.randn(3)])
    # pieces of sizes known only at run time: each gets the rows of the gradient at its
    # place (gathered, so the compiled function sizes its results before the call)
    check_grad(lambda a, b: T.concatenate([a, b, a]), [rng.randn(2, 3), rng.randn(4, 3)])
    check_grad(lambda a, b: T.concatenate([a, b], axis=1), [rng.randn(3, 2), rng.randn(3, 1)])
    a, b = T.dmatrix(), T.dmatrix()
    w = rng.randn(3, 7)
    f = irc.function([a, b], T.grad((T.concatenate([a, b], axis=1) * w).sum(), [a, b]))
    assert isinstance(f.executor, NativeExecutor)
    ga, gb = f(np.ones((3, 3)), np.ones((3, 4)))
    np.testing.assert_array_equal(ga, w[:, :3])
    np.testing.assert_array_equal(gb, w[:, 3:])


def test_math_and_nnet_gradients():
    x = rng.randn(3, 4)
    check_grad(lambda m: T.clip(m, -0.5, 0.5), [x])
    check_grad(lambda m: T.switch(m > 0, m * 2, m ** 2), [x])
    check_grad(lambda m: T.nnet.sigmoid(m) + T.nnet.softplus(m) + T.tanh(m), [x])
    check_grad(lambda m: T.nnet.relu(m), [x])
    check_grad(lambda m: T.nnet.relu(m, alpha=0.1), [x])
    check_grad(lambda m: T.nnet.softmax(m), [x])
    check_grad(lambda m: T.nnet.log_softmax(m), [x])
    check_grad(lambda m: T.norm(m, 2), [x])
    p = rng.uniform(0.1, 0.9, size=(3, 4))
    onehot = T.constant(np.eye(4)[[0, 3, 1]])
    check_grad(lambda q: T.nnet.categorical_crossentropy(q, onehot), [p])
    check_grad(lambda q: T.nnet.categorical_crossentropy(q, T.constant(np.array([0, 3, 1]))), [p])
    check_grad(lambda q, t: T.nnet.binary_crossentropy(q, t), [p, rng.rand(3, 4)])
    check_grad(lambda m: T.fill(m, 2.0) * m, [x])


def test_cast_gradient():
    x = T.dvector("x")
    w = T.constant(np.array([1.0, 2.0, 3.0], dtype="float32"))
    g = T.grad((T.cast(x, "float32") * w).sum(), x)
    assert g.dtype == "float64"
    np.testing.assert_allclose(evaluate(g, {x: np.zeros(3)}), [1.0, 2.0, 3.0])
    i = T.ivector("i")
    g = T.grad((T.cast(i, "float64") * x).sum(), i, disconnected_inputs="ignore")
    assert g.dtype == irc.config.floatX


# ---------------------------------------------------------------------------- the tutorial
def test_logistic_regression_gradient():
    feats, n = 5, 7
    X, Y = rng.randn(n, feats), (rng.rand(n) > 0.5).astype("float64")
    x, y = T.dmatrix("x"), T.dvector("y")
    w = irc.shared(rng.randn(feats), name="w")
    b = irc.shared(np.asarray(0.1), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    assert gw.type == w.type and gb.type == b.type

    def f(wv, bv):
        p = 1 / (1 + np.exp(-X @ wv - bv))
        return np.mean(-Y * np.log(p) - (1 - Y) * np.log(1 - p)) + 0.01 * (wv ** 2).sum()
    wv, bv = w.get_value(), float(b.get_value())
    num_w, num_b = numeric_grad(lambda v: f(v[0], v[1]), [wv, np.asarray(bv)])
    got_w, got_b = evaluate([gw, gb], {x: X, y: Y})
    np.testing.assert_allclose(got_w, num_w, rtol=1e-6)
    np.testing.assert_allclose(got_b, num_b, rtol=1e-6)


# ---------------------------------------------------------------------------- errors and options
def test_cost_must_be_scalar():
    x = T.dvector()
    with pytest.raises(TypeError, match=r"cost must be a scalar \(0-d\), got ndim=1"):
        T.grad(x * 2, x)


def test_wrt_structure():
    x, y = T.dscalar(), T.dscalar()
    c = x * y
    assert isinstance(T.grad(c, x), T.Variable)
    gs = T.grad(c, [x, y])
    assert isinstance(gs, list) and len(gs) == 2
    assert evaluate(gs, {x: 2.0, y: 3.0}) == [3.0, 2.0]


def test_disconnected_inputs_modes():
    x, y = T.dvector("x"), T.dvector("y")
    cost = (x ** 2).sum()
    with pytest.raises(DisconnectedInputError, match="not part of the computational graph"):
        T.grad(cost, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = T.grad(cost, y, disconnected_inputs="warn")
    assert any("not part of the computational graph" in str(w.message) for w in caught)
    np.testing.assert_array_equal(evaluate(g, {y: np.ones(2)}), np.zeros(2))
    g = T.grad(cost, [x, y], disconnected_inputs="ignore")
    assert len(g) == 2
    with pytest.raises(ValueError):
        T.grad(cost, x, disconnected_inputs="bogus")


def test_consider_constant():
    x = T.dscalar("x")
    y = x * x
    g = T.grad(y * x, x, consider_constant=[y])
    assert evaluate(g, {x: 3.0}) == 9.0  # d(y*x)/dx with y fixed
    assert evaluate(T.grad(y * x, x), {x: 3.0}) == 27.0


def test_gradient_wrt_intermediate_and_reuse():
    x = T.dscalar("x")
    h = T.exp(x)
    c = h * h + h
    gh = T.grad(c, h)
    assert np.isclose(evaluate(gh, {x: 0.5}), 2 * np.exp(0.5) + 1)
    check_grad(lambda a: a * a * a + T.sin(a) * a, [rng.randn(3)])


def test_integer_paths_carry_no_gradient():
    """Zeros through an integer (Theano's); an integer wrt gets floatX zeros (its test_any_grad)."""
    x = T.dvector("x")
    i = T.cast(x, "int32")
    g = T.grad(T.cast(i, "float64").sum(), x)
    np.testing.assert_array_equal(evaluate(g, {x: np.ones(3)}), np.zeros(3))
    b = T.bmatrix("b")
    gb = T.grad(b.any(), b)
    assert gb.dtype == irc.config.floatX
    np.testing.assert_array_equal(irc.function([b], gb)(np.ones((2, 3), "int8")), np.zeros((2, 3)))
    with pytest.raises(DisconnectedInputError):  # not in the cost's graph at all
        T.grad(T.cast(i, "float64").sum(), T.dvector("y"))


# ---------------------------------------------------------------------------- jacobian / hessian
def test_jacobian():
    x = T.dvector("x")
    X = rng.randn(3)
    J = T.jacobian(T.exp(x) * x[0], x, size=3)
    got = evaluate(J, {x: X})
    expected = np.diag(np.exp(X) * X[0])
    expected[:, 0] += np.exp(X)
    np.testing.assert_allclose(got, expected)
    x.tag.test_value = X
    J2 = T.jacobian(x * 2.0, x)  # length from the test value
    np.testing.assert_allclose(evaluate(J2, {x: X}), 2 * np.eye(3))


def test_hessian():
    x = T.dvector("x")
    X = rng.randn(3)
    cost = (x ** 3).sum() + x[0] * x[1]
    H = T.hessian(cost, x, size=3)
    expected = np.diag(6 * X)
    expected[0, 1] = expected[1, 0] = 1
    np.testing.assert_allclose(evaluate(H, {x: X}), expected)
    with pytest.raises(ValueError, match="size"):
        T.jacobian(T.dvector() * 2, T.dvector())
