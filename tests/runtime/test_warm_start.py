"""The warm start keyed before the passes (`irc/runtime/warm_start.py`): a second process
compiling the same program finds its function-level entry and runs no pass, no lowering and
no LLVM, with the same numbers; a changed flag, mode exclusion or program line is a miss; a
damaged entry is one warning and a recompile; a hit's function still shows its IR and pickles.
A tiered first process leaves shared libraries (`irc/runtime/native_library.py`): a hit loads
them without llvmlite and computes what MCJIT's load of the same objects computes; a damaged
one is one warning, the objects, and a new library; without a linker the objects serve.
Each case is a process of its own, which has compiled nothing and loaded no llvmlite (forked
from a server that imported numpy and irc with the case's variables, or a fresh interpreter),
on a copy of one primed cache folder (the LR and the MLP of examples/dlt_programs.py, compiled
once for the module)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from irc.base.compile_stages import LOAD, LOAD_LIBRARY
from irc.frontend.warm_compile import WARM_HIT
from irc.runtime.kernel_cache import KernelCache
from irc.runtime.library_link import find_linker, link_library
from irc.runtime.native_function import cached_objects
from irc.runtime.native_library import checked_pool_key
from irc.runtime.object_cache import ObjectCache, decode_entry

import forked_python

ROOT = Path(__file__).resolve().parents[2]

# The programs as a user writes them; `model.py` is their file name in locations.
LR = """
rng = np.random.RandomState(0)
x, y = T.matrix("x"), T.vector("y")
w = irc.shared(rng.randn(50).astype("float32"), name="w")
b = irc.shared(np.asarray(0.0, "float32"), name="b")
p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
cost = xent.mean() + 0.01 * (w ** 2).sum()
gw, gb = T.grad(cost, [w, b])
f = irc.function([x, y], [p_1 > 0.5, xent], updates={w: w - 0.1 * gw, b: b - 0.1 * gb}, name="train", mode=MODE)
args = (rng.randn(40, 50).astype("float32"), rng.randint(0, 2, 40).astype("float32"))
"""

MLP = """
spec = importlib.util.spec_from_file_location("dlt", DLT)
dlt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dlt)
train_x, train_y = dlt.make_dataset()
f = dlt.mlp(train_x, train_y)[1]
args = (0,)
"""

# argv: cases, each "program[:variant]"; variants: flag (another flag value), exclude (a mode
# exclusion), moved (the same program one line lower), ir (f.ir, a shape error and a pickle)
SCRIPT = r"""
import importlib.util, json, pickle, sys, warnings
import numpy as np
import irc, irc.tensor as T
from irc.runtime.object_cache import CacheWarning
SOURCES = json.loads(sys.argv[1])
report = []
for case in sys.argv[2:]:
    program, _, variant = case.partition(":")
    scope = {"np": np, "irc": irc, "T": T, "importlib": importlib, "DLT": SOURCES["dlt"],
             "MODE": irc.Mode().excluding("fusion") if variant == "exclude" else None}
    source = ("\n" if variant == "moved" else "") + SOURCES[program]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if variant == "flag":
            with irc.config.change_flags(allow_gc=not irc.config.allow_gc):
                exec(compile(source, "model.py", "exec"), scope)
        else:
            exec(compile(source, "model.py", "exec"), scope)
        f = scope["f"]
        out = f(*scope["args"])
        out = out if isinstance(out, list) else [out]
    row = {"case": case, "rows": list(f.maker.compile_times), "out": [np.asarray(o).tolist() for o in out],
           "warnings": [str(w.message) for w in caught if issubclass(w.category, CacheWarning)],
           "llvmlite": "llvmlite.binding" in sys.modules}
    if variant == "ir":
        row["optimized"] = f.ir("optimized")
        row["tensor"], row["loop"], row["canonicalize"] = f.ir("tensor"), f.ir("loop"), f.ir("canonicalize")
        row["fgraph"] = len(f.maker.fgraph.toposort())
        x, y = scope["args"]
        try:
            f(x, y[:-1])
        except Exception as e:
            row["shape_error"] = f"{type(e).__name__}: {e}"
        again = pickle.loads(pickle.dumps(f))
        row["unpickled"] = [np.asarray(o).tolist() for o in again(*scope["args"])]
    report.append(row)
print(json.dumps(report))
"""


def _env(folder: str, tiers: bool, path: str | None) -> dict[str, str]:
    """A child's variables: the cache `folder`; without `tiers` it compiles optimized code
    directly (so it stores every entry before its functions run, and links no shared
    library); `path`: its PATH."""
    env = {"IRC_COMPILEDIR": folder, "IRC_FLAGS": f"floatX=float32,compile_tiers={tiers}"}
    if path is not None:
        env["PATH"] = path
    return env


def _sources() -> str:
    return json.dumps({"lr": LR, "mlp": MLP, "dlt": str(ROOT / "examples" / "dlt_programs.py")})


def _start(folder: str, *cases: str) -> subprocess.Popen:
    """A fresh interpreter compiling `cases` (optimized code directly), left running."""
    env = forked_python.child_env(_env(folder, False, None))
    return subprocess.Popen([sys.executable, "-c", SCRIPT, _sources(), *cases], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)


def _result(proc: subprocess.Popen) -> list[dict]:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])


def _run(folder: str, *cases: str, tiers: bool = False, path: str | None = None) -> list[dict]:
    """The rows of a process compiling `cases` (see `_env`): forked from a server that
    imported numpy and irc, nothing else, with the same variables (forked_python.py's
    `own_server`: `IRC_FLAGS` is read at import), so it has compiled nothing and loaded no
    llvmlite, as a fresh interpreter; with a `path` of its own, a fresh interpreter."""
    done = forked_python.run_python(SCRIPT, _sources(), *cases, env=_env(folder, tiers, path), cwd=str(ROOT),
                                    own_server=path is None)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _hit(row: dict) -> bool:
    """A hit before the passes: its row, and no pass, lowering or LLVM row."""
    hit = WARM_HIT in row["rows"]
    if hit:
        assert not [r for r in row["rows"] if r.startswith("pass ") or r.startswith("lower-to-loops")
                    or r.startswith("LLVM IR") or r.startswith("LLVM optimization")], row["rows"]
    return hit


@pytest.fixture(scope="module")
def primed(tmp_path_factory) -> dict:
    """A cache folder after one process compiled the LR and the MLP, and their outputs."""
    folder = str(tmp_path_factory.mktemp("warm"))
    lr, mlp = _run(folder, "lr", "mlp")
    assert not _hit(lr) and not _hit(mlp)
    return {"folder": folder, "lr": lr["out"], "mlp": mlp["out"]}


def _copy(primed: dict, tmp_path: Path) -> str:
    folder = str(tmp_path / "compiledir")
    shutil.copytree(primed["folder"], folder)
    return folder


def _warm_entries(folder: str) -> list[Path]:
    return sorted(Path(folder, "warm").iterdir())


def test_a_second_process_skips_the_passes_lowering_and_llvm(primed, tmp_path):
    lr, mlp = _run(_copy(primed, tmp_path), "lr", "mlp")
    assert _hit(lr) and _hit(mlp)
    assert lr["out"] == primed["lr"] and mlp["out"] == primed["mlp"]  # the same code: the same bits
    assert lr["warnings"] == mlp["warnings"] == []


def test_a_changed_flag_exclusion_or_line_is_a_miss(primed, tmp_path):
    folder = _copy(primed, tmp_path)
    flag, exclude, moved, same = _run(folder, "lr:flag", "lr:exclude", "lr:moved", "lr")
    assert not _hit(flag) and not _hit(exclude) and not _hit(moved)
    assert _hit(same)
    for row in (flag, exclude, moved):
        np.testing.assert_allclose(row["out"][1], primed["lr"][1], rtol=1e-5)
    assert len(_warm_entries(folder)) == 2 + 3  # each miss left its own entry


@pytest.mark.parametrize("damage", ["truncated", "flipped_byte", "json_of_another_format"])
def test_a_damaged_entry_is_one_warning_and_a_recompile(primed, tmp_path, damage):
    folder = _copy(primed, tmp_path)
    for entry in _warm_entries(folder):
        data = entry.read_bytes()
        if damage == "truncated":
            entry.write_bytes(data[:len(data) // 2])
        elif damage == "flipped_byte":
            i = len(data) // 2
            entry.write_bytes(data[:i] + bytes([data[i] ^ 0x10]) + data[i + 1:])
        else:  # a whole entry whose body is not this irc's (an older format)
            from irc.runtime.object_cache import encode_entry
            key = entry.name.split(".")[0]
            entry.write_bytes(encode_entry("warm", key, b'{"format": "irc-warm-0"}'))
    lr, = _run(folder, "lr")
    assert not _hit(lr)
    assert lr["out"] == primed["lr"]
    assert len(lr["warnings"]) == 1 and "recompiling" in lr["warnings"][0], lr["warnings"]
    lr_entry = [e for e in _warm_entries(folder) if e.name.split(".")[0] in lr["warnings"][0]]
    assert lr_entry, lr["warnings"]
    decode_entry("warm", lr_entry[0].name.split(".")[0], lr_entry[0].read_bytes())  # replaced by a whole one
    again, = _run(folder, "lr")
    assert _hit(again) and again["warnings"] == []


def test_a_hit_whose_objects_are_gone_compiles_silently(primed, tmp_path):
    folder = _copy(primed, tmp_path)
    shutil.rmtree(os.path.join(folder, "cpu"))
    lr, = _run(folder, "lr")
    assert not _hit(lr) and lr["warnings"] == [] and lr["out"] == primed["lr"]


def test_a_hits_function_shows_its_ir_names_the_users_line_and_pickles(primed, tmp_path):
    folder = _copy(primed, tmp_path)
    cold, = _run(str(tmp_path / "cold"), "lr:ir")  # the same questions asked of a compiled function
    warm, = _run(folder, "lr:ir")
    assert _hit(warm) and not _hit(cold)
    for key in ("optimized", "tensor", "loop", "canonicalize", "fgraph", "out", "unpickled"):
        assert warm[key] == cold[key], key
    assert "func.func @train" in warm["optimized"]
    assert warm["shape_error"] == cold["shape_error"] and 'model.py' in warm["shape_error"], warm["shape_error"]


def test_two_processes_storing_the_same_entry_leave_one_whole_entry(primed, tmp_path):
    folder = _copy(primed, tmp_path)
    shutil.rmtree(os.path.join(folder, "warm"))  # both find the objects and store the entry at once
    first, second = _start(folder, "lr"), _start(folder, "lr")
    rows = _result(first) + _result(second)
    # the one that looks first misses; the other may already find the first's entry (timing)
    assert not all(_hit(row) for row in rows) and all(row["out"] == primed["lr"] for row in rows)
    entry, = _warm_entries(folder)
    assert not entry.name.startswith(".")  # no temporary file left behind
    decode_entry("warm", entry.name.split(".")[0], entry.read_bytes())
    again, = _run(folder, "lr")
    assert _hit(again) and again["out"] == primed["lr"]


@pytest.fixture(scope="module")
def linked(tmp_path_factory) -> dict:
    """A cache folder after a tiered process compiled the LR and the MLP: tier-0 code is never
    cached, so the entries are stored at exit, once the background process has stored the
    optimized objects and linked them into the functions' shared libraries (and the pool's)."""
    if find_linker() is None:
        pytest.skip("no linker (ld, cc or gcc) on this machine: warm starts load the objects with MCJIT "
                    "(test_without_a_linker_the_objects_load)")
    folder = str(tmp_path_factory.mktemp("linked"))
    lr, mlp = _run(folder, "lr", "mlp", tiers=True)
    assert "LLVM tier 0 (no passes, FastISel)" in lr["rows"] and not _hit(lr) and not _hit(mlp)
    assert len(_libraries(folder)) == 3  # the LR's, the MLP's, the pool's
    return {"folder": folder, "lr": lr["out"], "mlp": mlp["out"]}


def _libraries(folder: str) -> list[Path]:
    return sorted(p for p in Path(folder, "lib").iterdir() if not p.name.startswith("."))


def test_a_warm_start_loads_the_library_without_llvmlite_and_computes_the_same(linked, tmp_path):
    lr, mlp = _run(_copy(linked, tmp_path / "a"), "lr", "mlp", tiers=True)
    assert _hit(lr) and _hit(mlp) and LOAD_LIBRARY in lr["rows"] and LOAD_LIBRARY in mlp["rows"]
    assert not mlp["llvmlite"] and lr["warnings"] == mlp["warnings"] == []
    np.testing.assert_allclose(lr["out"][1], linked["lr"][1], rtol=1e-5)  # against tier-0 code
    folder = _copy(linked, tmp_path / "b")
    shutil.rmtree(os.path.join(folder, "lib"))  # the same objects, loaded into MCJIT
    jit_lr, jit_mlp = _run(folder, "lr", "mlp", tiers=True)  # (a flag's value: part of the key)
    assert _hit(jit_lr) and LOAD in jit_lr["rows"] and LOAD_LIBRARY not in jit_lr["rows"] and jit_lr["llvmlite"]
    assert lr["out"] == jit_lr["out"] and mlp["out"] == jit_mlp["out"]  # the same code: the same bits


def test_a_damaged_library_is_one_warning_its_objects_load_and_it_is_linked_again(linked, tmp_path):
    folder = _copy(linked, tmp_path)
    for library in _libraries(folder):
        data = library.read_bytes()
        if b" - " not in data[-200:]:  # the functions', not the pool's
            library.write_bytes(data[:len(data) // 2])
    lr, = _run(folder, "lr", tiers=True)
    assert _hit(lr) and LOAD in lr["rows"]
    np.testing.assert_allclose(lr["out"][1], linked["lr"][1], rtol=1e-5)
    assert len(lr["warnings"]) == 1 and "damaged compile-cache library" in lr["warnings"][0], lr["warnings"]
    again, = _run(folder, "lr", tiers=True)
    assert _hit(again) and LOAD_LIBRARY in again["rows"] and again["warnings"] == []


def test_without_a_linker_the_objects_load(tmp_path):
    folder = str(tmp_path / "compiledir")
    first, = _run(folder, "lr", tiers=True, path=str(tmp_path))  # no ld, cc or gcc there
    second, = _run(folder, "lr", tiers=True, path=str(tmp_path))
    assert not os.path.exists(os.path.join(folder, "lib")) or not _libraries(folder)
    assert _hit(second) and LOAD in second["rows"] and second["warnings"] == []
    np.testing.assert_allclose(second["out"][1], first["out"][1], rtol=1e-5)


def test_a_cache_that_cannot_be_written_still_runs(primed, tmp_path):
    blocked = tmp_path / "a file"
    blocked.write_text("not a folder")  # every store fails (as on a read-only or full disk)
    rows = _run(str(blocked / "compiledir"), "lr", "lr")  # the second compile finds nothing either
    assert not any(_hit(row) for row in rows) and all(row["warnings"] == [] for row in rows)
    for row in rows:
        np.testing.assert_allclose(row["out"][1], primed["lr"][1], rtol=1e-6)


def test_two_links_of_one_library_leave_one_whole_library(linked, tmp_path):
    folder = _copy(linked, tmp_path)
    library = next(p for p in _libraries(folder) if b" - " not in p.read_bytes()[-200:])  # a function's
    key = library.name.split(".")[0]
    pool = checked_pool_key(key, library.read_bytes())
    library.unlink()
    objects = cached_objects(ObjectCache(folder).load(key), KernelCache(folder))
    done: list[bool] = []
    links = [threading.Thread(target=lambda: done.append(link_library(objects, key, pool, folder))) for _ in range(2)]
    for t in links:
        t.start()
    for t in links:
        t.join()
    assert done == [True, True] and checked_pool_key(key, library.read_bytes()) == pool
    assert not [p for p in Path(folder, "lib").iterdir() if p.name.startswith(".")]  # no temporary left
