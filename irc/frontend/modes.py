"""Compilation modes: which pass pipeline a mode runs, and the stage texts it leaves behind.

The pipelines per (target, mode) are the targets' table (`irc/passes/pipelines.py`); the
target is `config.device_kind` unless given. A pipeline may name passes that do not exist yet;
only the registered ones run, and those tagged with (or named in) `optimizer_excluding` are
dropped."""
from __future__ import annotations

import os
from typing import Iterable

from ..ir.core import Operation
from ..ir.pass_manager import PASS_REGISTRY, Pass, PassInstrumentation, PassManager, load_passes
from ..passes.pipelines import pipeline

MODES = ("FAST_RUN", "FAST_COMPILE", "DebugMode", "ProfileMode")


def check_mode(mode: str | None) -> str:
    """The mode to use (`config.mode` when None); a clear error for an unknown one."""
    from ..config import config
    mode = config.mode if mode is None else getattr(mode, "name", mode)
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; allowed: {', '.join(MODES)}")
    return mode


def _split_tags(text: str | Iterable[str]) -> set[str]:
    if isinstance(text, str):
        return {t for t in text.split(":") if t}
    return set(text)


def current_target() -> str:
    """The target `config.device` names (`cpu`, `cuda`)."""
    from ..config import config
    return config.device_kind


def pipeline_for(mode: str, excluding: str | Iterable[str] = "", target: str | None = None) -> str:
    """The pipeline string `mode` runs now on `target` (the configured one when None):
    registered passes only, minus excluded ones."""
    load_passes()
    drop = _split_tags(excluding)
    names = []
    for name in pipeline(target or current_target(), mode):
        cls = PASS_REGISTRY.get(name)
        if cls is None or name in drop or drop.intersection(getattr(cls, "tags", ())):
            continue
        names.append(name)
    return ",".join(names)


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
        from ..ir.instrumentation import render_ir
        self.stages.setdefault("tensor", render_ir(module, debuginfo=True))

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        if not self.per_pass:
            return
        from ..ir.instrumentation import render_ir
        text = render_ir(module, debuginfo=True)
        n = self._counts.get(pass_.name, 0) + 1
        self._counts[pass_.name] = n
        self.stages[f"{pass_.name}#{n}"] = text
        self.stages[pass_.name] = text


_dump_counter = 0


def dump_folder(root: str, name: str) -> str:
    """A fresh sub-folder of `config.dump_ir` for one function: `<root>/<NNN>_<name>`."""
    global _dump_counter
    _dump_counter += 1
    return os.path.join(root, f"{os.getpid()}_{_dump_counter:03d}_{name}")


def optimize(module: Operation, mode: str, name: str, record: bool = True,
             instrumentations: Iterable[PassInstrumentation] = (),
             per_pass: bool = True, target: str | None = None) -> dict[str, str]:
    """Run `mode`'s pipeline for `target` (the configured one when None) over `module` in
    place; returns the recorded stage texts.
    (`config.dump_ir` is written by `irc.function`, replayably: see `runtime/ir_dump.py`.)"""
    from ..config import config
    insts: list[PassInstrumentation] = []
    recorder = StageRecorder(per_pass)
    if record:
        insts.append(recorder)
    insts.extend(instrumentations)
    passes = pipeline_for(mode, config.optimizer_excluding, target)
    pm = PassManager.parse(passes, instrumentations=insts) if passes else PassManager([], insts)
    pm.run(module)
    if record:
        from ..ir.instrumentation import render_ir
        recorder.stages.setdefault("tensor", render_ir(module, debuginfo=True))
        recorder.stages["optimized"] = render_ir(module, debuginfo=True)
    return recorder.stages
