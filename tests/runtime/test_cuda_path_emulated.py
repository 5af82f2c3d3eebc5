"""`irc.function` with device=cuda, end to end on a machine without a GPU: the real pipeline
(insert-transfers, fusion, the runtime's edge transfers, lower-to-loops, outline-kernels, host
plans) with the kernels run by the CPU emulator instead of the driver. What this proves on CI:
every kernel the frontend's programs make computes numpy's numbers over its whole grid, and
its PTX assembles (ptxas, where installed). Tolerances: float32 rtol 1e-5, float64 1e-12."""
from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.codegen_ptx.convert_to_nvvm import convert_kernels_to_nvvm, kernels
from irc.codegen_ptx.pipeline import lower_for_gpu
from irc.codegen_ptx.target import emit_ptx
from irc.dialects.philox import sample
from irc.dialects.gpu import GpuFuncOp
from irc.ifelse import ifelse
from irc.ir.instrumentation import render_ir
from irc.frontend.lowering import LoweringSpec, lower
from irc.passes.device_edges import HostOpsLeft, device_module
from irc.passes.pipelines import optimize
from irc.runtime import targets
from irc.runtime.cuda.host_fallback import run_on_cpu
from irc.runtime.device_parts import DeviceBackend, compile_device_parts, cut_on_device
from irc.runtime.kernel_emulator import run_function
from irc.runtime.native_executor import execution_error
from irc.runtime.shapes import ShapeError
from irc.sandbox.cuda.basic_ops import gpu_from_host
from irc.tensor.shared_randomstreams import RandomStreams

ROOT = Path(__file__).resolve().parent.parent.parent
PTXAS = shutil.which("ptxas")


class EmulatedExecutor:
    """Uploads and downloads are numpy copies; the device function runs in the emulator."""

    fresh_results = True
    constants: dict = {}

    def __init__(self, module, upload, download):
        self.module, self.native = module, None

    def run(self, args, hook=None, outs=None):
        dense = [a if np.asarray(a).flags.c_contiguous else np.ascontiguousarray(a) for a in args]
        try:
            return run_function(self.module, [np.asarray(a) for a in dense])
        except ShapeError as e:  # as the CUDA executor reports it
            raise execution_error(e, args) from None


def emulated_parts_backend() -> DeviceBackend:
    """Device parts (what is around users' GPU ops) run by the emulator;
    arrays between them are numpy arrays standing for device ones."""
    def compile_part(module, profiling):
        placed, edges = device_module(module, "cuda")
        gpu_module = lower_for_gpu(placed)
        emulated_compile.kernels.append(gpu_module)
        return EmulatedExecutor(gpu_module, edges.upload, edges.download), None

    def no_user_ops(op, arrays):
        raise AssertionError("no GPU user ops in these tests")

    return DeviceBackend(compile_part, no_user_ops, np.asarray, np.array)


def emulated_compile(module, func, config, profiling):
    if cut_on_device(module):
        return compile_device_parts(module, func, emulated_parts_backend(), profiling)
    try:
        placed, edges = device_module(module, "cuda")
    except HostOpsLeft as e:
        return run_on_cpu(module, func, config, profiling, e)
    gpu_module = lower_for_gpu(placed)
    emulated_compile.kernels.append(gpu_module)
    return EmulatedExecutor(gpu_module, edges.upload, edges.download), None


@pytest.fixture
def cuda_emulated(monkeypatch):
    targets.resolve("cpu")  # fills the registry
    emulated_compile.kernels = []
    stand_in = dataclasses.replace(targets.TARGETS["cuda"], why_unavailable=lambda number: None,
                                   to_storage=lambda value: value, compile=emulated_compile)
    monkeypatch.setitem(targets.TARGETS, "cuda", stand_in)
    with irc.config.change_flags(device="cuda"):
        yield emulated_compile.kernels
    if PTXAS:
        assemble_new_kernels(emulated_compile.kernels, "sm_90")


# The key (kernel_key) of every kernel whose PTX ptxas accepted in this process
_ASSEMBLED: set[str] = set()


def _shared_marks() -> Path | None:
    """Where the run's processes mark the kernels whose PTX ptxas accepted: the test run's own
    compile folder (tests/conftest.py makes one per run and names it in IRC_COMPILEDIR), so
    pytest-xdist's workers do not assemble each other's kernels again. None outside a run."""
    folder = os.environ.get("IRC_COMPILEDIR")
    return Path(folder, "ptxas-accepted") if folder and os.path.basename(folder).startswith("irc-test-") else None


_SYMBOL = re.compile(r"^gpu\.func @[\w.$-]+")
_VALUE = re.compile(r"%[\w.$-]+")


def kernel_key(text: str) -> str:
    """A kernel's text up to names: its symbol and its values renamed in order of appearance
    (the PTX of two such kernels differs in its names only: about a third of the emulated
    tests' kernels are another's under other names)."""
    names: dict[str, str] = {}
    body = _SYMBOL.sub("gpu.func @kernel", text, count=1)
    return _VALUE.sub(lambda m: names.setdefault(m.group(), f"%v{len(names)}"), body)


def _mark(key: str, arch: str) -> str:
    return hashlib.sha256(f"{arch}\0{key}".encode()).hexdigest()


def assemble_new_kernels(modules: list, arch: str) -> None:
    """Every kernel of `modules` assembled by ptxas, those an earlier test already made (the
    same text up to names: a kernel's PTX depends on its own body only) not again, in this process or
    another worker of the run: about two thirds of the emulated tests' kernels repeat (a size
    or a dtype changes the host plan, not the kernel)."""
    marks = _shared_marks()
    for module in modules:
        fresh = {}
        for kernel in kernels(module):
            key = kernel_key(render_ir(kernel))
            if key in _ASSEMBLED or (marks is not None and (marks / _mark(key, arch)).exists()):
                continue
            fresh[key] = kernel
        if fresh:
            assemble(emit_ptx(convert_kernels_to_nvvm(list(fresh.values())), arch), arch)
            _ASSEMBLED.update(fresh)
            if marks is not None:
                marks.mkdir(exist_ok=True)
                for key in fresh:
                    (marks / _mark(key, arch)).touch()


def assemble(ptx: str, arch: str) -> None:
    """ptxas accepts the PTX (-O0, as `gpu_helpers.assemble`: the check needs no optimizer)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "k.ptx")
        Path(path).write_text(ptx)
        proc = subprocess.run([PTXAS, "-O0", f"-arch={arch}", path, "-o", os.path.join(d, "k.cubin")],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def rand(*shape, dtype="float32", seed=0, low=-3.0, high=3.0):
    return np.random.RandomState(seed).uniform(low, high, shape).astype(dtype)


def test_tutorial_exp_variants(cuda_emulated):
    x = irc.shared(rand(230400, low=0, high=1), name="x")
    for out in (T.exp(x), gpu_from_host(T.exp(x)), irc.Out(gpu_from_host(T.exp(x)), borrow=True)):
        f = irc.function([], out)
        np.testing.assert_allclose(np.asarray(f()), np.exp(x.get_value()), rtol=1e-6)
        assert not any(isinstance(n.op, T.Elemwise) for n in f.maker.fgraph.toposort())
    assert all(any(isinstance(op, GpuFuncOp) for op in m.body.ops) for m in cuda_emulated)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fused_chain_broadcast_and_strided_inputs(cuda_emulated, dtype):
    x, b, s = T.matrix("x", dtype=dtype), T.row("b", dtype=dtype), T.scalar("s", dtype=dtype)
    out = T.tanh(T.exp(-(x * 0.5 + b) ** 2) * 3.0 - x) + T.sqrt(abs(x) + s)
    f = irc.function([x, b, s], [out, x.T * 2])
    xv, bv, sv = rand(33, 65, dtype=dtype), rand(1, 65, dtype=dtype, seed=1), np.asarray(1.5, dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
    for xin in (xv, np.asfortranarray(xv), rand(66, 130, dtype=dtype)[::2, 1::2]):
        r, t = f(xin, bv, sv)
        ref = np.tanh(np.exp(-(xin * 0.5 + bv) ** 2) * 3.0 - xin) + np.sqrt(np.abs(xin) + sv)
        np.testing.assert_allclose(r, ref, **tol)
        np.testing.assert_allclose(t, xin.T * 2, **tol)


def test_shared_update_and_integer_ops(cuda_emulated):
    w = irc.shared(np.arange(12, dtype="float32").reshape(3, 4), name="w")
    f = irc.function([], w * 1, updates={w: w * 2 + 1})
    for _ in range(3):
        before = w.get_value()
        np.testing.assert_array_equal(f(), before)
        np.testing.assert_array_equal(w.get_value(), before * 2 + 1)
    a, c = T.ivector("a"), T.ivector("c")
    g = irc.function([a, c], [a // c, a % c, T.maximum(a, c), T.lt(a, c)])
    av = np.array([-7, 7, -128, 5, 0], "int32")
    cv = np.array([2, -2, -1, 3, 4], "int32")
    for got, want in zip(g(av, cv), [av // cv, av % cv, np.maximum(av, cv), av < cv]):
        np.testing.assert_array_equal(got, want)


def test_host_ops_are_named():
    x, m = T.fvector("x"), T.fmatrix("m")
    low = lower(LoweringSpec([m, x], [T.cumsum(T.exp(m), axis=0) * x], [], [False], "f", device="cuda"))
    optimize(low.module, "FAST_RUN", "f", device="cuda")
    with pytest.raises(HostOpsLeft, match="tensor.cumulative"):
        device_module(low.module, "cuda")


def test_tutorial_programs_print_used_the_gpu_through_the_emulated_target(cuda_emulated):
    """check1/2/3 as the user runs them, with the emulated target installed in the process."""
    for n in (1, 2, 3):
        src = (ROOT / "examples" / f"check{n}.py").read_text()
        out = subprocess.run(
            [sys.executable, "-c", _RUNNER, src], capture_output=True, text=True, cwd=ROOT,
            env=dict(os.environ, IRC_FLAGS="device=cuda,floatX=float32", IRC_EXAMPLE_ITERS="2",
                     PYTHONPATH=f"{ROOT}{os.pathsep}{ROOT / 'tests' / 'runtime'}"))
        assert out.returncode == 0, out.stderr
        assert "Used the gpu" in out.stdout, out.stdout


_RUNNER = """
import dataclasses, sys
from irc.runtime import targets
import test_cuda_path_emulated as E
targets.resolve("cpu")
E.emulated_compile.kernels = []
targets.TARGETS["cuda"] = dataclasses.replace(targets.TARGETS["cuda"], why_unavailable=lambda n: None,
                                              to_storage=lambda v: v, compile=E.emulated_compile)
exec(compile(sys.argv[1], "check.py", "exec"))
"""


def test_function_with_host_ops_runs_on_the_cpu_with_one_warning(cuda_emulated):
    """A logistic regression whose scores pass through a cumulative sum, which has no GPU
    kernel: the whole function runs on the cpu, with one warning naming the op."""
    rng = np.random.RandomState(0)
    xs, ys = rng.randn(40, 7).astype("float32"), rng.randint(0, 2, 40).astype("float32")
    x, y = T.fmatrix("x"), T.fvector("y")
    w = irc.shared(np.zeros(7, "float32"), name="w")
    b = irc.shared(np.asarray(0.0, "float32"), name="b")
    p = 1 / (1 + T.exp(-T.cumsum(T.dot(x, w), axis=0)[-1] * 0 - T.dot(x, w) - b))
    cost = T.nnet.binary_crossentropy(p, y).mean()
    gw, gb = T.grad(cost, [w, b])
    with pytest.warns(RuntimeWarning, match="runs on the cpu: no GPU kernel yet for .*tensor.cumulative"):
        train = irc.function([x, y], cost, updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])
    wv, bv = np.zeros(7), 0.0
    for _ in range(5):
        c = train(xs, ys)
        pv = 1 / (1 + np.exp(-(xs @ wv) - bv))
        ref = -np.mean(ys * np.log(pv) + (1 - ys) * np.log(1 - pv))
        np.testing.assert_allclose(c, ref, rtol=1e-5)
        wv, bv = wv - 0.1 * xs.T @ (pv - ys) / 40, bv - 0.1 * np.mean(pv - ys)
    np.testing.assert_allclose(w.get_value(), wv, rtol=1e-4, atol=1e-6)


def test_integer_indexing_on_the_cuda_path(cuda_emulated):
    """`tensor.index` by an integer input: a device view made by the host side from the
    index's value (no fallback to the cpu), with numpy's numbers and its IndexError."""
    m, i = T.fmatrix("m"), T.lscalar("i")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # "runs on the cpu" would fail here
        f = irc.function([m, i], [m[i] * 2, m[-1, i]])
    mv = rand(3, 4)
    for iv in (0, -1, 2):
        row, e = f(mv, iv)
        np.testing.assert_array_equal(row, mv[iv] * 2)
        assert e == mv[-1, iv]
    with pytest.raises(IndexError, match="index out of range for axis 0"):
        f(mv, 3)


def test_a_scan_with_a_host_op_in_its_body_stays_on_the_host(cuda_emulated):
    """A step with an op that has no device kernel (`sort`) keeps the whole loop on the host:
    the function runs on the cpu (the host fallback) with numpy's numbers."""
    x, h0 = T.fmatrix("x"), T.fvector("h0")
    hs, _ = irc.scan(lambda xt, h: T.tanh(h + T.sort(xt)), sequences=x, outputs_info=h0)
    with pytest.warns(RuntimeWarning, match="runs on the cpu"):
        f = irc.function([x, h0], hs)
    xv, h = rand(4, 3), np.zeros(3, "float32")
    expected = []
    for row in xv:
        h = np.tanh(h + np.sort(row))
        expected.append(h)
    np.testing.assert_allclose(f(xv, np.zeros(3, "float32")), expected, rtol=1e-6)


def test_advanced_indexing_on_the_cuda_path(cuda_emulated):
    """`tensor.gather`/`scatter` run on the device (no fallback to the cpu), with numpy's
    numbers (repeated indices accumulate) and its IndexError (see
    test_cuda_indexing_emulated.py)."""
    m, i = T.fmatrix("m"), T.lvector("i")
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # "runs on the cpu" would fail here
        f = irc.function([m, i], [m[i] * 2, T.grad(T.sum(m[i] ** 2), m)])
    mv, iv = rand(3, 4), np.array([2, -1, 0])
    rows, grad = f(mv, iv)
    want = np.zeros_like(mv)
    np.add.at(want, iv, 2 * mv[iv])
    np.testing.assert_array_equal(rows, mv[iv] * 2)
    np.testing.assert_allclose(grad, want, rtol=1e-6)
    with pytest.raises(IndexError, match="'tensor.gather'.*index out of range for axis 0"):
        f(mv, np.array([3]))


def _draws(dtype):
    x = T.matrix("x", dtype=dtype)
    srng = RandomStreams(seed=11)
    u, z = srng.uniform(x.shape, dtype=dtype), srng.normal(x.shape, dtype=dtype)
    return irc.function([x], [u, z * 1]), u.rng, z.rng


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_random_draws_on_the_device_equal_the_cpu_bit_for_bit(cuda_emulated, dtype):
    """`tensor.random` runs as a kernel (no fallback to the cpu; the state and its update stay
    on the device) and its grid computes the CPU's Philox words: uniform numbers equal the
    compiled CPU function's bit for bit; normal ones too, to the math library's ulps (the
    emulator's log/cos are numpy's)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # "runs on the cpu" would fail here
        f, u_state, z_state = _draws(dtype)
    assert any(isinstance(op, GpuFuncOp) for m in cuda_emulated for op in m.body.ops)
    with irc.config.change_flags(device="cpu"):
        f_cpu, _, _ = _draws(dtype)
    tol = dict(rtol=2e-6, atol=2e-6) if dtype == "float32" else dict(rtol=1e-13, atol=1e-13)
    xv = np.zeros((37, 29), dtype)
    for _ in range(2):
        state = u_state.get_value()
        (gpu_u, gpu_z), (cpu_u, cpu_z) = f(xv), f_cpu(xv)
        np.testing.assert_array_equal(np.asarray(gpu_u), cpu_u)
        np.testing.assert_array_equal(np.asarray(gpu_u), sample(state, xv.shape, "uniform", dtype))
        np.testing.assert_allclose(np.asarray(gpu_z), cpu_z, **tol)
    assert int(u_state.get_value()[2]) == 2 and int(z_state.get_value()[2]) == 2


def test_profile_names_each_kernel_after_its_ops(cuda_emulated):
    """The GPU profiler's rows (one per kernel) carry the names of the tensor ops lowered
    into the kernel, as `f.maker.fgraph` shows them (timing itself needs the GPU)."""
    from irc.dialects.func import FuncOp
    from irc.dialects.gpu import LaunchOp
    from irc.runtime.profile_timing import describe_launches
    x, m = T.fvector("x"), T.fmatrix("m")
    y = T.exp(x) * 2
    z = T.tanh(m.T + 1)
    f = irc.function([x, m], [y, z])
    placed, _ = device_module(f.maker.module, "cuda")
    host = next(op for op in lower_for_gpu(placed).body.ops if type(op) is FuncOp)
    launches = [(op.kernel, op.location) for op in host.walk() if isinstance(op, LaunchOp)]
    infos = describe_launches(next(op for op in placed.body.ops if type(op) is FuncOp), launches)
    assert len(infos) == len(launches) >= 2
    assert all(info.device == "gpu" and info.op_name.startswith("GpuElemwise") for info in infos), \
        [info.op_name for info in infos]


def test_ifelse_branches_run_on_the_device(cuda_emulated):
    """`tensor.if` whose branches have device kernels: the host reads the condition back and
    runs only the taken branch's kernels (a device shared variable a
    branch reads stays on the device); no host op is left."""
    w = irc.shared(rand(5), name="w")
    c, x = T.fscalar("c"), T.fvector("x")
    with irc.config.change_flags(assert_no_cpu_op="raise"):
        f = irc.function([c, x], [ifelse(c > 0, T.exp(x) * w, x - w), T.sum(x)])
    xv = rand(5, seed=2)
    kernels = len(cuda_emulated)
    got, total = f(np.float32(1), xv)
    np.testing.assert_allclose(got, np.exp(xv) * w.get_value(), rtol=1e-6)
    np.testing.assert_allclose(total, xv.sum(), rtol=1e-6)
    np.testing.assert_allclose(f(np.float32(-1), xv)[0], xv - w.get_value(), rtol=1e-6)
    assert len(cuda_emulated) == kernels  # compiled once, both branches ahead of the calls


def test_the_untaken_branch_never_runs_on_the_device(cuda_emulated):
    """Laziness: the then-branch indexes past the end of x, so running it fails; while the
    condition is false it is never launched. Several results, and a reduction after the if."""
    x, c = T.fvector("x"), T.iscalar("c")
    with irc.config.change_flags(assert_no_cpu_op="raise"):
        f = irc.function([c, x], [*ifelse(T.eq(c, 1), [x[5] * 2, T.exp(x)], [x[0] * 3, x + 1]),
                                  T.max(x)])
    xv = rand(3, seed=4)
    small, vec, top = f(0, xv)
    np.testing.assert_allclose(small, xv[0] * 3, rtol=1e-6)
    np.testing.assert_allclose(vec, xv + 1, rtol=1e-6)
    assert top == xv.max()
    with pytest.raises(IndexError, match="index out of range"):
        f(1, xv)
