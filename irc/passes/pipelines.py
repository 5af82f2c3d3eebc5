"""Compilation modes: which passes a mode runs for a placement, and the stage texts it leaves.

A mode names passes that may not exist yet (the pipeline grows as passes land); only the
registered ones run, and those tagged with (or named in) `optimizer_excluding` are dropped.
A device placement runs the host pipeline with `insert-transfers` placed before fusion (so
fused groups form on one side of a transfer), followed by the folds that need placed types,
and without the passes that have no device kernels. The passes are built as objects, the placement given to `insert-transfers` as its
option value (a target asks for its pipeline with its placement: `runtime/targets/`)."""
from __future__ import annotations

from typing import Iterable

from ..base.config import config
from ..ir.core import Operation
from ..ir.instrumentation import render_ir
from ..ir.pass_manager import (PASS_REGISTRY, Pass, PassInstrumentation, PassManager, load_passes,
                               verify_after_pipeline)
from ..ir.pass_pipeline import format_pass

MODES = ("FAST_RUN", "FAST_COMPILE", "DebugMode", "ProfileMode", "NO_OPT")

PIPELINES: dict[str, tuple[str, ...]] = {
    "FAST_RUN": ("canonicalize", "scan-prune", "scan-pushout", "scan-pushout-sums", "stabilize", "specialize", "canonicalize",
                 "fuse-elementwise", "fuse-matvec", "inplace"),
    "FAST_COMPILE": ("canonicalize",),
    "DebugMode": ("canonicalize", "stabilize", "specialize", "canonicalize"),
    "ProfileMode": ("canonicalize", "stabilize", "specialize", "canonicalize"),
    "NO_OPT": (),  # `irc.Mode(optimizer=None)`
}


# Passes whose ops have no kernel on a device (its products are cuBLAS calls and reductions).
HOST_ONLY_PASSES = frozenset({"fuse-matvec"})
PLACEMENT_PASS = "insert-transfers"
# what a device placement runs right after placement: the folds that need placed types
AFTER_PLACEMENT = ("specialize-device",)


def pipeline_names(mode: str, device: str | None = None) -> tuple[str, ...]:
    """The pass names `mode` runs: the host list, or for a placement `device` the same with
    placement inserted before fusion and host-only passes dropped."""
    names = PIPELINES[mode]
    if device is None:
        return names
    names = tuple(n for n in names if n not in HOST_ONLY_PASSES)
    placed = (PLACEMENT_PASS,) + (AFTER_PLACEMENT if "specialize" in names else ())
    if "fuse-elementwise" in names:
        i = names.index("fuse-elementwise")
        return names[:i] + placed + names[i:]
    return names + placed


def _split_tags(text: str | Iterable[str]) -> set[str]:
    if isinstance(text, str):
        return {t for t in text.split(":") if t}
    return {t for item in text for t in _split_tags(item)}


def build_pipeline(mode: str, device: str | None = None, excluding: str | Iterable[str] = ()) -> list[Pass]:
    """Fresh passes of `mode` for placement `device` (None: the host): registered passes only,
    minus those tagged or named in `excluding` (tags, or colon-separated tag lists)."""
    load_passes()
    drop = _split_tags(excluding)
    passes: list[Pass] = []
    for name in pipeline_names(mode, device):
        cls = PASS_REGISTRY.get(name)
        if cls is None or name in drop or drop.intersection(getattr(cls, "tags", ())):
            continue
        passes.append(cls(device=device) if name == PLACEMENT_PASS else cls())
    return passes


def pipeline_for(mode: str, excluding: str | Iterable[str] = "", device: str | None = None) -> str:
    """`mode`'s pipeline for `device` as the text `irc-opt -p` takes."""
    return ",".join(format_pass(p, defaults=False) for p in build_pipeline(mode, device, excluding))


def check_mode(mode: str | None) -> str:
    """The mode to use (`config.mode` when None); a clear error for an unknown one."""
    mode = config.mode if mode is None else getattr(mode, "name", mode)
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; allowed: {', '.join(MODES)}, or an irc.Mode")
    return mode


class StageRecorder(PassInstrumentation):
    """Keeps the module's text before the pipeline (`tensor`) and, with `per_pass`, after each
    pass (by pass name; a pass that runs twice keeps its last text, also under `name#1`,
    `name#2`). `irc.function` records per pass only when asked (`Function.ir`): printing
    every stage was a quarter of a warm compile."""

    def __init__(self, per_pass: bool = True) -> None:
        self.stages: dict[str, str] = {}
        self.per_pass = per_pass
        self._counts: dict[str, int] = {}

    def before_pipeline(self, pm: PassManager, module: Operation) -> None:
        self.stages.setdefault("tensor", render_ir(module, debuginfo=True))

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        if not self.per_pass:
            return
        text = render_ir(module, debuginfo=True)
        n = self._counts.get(pass_.name, 0) + 1
        self._counts[pass_.name] = n
        self.stages[f"{pass_.name}#{n}"] = text
        self.stages[pass_.name] = text


def optimize(module: Operation, mode: str, name: str, record: bool = True,
             instrumentations: Iterable[PassInstrumentation] = (),
             per_pass: bool = True, device: str | None = None,
             excluding: Iterable[str] = (), tensor_text: str | None = None) -> dict[str, str]:
    """Run `mode`'s pipeline for placement `device` over `module` in place, without the passes tagged
    or named in `config.optimizer_excluding` and `excluding`; returns the stage texts
    (`tensor_text`: the module's text as it comes, when the caller has rendered it already).
    (`config.dump_ir` is written by `irc.function`, replayably: see `runtime/ir_dump.py`.)
    The IR is verified once after the pipeline, or after each pass with
    `config.verify_each_pass` or in DebugMode."""
    insts: list[PassInstrumentation] = []
    recorder = StageRecorder(per_pass)
    if tensor_text is not None:
        recorder.stages["tensor"] = tensor_text
    if record:
        insts.append(recorder)
    insts.extend(instrumentations)
    passes = build_pipeline(mode, device, [config.optimizer_excluding, *excluding])
    each = config.verify_each_pass or mode == "DebugMode"
    PassManager(passes, insts, verify_each=each).run(module)
    if passes and not each:
        verify_after_pipeline(module, "irc.config.verify_each_pass=True names the pass")
    if record:  # the final text, rendered once
        optimized = render_ir(module, debuginfo=True)
        recorder.stages.setdefault("tensor", optimized)  # no pipeline ran: the module as it came
        recorder.stages["optimized"] = optimized
    return recorder.stages
