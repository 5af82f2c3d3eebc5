"""The kernel-level cache: a parallel nest is compiled once per machine, whatever function
launches it (`irc/codegen_cpu/kernel_split.py`, `irc/runtime/kernel_cache.py`); its key is its
loop IR and inputs, so a constant in its body makes another kernel, a shape does not; a disk
that cannot take the entries only costs compile time."""
from __future__ import annotations

import errno
import os

import numpy as np
import pytest

from native_helpers import rand

GEMM = """
func.func @f(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = tensor.gemm %x, %w {alpha = 1.0, beta = 0.0, epilogue = "tanh"} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = %TAIL%
  func.return %r : tensor<?x?xf32>
}"""
SCALE = "tensor.mul %p, %p : tensor<?x?xf32>"
PLUS = "tensor.add %p, %p : tensor<?x?xf32>"

TWO_EXPS = """
func.func @f(%x: tensor<?xf64>, %y: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %a = tensor.exp %x : tensor<?xf64>
  %b = tensor.exp %y : tensor<?xf64>
  func.return %a, %b : tensor<?xf64>, tensor<?xf64>
}"""


class Compiles:
    """Counts the modules LLVM optimizes (a function's own, and each kernel it compiles)."""

    def __init__(self, monkeypatch):
        import irc.runtime.native as native
        from irc.runtime import threads
        threads.ensure_pool()  # built already: not one of the modules counted
        monkeypatch.setenv("IRC_COMPILE_PROCESSES", "1")  # every module compiled here, where it is counted
        self.count = 0
        for name in ("parse_and_optimize", "glue_object"):  # a kernel's, the function's own
            monkeypatch.setattr(native, name, self._counted(getattr(native, name)))

    def _counted(self, real):
        def counted(module):
            self.count += 1
            return real(module)
        return counted


def _compile(text: str, folder: str, **kw):
    from irc.ir.parser import parse_module
    from irc.runtime.native import compile_cpu
    return compile_cpu(parse_module(text), cache_dir=folder, **kw)


def _kernels(folder: str) -> set[str]:
    path = os.path.join(folder, "kernel")
    return set(os.listdir(path)) if os.path.isdir(path) else set()


def _gemm(tail: str) -> str:
    return GEMM.replace("%TAIL%", tail)


def test_another_function_reuses_the_kernels_it_shares(tmp_path, monkeypatch):
    folder = str(tmp_path)
    first = _compile(_gemm(SCALE), folder)
    kernels = _kernels(folder)
    assert len(kernels) >= 3  # the packing, the product with its epilogue, the square
    compiles = Compiles(monkeypatch)
    second = _compile(_gemm(PLUS), folder)  # only the elementwise tail differs
    added = _kernels(folder) - kernels
    assert len(added) == 1  # the sum: the product's kernels came from the cache
    assert compiles.count == 2  # the function's own module and the new kernel
    assert not second.stats.cache_hit
    x, w = rand(37, 19), rand(19, 45)
    t = np.tanh(x.astype(np.float64) @ w)
    np.testing.assert_allclose(first(x, w)[0], t * t, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose(second(x, w)[0], t + t, rtol=2e-5, atol=1e-6)


def test_one_kernel_serves_every_shape(tmp_path, monkeypatch):
    folder = str(tmp_path)
    fn = _compile(_gemm(SCALE), folder)
    compiles = Compiles(monkeypatch)
    for m, k, n in [(1, 1, 1), (5, 300, 2), (64, 7, 70), (13, 513, 33)]:
        x, w = rand(m, k), rand(k, n)
        t = np.tanh(x.astype(np.float64) @ w)
        # float32 sums of up to 513 products: ~1e-5 absolute error, squared near 0 the relative grows
        np.testing.assert_allclose(fn(x, w)[0], t * t, rtol=2e-5, atol=5e-5)
    assert compiles.count == 0


def test_a_nest_met_twice_in_a_function_is_compiled_once(tmp_path):
    folder = str(tmp_path)
    fn = _compile(TWO_EXPS, folder)
    assert len(_kernels(folder)) == 1
    x, y = rand(1000, dtype="float64"), rand(77, dtype="float64")
    a, b = fn(x, y)
    np.testing.assert_allclose(a, np.exp(x), rtol=1e-15)
    np.testing.assert_allclose(b, np.exp(y), rtol=1e-15)


def test_a_models_constants_are_passed_its_structural_ones_compiled_in(tmp_path, monkeypatch):
    """exp(x)·3 and exp(x)·0.7 (a learning rate, a weight) run one kernel taking the factor as
    an argument; exp(x)·2 (a factor that shapes arithmetic: see STRUCTURAL_FLOATS) has its
    own, with 2 compiled in. Each computes exactly what its constant says."""
    import irc
    import irc.tensor as T
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    x = T.dvector("x")
    three = irc.function([x], T.exp(x) * 3.0)
    assert len(_kernels(str(tmp_path))) == 1
    seven = irc.function([x], T.exp(x) * 0.7)
    assert len(_kernels(str(tmp_path))) == 1 and not seven.maker.native.stats.cache_hit
    two = irc.function([x], T.exp(x) * 2.0)
    assert len(_kernels(str(tmp_path))) == 2
    v = rand(100, dtype="float64")
    for f, c in ((three, 3.0), (seven, 0.7), (two, 2.0)):
        np.testing.assert_allclose(f(v), np.exp(v) * c, rtol=1e-15)


def test_warm_start_loads_the_kernels_without_llvm(tmp_path, monkeypatch):
    folder = str(tmp_path)
    cold = _compile(_gemm(SCALE), folder)
    compiles = Compiles(monkeypatch)
    warm = _compile(_gemm(SCALE), folder)
    assert warm.stats.cache_hit and compiles.count == 0
    x, w = rand(40, 30), rand(30, 20)
    np.testing.assert_array_equal(cold(x, w)[0], warm(x, w)[0])


def test_a_missing_kernel_entry_is_rebuilt_alone(tmp_path, monkeypatch):
    folder = str(tmp_path)
    _compile(_gemm(SCALE), folder)
    kernels = sorted(_kernels(folder))
    # a cleaner took one file: a kernel no other kernel calls (a caller of a missing kernel is
    # rebuilt too, since its entry names what it links with)
    path = os.path.join(folder, "kernel")
    bodies = {k: open(os.path.join(path, k), "rb").read() for k in kernels}
    leaf = next(k for k in kernels if not any(k.split(".")[0].encode() in b for o, b in bodies.items() if o != k))
    os.unlink(os.path.join(path, leaf))
    compiles = Compiles(monkeypatch)
    fn = _compile(_gemm(SCALE), folder)
    assert not fn.stats.cache_hit
    assert compiles.count == 2  # the function's module and the missing kernel
    assert sorted(_kernels(folder)) == kernels
    x, w = rand(40, 30), rand(30, 20)
    t = np.tanh(x.astype(np.float64) @ w)
    np.testing.assert_allclose(fn(x, w)[0], t * t, rtol=2e-5, atol=1e-6)


def test_without_the_cache_nothing_is_written(tmp_path):
    folder = str(tmp_path)
    fn = _compile(TWO_EXPS, folder, use_cache=False)
    assert not os.path.exists(os.path.join(folder, "kernel"))
    x = rand(10, dtype="float64")
    np.testing.assert_allclose(fn(x, x)[0], np.exp(x), rtol=1e-15)


@pytest.mark.parametrize("failure", ["full", "read-only"])
def test_a_disk_that_takes_no_entries_costs_only_compile_time(tmp_path, monkeypatch, failure):
    import irc.runtime.object_cache as object_cache
    code = errno.ENOSPC if failure == "full" else errno.EROFS

    def refuse(*a, **k):
        raise OSError(code, os.strerror(code))

    class FullDisk:
        """The temporary file, whose writes fail."""

        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.f.close()

        write = refuse

    # a full disk fails the write, a read-only one the temporary file
    monkeypatch.setenv("IRC_COMPILE_PROCESSES", "1")
    if failure == "full":
        fdopen = os.fdopen
        monkeypatch.setattr(object_cache.os, "fdopen", lambda fd, mode: FullDisk(fdopen(fd, mode)))
    else:
        monkeypatch.setattr(object_cache.tempfile, "mkstemp", refuse)
    folder = str(tmp_path)
    fn = _compile(_gemm(SCALE), folder)
    monkeypatch.undo()
    assert _kernels(folder) == set()  # nothing stored, no temporary left behind
    x, w = rand(40, 30), rand(30, 20)
    t = np.tanh(x.astype(np.float64) @ w)
    np.testing.assert_allclose(fn(x, w)[0], t * t, rtol=2e-5, atol=1e-6)


def test_products_share_one_register_tile(tmp_path):
    """Two products of the same layout class (A an argument, read where it lies) that differ in
    scaling and epilogue call one compiled register tile (the `irc.kernel` loop of the gemm
    lowering); their own kernels differ."""
    from irc.codegen_cpu.convert_to_llvm import convert_to_llvm
    from irc.codegen_cpu.kernel_split import KernelSet
    from irc.ir.parser import parse_module
    from irc.runtime.native import lower_module
    text = """
func.func @f(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %y: tensor<?x?xf32>, %v: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %h = tensor.gemm %x, %w {alpha = 1.0, beta = 0.0, epilogue = "tanh"} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %o = tensor.gemm %y, %v {alpha = 0.5, beta = 0.0} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %h, %o : tensor<?x?xf32>, tensor<?x?xf32>
}"""
    found = KernelSet("test")
    convert_to_llvm(lower_module(parse_module(text)), kernels=found)
    callers = {k: calls for k, calls in found.calls.items() if calls}
    # per product, a nest for each tile width (n is only known at run time), each calling its tile
    assert len(callers) == 4
    calls = [tile for tiles in callers.values() for tile in tiles]
    assert len(set(calls)) == 2 and len(calls) == 4  # the second product calls the first one's tiles
    fn = _compile(text, str(tmp_path))
    x, w, y, v = rand(33, 20), rand(20, 41), rand(17, 41), rand(41, 9)
    h, o = fn(x, w, y, v)
    np.testing.assert_allclose(h, np.tanh(x.astype(np.float64) @ w), rtol=2e-5, atol=1e-5)
    np.testing.assert_allclose(o, 0.5 * (y.astype(np.float64) @ v), rtol=2e-5, atol=1e-5)
