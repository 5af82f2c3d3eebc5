"""The object cache across processes: `config.compiledir` is where it lives, a second process
starts warm (no LLVM optimization), two processes compiling the same function (and so the
same kernels) at the same moment both succeed and leave one complete file per entry, and a
process killed while compiling leaves nothing that the next one trips over."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from irc.runtime.object_cache import decode_entry

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, os, sys, time
start = float(sys.argv[1])
import numpy as np
import irc, irc.tensor as T
import irc.runtime.native as native
if os.environ.get("FORBID_LLVM"):
    def no_llvm(*a, **k):
        raise AssertionError("a warm start ran LLVM")
    native.build_objects = native.parse_and_optimize = native.glue_object = no_llvm
x, y = T.fmatrix("x"), T.fvector("y")
w = irc.shared(np.ones(7, "float32"), name="w")
p = T.nnet.sigmoid(T.dot(x, w)) if hasattr(T, "nnet") else 1 / (1 + T.exp(-T.dot(x, w)))
cost = ((p - y) ** 2).mean()
while time.time() < start:
    time.sleep(0.001)
f = irc.function([x, y], cost, updates=[(w, w - 0.1 * T.grad(cost, w))])
out = float(f(np.ones((3, 7), "float32"), np.zeros(3, "float32")))
s = f.maker.native.stats
print(json.dumps({"hit": s.cache_hit, "llvm_s": s.llvm_s, "out": out}))
"""


def _env(folder: str, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("IRC_COMPILEDIR", None)  # the folder must come from config.compiledir
    env["IRC_FLAGS"] = f"compiledir={folder},floatX=float32"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env.update(extra)
    return env


def _start(folder: str, start: float, **extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", SCRIPT, str(start)], env=_env(folder, **extra),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _result(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _objects(folder: str, kind: str = "cpu") -> list[str]:
    path = os.path.join(folder, kind)
    return sorted(os.listdir(path)) if os.path.isdir(path) else []


def _all_whole(folder: str, kind: str, temporaries: bool = False) -> None:
    """Every file of `<folder>/<kind>` is a complete entry of its key; `temporaries`: but for
    the temporary files a killed writer leaves (`.tmp-*`, never read as entries)."""
    for name in _objects(folder, kind):
        if temporaries and name.startswith(".tmp-"):
            continue
        assert not name.startswith("."), name
        data = Path(folder, kind, name).read_bytes()
        decode_entry(kind, name.split(".")[0], data)  # raises BadEntry if it is not whole


def test_second_process_starts_warm(tmp_path):
    folder = str(tmp_path / "compiledir")
    cold = _result(_start(folder, 0))
    assert not cold["hit"] and cold["llvm_s"] > 0
    files = _objects(folder)
    assert len(files) == 1 and files[0].endswith(".o")
    warm = _result(_start(folder, 0, FORBID_LLVM="1"))
    assert warm["hit"] and warm["llvm_s"] == 0.0
    assert warm["out"] == cold["out"]


def test_concurrent_writers_are_safe(tmp_path):
    folder = str(tmp_path / "compiledir")
    start = time.time() + 2.0  # both processes have imported irc by then
    procs = [_start(folder, start) for _ in range(2)]
    results = [_result(p) for p in procs]
    assert results[0]["out"] == results[1]["out"]
    files = _objects(folder)
    assert len(files) == 1 and files[0].endswith(".o")  # one complete file, no temporaries
    assert _objects(folder, "kernel")
    _all_whole(folder, "kernel")
    warm = _result(_start(folder, 0, FORBID_LLVM="1"))
    assert warm["hit"] and warm["out"] == results[0]["out"]


def test_a_process_killed_while_compiling_leaves_nothing_harmful(tmp_path):
    """Killed once its first kernel is stored (the function's other kernels and its own object
    still compiling): the next process computes the same number and completes the cache."""
    folder = str(tmp_path / "compiledir")
    reference = _result(_start(str(tmp_path / "other"), 0))
    victim = _start(folder, 0)
    deadline = time.time() + 120
    while not _objects(folder, "kernel") and victim.poll() is None and time.time() < deadline:
        time.sleep(0.002)
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=60)
    for kind in ("cpu", "kernel"):
        _all_whole(folder, kind, temporaries=True)
    after = _result(_start(folder, 0))
    assert after["out"] == reference["out"]
    warm = _result(_start(folder, 0, FORBID_LLVM="1"))
    assert warm["hit"] and warm["out"] == reference["out"]
