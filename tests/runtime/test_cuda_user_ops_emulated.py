"""Users' GPU ops under device=cuda without a GPU: the device parts around the op run in the
CPU kernel emulator (as in test_cuda_path_emulated.py), the op's `make_thunk` is a numpy fake
working on emulated device arrays. What this proves on CI is the hook's plumbing: the parts
and the thunk run in launch order, the values crossing the op stay device arrays (no upload or
download around it), results and updates are right, profiling names the op, errors name it.
Tolerances: float32 rtol 1e-6 (one multiply and add per element)."""
from __future__ import annotations

import dataclasses
import io

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.dialects.tensor_custom import USER_OPS, user_op_impl, user_op_label
from irc.passes.device_edges import device_module
from irc.codegen_ptx.pipeline import compile_kernels, lower_for_gpu
from irc.runtime import targets
from irc.passes.device_edges import HostOpsLeft
from irc.runtime.device_parts import DeviceBackend, DeviceSegmentedExecutor, UserOpsNested, compile_device_parts, \
    device_user_ops, part_function
from irc.runtime.errors import ExecutionError
from irc.runtime.kernel_emulator import run_function
from irc.runtime.profile_timing import TimedUserOp, describe_launches, host_clock
from irc.dialects.gpu import LaunchOp
from test_cuda_path_emulated import PTXAS, assemble


class FakeDeviceArray(np.ndarray):
    """An emulated device array: numpy memory with a `gpudata` address, as a thunk sees it."""

    @property
    def gpudata(self) -> int:
        return self.__array_interface__["data"][0]

    def get(self) -> np.ndarray:
        return np.array(self)


def on_device(value) -> FakeDeviceArray:
    return np.array(value).view(FakeDeviceArray)


class PartTiming:
    """A part's profile rows (its kernels, named as the CUDA timing names them), counted."""

    def __init__(self, placed_func, host_func):
        self.func = placed_func
        self.kernels = {op.kernel: op.location for op in host_func.walk() if isinstance(op, LaunchOp)}
        self.calls = 0

    def applies(self):
        return describe_launches(self.func, list(self.kernels.items()))

    def collect(self):
        out = {k: (1e-6 * self.calls, self.calls) for k in self.kernels} if self.calls else {}
        self.calls = 0
        return out


class EmulatedPart:
    """A device part run by the kernel emulator; a host argument is an upload, a host result a
    download (both logged), every other value must come and go as a device array."""

    fresh_results = True
    constants: dict = {}

    def __init__(self, placed, edges, log):
        self.gpu = lower_for_gpu(placed)
        if PTXAS:  # a part's kernels assemble too (its function is named "main.part0")
            assemble(compile_kernels(self.gpu, "sm_90"), "sm_90")
        self.name = part_function(placed).sym_name
        self.edges, self.log = edges, log
        host = next(op for op in self.gpu.body.ops if type(op).__name__ == "FuncOp")
        self.loop_ir = str(self.name)
        self.timing = PartTiming(part_function(placed), host)

    def run(self, args, hook=None, outs=None):
        for k, (a, up) in enumerate(zip(args, self.edges.upload)):
            if up:
                assert type(a) is np.ndarray, f"{self.name}: argument {k} should come from the host"
                self.log.append(f"upload {self.name}#{k}")
            else:
                assert isinstance(a, FakeDeviceArray), f"{self.name}: argument {k} came through the host"
        self.log.append(f"run {self.name}")
        self.timing.calls += 1
        results = run_function(self.gpu, [np.ascontiguousarray(a) for a in args])
        out = []
        for k, (r, down) in enumerate(zip(results, self.edges.download)):
            if down:
                self.log.append(f"download {self.name}#{k}")
                out.append(np.asarray(r))
            else:
                out.append(on_device(r))
        return out


def emulated_backend(log) -> DeviceBackend:
    def compile_part(module, profiling):
        placed, edges = device_module(module, "cuda")
        part = EmulatedPart(placed, edges, log)
        return part, part

    def run_user_op(op, arrays):
        for i, a in enumerate(arrays):
            if i not in op.host_operands:
                assert isinstance(a, FakeDeviceArray), f"{user_op_label(op)}: input #{i} is not on the device"
        log.append(f"thunk {user_op_label(op)}")
        return user_op_impl(op).run_on_device(op, arrays, lambda: log.append("synchronize"))

    return DeviceBackend(compile_part, run_user_op, on_device, lambda a: on_device(np.array(a)),
                         lambda func, op: TimedUserOp(func, op, host_clock))


@pytest.fixture
def gpu_log(monkeypatch):
    """device=cuda with the emulated backend; yields the log of what ran, in order."""
    targets.resolve("cpu")
    log: list[str] = []

    def compile_(module, func, config, profiling):
        assert device_user_ops(module), "these tests compile functions with GPU user ops"
        return compile_device_parts(module, func, emulated_backend(log), profiling)

    stand_in = dataclasses.replace(targets.TARGETS["cuda"], why_unavailable=lambda number: None,
                                   to_storage=on_device, compile=compile_)
    monkeypatch.setitem(targets.TARGETS, "cuda", stand_in)
    with irc.config.change_flags(device="cuda"):
        yield log


# ------------------------------------------------------------------ ops whose kernels are numpy fakes
class FakeAxpb(irc.Op):
    """y = a * x + b, computed by a "kernel" on the device array (numpy here)."""

    __props__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b

    def make_node(self, x):
        x = irc.sandbox.cuda.basic_ops.as_cuda_ndarray_variable(x)
        return irc.Apply(self, [x], [x.type()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling):
        x, z = storage_map[node.inputs[0]], storage_map[node.outputs[0]]

        def thunk():
            assert hasattr(x[0], "gpudata")
            z[0] = on_device(self.a * np.asarray(x[0]) + np.asarray(x[0]).dtype.type(self.b))
        return thunk


class FakeSumDiff(irc.Op):
    """Two outputs from one thunk: x + y and x - y."""

    __props__ = ()

    def make_node(self, x, y):
        return irc.Apply(self, [x, y], [x.type(), x.type()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling):
        (a, b), (s, d) = [storage_map[v] for v in node.inputs], [storage_map[v] for v in node.outputs]

        def thunk():
            s[0] = on_device(np.asarray(a[0]) + np.asarray(b[0]))
            d[0] = on_device(np.asarray(a[0]) - np.asarray(b[0]))
        return thunk


class WrongOutput(irc.Op):
    """A thunk returning what `how` says instead of a float32 vector like its input."""

    __props__ = ("how",)

    def __init__(self, how):
        self.how = how

    def make_node(self, x):
        return irc.Apply(self, [x], [x.type()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling):
        x, z = storage_map[node.inputs[0]], storage_map[node.outputs[0]]

        def thunk():
            v = np.asarray(x[0])
            z[0] = {"dtype": on_device(v.astype("float64")), "rank": on_device(v.reshape(1, -1)),
                    "host": v.copy(), "unset": None, "broadcast": on_device(np.concatenate([v, v]))}[self.how]
        return thunk


def rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-2, 2, shape).astype("float32")


# ------------------------------------------------------------------ the hook
def test_parts_and_thunk_run_in_launch_order_on_device_arrays(gpu_log):
    x = T.fvector("x")
    y = FakeAxpb(2.0, 1.0)(T.exp(x))
    with irc.config.change_flags(assert_no_cpu_op="raise"):  # the user op is a device op
        f = irc.function([x], T.tanh(y) * 3)
    xv = rand(37)
    np.testing.assert_allclose(f(xv), np.tanh(2 * np.exp(xv) + 1) * 3, rtol=1e-6)
    assert isinstance(f.executor, DeviceSegmentedExecutor)
    assert f.executor.launch_order() == ["main.part0", "user op FakeAxpb{a=2.0, b=1.0}", "main.part1"]
    # one upload (x) before the first part, one download after the last; none around the op
    assert gpu_log == ["upload main.part0#0", "run main.part0", "thunk FakeAxpb{a=2.0, b=1.0}", "synchronize",
                       "synchronize", "run main.part1", "download main.part1#0"]


def test_an_op_first_and_last_and_two_ops_in_a_row(gpu_log):
    x, w = T.fvector("x"), T.fvector("w")
    s, d = FakeSumDiff()(x, w)
    f = irc.function([x, w], FakeAxpb(0.5, 0.0)(FakeAxpb(3.0, -1.0)(s)) + d)
    g = irc.function([x, w], FakeSumDiff()(x, w))
    xv, wv = rand(9), rand(9, seed=1)
    np.testing.assert_allclose(f(xv, wv), 0.5 * (3 * (xv + wv) - 1) + (xv - wv), rtol=1e-6)
    assert f.executor.launch_order() == ["main.part0", "user op FakeSumDiff", "user op FakeAxpb{a=3.0, b=-1.0}",
                                         "user op FakeAxpb{a=0.5, b=0.0}", "main.part1"]
    got_s, got_d = g(xv, wv)
    assert type(got_s) is np.ndarray and type(got_d) is np.ndarray  # host results, downloaded
    np.testing.assert_allclose(got_s, xv + wv, rtol=1e-6)
    np.testing.assert_allclose(got_d, xv - wv, rtol=1e-6)


def test_device_results_stay_on_the_device_and_shared_updates_too(gpu_log):
    w = irc.shared(rand(6), name="w")
    out = FakeAxpb(1.0, 1.0)(w)
    f = irc.function([], irc.Out(irc.sandbox.cuda.basic_ops.gpu_from_host(out * 2), borrow=True),
                     updates={w: FakeAxpb(-1.0, 0.0)(w)})
    start = np.array(w.get_value())
    r = f()
    assert isinstance(r, FakeDeviceArray)
    np.testing.assert_allclose(np.asarray(r), (start + 1) * 2, rtol=1e-6)
    assert isinstance(w.container.value, FakeDeviceArray)  # the update stayed on the device
    np.testing.assert_allclose(w.get_value(), -start, rtol=1e-6)
    assert not any(entry.startswith(("upload", "download")) for entry in gpu_log)


def test_a_result_that_is_the_ops_input_is_not_the_callers_array(gpu_log):
    w = irc.shared(rand(4), name="w")
    f = irc.function([], [irc.sandbox.cuda.basic_ops.gpu_from_host(w), FakeAxpb(1.0, 0.0)(w)])
    a, b = f()
    assert a is not w.container.value and np.shares_memory(a, w.container.value) is False
    np.testing.assert_allclose(np.asarray(b), w.get_value(), rtol=1e-6)


def test_a_constant_read_by_the_op_goes_up_once(gpu_log):
    x = T.fvector("x")
    c = T.constant(np.arange(4, dtype="float32"))
    f = irc.function([x], [FakeAxpb(2.0, 0.0)(c) + x, FakeAxpb(1.0, 1.0)(x)])
    for _ in range(2):
        got, other = f(np.ones(4, "float32"))
        np.testing.assert_allclose(got, 2 * np.arange(4) + 1, rtol=1e-6)
        np.testing.assert_allclose(other, 2.0, rtol=1e-6)


def test_the_profile_shows_the_op_by_name_between_the_parts(gpu_log):
    x = T.fvector("x")
    f = irc.function([x], T.exp(FakeAxpb(2.0, 0.0)(T.sqrt(abs(x)))), profile=True)
    for _ in range(3):
        f(rand(16))
    stats = f.profile
    stats.collect()
    rows = sorted(stats.applies.values(), key=lambda st: st.info.order)
    [user] = [st for st in rows if "FakeAxpb" in st.info.op_name]
    assert user.info.device == "gpu" and user.calls == 3 and user.seconds > 0
    k = rows.index(user)
    assert 0 < k < len(rows) - 1  # the kernels of the part before it, and of the part after
    assert all(st.calls == 3 for st in rows)
    out = io.StringIO()
    stats.summary(file=out)
    assert "FakeAxpb{a=2.0, b=0.0}" in out.getvalue() and "in gpu Op" in out.getvalue()


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("how,message", [
    ("dtype", r"output #0 has dtype float64, but make_node declared"),
    ("rank", r"output #0 has shape \(1, 5\), but make_node declared .* \(1 dimension\(s\)\)"),
    ("host", r"output #0 is a ndarray, expected a device array"),
    ("unset", r"output #0 was not set"),
])
def test_a_wrong_output_names_the_op_and_the_line(gpu_log, how, message):
    x = T.fvector("x")
    f = irc.function([x], T.exp(WrongOutput(how)(x * 2)))
    with pytest.raises(ExecutionError, match=message) as info:
        f(rand(5))
    assert f"WrongOutput{{{how}}}" in str(info.value) and "test_cuda_user_ops_emulated.py" in str(info.value)


def test_a_wrong_output_size_against_a_broadcastable_dim_is_refused(gpu_log):
    r = T.frow("r")

    class RowOp(WrongOutput):
        def make_node(self, x):
            return irc.Apply(self, [x], [T.TensorType("float32", (True,))()])

    f = irc.function([r], RowOp("broadcast")(r[0]))
    with pytest.raises(ExecutionError, match=r"output #0 has shape \(2,\), but make_node declared dim 0 broadcastable"):
        f(rand(1, 1))


def test_a_failing_thunk_keeps_the_shared_variables(gpu_log):
    w = irc.shared(rand(5), name="w")
    start = np.array(w.get_value())
    f = irc.function([], [], updates={w: T.exp(WrongOutput("dtype")(w * 2))})
    with pytest.raises(ExecutionError, match="WrongOutput"):
        f()
    np.testing.assert_array_equal(w.get_value(), start)


class HostScale(irc.Op):
    """A CPU op (`perform`) in a GPU function: insert-transfers brings its values to the host."""

    __props__ = ("k",)

    def __init__(self, k):
        self.k = k

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return irc.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        assert type(inputs[0]) is np.ndarray
        output_storage[0][0] = inputs[0] * inputs[0].dtype.type(self.k)


def test_a_cpu_op_between_gpu_ops_gets_host_values(gpu_log):
    x = T.fvector("x")
    f = irc.function([x], FakeAxpb(1.0, 1.0)(HostScale(3)(T.exp(x))) * 2, profile=True)
    xv = rand(11)
    np.testing.assert_allclose(f(xv), (3 * np.exp(xv) + 1) * 2, rtol=1e-6)
    assert [s for s in f.executor.inner.launch_order() if s.startswith("user op")] == [
        "user op HostScale{k=3}", "user op FakeAxpb{a=1.0, b=1.0}"]
    assert gpu_log[:3] == ["upload main.part0#0", "run main.part0", "download main.part0#0"]
    assert "run main.part1" not in gpu_log  # HostScale's result goes up as it is, no copy kernel
    f.profile.collect()
    devices = {st.info.op_name: st.info.device for st in f.profile.applies.values() if "main.part" not in st.info.op_name
               and "Elemwise" not in st.info.op_name}
    assert devices == {"HostScale{k=3}": "cpu", "FakeAxpb{a=1.0, b=1.0}": "gpu"}


# ------------------------------------------------------------------ what cannot run as device parts
def placed(inputs, outputs):
    from irc.frontend.lowering import LoweringSpec, lower
    from irc.passes.pipelines import optimize
    low = lower(LoweringSpec(inputs, outputs, [], [False] * len(outputs), "f", device="cuda"))
    optimize(low.module, "FAST_RUN", "f", device="cuda")
    return low


def test_a_part_with_an_op_left_on_the_host_sends_the_function_to_the_host():
    m = T.fmatrix("m")
    low = placed([m], [FakeAxpb(1.0, 1.0)(T.cumsum(T.exp(m), axis=0))])
    with pytest.raises(HostOpsLeft, match="tensor.cumulative"):
        compile_device_parts(low.module, low.func, emulated_backend([]), False)


def test_a_gpu_op_inside_a_scan_sends_the_function_to_the_host():
    x = T.fvector("x")
    ys, _ = irc.scan(lambda v: FakeAxpb(2.0, 0.0)(v), sequences=[T.shape_padright(x)])
    low = placed([x], [ys])
    with pytest.raises(UserOpsNested, match=r"GPU user ops \(FakeAxpb\{a=2.0, b=0.0\}\) are inside a scan"):
        compile_device_parts(low.module, low.func, emulated_backend([]), False)


# ------------------------------------------------------------------ CUDA's own errors, as PyCUDA raises them
class LogicError(Exception):
    """Stands for pycuda._driver.LogicError (what a launch with a bad grid raises)."""


class CompileError(Exception):
    """Stands for pycuda.driver.CompileError (nvcc's message in it)."""


LogicError.__module__ = "pycuda._driver"
CompileError.__module__ = "pycuda.driver"


class Failing(irc.Op):
    """Fails where `where` says, the way PyCUDA would."""

    __props__ = ("where",)

    def __init__(self, where):
        self.where = where

    def make_node(self, x):
        return irc.Apply(self, [x], [x.type()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling):
        if self.where == "compile":
            raise CompileError("nvcc compilation of kernel.cu failed\n[stderr:\nkernel.cu(3): error: "
                               "identifier \"y\" is undefined\n]")

        def thunk():
            raise LogicError("cuLaunchKernel failed: invalid argument")
        return thunk


@pytest.mark.parametrize("where,message", [
    ("compile", r"Failing\{compile\}.make_thunk failed with a CUDA error \(CompileError\): nvcc compilation "
                r"of kernel.cu failed\n\[stderr:\nkernel.cu\(3\): error: identifier \"y\" is undefined"),
    ("launch", r"Failing\{launch\}'s thunk failed with a CUDA error \(LogicError\): cuLaunchKernel failed: "
               r"invalid argument"),
])
def test_cuda_errors_name_the_op_and_the_line_and_keep_the_shared_variables(gpu_log, where, message):
    w = irc.shared(rand(5), name="w")
    start = np.array(w.get_value())
    f = irc.function([], T.exp(w), updates={w: Failing(where)(w * 2) + 1})
    with pytest.raises(ExecutionError, match=message) as info:
        f()
    assert "built at" in str(info.value) and "test_cuda_user_ops_emulated.py" in str(info.value)
    np.testing.assert_array_equal(w.get_value(), start)


class FakeEye(irc.Op):
    """eye(n, m) made on the device, its sizes read on the host (`host_inputs`), as GpuEye."""

    __props__ = ()
    host_inputs = (0, 1)
    _f16_ok = True

    def make_node(self, n, m):
        n, m = T.as_tensor_variable(n), T.as_tensor_variable(m)
        return irc.Apply(self, [n, m], [T.TensorType("float16", (False, False))()])

    def make_thunk(self, node, storage_map, compute_map, no_recycling):
        (n, m), (z,) = [storage_map[v] for v in node.inputs], [storage_map[v] for v in node.outputs]

        def thunk():
            assert type(n[0]) is np.ndarray and type(m[0]) is np.ndarray  # on the host
            z[0] = on_device(np.eye(int(n[0]), int(m[0]), dtype="float16"))
        return thunk


def test_an_op_reading_sizes_on_the_host_first_in_the_function(gpu_log):
    n, m = T.lscalar("n"), T.lscalar("m")
    f = irc.function([n, m], FakeEye()(n, m) * np.float16(3))
    got = f(3, 5)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.eye(3, 5, dtype="float16") * 3)
    assert f.executor.launch_order() == ["user op FakeEye", "main.part0"]
    assert not any(entry.startswith("upload") for entry in gpu_log)  # the sizes never go up


# ------------------------------------------------------------------ irc.CudaKernelOp, kernels as numpy fakes
def _example_module():
    import importlib.util
    import sys
    from pathlib import Path
    name = "cuda_kernel_op"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[2] / "examples" / "user_ops" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


STREAM = object()


def fake_kernels(launches):
    """The example's kernels in numpy, reading their arguments as the CUDA C does, each
    launch's grid and block checked against the work it must cover."""
    def threads(block, grid):
        assert len(block) == 3 and 1 <= len(grid) <= 3
        return int(np.prod(block)) * int(np.prod(grid))

    def axpb(x, y, a, b, n, block, grid, stream):
        assert type(a) is np.float32 and type(n) is np.int64 and threads(block, grid) >= n
        y[:n] = a * x[:n] + b

    def row_sums(x, s, rows, cols, block, grid, stream):
        assert threads(block, grid) >= rows
        s[:rows] = np.asarray(x).reshape(rows, cols).sum(axis=1)

    def double_it(x, y, n, block, grid, stream):
        assert threads(block, grid) >= n
        y[:n] = 2 * x[:n]

    table = {"axpb": axpb, "row_sums": row_sums, "double_it": double_it}

    def load(what, name, source=None, ptx=None, no_extern_c=False, options=()):
        assert (source is None) != (ptx is None)
        body = table[name]

        def kernel(*args, block, grid, stream):
            assert stream is STREAM  # launched on irc's stream
            launches.append((name, tuple(grid), tuple(block)))
            body(*args, block=block, grid=grid, stream=stream)
        return kernel
    return load


def forget_thunks():
    """Drop the thunks GPU ops made (they hold their kernels: fakes here, real ones in the
    cuda tests a process may run too)."""
    for impl in USER_OPS.values():
        if hasattr(impl, "_thunks"):
            impl._thunks.clear()


@pytest.fixture
def kernel_launches(gpu_log, monkeypatch):
    import irc.frontend.cuda_kernel_op as module
    launches: list = []
    monkeypatch.setattr(module, "load_kernel", fake_kernels(launches))
    monkeypatch.setattr(module, "empty", lambda shape, dtype: on_device(np.full(shape, np.nan, dtype)))
    monkeypatch.setattr(module, "current_stream", lambda: STREAM)
    forget_thunks()
    yield launches
    forget_thunks()


def test_declarative_ops_launch_from_shapes_between_parts(kernel_launches, gpu_log):
    ex = _example_module()
    x, m = T.fvector("x"), T.fmatrix("m")
    f = irc.function([x, m], [T.exp(ex.Axpb(2, 1)(x)), ex.RowSums()(m * 2), ex.DoublePtx()(x) + 1])
    xv, mv = rand(1000), rand(20, 10, seed=1)
    a, s, d = f(xv, mv)
    np.testing.assert_allclose(a, np.exp(2 * xv + 1), rtol=1e-6)
    np.testing.assert_allclose(s, (mv * 2).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(d, 2 * xv + 1, rtol=1e-6)
    assert sorted(kernel_launches) == [("axpb", (4, 1), (256, 1, 1)), ("double_it", (4, 1), (256, 1, 1)),
                                       ("row_sums", (1, 1), (128, 1, 1))]
    assert [s for s in f.executor.launch_order() if s.startswith("user op")] != []
    kernel_launches.clear()
    f(rand(0), rand(0, 3))  # empty outputs: no launch (CUDA refuses an empty grid)
    assert kernel_launches == []


def test_declarative_op_errors_name_the_op(kernel_launches):
    ex = _example_module()
    with pytest.raises(irc.frontend.user_op.UserOpError,
                       match=r"Axpb\{2.0, 1.0\} \(at .*test_cuda_user_ops_emulated.py.*\): input #0 is float64, but the kernel 'axpb' is written for float32"):
        ex.Axpb(2, 1)(T.dvector())
    class AnyDtype(ex.DoublePtx):
        input_dtypes = None

    with pytest.raises(irc.frontend.user_op.UserOpError, match=r"AnyDtype \(at .*\): input #0 is float16, but "
                                                               r"AnyDtype does not declare _f16_ok"):
        AnyDtype()(T.TensorType("float16", (False,))())

    class WrongShape(ex.RowSums):
        def infer_shape(self, node, input_shapes):
            return [(input_shapes[0][0], 1)]  # declared a vector

    m = T.fmatrix("m")
    f = irc.function([m], WrongShape()(m))
    with pytest.raises(ExecutionError, match=r"WrongShape.infer_shape gave shape \(4, 1\) for output #0, but "
                                             r"output_types declared .* \(1 dimension\(s\)") as info:
        f(rand(4, 3))
    assert "test_cuda_user_ops_emulated.py" in str(info.value)
