"""The kernels of `irc.CudaKernelOp` (`irc/runtime/cuda/user_kernels.py`): CUDA C compiled once
into a cubin kept in irc's verified disk cache, keyed by the source, the architecture and the
options; a clear error when nvcc is missing. No GPU needed: the compiler is a stand-in here,
except where the CUDA toolkit is installed, which compiles the example's kernels for real."""
from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest

from irc.runtime.cuda import user_kernels
from irc.runtime.cuda.user_kernels import KernelCompileError, compile_with_nvcc, cubin_for
from irc.runtime.object_cache import CacheWarning

ROOT = Path(__file__).resolve().parents[2]
SOURCE = "__global__ void k(float *o) { o[0] = 1; }"


class CountingCompiler:
    def __init__(self):
        self.calls = []

    def __call__(self, what, source, arch, no_extern_c, options):
        self.calls.append((source, arch, no_extern_c, options))
        return f"cubin of {source} for {arch}".encode()


def test_cuda_c_is_compiled_once_per_source_arch_and_options(tmp_path, monkeypatch):
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    nvcc = CountingCompiler()
    first = cubin_for("Op", SOURCE, "sm_90", compile_source=nvcc)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cubin_for("Op", SOURCE, "sm_90", compile_source=nvcc) == first  # a verified hit
    assert len(nvcc.calls) == 1
    cubin_for("Op", SOURCE, "sm_80", compile_source=nvcc)
    cubin_for("Op", SOURCE + " ", "sm_90", compile_source=nvcc)
    cubin_for("Op", SOURCE, "sm_90", options=("-O3",), compile_source=nvcc)
    cubin_for("Op", SOURCE, "sm_90", no_extern_c=True, compile_source=nvcc)
    assert len(nvcc.calls) == 5
    assert len(list((tmp_path / "cuda-user").iterdir())) == 5


def test_a_damaged_cubin_entry_is_compiled_again(tmp_path, monkeypatch):
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    nvcc = CountingCompiler()
    good = cubin_for("Op", SOURCE, "sm_90", compile_source=nvcc)
    entry, = (tmp_path / "cuda-user").iterdir()
    entry.write_bytes(entry.read_bytes()[:-3])
    with pytest.warns(CacheWarning):
        assert cubin_for("Op", SOURCE, "sm_90", compile_source=nvcc) == good
    assert len(nvcc.calls) == 2


def test_without_nvcc_the_error_says_what_is_missing(monkeypatch):
    monkeypatch.setattr(user_kernels.shutil, "which", lambda name: None)
    with pytest.raises(KernelCompileError, match=r"Axpb\{a=2.0\}: compiling its CUDA C source needs nvcc, the "
                                                 r"CUDA toolkit's compiler, which is not on PATH.*give the op PTX"):
        compile_with_nvcc("Axpb{a=2.0}", SOURCE, "sm_90", False, ())


def test_a_source_that_does_not_compile_gives_nvccs_message():
    pytest.importorskip("pycuda.compiler")
    if shutil.which("nvcc") is None:
        pytest.skip("no nvcc")
    with pytest.raises(KernelCompileError, match=r"Typo: nvcc could not compile its CUDA C source[\s\S]*"
                                                 r"error: identifier \"undefined_name\" is undefined"):
        compile_with_nvcc("Typo", "__global__ void k(float *o) { o[0] = undefined_name; }", "sm_90", False, ())


@pytest.mark.skipif(shutil.which("nvcc") is None or shutil.which("ptxas") is None, reason="no CUDA toolkit")
def test_the_examples_kernels_compile(tmp_path):
    """The example's CUDA C (wrapped in extern "C", as PyCUDA does) and its PTX, for sm_90."""
    text = (ROOT / "examples" / "user_ops" / "cuda_kernel_op.py").read_text()
    sources = re.findall(r'source = """(.*?)"""', text, re.S)
    ptx = re.search(r'ptx = """(.*?)"""', text, re.S).group(1)
    assert len(sources) == 2
    for i, source in enumerate(sources):
        path = tmp_path / f"k{i}.cu"
        path.write_text('extern "C" {\n' + source + "\n}\n")
        r = subprocess.run(["nvcc", "--cubin", "-arch", "sm_90", str(path), "-o", str(tmp_path / f"k{i}.cubin")],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    (tmp_path / "d.ptx").write_text(ptx)
    r = subprocess.run(["ptxas", "-arch=sm_90", str(tmp_path / "d.ptx"), "-o", str(tmp_path / "d.cubin")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
