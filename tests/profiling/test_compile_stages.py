"""Compile time per stage below the passes: `f.maker.compile_times` (every function) and
`irc-opt --timing` show the same rows, and a cache hit skips the three LLVM ones."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import irc
import irc.tensor as T
from irc.base.compile_stages import LLVM_CHILDREN, LLVM_IR, LLVM_OPT, LLVM_TIER0, LOAD, LOWER, MACHINE_CODE

ROOT = Path(__file__).resolve().parents[2]
LLVM_ROWS = (LLVM_IR, LLVM_OPT, MACHINE_CODE)


def _compile(tmp_path, monkeypatch):
    monkeypatch.setenv("IRC_COMPILEDIR", str(tmp_path))
    x = T.vector("x")
    return irc.function([x], T.tanh(x) * 3 + 1)


def test_a_cold_compile_lists_every_stage_a_warm_one_skips_llvm(tmp_path, monkeypatch):
    cold = _compile(tmp_path, monkeypatch).maker.compile_times
    # (the wait for compile processes: a row only where they run, not under pytest-xdist)
    names = [n for n in cold if n != LLVM_CHILDREN]
    assert names[0] == "frontend (graph to tensor IR)" and any(n.startswith("pass ") for n in names)
    assert names[-5:] == [LOWER, *LLVM_ROWS, LOAD]
    assert all(cold[n] > 0 for n in LLVM_ROWS)
    warm = _compile(tmp_path, monkeypatch).maker.compile_times
    assert not any(n in warm for n in LLVM_ROWS)
    assert "LLVM [cache hit: object code from the disk cache]" in warm and LOAD in warm


def test_irc_opt_timing_shows_the_llvm_stages_of_an_asm_target():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "irc.cli.opt", str(ROOT / "examples" / "hello.mlir"), "-t", "asm",
                          "--timing"], capture_output=True, text=True, env=env, check=True)
    rows = [line.split(")", 1)[1].strip() for line in out.stderr.splitlines() if "%)" in line]
    assert rows == ["Parser", LOWER, *LLVM_ROWS, "Output", "Total"], out.stderr


def test_irc_opt_timing_shows_the_tier0_stage_of_the_asm_tier0_target():
    """`-t asm-tier0`: the quick code a first compile runs (`config.compile_tiers`), one LLVM row."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "irc.cli.opt", str(ROOT / "examples" / "hello.mlir"), "-t",
                          "asm-tier0", "--timing"], capture_output=True, text=True, env=env, check=True)
    rows = [line.split(")", 1)[1].strip() for line in out.stderr.splitlines() if "%)" in line]
    assert rows == ["Parser", LOWER, LLVM_IR, LLVM_TIER0, "Output", "Total"], out.stderr
    assert "irc.predict" in out.stdout and "\tret" in out.stdout  # assembly
