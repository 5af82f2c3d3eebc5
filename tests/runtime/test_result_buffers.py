"""Result buffers handed to the native code: shared-variable updates computed in place write
straight into the shared storage, and `Out(borrow=True)` results reuse their previous array."""
import numpy as np

import irc
import irc.tensor as T


def _train(borrow: bool):
    rng = np.random.default_rng(0)
    x = T.dmatrix("x")
    y = T.dvector("y")
    w = irc.shared(rng.standard_normal(6), name="w")
    b = irc.shared(np.asarray(0.0), name="b")
    p = T.nnet.sigmoid(T.dot(x, w) + b)
    cost = T.nnet.binary_crossentropy(p, y).mean()
    gw, gb = T.grad(cost, [w, b])
    f = irc.function([x, y], irc.Out(p, borrow=borrow), updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])
    return f, w, b, rng.standard_normal((10, 6)), (rng.random(10) > 0.5).astype(float)


def _numpy_step(w, b, x, y):
    p = 1 / (1 + np.exp(-(x @ w + b)))
    g = (p - y) / len(y)
    return p, w - 0.1 * (x.T @ g), b - 0.1 * g.sum()


def test_updates_write_into_the_shared_storage():
    f, w, b, x, y = _train(borrow=False)
    storage = w.get_value(borrow=True)
    expect_w, expect_b = w.get_value(), b.get_value()
    for _ in range(3):
        p, expect_w, expect_b = _numpy_step(expect_w, expect_b, x, y)
        np.testing.assert_allclose(f(x, y), p, rtol=1e-12)
    np.testing.assert_allclose(w.get_value(), expect_w, rtol=1e-12)
    np.testing.assert_allclose(b.get_value(), expect_b, rtol=1e-12)
    if f.executor.native.inplace_results:  # the inplace pass marked the update
        assert w.get_value(borrow=True) is storage


def test_borrowed_output_reuses_its_array_and_plain_output_does_not():
    f, *_ , x, y = _train(borrow=True)
    first = f(x, y)
    assert f(x, y) is first
    g, *_ , x, y = _train(borrow=False)
    assert g(x, y) is not g(x, y)


def test_borrow_is_read_from_the_compiled_functions_signature():
    f, *_, x, y = _train(borrow=True)
    assert "irc.borrow" in f.ir("optimized") and "irc.borrow" in f.ir("loop")
    res_attrs = f.maker.func.attributes.pop("res_attrs")  # the same function, unmarked
    try:
        unmarked = type(f)(f.maker, f.executor, f.inputs, f.shared, f.output_spec, f.updated)
    finally:
        f.maker.func.attributes["res_attrs"] = res_attrs
    assert unmarked(x, y) is not unmarked(x, y)
    first = f(x, y)
    assert f(x, y) is first


def test_user_input_aliasing_shared_storage_is_not_overwritten():
    v = T.dvector("v")
    s = irc.shared(np.arange(4.0), name="s")
    f = irc.function([v], v * 2, updates=[(s, s + 1)])
    alias = s.get_value(borrow=True)
    out = f(alias)
    np.testing.assert_array_equal(out, np.arange(4.0) * 2)
    np.testing.assert_array_equal(s.get_value(), np.arange(4.0) + 1)


def test_steady_state_training_step_makes_no_new_arrays():
    with irc.config.change_flags(allow_gc=False):
        f, w, b, x, y = _train(borrow=True)
    out = f(x, y)
    arrays = (out, w.get_value(borrow=True), b.get_value(borrow=True))
    for _ in range(5):
        assert f(x, y) is out
    now = (out, w.get_value(borrow=True), b.get_value(borrow=True))
    if len(f.executor.native.inplace_results) == 2:
        assert all(a is c for a, c in zip(arrays, now))
