"""`irc.function` on the GPU (device=cuda) against the same graph on the CPU backend: every
elementwise op and dtype, broadcasts, strided inputs, fused groups, shared variables, borrow,
device results. Tolerances: float32 rtol 2e-6 (1e-5 for the transcendental ops: exp/log on the
GPU use ex2/lg2 with range reduction), float64 1e-12, integers and bools exact."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.codegen_ptx import dependent_launch
from irc.sandbox.cuda.basic_ops import gpu_from_host

UNARY = {"neg": lambda x: -x, "abs": abs, "exp": T.exp, "log": T.log, "log1p": T.log1p,
         "expm1": T.expm1, "sqrt": T.sqrt, "sin": T.sin, "cos": T.cos, "tanh": T.tanh,
         "sigmoid": T.nnet.sigmoid, "softplus": T.nnet.softplus, "floor": T.floor, "ceil": T.ceil,
         "sqr": T.sqr, "sgn": T.sgn, "tan": T.tan, "sinh": T.sinh, "cosh": T.cosh, "arcsinh": T.arcsinh,
         "trunc": T.trunc, "deg2rad": T.deg2rad, "rad2deg": T.rad2deg, "arctan": T.arctan,
         "arcsin": T.arcsin, "arccos": T.arccos}  # (arcsin, arccos: NaN beyond |x| = 1, on both devices)
POSITIVE = {"log", "sqrt", "log1p"}
BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
          "div": lambda a, b: a / b, "pow": lambda a, b: a ** b, "maximum": T.maximum,
          "minimum": T.minimum, "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b,
          "arctan2": T.arctan2}
TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-12, atol=1e-14)}


def compile_on(device: str, inputs, outputs, **kw):
    with irc.config.change_flags(device=device):
        return irc.function(inputs, outputs, **kw)


def both(inputs, outputs, *values, **tol):
    """Results of the graph on the cpu and on the gpu, compared; returns the gpu's."""
    cpu = compile_on("cpu", inputs, outputs)(*values)
    gpu = compile_on("cuda", inputs, outputs)(*values)
    for c, g in zip(cpu if isinstance(cpu, list) else [cpu], gpu if isinstance(gpu, list) else [gpu]):
        assert type(g) is np.ndarray and g.dtype == c.dtype and g.shape == c.shape
        np.testing.assert_allclose(g, c, **tol) if tol else np.testing.assert_array_equal(g, c)
    return gpu


def rand(*shape, dtype="float32", low=-3.0, high=3.0, seed=0):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op, dtype):
    x = T.matrix("x", dtype=dtype)
    v = rand(37, 19, dtype=dtype, low=0.01 if op in POSITIVE else -5.0, high=5.0)
    both([x], UNARY[op](x), v, **TOL[dtype])
    both([x], UNARY[op](x), v.T, **TOL[dtype])  # a strided (Fortran-order) input
    both([x], UNARY[op](x), rand(40, 60, dtype=dtype, low=0.5, high=4)[::2, 1::3], **TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_broadcast(op, dtype):
    x, y = T.matrix("x", dtype=dtype), T.row("y", dtype=dtype)
    low = 0.1 if op == "pow" else -3.0
    a = rand(9, 13, dtype=dtype, low=low)
    b = rand(1, 13, dtype=dtype, seed=5, low=0.5 if op in ("div", "floordiv", "mod", "pow") else low)
    both([x, y], BINARY[op](x, y), a, b, **TOL[dtype])


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_integer_ops(dtype):
    x, y = T.vector("x", dtype=dtype), T.vector("y", dtype=dtype)
    rng = np.random.default_rng(3)
    lo = -50
    a = rng.integers(lo, 50, 1001).astype(dtype)
    b = rng.integers(1, 7, 1001).astype(dtype)
    both([x, y], [x + y, x - y, x * y, x // y, x % y, T.maximum(x, y), T.minimum(x, y),
                  T.eq(x, y), T.lt(x, y)], a, b)


def test_float16_storage():
    x = T.vector("x", dtype="float16")
    a = rand(1000, dtype="float16")
    both([x], [T.exp(x) * 2 + x, abs(x)], a, rtol=1e-3, atol=1e-3)


def test_compare_select_cast_bool():
    x, y = T.dvector("x"), T.dvector("y")
    a, b = rand(500, dtype="float64"), rand(500, dtype="float64", seed=2)
    both([x, y], [T.switch(T.gt(x, y), x, y), T.cast(x, "int32"), T.cast(x, "float32"),
                  T.and_(T.gt(x, 0), T.lt(y, 0))], a, b)


def test_fused_chain_and_sizes():
    x = T.fvector("x")
    out = T.tanh(T.exp(-(x * 0.5 + 1.0) ** 2) * 3.0 - x) + T.sqrt(abs(x) + 1.0)
    for n in (1, 3, 4, 5, 1023, 230400, 10 ** 6 + 3):
        both([x], out, rand(n), rtol=1e-5, atol=1e-6)


def test_broadcast_column_and_scalar():
    x, c, s = T.fmatrix("x"), T.fcol("c"), T.fscalar("s")
    both([x, c, s], x * c + s, rand(33, 65), rand(33, 1, seed=3), np.float32(1.5), rtol=1e-6)


def test_zero_size_inputs():
    x = T.fmatrix("x")
    both([x], T.exp(x) + 1, np.zeros((0, 7), "float32"), rtol=0)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "float16"])
def test_shared_on_device(dtype):
    value = (rand(100) > 0) if dtype == "bool" else rand(100).astype(dtype)
    with irc.config.change_flags(device="cuda"):
        s = irc.shared(value, name="s")
        stored = s.get_value(borrow=True, return_internal_type=True)
        assert not isinstance(stored, np.ndarray) and hasattr(stored, "__cuda_array_interface__")
        np.testing.assert_array_equal(s.get_value(), value)
        new = value[::-1].copy()
        s.set_value(new)
        assert s.get_value(borrow=True, return_internal_type=True).gpudata is stored.gpudata
        np.testing.assert_array_equal(s.get_value(), new)


def test_update_in_place_on_device():
    with irc.config.change_flags(device="cuda"):
        w = irc.shared(np.arange(10, dtype="float32"), name="w")
        f = irc.function([], w + 1, updates={w: w * 2})
        for _ in range(3):
            expected = w.get_value() + 1  # the output reads w before the update
            np.testing.assert_array_equal(f(), expected)
        np.testing.assert_array_equal(w.get_value(), np.arange(10, dtype="float32") * 8)
        assert not isinstance(w.get_value(borrow=True, return_internal_type=True), np.ndarray)


def test_device_result_and_borrow():
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(1000), name="x")
        f = irc.function([], gpu_from_host(T.exp(x)))
        g = irc.function([], irc.Out(gpu_from_host(T.exp(x)), borrow=True))
        r1, r2 = f(), f()
        assert r1.gpudata is not r2.gpudata  # fresh buffers without borrow
        b1, b2 = g(), g()
        assert int(b1.gpudata) == int(b2.gpudata)  # borrow=True: the same device buffer
        np.testing.assert_allclose(np.asarray(r1), np.exp(x.get_value()), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(b2), np.exp(x.get_value()), rtol=1e-6)
        r1.sync()
        assert r1.shape == (1000,) and r1.dtype == np.float32 and r1.strides == (4,)
        np.testing.assert_array_equal(r1.get(), np.asarray(r1))


def test_torch_and_cupy_share_memory():
    torch = pytest.importorskip("torch")
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(64), name="x")
        r = irc.function([], gpu_from_host(x * 3))()
    t = torch.as_tensor(r, device="cuda")
    assert t.data_ptr() == int(r.gpudata)
    np.testing.assert_allclose(t.cpu().numpy(), x.get_value() * 3, rtol=1e-6)
    cupy = pytest.importorskip("cupy")
    c = cupy.asarray(r)
    assert c.data.ptr == int(r.gpudata)


def test_results_alias_nothing():
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(100), name="x")
        f = irc.function([], T.exp(x))
        a, b = f(), f()
    assert type(a) is np.ndarray and a is not b and not np.shares_memory(a, b)
    a[:] = 0
    np.testing.assert_allclose(b, np.exp(x.get_value()), rtol=1e-6)


def test_toposort_names():
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(10), name="x")
        f = irc.function([], T.exp(x))
    names = [str(n.op) for n in f.maker.fgraph.toposort()]
    assert "GpuElemwise{exp,no_inplace}" in names and "HostFromGpu" in names
    assert not any(isinstance(n.op, T.Elemwise) for n in f.maker.fgraph.toposort())


def test_ir_stages():
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(10), name="x")
        f = irc.function([], T.exp(x))
    assert "gpu.func" in f.ir("gpu") and "gpu.launch" in f.ir("gpu")
    assert ".entry" in f.ir("ptx")


def test_out_of_memory_is_an_exception_then_recovers():
    x = T.fvector("x")
    f = compile_on("cuda", [x], [T.exp(x), x * 2, x + 1, x - 1])
    big = np.ones(5 * 2 ** 30, "float32")  # 20 GiB, and 80 GiB more for its four results
    with pytest.raises(MemoryError, match="out of memory"):
        f(big)
    del big
    out = f(np.ones(10, "float32"))
    np.testing.assert_allclose(out[0], np.exp(np.ones(10)), rtol=1e-6)


def test_force_device_names_the_device():
    from irc.runtime.targets import DeviceUnavailable
    x = T.fvector("x")
    with irc.config.change_flags(device="cuda7", force_device=True):
        with pytest.raises(DeviceUnavailable, match="cuda7"):
            irc.function([x], T.exp(x))


def test_graph_replays_follow_new_data():
    """After a few calls the launches replay as a CUDA graph; new values in the same buffers
    (set_value writes in place) and new inputs must still give new results."""
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(300, 200), name="x")
        f = irc.function([], irc.Out(gpu_from_host(T.tanh(T.exp(x).T * 2) + 1), borrow=True))
        m = T.fmatrix("m")
        g = irc.function([m], T.exp(m).T + m.T)
    for i in range(8):
        x.set_value(rand(300, 200, seed=i))
        np.testing.assert_allclose(np.asarray(f()), np.tanh(np.exp(x.get_value()).T * 2) + 1,
                                   rtol=1e-5, atol=1e-6)
        v = rand(30, 20, seed=10 + i)
        np.testing.assert_allclose(g(v), np.exp(v).T + v.T, rtol=1e-5, atol=1e-6)
    plan = next(iter(f.executor.plans.values()))
    assert plan.graphs.execs, "the borrowed result's launches were never captured as a graph"


def test_dropped_results_are_recycled_held_ones_never_overwritten():
    """Fresh device results come back once dropped (so the graph replays); a result the user
    still holds - directly, through its allocation or through torch - is never written."""
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(1000), name="x")
        f = irc.function([], gpu_from_host(T.exp(x)))
    held = []
    for i in range(6):
        x.set_value(rand(1000, seed=i))
        held.append((f(), np.exp(x.get_value())))
    assert len({int(r.gpudata) for r, _ in held}) == 6
    for r, expected in held:
        np.testing.assert_allclose(np.asarray(r), expected, rtol=1e-6)
    del held
    addresses = set()
    for _ in range(12):
        r = f()
        addresses.add(int(r.gpudata))
    assert len(addresses) <= 3 and f._steady is not None, "the loop did not settle on recycled buffers"
    data = r.gpudata
    del r
    for _ in range(4):
        assert int(f().gpudata) != int(data)
    torch = pytest.importorskip("torch")
    r = f()
    t = torch.as_tensor(r, device="cuda")
    before = t.cpu().numpy().copy()
    del r
    x.set_value(rand(1000, seed=99))
    for _ in range(4):
        np.testing.assert_allclose(np.asarray(f()), np.exp(x.get_value()), rtol=1e-6)
    np.testing.assert_array_equal(t.cpu().numpy(), before)


def test_steady_calls_follow_set_value_and_updates():
    """The replayed call reads the shared variables' current values; a new shape (a new
    array) or an update that is not in place takes the general path again."""
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(500), name="x")
        g = irc.function([], irc.Out(gpu_from_host(x * 2), borrow=True))
        w = irc.shared(np.zeros(64, "float32"), name="w")
        step = irc.function([], gpu_from_host(w + 1), updates={w: w + 1})
    for i in range(6):
        x.set_value(rand(500, seed=i))
        np.testing.assert_allclose(np.asarray(g()), x.get_value() * 2, rtol=1e-6)
    assert g._steady is not None
    x.set_value(rand(700, seed=7))
    np.testing.assert_allclose(np.asarray(g()), x.get_value() * 2, rtol=1e-6)
    for i in range(8):
        np.testing.assert_array_equal(np.asarray(step()), np.full(64, i + 1, "float32"))
    np.testing.assert_array_equal(w.get_value(), np.full(64, 8, "float32"))


def test_small_host_results_are_copied_by_the_graph_and_never_shared():
    """A step returning small host results (the tutorial's prediction and cross-entropy) copies
    them inside its CUDA graph and replays: each call's results are arrays of the caller's own,
    right after every update, never overwritten by a later call."""
    with irc.config.change_flags(device="cuda"):
        w = irc.shared(np.zeros(300, "float32"), name="w")
        step = irc.function([], [w + 1 > 2, (w + 1) * 2], updates={w: w + 1})
        big = irc.function([], w.dimshuffle("x", 0) * np.ones((100, 1), "float32"))  # 120 KB: handed out pinned
    results = [step() for _ in range(10)]
    assert step._steady is not None, "a step with small host results should replay its graph"
    for i, (flag, doubled) in enumerate(results):
        assert type(flag) is np.ndarray and flag.dtype == bool and flag.shape == (300,)
        np.testing.assert_array_equal(flag, np.full(300, i + 1 > 2))
        np.testing.assert_array_equal(doubled, np.full(300, 2 * (i + 1), "float32"))
    assert len({r[1].ctypes.data for r in results}) == 10
    np.testing.assert_array_equal(w.get_value(), np.full(300, 10, "float32"))
    plan = next(iter(step.executor.plans.values()))
    assert plan.staged is not None and plan.graphs.execs
    assert plan.stage_blocks[0] is plan.stage_blocks[1], "computed straight into host memory"
    np.testing.assert_array_equal(big(), np.full((100, 300), 10, "float32"))
    assert next(iter(big.executor.plans.values())).staged is None
    # a host result that a later launch reads too (2·m, read by the product): copied from a
    # device block by the staging kernel
    with irc.config.change_flags(device="cuda"):
        m = irc.shared(rand(30, 20), name="m")
        v = irc.shared(rand(20, seed=1), name="v")
        d = m * 2
        both_ways = irc.function([], [d, T.dot(d, v)])
    for _ in range(5):
        got_d, got_p = both_ways()
    np.testing.assert_array_equal(got_d, m.get_value() * 2)
    np.testing.assert_allclose(got_p, (2 * m.get_value().astype("float64")) @ v.get_value(), rtol=1e-5, atol=1e-5)
    plan = next(iter(both_ways.executor.plans.values()))
    assert plan.staged is not None and plan.stage_blocks[0] is not plan.stage_blocks[1]


def test_dependent_launches_and_a_first_call_with_nothing_left_to_load():
    """On sm_90 the step's own kernels are launched as dependents (they wait on the device for
    the kernel before them) and its CUDA graph still gives the CPU's numbers; cuBLAS (its
    product sits in a branch on the sizes) was loaded and warmed up when compiling; the
    steady call holds its temporaries (nothing to take per call)."""
    from irc.runtime.cuda import cublas
    from irc.runtime.cuda.launch import driver
    X, y = rand(400, 784), (rand(400, seed=2) > 0.5).astype("float32")
    results = {}
    for device in ("cpu", "cuda"):
        with irc.config.change_flags(device=device):
            x, t = irc.shared(X, name="x"), irc.shared(y, name="t")
            w, b = irc.shared(np.zeros(784, "float32"), name="w"), irc.shared(np.float32(0), name="b")
            p = T.nnet.sigmoid(T.dot(x, w) + b)
            xent = -t * T.log(p) - (1 - t) * T.log(1 - p)
            gw, gb = T.grad(xent.mean(), [w, b])
            train = irc.function([], [p > 0.5, xent], updates={w: w - 0.1 * gw, b: b - 0.1 * gb})
        if device == "cuda":
            assert cublas._HANDLE is not None, "cuBLAS should be set up by irc.function, not the first call"
        results[device] = [train() for _ in range(6)][-1] + [w.get_value()]
    plan = next(iter(train.executor.plans.values()))
    assert plan.graphs.execs, "the step should replay a CUDA graph"
    steady = train.executor.replayer([c.value for c in train._containers])
    assert steady and {slot for slot, _ in steady.fresh} <= set(plan.result_slots), \
        "only results may be fresh buffers in a steady call: its temporaries are held"
    if dependent_launch.supports(train.executor.dev.arch):
        kernels = [x.launcher for x in plan.launches if hasattr(x.launcher, "config")]
        assert kernels and all(k.launch == driver().cuLaunchKernelEx for k in kernels)
    np.testing.assert_array_equal(results["cuda"][0], results["cpu"][0])
    for got, want in zip(results["cuda"][1:], results["cpu"][1:]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_independent_launches_run_side_by_side_in_the_graph():
    """A plan's graph has its launches' real dependencies (`concurrent_capture`): two results
    computed from different inputs start together (two roots), and a training step whose
    updates need nothing from each other still gives the CPU's numbers, call after call."""
    xv, yv = rand(1000), rand(3000, seed=3)
    with irc.config.change_flags(device="cuda"):
        x, y = irc.shared(xv, name="x"), irc.shared(yv, name="y")
        f = irc.function([], [irc.Out(gpu_from_host(x.sum()), borrow=True),
                              irc.Out(gpu_from_host(T.exp(y) * 2), borrow=True)])
    for _ in range(4):
        total, scaled = f()
    plan = next(iter(f.executor.plans.values()))
    assert plan.graphs.execs and plan.graphs.roots >= 2, "the two results should not wait for each other"
    np.testing.assert_allclose(np.asarray(total), xv.sum(dtype="float64"), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(scaled), np.exp(yv) * 2, rtol=1e-5)
    X, labels = rand(64, 30), (rand(64, seed=4) > 0.5).astype("int32")
    results = {}
    for device in ("cpu", "cuda"):
        with irc.config.change_flags(device=device):
            w1, b1 = irc.shared(rand(30, 20, seed=5) * 0.1, name="w1"), irc.shared(np.zeros(20, "float32"), name="b1")
            w2, b2 = irc.shared(rand(20, 2, seed=6) * 0.1, name="w2"), irc.shared(np.zeros(2, "float32"), name="b2")
            params = [w1, b1, w2, b2]
            p = T.nnet.softmax(T.dot(T.tanh(T.dot(irc.shared(X), w1) + b1), w2) + b2)
            cost = -T.mean(T.log(p)[T.arange(64), irc.shared(labels)])
            step = irc.function([], cost, updates=[(q, q - 0.1 * g) for q, g in zip(params, T.grad(cost, params))])
        results[device] = [float(step()) for _ in range(8)] + [q.get_value() for q in params]
    for got, want in zip(results["cuda"], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_gpu_sync_flag_reports_kernel_errors_per_launch():
    with irc.config.change_flags(device="cuda", gpu_sync=True):
        x = T.fvector("x")
        f = irc.function([x], T.exp(x) * 2)
    np.testing.assert_allclose(f(np.ones(5, "float32")), np.exp(1) * 2, rtol=1e-6)
    assert f.executor.sync_each


def test_results_never_alias_inputs_or_each_other():
    with irc.config.change_flags(device="cuda"):
        x = irc.shared(rand(50), name="x")
        f = irc.function([], [gpu_from_host(T.exp(x)), gpu_from_host(T.exp(x)), gpu_from_host(x)])
    a, b, c = f()
    assert len({int(a.gpudata), int(b.gpudata), int(c.gpudata),
                int(x.get_value(borrow=True, return_internal_type=True).gpudata)}) == 4
    np.testing.assert_allclose(np.asarray(b), np.exp(x.get_value()), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(c), x.get_value())


def test_profile_times_each_kernel_and_transfer():
    """profile=True on the GPU: one row per kernel (named after its ops) and per transfer,
    timed with CUDA events, and the results still right."""
    import io
    with irc.config.change_flags(device="cuda"):
        x = T.fvector("x")
        w = irc.shared(rand(1000), name="w")
        f = irc.function([x], [T.exp(x) * w, T.tanh(w).T + 1], profile=True)
    v = rand(1000, seed=3)
    for _ in range(3):
        a, b = f(v)
    np.testing.assert_allclose(a, np.exp(v) * w.get_value(), rtol=1e-5)
    times = f.profile.op_time
    assert len(times) >= 3 and all(t > 0 for t in times.values()), times
    out = io.StringIO()
    f.profile.summary(out)
    text = out.getvalue()
    assert "GpuElemwise" in text and "GpuFromHost" in text and "HostFromGpu" in text, text


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_streams_on_the_gpu_draw_the_cpus_numbers(dtype):
    """Philox runs in the kernel: uniform and binomial draws equal the CPU's bit for bit,
    normal draws to the math library's ulps; each call draws new numbers on both."""
    from irc.tensor.shared_randomstreams import RandomStreams

    def draws(device):
        with irc.config.change_flags(device=device):
            srng = RandomStreams(seed=234)
            outs = [srng.uniform((1000,), dtype=dtype), srng.normal((37, 5), dtype=dtype),
                    srng.binomial((64,), p=0.3, dtype="int64")]
            f = irc.function([], outs)
        return [[np.asarray(v) for v in f()] for _ in range(3)]

    cpu, gpu = draws("cpu"), draws("cuda")
    for c, g in zip(cpu, gpu):
        np.testing.assert_array_equal(g[0], c[0])
        np.testing.assert_allclose(g[1], c[1], **TOL[dtype])
        np.testing.assert_array_equal(g[2], c[2])
    assert not np.array_equal(gpu[0][0], gpu[1][0])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_tutorial_programs_match_the_cpu(n):
    """check1/2/3 with only the flags changed: "Used the gpu", and the printed numpy result
    equal to the cpu's (float32, printed to numpy's default precision)."""
    root = Path(__file__).resolve().parent.parent.parent

    def run(device):
        env = dict(os.environ, IRC_FLAGS=f"device={device},floatX=float32", IRC_EXAMPLE_ITERS="10")
        proc = subprocess.run([sys.executable, str(root / "examples" / f"check{n}.py")],
                              capture_output=True, text=True, env=env, cwd=root)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    gpu, cpu = run("cuda"), run("cpu")
    assert "Used the gpu" in gpu and "Used the cpu" in cpu
    line = "Numpy result is" if n > 1 else "Result is"

    def numbers(out):
        text = next(s for s in out.splitlines() if s.startswith(line))
        return [float(v) for v in re.findall(r"[-+]?\d+\.\d*(?:e[-+]?\d+)?", text)]

    assert len(numbers(gpu)) == 6
    np.testing.assert_allclose(numbers(gpu), numbers(cpu), rtol=2e-7)
