"""`irc-opt` runs its pipeline with the cyclic garbage collector paused (irc/base/gc_pause.py),
as `irc.function` compiles: no collection starts inside `main`, and the state comes back."""
from __future__ import annotations

import contextlib
import gc
import io
from pathlib import Path

from gc_watch import collections_inside
from irc.cli import opt

INPUT = Path(__file__).resolve().parents[1] / "passes" / "fuse-elementwise.mlir"


def test_no_collection_runs_inside_irc_opt(tmp_path):
    out = io.StringIO()
    with collections_inside(opt.main.__wrapped__.__code__) as seen, contextlib.redirect_stdout(out):
        status = opt.main([str(INPUT), "-p", "fuse-elementwise", "--split-input-file", "-t", "llvm"])
    assert status == 0 and "define" in out.getvalue()
    assert seen == []
    assert gc.isenabled()
