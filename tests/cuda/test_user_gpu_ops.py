"""Users' GPU ops (PyCUDA kernels in `make_thunk`) on the GPU machine: the tutorial's programs
in examples/user_ops/ and the GPU blocks of docs/extending.md; the executor's hook (device
parts with the thunk between them, no host round trip, the profile, CUDA graphs of the parts);
CUDA's errors. Marked `cuda` (skipped here). Tolerances: float32 rtol 1e-5."""
from __future__ import annotations

import importlib.util
import io
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _example(name: str):
    """An example's module, imported under its own name (its ops' IR keys name it)."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / "user_ops" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture
def on_gpu():
    import irc
    with irc.config.change_flags(device="cuda", assert_no_cpu_op="raise"), warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # no host fallback, no warning
        yield


def _run(script: str) -> str:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "IRC_FLAGS": "device=cuda,force_device=True"}
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "user_ops" / script)], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def test_multiply_them_on_a_20x10_matrix():
    out = _run("multiply_them.py")
    assert out.count("[") >= 20  # the (20, 10) result printed


def test_pycuda_double_op_and_the_exercises():
    out = _run("pycuda_double_op.py")
    assert "[[2. 2. 2. 2. 2.]" in out
    assert re.search(r"two outputs from one kernel: \[[^\n]*PyCUDAAddSubOp\(", out)
    assert "all PyCUDA ops agree with numpy" in out


def test_gpu_eye_with_float16():
    out = _run("gpu_eye.py")
    assert "float16 [[0.0, 1.0, 0.0, 0.0]" in out
    assert "GpuEye agrees with numpy.eye" in out


def test_the_gpu_blocks_of_the_extending_page():
    text = (ROOT / "docs" / "extending.md").read_text()
    blocks = [m.group(1) for m in re.finditer(r"```python\n(.*?)```", text, re.S)
              if m.group(1).startswith("# needs a GPU")]
    assert blocks
    import irc
    with irc.config.change_flags(device="cuda"):
        namespace: dict = {"__name__": "__main__"}
        for code in blocks:
            exec(compile(code, str(ROOT / "docs" / "extending.md"), "exec"), namespace)


def test_a_failing_thunk_names_the_op():
    import numpy as np
    import irc
    import irc.tensor as T

    class Broken(irc.Op):
        __props__ = ()

        def make_node(self, x):
            return irc.Apply(self, [x], [x.type()])

        def make_thunk(self, node, storage_map, _, _2):
            def thunk():
                storage_map[node.outputs[0]][0] = np.zeros(3, "float32")  # a host array: refused
            return thunk

    x = T.fvector("x")
    with irc.config.change_flags(device="cuda"):
        f = irc.function([x], Broken()(x))
    with pytest.raises(ValueError, match=r"Broken's thunk .*output #0 is a ndarray, expected a device array"):
        f(np.ones(3, "float32"))


# ------------------------------------------------------------------ the executor's hook
def test_the_thunk_runs_between_device_parts_on_device_arrays(on_gpu):
    import irc
    import irc.tensor as T
    from irc.runtime.device_parts import DeviceSegmentedExecutor
    ops = _example("pycuda_double_op")
    x, y = T.fmatrix("x"), T.fmatrix("y")
    s, d = ops.PyCUDAAddSubOp()(T.sqrt(x), y)
    f = irc.function([x, y], [T.exp(ops.PyCUDADoubleOp()(s)) + 1, d * 3])
    assert isinstance(f.executor, DeviceSegmentedExecutor)
    order = f.executor.launch_order()
    assert order[0] == "main.part0" and order[-1].startswith("main.part")
    assert order.index("user op PyCUDAAddSubOp") < order.index("user op PyCUDADoubleOp")
    rng = np.random.RandomState(0)
    xv, yv = rng.rand(33, 17).astype("float32"), rng.rand(33, 17).astype("float32")
    for _ in range(3):
        got, diff = f(xv, yv)
        np.testing.assert_allclose(got, np.exp(2 * (np.sqrt(xv) + yv)) + 1, rtol=1e-5)
        np.testing.assert_allclose(diff, (np.sqrt(xv) - yv) * 3, rtol=1e-5)


def test_device_results_and_updates_stay_on_the_device(on_gpu):
    import irc
    from irc.runtime.cuda.device_array import DeviceArray
    from irc.sandbox.cuda.basic_ops import gpu_from_host
    ops = _example("pycuda_double_op")
    w = irc.shared(np.arange(12, dtype="float32").reshape(3, 4), name="w")
    f = irc.function([], irc.Out(gpu_from_host(ops.PyCUDADoubleOp()(w * np.float32(1.5))), borrow=True),
                     updates={w: ops.PyCUDADoubleOp()(w) - 1})
    start = w.get_value()
    r = f()
    assert type(r) is DeviceArray and type(w.container.value) is DeviceArray
    np.testing.assert_allclose(np.asarray(r), start * 3, rtol=1e-6)
    np.testing.assert_allclose(w.get_value(), start * 2 - 1, rtol=1e-6)


def test_gpu_eye_reads_its_sizes_on_the_host(on_gpu):
    import irc
    import irc.tensor as T
    eye = _example("gpu_eye")
    n, m, k = T.lscalar("n"), T.lscalar("m"), T.lscalar("k")
    f = irc.function([n, m, k], eye.GpuEye("float16")(n, m, k) * np.float16(2))
    got = f(4, 6, 1)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, np.eye(4, 6, 1, dtype="float16") * 2)


def test_the_parts_around_the_op_become_cuda_graphs(on_gpu):
    import irc
    ops = _example("pycuda_double_op")
    w = irc.shared(np.ones((64, 64), "float32"), name="w")
    f = irc.function([], ops.PyCUDADoubleOp()(w * 2) + 1)
    for _ in range(8):
        np.testing.assert_allclose(f(), 5.0)
    first = f.executor.natives[0]  # w * 2: device argument, device result, the same buffers each call
    assert any(plan.graphs.execs for plan in first.plans.values())


def test_the_profile_shows_the_op_with_its_gpu_time(on_gpu):
    import irc
    import irc.tensor as T
    ops = _example("pycuda_double_op")
    x = T.fmatrix("x")
    f = irc.function([x], T.exp(ops.PyCUDADoubleOp()(T.sqrt(x))), profile=True)
    for _ in range(3):
        f(np.ones((256, 256), "float32"))
    out = io.StringIO()
    f.profile.summary(file=out)
    text = out.getvalue()
    assert "PyCUDADoubleOp" in text, text
    stats = f.profile
    [user] = [st for st in stats.applies.values() if st.info.op_name == "PyCUDADoubleOp"]
    assert user.info.device == "gpu" and user.calls == 3 and 0 < user.seconds < 1


# ------------------------------------------------------------------ CUDA's errors
def test_a_kernel_that_does_not_compile_names_the_op_nvcc_and_the_line(on_gpu):
    import irc
    import irc.tensor as T
    from pycuda.compiler import SourceModule

    class Typo(irc.Op):
        __props__ = ()

        def make_node(self, x):
            return irc.Apply(self, [x], [x.type()])

        def make_thunk(self, node, storage_map, _, _2):
            SourceModule("__global__ void k(float *o) { o[0] = undefined_name; }")
            raise AssertionError("compiled")

    x = T.fvector("x")
    f = irc.function([x], Typo()(x) + 1)
    with pytest.raises(ValueError, match=r"Typo.make_thunk failed with a CUDA error \(CompileError\)") as info:
        f(np.ones(3, "float32"))
    assert "undefined_name" in str(info.value) and "test_user_gpu_ops.py" in str(info.value)


def test_a_launch_that_fails_names_the_op_cuda_and_the_line_and_keeps_the_shared_values(on_gpu):
    import irc
    import irc.sandbox.cuda as cuda
    from pycuda.compiler import SourceModule

    class BadGrid(irc.Op):
        __props__ = ()

        def make_node(self, x):
            return irc.Apply(self, [x], [x.type()])

        def make_thunk(self, node, storage_map, _, _2):
            fct = SourceModule("__global__ void k(float *o) { o[0] = 1; }").get_function("k")
            z = storage_map[node.outputs[0]]

            def thunk():
                z[0] = cuda.empty((3,), "float32")
                fct(z[0], block=(4096, 1, 1), grid=(1, 1))  # more threads than a block can have
            return thunk

    w = irc.shared(np.ones(3, "float32"), name="w")
    f = irc.function([], w * 2, updates={w: BadGrid()(w)})
    with pytest.raises(ValueError, match=r"BadGrid's thunk failed with a CUDA error .*invalid argument") as info:
        f()
    assert "test_user_gpu_ops.py" in str(info.value)
    np.testing.assert_array_equal(w.get_value(), np.ones(3, "float32"))
    np.testing.assert_allclose(irc.function([], w * 2)(), 2.0)  # the context still works


# ------------------------------------------------------------------ irc.CudaKernelOp
def test_the_cuda_kernel_op_example():
    out = _run("cuda_kernel_op.py")
    assert "CudaKernelOp examples agree with numpy" in out


def test_a_cuda_kernel_op_compiles_once_into_the_cache(on_gpu, monkeypatch):
    import irc
    import irc.tensor as T
    from irc.runtime.cuda import user_kernels
    from irc.runtime.object_cache import cache_dir
    ex = _example("cuda_kernel_op")
    user_kernels._LOADED.clear()
    x = T.fvector("x")
    xv = np.arange(5, dtype="float32")
    np.testing.assert_allclose(irc.function([x], ex.Axpb(3, -1)(x))(xv), 3 * xv - 1, rtol=1e-6)
    assert os.listdir(os.path.join(cache_dir(), "cuda-user"))
    user_kernels._LOADED.clear()  # as in a new process: the cubin comes from the disk cache

    def no_nvcc(*args):
        raise AssertionError("nvcc ran again")
    monkeypatch.setattr(user_kernels, "compile_with_nvcc", no_nvcc)
    m = T.fmatrix("m")  # other types: a new thunk, which loads the kernel again
    np.testing.assert_allclose(irc.function([m], ex.Axpb(3, -1)(m) * 2)(xv[None]), 6 * xv[None] - 2, rtol=1e-6)


def test_a_cuda_kernel_op_that_does_not_compile_names_nvccs_line_the_op_and_the_users_line(on_gpu):
    import irc
    import irc.tensor as T

    class Typo(irc.CudaKernelOp):
        kernel_name = "k"
        source = """__global__ void k(const float *x, float *y, long n) {
    y[0] = undefined_name;
}"""

    x = T.fvector("x")
    f = irc.function([x], Typo()(x) + 1)
    with pytest.raises(ValueError, match=r"Typo \(a CudaKernelOp, kernel 'k'\): nvcc could not compile its CUDA C "
                                         r"source[\s\S]*identifier \"undefined_name\" is undefined") as info:
        f(np.ones(3, "float32"))
    assert "test_user_gpu_ops.py" in str(info.value)


def test_a_cuda_kernel_op_with_a_bad_grid_names_cudas_error(on_gpu):
    import irc
    ex = _example("cuda_kernel_op")

    class TooManyThreads(ex.DoublePtx):
        def block(self, shapes):
            return (4096, 1, 1)

    w = irc.shared(np.ones(3, "float32"), name="w")
    f = irc.function([], [], updates={w: TooManyThreads()(w)})
    with pytest.raises(ValueError, match=r"TooManyThreads's thunk failed with a CUDA error .*invalid argument"):
        f()
    np.testing.assert_array_equal(w.get_value(), np.ones(3, "float32"))
