"""A damaged compile-cache entry is a miss with one warning, never a crash or wrong numbers.

Each case damages one entry of a primed cache folder the way a power loss, a bad disk or a
careless copy would, then runs a fresh process on it (a crash there would kill pytest if it
ran in-process): the process must exit cleanly, warn once naming the file, compute the right
numbers, and leave a valid entry behind. The per-function cache (`cpu/`), the kernels it links
with (`kernel/`) and the thread pool's object (`runtime/`) all go through `ObjectCache.load`;
all are checked."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from forked_python import run_python
from irc.runtime.object_cache import decode_entry

# F and G have one signature, so G's object loaded as F's would run and give G's numbers.
SCRIPT = r"""
import json, sys, warnings
import numpy as np
import irc, irc.tensor as T
from irc.runtime.object_cache import CacheWarning
x = T.dvector("x")
which = sys.argv[1]
out = T.exp(x) * 2.0 if which == "F" else x + 1.0
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    f = irc.function([x], out)
    result = f(np.linspace(-3.0, 3.0, 50001))
with open(sys.argv[2], "w") as out:  # a file, not stdout: the report is ~1 MB
    json.dump({"result": result.tolist(), "hit": f.maker.native.stats.cache_hit,
               "warnings": [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]}, out)
"""


def _run(folder: str, which: str) -> dict:
    """F or G compiled and run in a process of its own (forked from one that imported irc and
    nothing more: forked_python.py) on the cache `folder`."""
    report = folder.rstrip(os.sep) + f".report-{which}.json"  # beside the cache, not in it
    proc = run_python(SCRIPT, which, report, env={"IRC_COMPILEDIR": folder}, timeout=300)
    assert proc.returncode == 0, f"the process died (rc {proc.returncode}):\n{proc.stderr[-3000:]}"
    with open(report) as f:
        return json.load(f)


def _entries(folder: str, kind: str) -> set[str]:
    path = os.path.join(folder, kind)
    return {os.path.join(path, n) for n in os.listdir(path)} if os.path.isdir(path) else set()


@pytest.fixture(scope="module")
def primed(tmp_path_factory) -> dict:
    """A cache folder holding F's and G's objects, their kernels' and the thread pool's, and
    which is which."""
    folder = str(tmp_path_factory.mktemp("primed"))
    assert not _run(folder, "F")["hit"]
    f_entry, = _entries(folder, "cpu")
    f_kernel, = _entries(folder, "kernel")  # F's one elementwise kernel
    _run(folder, "G")
    g_entry, = _entries(folder, "cpu") - {f_entry}
    g_kernel, = _entries(folder, "kernel") - {f_kernel}
    pool_entry, = _entries(folder, "runtime")
    return {"folder": folder, "cpu": f_entry, "other": g_entry, "runtime": pool_entry,
            "kernel": f_kernel, "other kernel": g_kernel}


def _garbage(n: int) -> bytes:
    return np.random.default_rng(7).integers(0, 256, n, dtype=np.uint8).tobytes()


def _body_start(data: bytes) -> int:
    return data.index(b"\n") + 1


def _elf_header_garbage_body(data: bytes, other: bytes) -> bytes:
    start = data.index(b"\x7fELF")  # a function's entry names its kernels before its object
    assert start in (_body_start(data), data.index(b"\n", _body_start(data)) + 1)
    return data[:start + 64] + _garbage(len(data) - start - 64)  # header line and ELF header kept


def _bare_object(data: bytes, other: bytes) -> bytes:
    """A plain object file (no entry header), as an older irc wrote them."""
    return data[_body_start(data):]


def _flip(offset_of):
    def damage(data: bytes, other: bytes) -> bytes:
        i = offset_of(data)
        return data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1:]
    return damage


DAMAGE = {
    "truncated_half": lambda data, other: data[:len(data) // 2],
    "empty": lambda data, other: b"",
    "garbage": lambda data, other: _garbage(len(data)),
    "elf_header_garbage_body": _elf_header_garbage_body,
    "bare_object_no_header": _bare_object,
    "one_flipped_byte_in_body": _flip(lambda d: (_body_start(d) + len(d)) // 2),
    "one_flipped_byte_in_header": _flip(lambda d: 40),
    "another_functions_entry": lambda data, other: other,
}


@pytest.mark.parametrize("kind", ["cpu", "kernel", "runtime"])
@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_damaged_entry_is_rebuilt_with_one_warning(primed, tmp_path, kind, damage):
    folder = str(tmp_path / "compiledir")
    shutil.copytree(primed["folder"], folder)
    entry = os.path.join(folder, os.path.relpath(primed[kind], primed["folder"]))
    data = Path(entry).read_bytes()
    other = Path(primed["other"]).read_bytes()
    if kind == "runtime" and damage == "another_functions_entry":
        other = Path(os.path.join(folder, os.path.relpath(primed["cpu"], primed["folder"]))).read_bytes()
    if kind == "kernel":  # G's kernel has F's signature: loaded as F's, it would give G's numbers
        other = Path(primed["other kernel"]).read_bytes()
    Path(entry).write_bytes(DAMAGE[damage](data, other))

    run = _run(folder, "F")

    x = np.linspace(-3.0, 3.0, 50001)
    np.testing.assert_allclose(run["result"], np.exp(x) * 2.0, rtol=1e-14)
    assert len(run["warnings"]) == 1, run["warnings"]
    assert entry in run["warnings"][0] and "recompiling" in run["warnings"][0]
    assert run["hit"] == (kind == "runtime")  # F's own entry was intact there
    key = os.path.basename(entry).split(".")[0]
    assert decode_entry(kind, key, Path(entry).read_bytes()) == data[_body_start(data):]
