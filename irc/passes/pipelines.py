"""The pass pipeline of each compilation mode, per target (`cpu`, `cuda`).

One plain table, filled here and read by the frontend (`irc/frontend/modes.py`): a target owns
its pipelines, so a new target adds a row instead of editing the modes. A GPU pipeline places
ops (`insert-transfers`) once the graph is in its final shape (after `specialize` and the
second `canonicalize`) and before `fuse-elementwise`, so fused groups form on one side of the
transfers; `fuse-matvec` has no device kernel yet and is left out. Names of passes not
registered yet are allowed: the frontend runs the registered ones.
"""
from __future__ import annotations

_SIMPLIFY = ("canonicalize", "stabilize", "specialize", "canonicalize")

PIPELINES: dict[str, dict[str, tuple[str, ...]]] = {
    "cpu": {
        "FAST_RUN": _SIMPLIFY + ("fuse-elementwise", "fuse-matvec", "inplace"),
        "FAST_COMPILE": ("canonicalize",),
        "DebugMode": _SIMPLIFY,
        "ProfileMode": _SIMPLIFY,
    },
    "cuda": {
        "FAST_RUN": _SIMPLIFY + ("insert-transfers", "fuse-elementwise", "inplace"),
        "FAST_COMPILE": ("canonicalize", "insert-transfers"),
        "DebugMode": _SIMPLIFY + ("insert-transfers",),
        "ProfileMode": _SIMPLIFY + ("insert-transfers",),
    },
}


def pipeline(target: str, mode: str) -> tuple[str, ...]:
    """The passes `mode` runs for `target`, by name; a clear error for an unknown pair."""
    modes = PIPELINES.get(target)
    if modes is None:
        raise ValueError(f"no pass pipelines for target {target!r}; known targets: {', '.join(PIPELINES)}")
    if mode not in modes:
        raise ValueError(f"target {target!r} has no pipeline for mode {mode!r}; known: {', '.join(modes)}")
    return modes[mode]
