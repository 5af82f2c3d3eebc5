"""Kernels compiled in forked processes (`irc/codegen_cpu/compile_processes.py`): every module
comes back once, whoever compiled it; a child that fails, dies or hangs costs only time; the
process count is the user's to cap; a function compiled that way runs as one compiled here."""
from __future__ import annotations

import os
import sys
import time
import types

import numpy as np
import pytest

from irc.codegen_cpu import compile_processes as C

TEXTS = {f"k{i:02d}": "x" * (1000 * (i + 1)) for i in range(30)}


@pytest.fixture
def two_processes(monkeypatch):
    monkeypatch.setenv(C.PROCESSES_VARIABLE, "2")
    monkeypatch.setattr(C, "MIN_PARALLEL_CHARS", 0)


def _by_pid(key: str, text: str) -> bytes:
    time.sleep(0.002)  # long enough for the child to take its share
    return f"{os.getpid()}:{key}:{len(text)}".encode()


def test_every_module_comes_back_once_from_either_process(two_processes):
    got = C.compile_all(TEXTS, _by_pid)
    assert sorted(got) == sorted(TEXTS)
    pids = set()
    for key, obj in got.items():
        pid, name, size = obj.decode().split(":")
        assert name == key and int(size) == len(TEXTS[key])
        pids.add(int(pid))
    assert os.getpid() in pids and len(pids) == 2


def test_one_process_compiles_here(monkeypatch):
    monkeypatch.setenv(C.PROCESSES_VARIABLE, "1")
    got = C.compile_all(TEXTS, _by_pid)
    assert {obj.split(b":")[0] for obj in got.values()} == {str(os.getpid()).encode()}


@pytest.mark.parametrize("how", ["raises", "dies", "hangs"])
def test_a_failing_child_costs_only_time(two_processes, monkeypatch, how):
    monkeypatch.setattr(C, "CHILD_TIMEOUT_S", 1.0)
    parent = os.getpid()

    def compile_one(key: str, text: str) -> bytes:
        if os.getpid() != parent:
            if how == "raises":
                raise RuntimeError("LLVM failed")
            if how == "dies":
                os._exit(3)
            time.sleep(30)  # hangs: killed after CHILD_TIMEOUT_S
        time.sleep(0.002)
        return key.encode()

    start = time.monotonic()
    got = C.compile_all(TEXTS, compile_one)
    assert got == {k: k.encode() for k in TEXTS}
    assert time.monotonic() - start < 10


def test_an_error_here_leaves_no_child_behind(two_processes, monkeypatch):
    """The parent's own compile fails: the error is the caller's, and the children are gone."""
    parent = os.getpid()
    forked = []
    fork = C._fork

    def recorded(*args):
        child = fork(*args)
        forked.append(child)
        return child
    monkeypatch.setattr(C, "_fork", recorded)

    def compile_one(key: str, text: str) -> bytes:
        if os.getpid() == parent:
            raise RuntimeError("LLVM failed here")
        time.sleep(0.05)
        return b""

    with pytest.raises(RuntimeError, match="LLVM failed here"):
        C.compile_all(TEXTS, compile_one)
    assert forked and all(child is not None for child in forked)
    for pid, _ in forked:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # killed and reaped already


def test_records_cut_off_are_dropped():
    whole = C._HEADER.pack(2, 3) + b"k1abc"
    assert C._records(whole + C._HEADER.pack(2, 5) + b"k2ab") == {"k1": b"abc"}


def test_a_bad_process_count_is_named(monkeypatch):
    monkeypatch.setenv(C.PROCESSES_VARIABLE, "many")
    with pytest.raises(ValueError, match="IRC_COMPILE_PROCESSES='many'"):
        C.process_count()


def test_a_function_compiled_by_two_processes_runs(two_processes, tmp_path, monkeypatch):
    """Its kernels (some from the child) are linked, cached and give numpy's results."""
    import irc
    import irc.tensor as T
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    x, w = T.dmatrix("x"), T.dmatrix("w")
    f = irc.function([x, w], [T.tanh(T.dot(x, w)).sum(axis=0), T.exp(x).mean()])
    rng = np.random.RandomState(0)
    a, b = rng.rand(30, 20), rng.rand(20, 40)
    got = f(a, b)
    np.testing.assert_allclose(got[0], np.tanh(a @ b).sum(axis=0), rtol=1e-10)
    np.testing.assert_allclose(got[1], np.exp(a).mean(), rtol=1e-12)
    assert len(os.listdir(tmp_path / "kernel")) >= 4


def test_a_fresh_process_builds_the_thread_pool_with_its_first_kernels(tmp_path):
    """On an empty cache the pool's module is one more job of the first compile (so it is
    compiled beside the kernels, not after them); it is cached for the next process."""
    import subprocess
    import sys
    code = (
        "import numpy as np, irc, irc.tensor as T\n"
        "import irc.runtime.native as native\n"
        "from irc.runtime import threads\n"
        "seen = []\n"
        "compile_all = native.compile_all\n"
        "native.compile_all = lambda texts, f: (seen.extend(texts), compile_all(texts, f))[1]\n"
        "x = T.dvector('x')\n"
        "f = irc.function([x], T.exp(x) * 2)\n"
        "assert native.POOL in seen, seen\n"
        "assert threads._PREBUILT\n"
        "np.testing.assert_allclose(f(np.arange(3.0)), np.exp(np.arange(3.0)) * 2)\n"
        "seen.clear()\n"
        "g = irc.function([x], T.log(x) * 3)\n"
        "g(np.ones(2))\n"
        "assert seen and native.POOL not in seen, seen\n")
    env = dict(os.environ, IRC_COMPILEDIR=str(tmp_path), IRC_COMPILE_PROCESSES="2")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert len(os.listdir(tmp_path / "runtime")) == 1


def test_no_fork_beside_a_library_that_warns_against_it(monkeypatch):
    """With jax loaded (its threads may hold locks; it warns at every fork), the modules are
    compiled in this process: no child, the same objects."""
    forks = []
    monkeypatch.setitem(sys.modules, "jax", types.ModuleType("jax"))
    monkeypatch.setattr(C.os, "fork", lambda: forks.append(1) or 0)
    monkeypatch.setenv(C.PROCESSES_VARIABLE, "2")
    texts = {f"m{i}": "x" * C.MIN_PARALLEL_CHARS for i in range(3)}
    got = C.compile_all(texts, lambda key, text: key.encode())
    assert got == {key: key.encode() for key in texts} and not forks
