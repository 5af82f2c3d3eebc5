"""Tiered compilation (`irc.config.compile_tiers`, off for the rest of the suite): a cache miss
runs tier-0 code (no passes, FastISel) while a forked process stores the optimized code in the
cache; the function switches to it between calls. Tier-0 and optimized results are not
bit-identical (the optimized code vectorizes the reductions the IR marks `reassoc`, summing in
another order), so both are checked against numpy at float64 tolerances."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.base import config as irc_config_module
from irc.base.config import TIERS_VARIABLE
from irc.codegen_cpu import background_compile
from irc.runtime import threads
from irc.runtime.object_cache import ObjectCache

ROOT = Path(__file__).resolve().parents[2]
RTOL = 1e-10


@pytest.fixture
def tiers(tmp_path, monkeypatch):
    """Tiers on, with a compile cache of the test's own (every compile a miss at first); the
    first compile in this process (no forked helpers: its rows are all here)."""
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    monkeypatch.setenv("IRC_COMPILE_PROCESSES", "1")
    with irc.config.change_flags(compile_tiers=True):
        yield tmp_path
    for pid in background_compile.live_children():  # a test that failed midway
        background_compile._LIVE[pid].stop()


def logistic_step():
    """The tutorial's cost and gradient with the weights as an input (no state: every call
    comparable), float64; large enough to be tiered."""
    x, y, w = T.matrix("x"), T.vector("y"), T.vector("w")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w)))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    return irc.function([x, y, w], [xent, T.grad(cost, w)], name="lr_step")


def inputs(seed: int = 0):
    rng = np.random.RandomState(seed)
    return rng.randn(64, 784) * 0.05, rng.randint(0, 2, 64).astype(float), rng.randn(784)


def expected(x, y, w):
    p = 1 / (1 + np.exp(-x @ w))
    xent = -y * np.log(p) - (1 - y) * np.log(1 - p)
    return xent, x.T @ (p - y) / len(y) + 0.02 * w


def check(got, args):
    for g, e in zip(got, expected(*args)):
        np.testing.assert_allclose(g, e, rtol=RTOL, atol=1e-12)


def function_entries(folder: Path) -> list[Path]:
    return list((folder / "cpu").glob("*")) if (folder / "cpu").exists() else []


def test_first_call_runs_tier0_then_switches_to_the_cached_optimized_code(tiers):
    f = logistic_step()
    args = inputs()
    native = f.maker.native
    child = native._tier.child
    first = f(*args)
    check(first, args)
    assert native.stats.tier == 0
    assert "LLVM tier 0 (no passes, FastISel)" in f.maker.compile_times
    assert f.wait_optimized(timeout=120)
    assert native.stats.tier == 1 and native._tier is None and native.stats.optimized_after_s > 0
    assert child.result is True and child.pid not in background_compile.live_children()
    with pytest.raises(ChildProcessError):  # reaped: no zombie
        os.waitpid(child.pid, os.WNOHANG)
    check(f(*args), args)
    assert len(function_entries(tiers)) == 1
    again = logistic_step()  # the same graph: a hit, optimized from its first call
    assert again.maker.native.stats.cache_hit and again.maker.native._tier is None
    np.testing.assert_array_equal(again(*args)[1], f(*args)[1])


def test_switch_happens_at_call_entry_without_waiting(tiers):
    f = logistic_step()
    args = inputs(1)
    native = f.maker.native
    assert native._tier.child.poll(timeout=120) is True  # done, but not taken yet
    assert native.stats.tier == 0
    native._tier._next_poll = 0.0
    check(f(*args), args)  # this call took the optimized code first
    assert native.stats.tier == 1


def test_the_switch_keeps_a_thread_count_set_since_the_compile(tiers):
    """Loading a compiled function applies `config.cpu_threads`; the switch does not (a
    benchmark's `set_num_threads(1)` before its first call stayed 2 threads after the switch)."""
    f = logistic_step()
    before = threads.num_threads()
    try:
        threads.set_num_threads(1)
        assert f.wait_optimized(timeout=120)
        args = inputs(4)
        check(f(*args), args)
        assert threads.num_threads() == 1
    finally:
        threads.set_num_threads(before)


def test_cache_never_holds_tier0_code(tiers):
    f = logistic_step()
    f.maker.native._tier.child.stop()  # before it stored anything
    assert function_entries(tiers) == []
    g = logistic_step()
    assert not g.maker.native.stats.cache_hit and g.maker.native.stats.tier == 0
    g.maker.native._tier.child.stop()


def test_a_killed_child_is_survived(tiers):
    f = logistic_step()
    native = f.maker.native
    child = native._tier.child
    os.kill(child.pid, 9)
    args = inputs(2)
    check(f(*args), args)  # tier 0 still runs
    assert f.wait_optimized(timeout=120)  # the optimized code compiled here instead
    assert child.result is False and native.stats.tier == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(child.pid, os.WNOHANG)
    check(f(*args), args)
    assert logistic_step().maker.native.stats.cache_hit  # and stored for the next compile


def test_calls_from_several_threads_across_the_switch(tiers):
    f = logistic_step()
    args = inputs(3)
    errors: list[BaseException] = []

    def calls() -> None:
        try:
            for _ in range(400):
                check(f(*args), args)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=calls) for _ in range(3)]
    for t in threads:
        t.start()
    assert f.wait_optimized(timeout=120)
    for t in threads:
        t.join()
    assert errors == []
    assert f.maker.native.stats.tier == 1


def test_off_small_or_profiled_functions_compile_optimized_directly(tiers):
    with irc.config.change_flags(compile_tiers=False):
        off = logistic_step()
    a, b = T.vector("a"), T.vector("b")
    small = irc.function([a, b], a + b)  # less LLVM IR than a fork is worth
    profiled = irc.function([a, b], a * b, profile=True)
    for f in (off, small, profiled):
        assert f.maker.native.stats.tier == 1 and f.maker.native._tier is None and f.wait_optimized()
    assert background_compile.live_children() == []


_EXIT_SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import test_compile_tiers as t
f = t.logistic_step()
args = t.inputs()
t.check(f(*args), args)
assert f.maker.native.stats.tier == 0
print(f.maker.native._tier.child.pid)
"""


def test_child_finishes_the_cache_at_exit_and_is_reaped(tmp_path):
    env = {**os.environ, "IRC_COMPILEDIR": str(tmp_path), "IRC_FLAGS": "compile_tiers=True",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", _EXIT_SCRIPT, str(Path(__file__).parent)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    pid = int(out.stdout.split()[-1])
    with pytest.raises(ProcessLookupError):  # waited for and reaped by the parent at its exit
        os.kill(pid, 0)
    assert len(function_entries(tmp_path)) == 1
    entry = function_entries(tmp_path)[0]
    key = entry.name.split(".")[0]
    assert ObjectCache(str(tmp_path)).load(key) is not None  # a whole, verified entry


def test_irc_compile_tiers_0_turns_the_default_off_for_the_suites_subprocesses(monkeypatch):
    assert os.environ[TIERS_VARIABLE] == "0"  # tests/conftest.py: subprocesses compile directly too
    monkeypatch.setenv(TIERS_VARIABLE, "0")
    assert irc_config_module._default_tiers() is False
    monkeypatch.setenv(TIERS_VARIABLE, "1")
    assert irc_config_module._default_tiers() is True
    monkeypatch.delenv(TIERS_VARIABLE)
    assert irc_config_module._default_tiers() is True


_NO_POOL_SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import test_compile_tiers as t
from irc.runtime import threads
f = t.logistic_step()
args = t.inputs()
t.check(f(*args), args)
assert f.maker.native.stats.tier == 0 and threads._POOL is None  # the serial runtime, no pool yet
assert f.wait_optimized(timeout=120)
t.check(f(*args), args)
assert threads._POOL is not None and threads.num_threads() == threads.default_threads()
print("ok")
"""


def test_tier0_code_runs_on_the_serial_runtime_until_the_pool_comes_from_the_child(tmp_path):
    """An empty cache, a fresh process: the pool is compiled by the background process (into
    the cache), not before the first call; the switch starts it with the configured threads."""
    env = {**os.environ, "IRC_COMPILEDIR": str(tmp_path), "IRC_FLAGS": "compile_tiers=True",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    env.pop("OMP_NUM_THREADS", None)
    out = subprocess.run([sys.executable, "-c", _NO_POOL_SCRIPT, str(Path(__file__).parent)], env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.split()[-1] == "ok", out.stderr
    assert list((tmp_path / "runtime").glob("*"))  # the pool, stored by the child
