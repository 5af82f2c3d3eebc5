"""`irc.tensor`: constructors, operators, broadcasting, dtype promotion, shapes, indexing,
reductions, nnet functions and shared variables; values through the graph evaluator."""
import pickle

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.frontend.evaluate import evaluate
from irc.frontend.shared import SharedVariable

rng = np.random.RandomState(42)


@pytest.fixture
def floatx32():
    old = irc.config.floatX
    irc.config.floatX = "float32"
    yield
    irc.config.floatX = old


# ---------------------------------------------------------------------------- constructors
@pytest.mark.parametrize("prefix,dtype", [("b", "int8"), ("w", "int16"), ("i", "int32"), ("l", "int64"),
                                          ("f", "float32"), ("d", "float64")])
def test_prefixed_constructors(prefix, dtype):
    for kind, bc in [("scalar", ()), ("vector", (False,)), ("row", (True, False)), ("col", (False, True)),
                     ("matrix", (False, False)), ("tensor3", (False,) * 3), ("tensor4", (False,) * 4)]:
        v = getattr(T, prefix + kind)("v")
        assert v.dtype == dtype and v.broadcastable == bc and v.name == "v"


def test_default_dtype_is_floatx(floatx32):
    assert T.matrix().dtype == "float32"
    assert T.vector(dtype="int32").dtype == "int32"
    assert T.tensor("float64", (False, True)).broadcastable == (False, True)
    assert T.tensor(broadcastable=(False,)).dtype == "float32"


# ---------------------------------------------------------------------------- dtype promotion
@pytest.mark.parametrize("a,b,expected", [
    ("int8", "float32", "float32"), ("int16", "float32", "float32"), ("int32", "float32", "float64"),
    ("int64", "float32", "float64"), ("float32", "float64", "float64"), ("int8", "int32", "int32"),
    ("bool", "int8", "int8"), ("bool", "float32", "float32"), ("bool", "bool", "int8"),
])
def test_tensor_tensor_promotion(a, b, expected):
    x, y = T.tensor(a, (False,)), T.tensor(b, (False,))
    assert (x + y).dtype == expected
    assert (x * y).dtype == expected


def test_python_scalars_are_weak(floatx32):
    f, d, i8, i32 = T.fvector(), T.dvector(), T.bvector(), T.ivector()
    assert (f * 0.01).dtype == "float32"          # a Python float does not upcast float32
    assert (0.01 * f).dtype == "float32"
    assert (d + 1).dtype == "float64"
    assert (i8 + 1).dtype == "int8"               # an int scalar adopts the int tensor's dtype
    assert (i32 * 1.5).dtype == "float32"         # float scalar with int tensor -> floatX
    assert (f + np.float64(1)).dtype == "float64"  # numpy scalars are strong
    assert (T.bvector() > 0).dtype == "bool"


def test_python_scalar_with_float64_floatx():
    assert irc.config.floatX in ("float64", "float32")
    old = irc.config.floatX
    irc.config.floatX = "float64"
    try:
        assert (T.ivector() * 1.5).dtype == "float64"
        assert T.constant(1.5).dtype == "float64"
    finally:
        irc.config.floatX = old


def test_true_division_of_ints_is_floatx(floatx32):
    assert (T.ivector() / T.ivector()).dtype == "float32"
    assert (T.lvector() / 2).dtype == "float32"
    assert (T.ivector() // T.ivector()).dtype == "int32"
    assert (T.fvector() / T.ivector()).dtype == "float64"  # int32 + float32 -> float64 first


def test_float_functions_upgrade_ints():
    assert T.exp(T.bvector()).dtype == "float32"
    assert T.exp(T.wvector()).dtype == "float32"
    assert T.exp(T.ivector()).dtype == "float64"
    assert T.sqrt(T.lvector()).dtype == "float64"
    assert T.neg(T.ivector()).dtype == "int32"


def test_comparisons_are_bool_and_eq_is_identity():
    x, y = T.fvector(), T.dvector()
    for r in (x < y, x <= y, x > y, x >= y, T.eq(x, y), T.neq(x, y)):
        assert r.dtype == "bool"
    assert (x == y) is False


def test_bitwise_ops_need_ints():
    b, i = T.tensor("bool", (False,)), T.ivector()
    assert (b & b).dtype == "bool" and (b | b).dtype == "bool" and (~b).dtype == "bool"
    assert (i ^ i).dtype == "int32" and (~i).dtype == "int32"
    with pytest.raises(TypeError, match="integer or boolean"):
        T.fvector() & T.fvector()
    with pytest.raises(TypeError):
        ~T.fvector()


def test_constants(floatx32):
    assert T.constant(1.5).dtype == "float32"
    assert T.constant(3).dtype == "int64"
    assert T.constant(True).dtype == "bool"
    assert T.constant(np.float64(1)).dtype == "float64"
    assert T.constant([1.0, 2.0]).dtype == "float32"
    assert T.as_tensor_variable(np.arange(3, dtype="int16")).dtype == "int16"
    x = T.vector()
    assert T.as_tensor_variable(x) is x


# ---------------------------------------------------------------------------- broadcasting
def test_broadcasting_pads_left_with_dimshuffle():
    m, v = T.dmatrix(), T.dvector()
    out = m + v
    assert out.ndim == 2 and out.broadcastable == (False, False)
    pads = [n for n in irc.frontend.graph.toposort(out) if isinstance(n.op, T.DimShuffle)]
    assert pads and pads[0].op.new_order == ("x", 0)
    r = T.drow() + T.dcol()
    assert r.broadcastable == (False, False)
    assert (T.drow() * T.drow()).broadcastable == (True, False)


def test_broadcast_values():
    m, v = T.dmatrix("m"), T.dvector("v")
    M, V = rng.randn(3, 4), rng.randn(4)
    np.testing.assert_allclose(evaluate(m * v + 1.0, {m: M, v: V}), M * V + 1.0)


# ---------------------------------------------------------------------------- operators and values
def test_arithmetic_values():
    x, y = T.dvector("x"), T.dvector("y")
    X, Y = rng.rand(5) + 0.5, rng.rand(5) + 0.5
    cases = [(x + y, X + Y), (x - y, X - Y), (x * y, X * Y), (x / y, X / Y), (x // y, X // Y),
             (x % y, X % Y), (x ** y, X ** Y), (-x, -X), (abs(x - 1), np.abs(X - 1)),
             (2 - x, 2 - X), (2 / x, 2 / X), (2 ** x, 2 ** X), (3 % x, 3 % X), (1 // x, 1 // X)]
    for expr, expected in cases:
        np.testing.assert_allclose(evaluate(expr, {x: X, y: Y}), expected, rtol=1e-12)


def test_math_functions_values():
    x = T.dvector("x")
    X = rng.rand(6) + 0.1
    for name, ref in [("exp", np.exp), ("log", np.log), ("log1p", np.log1p), ("expm1", np.expm1),
                      ("sqrt", np.sqrt), ("sin", np.sin), ("cos", np.cos), ("tanh", np.tanh),
                      ("floor", np.floor), ("ceil", np.ceil), ("sgn", np.sign), ("abs_", np.abs)]:
        np.testing.assert_allclose(evaluate(getattr(T, name)(x), {x: X}), ref(X), rtol=1e-12)
    np.testing.assert_allclose(evaluate(T.nnet.sigmoid(x), {x: X}), 1 / (1 + np.exp(-X)))
    np.testing.assert_allclose(evaluate(T.nnet.softplus(x), {x: X}), np.log1p(np.exp(X)))
    np.testing.assert_allclose(evaluate(T.round(x * 3), {x: X}), np.rint(X * 3))
    np.testing.assert_allclose(evaluate(T.clip(x, 0.3, 0.7), {x: X}), np.clip(X, 0.3, 0.7))
    np.testing.assert_allclose(evaluate(T.maximum(x, 0.5), {x: X}), np.maximum(X, 0.5))
    np.testing.assert_allclose(evaluate(T.switch(x > 0.5, x, -x), {x: X}), np.where(X > 0.5, X, -X))
    np.testing.assert_allclose(evaluate(T.nnet.relu(x - 0.5), {x: X}), np.maximum(X - 0.5, 0))


def test_switch_condition_not_bool():
    x = T.dvector("x")
    out = T.switch(T.cast(x > 0, "int8"), 1.0, 2.0)
    assert out.dtype == "float64"
    np.testing.assert_allclose(evaluate(out, {x: np.array([-1.0, 1.0])}), [2.0, 1.0])


# ---------------------------------------------------------------------------- shapes
def test_shape_and_transpose():
    m = T.dmatrix("m")
    M = rng.randn(3, 4)
    assert m.T.broadcastable == (False, False)
    np.testing.assert_allclose(evaluate(m.T, {m: M}), M.T)
    s0, s1 = m.shape
    assert s0.dtype == "int64" and s0.ndim == 0
    assert isinstance(s0.owner.op, T.Shape_i) and s0.owner.op.ir_name == "tensor.dim"
    assert evaluate(m.shape[1], {m: M}) == 4
    assert T.drow().shape[0].owner is None  # a broadcastable dim has size 1
    assert m.ndim == 2 and m.dtype == "float64"


def test_dimshuffle():
    m = T.dmatrix("m")
    out = m.dimshuffle(1, "x", 0)
    assert out.broadcastable == (False, True, False)
    M = rng.randn(2, 3)
    assert evaluate(out, {m: M}).shape == (3, 1, 2)
    with pytest.raises(TypeError, match="not broadcastable"):
        m.dimshuffle(0)
    assert T.drow().dimshuffle(1).broadcastable == (False,)


def test_reshape_and_flatten():
    m = T.dmatrix("m")
    M = rng.randn(3, 4)
    np.testing.assert_allclose(evaluate(m.reshape((2, 6)), {m: M}), M.reshape(2, 6))
    np.testing.assert_allclose(evaluate(m.reshape((-1,)), {m: M}), M.reshape(-1))
    np.testing.assert_allclose(evaluate(m.reshape((m.shape[1], m.shape[0])), {m: M}), M.reshape(4, 3))
    np.testing.assert_allclose(evaluate(m.flatten(), {m: M}), M.ravel())
    t = T.dtensor3("t")
    X = rng.randn(2, 3, 4)
    out = t.flatten(2)
    assert out.ndim == 2
    np.testing.assert_allclose(evaluate(out, {t: X}), X.reshape(2, 12))
    assert m.reshape((1, -1)).broadcastable == (True, False)


def test_indexing():
    m = T.dmatrix("m")
    M = rng.randn(4, 5)
    cases = [(m[1], M[1]), (m[-1], M[-1]), (m[:, 2], M[:, 2]), (m[1:3], M[1:3]), (m[::-1], M[::-1]),
             (m[1:, ::2], M[1:, ::2]), (m[-2:, -1], M[-2:, -1]), (m[None, 0], M[None, 0]),
             (m[..., 1], M[..., 1]), (m[2, 3], M[2, 3]), (m[::-2, 1:4:2], M[::-2, 1:4:2])]
    for expr, expected in cases:
        assert expr.ndim == np.ndim(expected)
        np.testing.assert_allclose(evaluate(expr, {m: M}), expected)
    assert isinstance(m[1:3].owner.op, T.Subtensor)
    with pytest.raises(IndexError):
        m[1, 2, 3]
    i = T.lscalar()
    np.testing.assert_allclose(evaluate(m[i], {m: M, i: -2}), M[-2])
    np.testing.assert_allclose(evaluate(m[i:], {m: M, i: -2}), M[-2:])  # tensor.dynamic_slice
    with pytest.raises(NotImplementedError, match="symbolic step"):
        m[::i]


def test_index_out_of_range_is_a_runtime_error():
    v = T.dvector("v")
    with pytest.raises(IndexError, match="index 5 is out of range for axis 0 of size 3"):
        evaluate(v[5], {v: np.zeros(3)})


def test_set_and_inc_subtensor():
    m = T.dmatrix("m")
    M = rng.randn(4, 5)
    out = T.set_subtensor(m[1:3], 0.0)
    expected = M.copy()
    expected[1:3] = 0
    np.testing.assert_allclose(evaluate(out, {m: M}), expected)
    out = T.inc_subtensor(m[:, 2], 10.0)
    expected = M.copy()
    expected[:, 2] += 10
    np.testing.assert_allclose(evaluate(out, {m: M}), expected)
    v = T.dvector("v")
    out = T.set_subtensor(m[0], v)
    expected = M.copy()
    expected[0] = np.arange(5.0)
    np.testing.assert_allclose(evaluate(out, {m: M, v: np.arange(5.0)}), expected)


def test_concatenate_and_stack():
    a, b = T.dmatrix("a"), T.dmatrix("b")
    A, B = rng.randn(2, 3), rng.randn(4, 3)
    np.testing.assert_allclose(evaluate(T.concatenate([a, b]), {a: A, b: B}), np.concatenate([A, B]))
    np.testing.assert_allclose(evaluate(T.concatenate([a, a], axis=1), {a: A}), np.concatenate([A, A], 1))
    x, y = T.dscalar("x"), T.dscalar("y")
    s = T.stack([x, y, 3.0])
    assert s.ndim == 1 and s.dtype == "float64"
    np.testing.assert_allclose(evaluate(s, {x: 1.0, y: 2.0}), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(evaluate(T.stack([a, a], axis=1), {a: A}), np.stack([A, A], 1))
    assert T.concatenate([T.ivector(), T.fvector()]).dtype == "float64"
    assert isinstance(T.concatenate([a, b]).owner.op, T.Join)


def test_zeros_ones_like():
    m = T.fmatrix("m")
    M = rng.randn(2, 3).astype("float32")
    z, o = T.zeros_like(m), T.ones_like(m, dtype="int32")
    assert z.dtype == "float32" and o.dtype == "int32"
    np.testing.assert_array_equal(evaluate(z, {m: M}), np.zeros((2, 3)))
    np.testing.assert_array_equal(evaluate(o, {m: M}), np.ones((2, 3)))


# ---------------------------------------------------------------------------- reductions
def test_reductions_values_and_keepdims():
    t = T.dtensor3("t")
    X = rng.randn(2, 3, 4)
    for name in ("sum", "prod", "max", "min", "mean", "var", "std"):
        for axis in (None, 0, 1, -1, (0, 2)):
            for keepdims in (False, True):
                expr = getattr(t, name)(axis=axis, keepdims=keepdims)
                expected = getattr(np, name)(X, axis=axis, keepdims=keepdims)
                assert expr.ndim == np.ndim(expected)
                np.testing.assert_allclose(evaluate(expr, {t: X}), expected, rtol=1e-10)
    for name in ("argmax", "argmin"):
        for axis in (None, 1):
            expr = getattr(t, name)(axis=axis)
            assert expr.dtype == "int64"
            np.testing.assert_array_equal(evaluate(expr, {t: X}), getattr(np, name)(X, axis=axis))
    assert isinstance(t.sum(axis=1).owner.op, T.CAReduce)
    assert type(t.sum(axis=1).owner.op).__name__ == "Sum"
    assert type(t.max(axis=1).owner.op).__name__ == "Max"


def test_reduction_dtypes(floatx32):
    assert T.bvector().sum().dtype == "int64"
    assert T.tensor("bool", (False,)).sum().dtype == "int64"
    assert T.fvector().sum().dtype == "float32"
    assert T.fvector().mean().dtype == "float32"  # the count is cast to float32
    assert T.ivector().mean().dtype == "float32"  # floatX
    assert T.bvector().max().dtype == "int8"
    assert T.fmatrix().argmax(axis=0).dtype == "int64"


def test_any_all():
    v = T.dvector("v")
    assert evaluate(v.any(), {v: np.array([0.0, 1.0])})
    assert not evaluate(v.all(), {v: np.array([0.0, 1.0])})


def test_dot_variants():
    A, B, u, w = rng.randn(3, 4), rng.randn(4, 2), rng.randn(4), rng.randn(3)
    a, b, x, y = T.dmatrix(), T.dmatrix(), T.dvector(), T.dvector()
    cases = [(T.dot(a, b), A @ B, {a: A, b: B}), (T.dot(a, x), A @ u, {a: A, x: u}),
             (T.dot(y, a), w @ A, {y: w, a: A}), (T.dot(x, x), u @ u, {x: u}), (a @ b, A @ B, {a: A, b: B})]
    for expr, expected, env in cases:
        assert expr.ndim == np.ndim(expected) and isinstance(expr.owner.op, T.Dot)
        np.testing.assert_allclose(evaluate(expr, env), expected)
    assert T.dot(T.fmatrix(), T.ivector()).dtype == "float64"
    assert T.dot(T.fmatrix(), T.bvector()).dtype == "float32"
    assert T.dot(T.fscalar(), T.fmatrix()).ndim == 2
    assert T.dot(T.dtensor3(), T.dmatrix()).ndim == 3  # numpy.dot of N-d operands: tests/frontend/test_nd_dot.py


# ---------------------------------------------------------------------------- nnet
def test_softmax_and_log_softmax():
    m = T.dmatrix("m")
    M = rng.randn(3, 5) * 10
    e = np.exp(M - M.max(1, keepdims=True))
    sm = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(evaluate(T.nnet.softmax(m), {m: M}), sm)
    np.testing.assert_allclose(evaluate(T.nnet.log_softmax(m), {m: M}), np.log(sm))
    np.testing.assert_allclose(evaluate(T.softmax(m * 100), {m: M}).sum(1), np.ones(3))


def test_crossentropies():
    p, t = T.dmatrix("p"), T.dmatrix("t")
    P = rng.rand(4, 3) * 0.8 + 0.1
    Y = np.eye(3)[[0, 2, 1, 2]]
    np.testing.assert_allclose(evaluate(T.nnet.binary_crossentropy(p, t), {p: P, t: Y}),
                               -(Y * np.log(P) + (1 - Y) * np.log(1 - P)))
    expected = -np.log(P[np.arange(4), [0, 2, 1, 2]])
    np.testing.assert_allclose(evaluate(T.nnet.categorical_crossentropy(p, t), {p: P, t: Y}), expected)
    idx = T.lvector("idx")
    out = T.nnet.categorical_crossentropy(p, idx)
    assert out.ndim == 1
    np.testing.assert_allclose(evaluate(out, {p: P, idx: np.array([0, 2, 1, 2])}), expected)


# ---------------------------------------------------------------------------- shared variables
def test_shared_values_and_types(floatx32):
    s = irc.shared(np.arange(3.0), name="s")
    assert isinstance(s, SharedVariable) and s.dtype == "float64" and s.broadcastable == (False,)
    assert s.name == "s" and str(s) == "s"
    assert irc.shared(1.5).dtype == "float32"
    assert irc.shared(3).dtype == "int64"
    assert irc.shared(np.zeros((1, 3))).broadcastable == (False, False)
    assert irc.shared(np.zeros((1, 3)), broadcastable=(True, False)).broadcastable == (True, False)


def test_shared_copy_semantics():
    value = np.arange(3.0)
    s = irc.shared(value)
    value[0] = 100
    assert s.get_value()[0] == 0  # copied at creation
    got = s.get_value()
    got[1] = 50
    assert s.get_value()[1] == 1  # get_value copies
    assert s.get_value(borrow=True) is s.get_value(borrow=True)
    new = np.ones(3)
    s.set_value(new)
    new[0] = 7
    assert s.get_value()[0] == 1  # set_value copies
    s.set_value(new, borrow=True)
    assert s.get_value(borrow=True) is new
    b = irc.shared(np.arange(3.0), borrow=True)
    assert b.container.value.base is None or b.container.value is not None


def test_shared_set_value_validates():
    s = irc.shared(np.zeros(3, dtype="float32"))
    with pytest.raises(TypeError, match="allow_input_downcast|float64"):
        s.set_value(np.zeros(3))
    with pytest.raises(TypeError, match="expected 1"):
        s.set_value(np.zeros((2, 2), dtype="float32"))
    s.set_value(np.zeros(5, dtype="float32"))  # shapes may change
    assert s.get_value().shape == (5,)


def test_shared_variable_pickles():
    s = irc.shared(np.arange(3.0), name="s")
    back = pickle.loads(pickle.dumps(s))
    np.testing.assert_array_equal(back.get_value(), s.get_value())
    back.set_value(np.ones(4))  # set_value still finds its storage after loads
    np.testing.assert_array_equal(back.get_value(), np.ones(4))


def test_shared_in_graph():
    s = irc.shared(np.arange(3.0), name="s")
    np.testing.assert_allclose(evaluate(T.exp(s)), np.exp(np.arange(3.0)))


# ---------------------------------------------------------------------------- tutorial checks
def test_tutorial_op_classes(floatx32):
    x = irc.shared(np.asarray(rng.rand(10), irc.config.floatX))
    y = T.exp(x)
    assert isinstance(y.owner.op, T.Elemwise)
    assert y.owner.op.__class__.__name__ == "Elemwise"
    assert str(y.owner.op) == "Elemwise{exp,no_inplace}"
    assert str(x.type) == "TensorType(float32, vector)"
    assert isinstance(T.cast(T.vector(), "float64").owner.op, T.Elemwise)
    assert T.cast(T.vector(), "floatX").dtype == "float32"


def test_lowering_contract_every_op():
    """Every Apply maps to a registered tensor op; the dialect's inferred types agree with the
    frontend's (same dtype and rank, no contradiction on broadcastable dims), and
    `ir_result_types` keeps what the frontend knows more."""
    from irc.frontend.evaluate import ir_op_of
    from irc.frontend.graph import ir_result_types, toposort
    m, v = T.dmatrix(), T.dvector()
    outs = [T.exp(m).sum(axis=0), m.T, m.reshape((m.shape[1], -1)), m[1:, 0], T.concatenate([m, m]),
            T.set_subtensor(m[0], v), T.dot(m, v), T.zeros_like(m), T.cast(m, "float32"), m.argmax(axis=1),
            T.stack([m.shape[0], 2]), m[0]]
    for node in toposort(outs):
        op = ir_op_of(node)
        inferred = type(op).infer_result_types([o.type for o in op.operands], op.attributes)
        for var, got in zip(node.outputs, inferred):
            assert got.element.numpy_name == var.dtype and got.rank == var.ndim, node
            assert all(d in (1, None) for d, b in zip(got.shape, var.broadcastable) if b), node
        refined = ir_result_types(node, [o.type for o in op.operands])
        for var, t in zip(node.outputs, refined):
            assert all(t.shape[k] == 1 for k, b in enumerate(var.broadcastable) if b), node
