"""Serial nests of a function's own module are compiled as kernels (`outline_kernel.serial_nest`):
the function's module gets two cheap passes only, so a whole-array sum left there ran scalar
(a 4M-element float32 sum took 3 ms instead of 0.2); as a kernel it gets the O2 pipeline.
Checked: the loop leaves the function's module, its numbers (one result, two results, integer
and float, strided, empty) match numpy, and a nest the kernel could not hold stays."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T


@pytest.fixture
def modules(monkeypatch, tmp_path):
    """The LLVM text of the function's own module and of each kernel compiled meanwhile."""
    import irc.runtime.native as native
    from irc.runtime import threads
    threads.ensure_pool()
    monkeypatch.setenv("IRC_COMPILE_PROCESSES", "1")
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    seen: dict[str, list[str]] = {"glue": [], "kernel": []}

    def record(kind, real):
        def recorded(module):
            seen[kind].append(str(module))
            return real(module)
        return recorded
    monkeypatch.setattr(native, "glue_object", record("glue", native.glue_object))
    monkeypatch.setattr(native, "parse_and_optimize", record("kernel", native.parse_and_optimize))
    return seen


def _float_adds(text: str) -> int:
    return text.count(" = fadd ")


def test_a_whole_sum_leaves_the_functions_module(modules):
    v = T.fvector("v")
    f = irc.function([v], v.sum())
    assert modules["glue"] and not any(_float_adds(t) for t in modules["glue"])
    assert any(_float_adds(t) for t in modules["kernel"])
    for n in (0, 1, 33, 1000003):
        x = np.random.RandomState(n).rand(n).astype("float32")
        np.testing.assert_allclose(f(x), x.sum(dtype="float64"), rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_whole_reductions_of_a_strided_matrix_match_numpy(dtype):
    m = T.matrix("m", dtype=dtype)
    f = irc.function([m], [m.sum(), m.max(), m.min()])
    a = (np.random.RandomState(1).rand(301, 70) * 1000).astype(dtype)
    view = a[::3, 1::2]
    for got, want in zip(f(view), (view.sum(), view.max(), view.min())):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_loop_carrying_two_values_returns_both():
    v = T.dvector("v")
    f = irc.function([v], [T.argmax(v), T.max(v)])
    x = np.random.RandomState(2).randn(10007)
    i, top = f(x)
    assert int(i) == int(np.argmax(x)) and float(top) == float(x.max())


def test_a_gather_with_index_checks_stays_and_still_checks(modules):
    v, i = T.dvector("v"), T.lvector("i")
    f = irc.function([v, i], v[i].sum())
    x = np.arange(10.0)
    assert f(x, np.array([1, 2, -1])) == 12.0
    with pytest.raises(IndexError):
        f(x, np.array([10]))
