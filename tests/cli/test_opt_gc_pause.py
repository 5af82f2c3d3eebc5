"""`irc-opt` runs its pipeline with the cyclic garbage collector paused (irc/base/gc_pause.py),
as `irc.function` compiles: no collection starts inside `main`, and the state comes back."""
from __future__ import annotations

import contextlib
import gc
import io
import sys
from pathlib import Path

from irc.cli import opt

INPUT = Path(__file__).resolve().parents[1] / "passes" / "fuse-elementwise.mlir"


def test_no_collection_runs_inside_irc_opt(tmp_path):
    body = opt.main.__wrapped__.__code__
    seen = []

    def callback(phase, info):
        frame = sys._getframe()
        while frame is not None and frame.f_code is not body:
            frame = frame.f_back
        if phase == "start" and frame is not None:
            seen.append(info["generation"])
    old = gc.get_threshold()
    gc.set_threshold(1, 1, 1)  # without the pause, nearly every allocation would collect
    gc.callbacks.append(callback)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            status = opt.main([str(INPUT), "-p", "fuse-elementwise", "--split-input-file", "-t", "llvm"])
    finally:
        gc.callbacks.remove(callback)
        gc.set_threshold(*old)
    assert status == 0 and "define" in out.getvalue()
    assert seen == []
    assert gc.isenabled()
