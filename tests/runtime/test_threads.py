"""The CPU thread pool: parallel loops give the same bits as one thread, whatever the split,
under concurrent Python callers and after fork; the thread count follows the config."""
from __future__ import annotations

import multiprocessing
import threading

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.config import ConfigError
from irc.runtime import threads


def _both(fn, *args):
    """Results with 1 thread and with the pool's current count."""
    n = threads.num_threads()
    many = fn(*args)
    threads.set_num_threads(1)
    try:
        one = fn(*args)
    finally:
        threads.set_num_threads(n)
    return one, many


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 47, 1000, 100_003])
def test_elementwise_same_bits_any_split(pool, n):
    x = T.fvector("x")
    f = irc.function([x], T.exp(x) * 2 + x)
    a = np.random.RandomState(n).randn(n).astype("float32")
    one, many = _both(f, a)
    assert np.array_equal(one, many)
    np.testing.assert_allclose(many, np.exp(a) * 2 + a, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rows_reductions_and_gemv(pool, dtype):
    m, v = T.matrix("m", dtype=dtype), T.vector("v", dtype=dtype)
    f = irc.function([m, v], [m.sum(axis=1), T.dot(m, v), T.tanh(m).max(axis=1)])
    rng = np.random.RandomState(1)
    a, x = rng.randn(301, 257).astype(dtype), rng.randn(257).astype(dtype)
    for args in ((a, x), (a[::2, ::3], x[::3])):  # strided views too
        one, many = _both(f, *args)
        for o, p in zip(one, many):
            assert np.array_equal(o, p)
        tol = 1e-4 if dtype == "float32" else 1e-10
        np.testing.assert_allclose(many[0], args[0].sum(axis=1), rtol=tol, atol=tol)
        np.testing.assert_allclose(many[1], args[0] @ args[1], rtol=tol, atol=tol)
        np.testing.assert_allclose(many[2], np.tanh(args[0]).max(axis=1), rtol=tol)


def test_concurrent_python_callers(pool):
    """Two Python threads calling compiled code at once: one gets the pool, the other runs
    its loop itself; both get the right numbers."""
    x = T.dvector("x")
    f = irc.function([x], T.sqrt(x) + 1)
    g = irc.function([x], x * 3)
    data = [np.random.RandomState(i).rand(50_000) for i in range(4)]
    errors: list = []

    def hammer(fn, ref, a):
        try:
            for _ in range(40):
                out = fn(a)
                if not np.allclose(out, ref(a), rtol=1e-14):
                    errors.append("wrong result")
        except Exception as e:  # pragma: no cover - reported below
            errors.append(repr(e))

    workers = [threading.Thread(target=hammer, args=(f, lambda a: np.sqrt(a) + 1, data[0])),
               threading.Thread(target=hammer, args=(g, lambda a: a * 3, data[1])),
               threading.Thread(target=hammer, args=(f, lambda a: np.sqrt(a) + 1, data[2])),
               threading.Thread(target=hammer, args=(g, lambda a: a * 3, data[3]))]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=120)
    assert not any(w.is_alive() for w in workers), "a caller hung"
    assert errors == []


def _child(queue) -> None:
    x = T.dvector("x")
    f = irc.function([x], x + 1)
    queue.put(float(f(np.arange(100_000.0)).sum()))


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="no fork here")
def test_forked_child_runs_parallel_loops(pool):
    """The child of a fork has no workers; its loops must neither hang nor be wrong."""
    x = T.dvector("x")
    irc.function([x], x * 2)(np.ones(10))  # the parent's pool is running
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue,))
    proc.start()
    proc.join(timeout=120)
    assert proc.exitcode == 0, "the forked child failed or hung"
    assert queue.get(timeout=5) == float(np.arange(100_000.0).sum() + 100_000)


def test_thread_count_follows_config():
    x = T.dvector("x")
    before = threads.num_threads()
    try:
        with irc.config.change_flags(cpu_threads=1):
            irc.function([x], x + 1)
            assert threads.num_threads() == 1
        with irc.config.change_flags(cpu_threads=2):
            irc.function([x], x + 2)
            assert threads.num_threads() == 2 or threads.ensure_pool().worker is None
    finally:
        threads.set_num_threads(before)


def test_bad_thread_counts():
    with pytest.raises(ValueError, match="positive thread count"):
        threads.set_num_threads(0)
    with pytest.raises(ConfigError, match="cpu_threads"):
        irc.config.cpu_threads = -1
    assert threads.default_threads() >= 1
