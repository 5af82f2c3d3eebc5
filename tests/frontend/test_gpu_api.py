"""The Theano-facing GPU API at the IR level (no GPU here): `device=cuda` places elementwise
work on the device, `gpu_from_host` keeps a result there, shared variables arrive on the
device, the toposort answers the tutorial's checks as Theano did, and `assert_no_cpu_op`
names what stays on the host. Values come from the reference executor (transfers are the
identity there: the `cuda_without_gpu` fixture) and are checked against numpy."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import irc
import irc.tensor as T
from irc import config, function, shared
from test_function_hypothesis import build, expr

CUDA = dict(device="cuda", floatX="float32")

pytestmark = pytest.mark.usefixtures("cuda_without_gpu")


def _exp_of_shared(output=lambda e: e, name="x"):
    x = shared(np.random.RandomState(22).rand(64).astype("float32"), name=name)
    return x, function([], output(T.exp(x)))


def _used_the_gpu(f) -> bool:  # the tutorial's test
    return not np.any([isinstance(n.op, T.Elemwise) for n in f.maker.fgraph.toposort()])


def test_check1_on_the_device():
    with config.change_flags(**CUDA):
        x, f = _exp_of_shared()
        nodes = f.maker.fgraph.toposort()
        assert [str(n) for n in nodes] == ["GpuElemwise{exp,no_inplace}(x)",
                                           "HostFromGpu(GpuElemwise{exp,no_inplace}.0)"]
        assert _used_the_gpu(f)
        r = f()
    assert isinstance(r, np.ndarray) and r.dtype == np.float32
    np.testing.assert_allclose(r, np.exp(x.get_value()), rtol=1e-6)


def test_unnamed_device_values_print_as_theano_did():
    with config.change_flags(**CUDA):
        _, f = _exp_of_shared(name=None)
    assert str(f.maker.fgraph.toposort()[0]) == "GpuElemwise{exp,no_inplace}(<CudaNdarrayType(float32, vector)>)"


def test_check1_on_the_cpu_is_unchanged():
    with config.change_flags(device="cpu", floatX="float32"):
        _, f = _exp_of_shared()
    assert [str(n) for n in f.maker.fgraph.toposort()] == ["Elemwise{exp,no_inplace}(x)"]
    assert not _used_the_gpu(f)
    assert '"cuda"' not in f.ir("tensor")


@pytest.mark.parametrize("alias", [irc.gpu_from_host, irc.sandbox.cuda.basic_ops.gpu_from_host,
                                   irc.sandbox.gpuarray.basic_ops.gpu_from_host,
                                   irc.sandbox.cuda.gpu_from_host])
def test_gpu_from_host_output_stays_on_the_device(alias):
    assert alias is irc.gpu_from_host
    with config.change_flags(**CUDA):
        x, f = _exp_of_shared(alias)
        assert [str(n) for n in f.maker.fgraph.toposort()] == ["GpuElemwise{exp,no_inplace}(x)"]
        assert f.maker.func.res_attrs(0)["irc.device"].value == "cuda"
        assert 'irc.device = "cuda"' in f.ir("optimized")
        np.testing.assert_allclose(np.asarray(f()), np.exp(x.get_value()), rtol=1e-6)


def test_gpu_from_host_is_the_identity_on_the_cpu():
    with config.change_flags(device="cpu", floatX="float32"):
        x, f = _exp_of_shared(irc.gpu_from_host)
        g = function([], irc.Out(irc.host_from_gpu(irc.gpu_from_host(T.exp(x))), borrow=True))
    assert "irc.device" not in f.ir("optimized") and "to_device" not in f.ir("optimized")
    for h in (f, g):
        r = h()
        assert type(r) is np.ndarray
        np.testing.assert_allclose(r, np.exp(x.get_value()), rtol=1e-6)


def test_shared_variables_arrive_on_the_device_user_inputs_on_the_host():
    with config.change_flags(**CUDA):
        v = T.vector("v")
        w = shared(np.ones(3, "float32"), name="w")
        f = function([v], v * w, updates={w: w + 1})
    sig = f.ir("tensor").splitlines()[1]
    assert '%v: tensor<?xf32>,' in sig and '%w: tensor<?xf32, "cuda"> {irc.shared = "w"}' in sig
    optimized = f.ir("optimized")
    assert 'tensor<?xf32, "cuda"> {irc.update = 1' in optimized  # the update stays there
    assert optimized.count("tensor.to_device") == 1 and optimized.count("tensor.to_host") == 1
    np.testing.assert_allclose(f(np.arange(3, dtype="float32")), [0, 1, 2])
    np.testing.assert_allclose(w.get_value(), [2, 2, 2])


def test_transfers_inside_a_graph_are_placement_hints_with_a_gradient():
    with config.change_flags(**CUDA):
        v = T.vector("v")
        y = irc.host_from_gpu(T.exp(irc.gpu_from_host(v))).sum()
        g = T.grad(y, v)
        f = function([v], [y, g])
    a = np.array([0.5, -1.0, 2.0], "float32")
    s, d = f(a)
    np.testing.assert_allclose(s, np.exp(a).sum(), rtol=1e-6)
    np.testing.assert_allclose(d, np.exp(a), rtol=1e-6)
    assert str(irc.gpu_from_host(v).owner.op) == "GpuFromHost"


def _logistic_regression():
    rng = np.random.RandomState(0)
    x, y = T.matrix("x"), T.vector("y")
    w = shared(rng.randn(5).astype("float32"), name="w")
    b = shared(np.float32(0.0), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    train = function([x, y], [p_1 > 0.5, xent], updates={w: w - 0.1 * gw, b: b - 0.1 * gb})
    data = rng.randn(8, 5).astype("float32"), (rng.rand(8) > 0.5).astype("float32")
    return train, (w, b), data


def test_logistic_regression_places_its_work_on_the_device():
    with config.change_flags(**CUDA):
        train, (w, b), data = _logistic_regression()
    names = [type(n.op).__name__ for n in train.maker.fgraph.toposort()]
    assert "GpuElemwise" in names and "GpuFromHost" in names and "HostFromGpu" in names
    assert "GpuGemv" in names and "CGemv" not in names and "Elemwise" not in names  # cuBLAS
    assert "fuse-matvec" not in train.maker.stages and "fuse-matvec" not in train.ir("insert-transfers") \
        and "insert-transfers" in train.maker.stages
    results = [train(*data) for _ in range(3)]
    with config.change_flags(device="cpu", floatX="float32"):
        ref_train, (rw, rb), _ = _logistic_regression()
    for got in results:
        want = ref_train(*data)
        np.testing.assert_array_equal(got[0], want[0])
        np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(w.get_value(), rw.get_value(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b.get_value(), rb.get_value(), rtol=1e-4, atol=1e-5)


def _running_total():
    x = T.vector("x")
    return function([x], T.cumsum(T.exp(x)) * 2)  # a cumulative sum has no GPU kernel yet


def test_assert_no_cpu_op_names_the_op_and_the_users_line():
    with config.change_flags(assert_no_cpu_op="raise", **CUDA):
        with pytest.raises(AssertionError) as info:
            _running_total()
        _logistic_regression()  # all on the device now: nothing to report
    text = str(info.value)
    assert "run on the cpu although device=cuda (assert_no_cpu_op=raise)" in text
    assert "'tensor.cumulative'" in text and "runs on the cpu" in text
    assert f"{__file__}:" in text and "T.cumsum(T.exp(x))" in text  # the user's line, quoted
    with config.change_flags(assert_no_cpu_op="warn", **CUDA):
        with pytest.warns(RuntimeWarning, match="tensor.cumulative"):
            _running_total()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _exp_of_shared()  # everything on the device: nothing to say
    with config.change_flags(assert_no_cpu_op="raise", device="cpu"):
        _running_total()  # the cpu is the device: nothing is "left" there


def test_debug_mode_on_the_device_checks_against_the_unoptimized_graph():
    with config.change_flags(mode="DebugMode", **CUDA):
        x, f = _exp_of_shared()
        assert 'tensor.exp %x : tensor<?xf32, "cuda">' in f.ir("optimized")
        np.testing.assert_allclose(f(), np.exp(x.get_value()), rtol=1e-6)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(e=expr, seed=st.integers(0, 2 ** 16), n=st.integers(1, 7), resident=st.booleans(),
       mode=st.sampled_from(["FAST_RUN", "FAST_COMPILE", "DebugMode"]))
def test_random_graphs_on_the_device_match_numpy(e, seed, n, resident, mode):
    """Random elementwise graphs over a user input and a device-resident shared variable,
    returned on the host or the device, with a sum (a host op) of the same value."""
    rng = np.random.RandomState(seed)
    xv, yv = rng.uniform(-2, 2, n), rng.uniform(-2, 2, n)
    with config.change_flags(device="cuda", floatX="float64", mode=mode):
        x = T.vector("x")
        y = shared(yv, name="y")
        scale: list[float] = [2.0]
        sym, ref = build(e, {"x": x, "y": y, "c": T.constant(0.75)}, {"x": xv, "y": yv, "c": 0.75}, scale)
        out = irc.gpu_from_host(sym) if resident else sym
        f = function([x], [out, sym.sum()], on_unused_input="ignore")
        got, total = f(xv)
    assert ("irc.device" in f.maker.func.res_attrs(0)) == resident
    ref = np.broadcast_to(ref, np.shape(got))
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12 * max(scale))
    np.testing.assert_allclose(total, ref.sum(), rtol=1e-9, atol=1e-11 * max(scale) * n)
