"""scan under device=cuda: the step's ops run as device kernels launched by the host plan, one
row of each result per step (no host fallback). Checked with the kernel emulator against numpy.
Tolerances: float32 rtol 1e-5 (float64 numpy references)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.compile.nanguardmode import NanGuardMode
from irc.tensor.shared_randomstreams import RandomStreams
from test_cuda_path_emulated import ROOT, cuda_emulated, rand  # noqa: F401  (the fixture)


def no_host_ops():
    return irc.config.change_flags(assert_no_cpu_op="raise")


def test_an_elementwise_recurrence_runs_on_the_device(cuda_emulated):
    x, h0 = T.fmatrix("x"), T.fvector("h0")
    hs, _ = irc.scan(lambda xt, h: T.tanh(xt + 0.5 * h), sequences=x, outputs_info=h0)
    with no_host_ops():
        f = irc.function([x, h0], hs)
    xv, hv = rand(7, 5, seed=1), rand(5, seed=2)
    out = f(xv, hv)
    h, want = hv.astype("float64"), []
    for t in range(7):
        h = np.tanh(xv[t] + 0.5 * h)
        want.append(h)
    np.testing.assert_allclose(out, np.array(want), rtol=1e-5, atol=1e-6)


def rnn_reference(xv, h0v, Wv, Uv):
    h, states = h0v.astype("float64"), [h0v.astype("float64")]
    for xt in xv:
        h = np.tanh(xt @ Wv + h @ Uv)
        states.append(h)
    return states


def test_an_rnn_training_step_runs_on_the_device(cuda_emulated):
    """Forward scan, backpropagation through time (the backward scan reads reversed views of
    the sequences) and SGD, with W and U device-resident shared variables: no host op."""
    rng = np.random.RandomState(0)
    W = irc.shared(rng.uniform(-.5, .5, (3, 5)).astype("float32"), name="W")
    U = irc.shared(rng.uniform(-.5, .5, (5, 5)).astype("float32"), name="U")
    x, h0, y = T.ftensor3("x"), T.fmatrix("h0"), T.ftensor3("y")
    hs, _ = irc.scan(lambda xt, h: T.tanh(T.dot(xt, W) + T.dot(h, U)), sequences=x, outputs_info=h0)
    cost = T.mean((hs - y) ** 2)
    gW, gU = T.grad(cost, [W, U])
    with no_host_ops():
        f = irc.function([x, h0, y], cost, updates=[(W, W - 0.1 * gW), (U, U - 0.1 * gU)])
    for n in (6, 1):
        xv, hv, yv = rand(n, 4, 3, seed=n), rand(4, 5, seed=7), rand(n, 4, 5, seed=8)
        Wv, Uv = W.get_value().astype("float64"), U.get_value().astype("float64")
        H = rnn_reference(xv, hv, Wv, Uv)
        Hs = np.array(H[1:])
        np.testing.assert_allclose(f(xv, hv, yv), np.mean((Hs - yv) ** 2), rtol=1e-5)
        dH, gWn, gUn, dh = 2 * (Hs - yv) / Hs.size, np.zeros_like(Wv), np.zeros_like(Uv), 0.0
        for t in reversed(range(n)):
            da = (dh + dH[t]) * (1 - H[t + 1] ** 2)
            gWn, gUn, dh = gWn + xv[t].T @ da, gUn + H[t].T @ da, da @ Uv.T
        np.testing.assert_allclose(W.get_value(), Wv - 0.1 * gWn, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(U.get_value(), Uv - 0.1 * gUn, rtol=1e-5, atol=1e-6)


def test_taps_truncated_gradients_and_a_step_count_from_the_caller(cuda_emulated):
    """Two taps back (a window of two states), `n_steps` a user input (the host plan runs that
    many steps), and the gradient of the initial window with `truncate_gradient`."""
    x0, n, c = T.fmatrix("x0"), T.lscalar("n"), T.fvector("c")
    seq, _ = irc.scan(lambda a, b, c: a * 0.5 + T.sin(b) * c, outputs_info=dict(initial=x0, taps=[-2, -1]),
                      non_sequences=c, n_steps=n)
    g_full = T.grad(T.sum(seq ** 2), x0)
    seq_t, _ = irc.scan(lambda a, b, c: a * 0.5 + T.sin(b) * c, outputs_info=dict(initial=x0, taps=[-2, -1]),
                        non_sequences=c, n_steps=n, truncate_gradient=2)
    g_cut = T.grad(T.sum(seq_t ** 2), c)
    with no_host_ops():
        f = irc.function([x0, n, c], [seq, g_full, g_cut])
    x0v, cv = rand(2, 3, seed=3), rand(3, seed=4)
    with irc.config.change_flags(device="cpu"):
        g = irc.function([x0, n, c], [seq, g_full, g_cut])
    for steps in (5, 1):
        for got, want in zip(f(x0v, steps, cv), g(x0v, steps, cv)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_scan_inside_a_scan_and_a_map(cuda_emulated):
    """A nested scan (the host runs both loops) and a map with no state."""
    m = T.ftensor3("m")

    def row_prefix(mat):
        out, _ = irc.scan(lambda r, acc: acc + r, sequences=mat, outputs_info=T.zeros_like(mat[0]))
        return out[-1]

    totals, _ = irc.scan(row_prefix, sequences=m)
    doubled, _ = irc.map(lambda r: T.exp(r) * 2, sequences=m)
    with no_host_ops():
        f = irc.function([m], [totals, doubled])
    mv = rand(4, 3, 2, seed=5)
    got_totals, got_doubled = f(mv)
    np.testing.assert_allclose(got_totals, mv.sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(got_doubled, np.exp(mv.astype("float64")) * 2, rtol=1e-5)


def test_the_elman_rnn_example_trains_on_the_device_as_on_the_cpu(cuda_emulated):
    """examples/dlt_programs.py's Elman RNN (minibatch windows by `givens`, a vector step by
    `dot`s, softmax and the tutorials' NLL): every op on the device, numbers as on the cpu."""
    spec = importlib.util.spec_from_file_location("dlt_programs", ROOT / "examples" / "dlt_programs.py")
    dlt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dlt)
    runs = {}
    for device in ("cpu", "cuda"):
        with irc.config.change_flags(device=device, floatX="float32",
                                     assert_no_cpu_op="raise" if device == "cuda" else "ignore"):
            train_x, train_y = dlt.make_dataset(n=60)
            model, train = dlt.elman_rnn(train_x, train_y, batch_size=20)
            costs = [float(train(i)) for i in (0, 1, 2, 0)]
            runs[device] = costs, [p.get_value() for p in model.params]
    np.testing.assert_allclose(runs["cuda"][0], runs["cpu"][0], rtol=1e-5)
    for got, want in zip(runs["cuda"][1], runs["cpu"][1]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def tutorial_loop_programs():
    """The loop tutorial's A**k, polynomial, binomial-noise, Jacobian and Hessian programs."""
    k, A = T.iscalar("k"), T.vector("A")
    result, updates = irc.scan(lambda prior, A: prior * A, outputs_info=T.ones_like(A), non_sequences=A, n_steps=k)
    power = irc.function([A, k], result[-1], updates=updates)
    coefficients, x = T.vector("coefficients"), T.scalar("x")
    components, _ = irc.scan(lambda c, p, v: c * (v ** p), outputs_info=None,
                             sequences=[coefficients, T.arange(10000)], non_sequences=x)
    polynomial = irc.function([coefficients, x], components.sum())
    X, W, b = T.matrix("X"), T.matrix("W"), T.vector("b")
    d = RandomStreams(1234).binomial(size=W[1].shape)  # (read inside the step: drawn each step)
    noisy, updates = irc.scan(lambda v: T.tanh(T.dot(v, W) + b) * d, sequences=X)
    noise = irc.function([X, W, b], noisy, updates=updates)
    v = T.vector("v")
    y = v ** 2
    J, _ = irc.scan(lambda i, y, v: T.grad(y[i], v), sequences=T.arange(y.shape[0]), non_sequences=[y, v])
    cost = T.sum(v ** 3)
    gy = T.grad(cost, v)
    H, _ = irc.scan(lambda i, gy, v: T.grad(gy[i], v), sequences=T.arange(gy.shape[0]), non_sequences=[gy, v])
    derivatives = irc.function([v], [J, H])
    return power, polynomial, noise, derivatives


def test_the_tutorials_loop_page_runs_on_the_device(cuda_emulated):
    """With no host op (float32): numbers as numpy's, and the noise's draws (a new mask each
    step, as Theano's scan redraws a random variable its step reads) equal the cpu's bit for
    bit."""
    with irc.config.change_flags(floatX="float32"), no_host_ops():
        power, polynomial, noise, derivatives = tutorial_loop_programs()
    with irc.config.change_flags(floatX="float32", device="cpu"):
        noise_cpu = tutorial_loop_programs()[2]
    np.testing.assert_allclose(power(np.arange(10, dtype="float32"), 2), np.arange(10) ** 2)
    np.testing.assert_allclose(polynomial(np.asarray([1, 0, 2], "float32"), 3), 19.0)
    jacobian, hessian = derivatives(np.asarray([4, 3, -1], "float32"))  # (y[i]: a device gather)
    np.testing.assert_allclose(jacobian, np.diag([8.0, 6.0, -2.0]))
    np.testing.assert_allclose(hessian, np.diag([24.0, 18.0, -6.0]))
    x_, w_, b_ = np.eye(10, 2, dtype="float32"), np.ones((2, 2), "float32"), np.ones(2, "float32")
    clean = np.tanh(x_.astype("float64") @ w_ + b_)
    for _ in range(2):  # (the generator's state moves on: a second call draws anew, on both)
        out, out_cpu = noise(x_, w_, b_), noise_cpu(x_, w_, b_)
        np.testing.assert_array_equal(np.round(out / clean), np.round(out_cpu / clean))
        np.testing.assert_allclose(out, out_cpu, rtol=1e-6)
    assert set(np.unique(np.round(out / clean))) == {0.0, 1.0}


def test_a_step_that_changes_size_fails_before_any_launch(cuda_emulated):
    """The host plan checks every step's sizes when the call is planned, before the first
    launch: the error names the scan, and the shared variable keeps its value."""
    h0 = T.fvector("h0")
    w = irc.shared(np.ones(3, "float32"), name="w")
    hs, _ = irc.scan(lambda h: T.concatenate([h, h[:1]]), outputs_info=h0, n_steps=2)
    with no_host_ops():
        f = irc.function([h0], hs, updates={w: w * 2})
    with pytest.raises(Exception, match=r"'tensor.scan'.*result #0 changes size in dim 0 between steps"):
        f(np.ones(3, "float32"))
    np.testing.assert_array_equal(w.get_value(), np.ones(3))


def test_nan_guard_mode_finds_a_nan_made_inside_a_loop_under_device_cuda(cuda_emulated):
    """`NanGuardMode` runs op by op in numpy whatever the device: the NaN of step 13 is caught
    by the op that made it, the shared variable keeps its value."""
    x = T.dvector("x")
    count = irc.shared(np.float64(0.0), name="count")
    hs, _ = irc.scan(lambda v, h: T.log(h + v), sequences=x, outputs_info=T.constant(np.float64(2.0)))
    f = irc.function([x], hs, updates=[(count, count + 1)], mode=NanGuardMode())
    xv = np.ones(20)
    xv[13] = -9.0
    with pytest.raises(AssertionError, match="NaN detected.*test_cuda_scan_emulated.py"):
        f(xv)
    assert count.get_value() == 0
