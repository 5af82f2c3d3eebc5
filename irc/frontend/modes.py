"""Compilation modes: which pass pipeline a mode runs, and the stage texts it leaves behind.

A mode names passes that may not exist yet (the pipeline grows as passes land); only the
registered ones run, and those tagged with (or named in) `optimizer_excluding` are dropped."""
from __future__ import annotations

import copy
import os
from typing import Iterable, TextIO

from ..config import config
from ..ir.core import Operation
from ..ir.instrumentation import render_ir
from ..ir.pass_manager import PASS_REGISTRY, Pass, PassInstrumentation, PassManager, load_passes

MODES = ("FAST_RUN", "FAST_COMPILE", "DebugMode", "ProfileMode", "NO_OPT")

PIPELINES: dict[str, tuple[str, ...]] = {
    "FAST_RUN": ("canonicalize", "stabilize", "specialize", "canonicalize", "fuse-elementwise", "fuse-matvec",
                 "inplace"),
    "FAST_COMPILE": ("canonicalize",),
    "DebugMode": ("canonicalize", "stabilize", "specialize", "canonicalize"),
    "ProfileMode": ("canonicalize", "stabilize", "specialize", "canonicalize"),
    "NO_OPT": (),
}
# Theano's optimizer names -> the pipeline they stand for here
OPTIMIZERS = {"fast_run": "FAST_RUN", "o4": "FAST_RUN", "o3": "FAST_RUN", "fast_compile": "FAST_COMPILE",
              "o1": "FAST_COMPILE", "merge": "FAST_COMPILE", "None": "NO_OPT", None: "NO_OPT"}
# every linker runs native code, except 'py' (op by op in numpy: the reference executor);
# the '_nogc' ones keep temporaries between calls (as config.allow_gc=False)
LINKERS = ("cvm", "vm", "c", "c|py", "c|py_nogc", "cvm_nogc", "vm_nogc", "py")


class Mode:
    """Theano's `Mode(linker=, optimizer=)`: how `irc.function` compiles. `optimizer` names a
    pipeline ('fast_run', 'fast_compile', None for none); `linker` 'py' runs op by op in numpy,
    every other one native code. `excluding(*tags)`/`including(*tags)` give modified copies."""

    def __init__(self, linker: str | None = None, optimizer: str | None = "fast_run"):
        if linker is not None and linker not in LINKERS:
            raise ValueError(f"unknown linker {linker!r}; allowed: {', '.join(LINKERS)}")
        if optimizer not in OPTIMIZERS:
            raise ValueError(f"unknown optimizer {optimizer!r}; allowed: 'fast_run', 'fast_compile', None")
        self.linker = linker or "cvm"
        self.optimizer = optimizer
        self.excluded: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        """The pipeline this mode runs (a key of PIPELINES)."""
        return OPTIMIZERS[self.optimizer]

    @property
    def allow_gc(self) -> bool | None:
        """False for the '_nogc' linkers; None: `config.allow_gc` decides."""
        return False if self.linker.endswith("_nogc") else None

    def excluding(self, *tags: str) -> "Mode":
        return self._with(self.excluded + tags)

    def including(self, *tags: str) -> "Mode":
        return self._with(tuple(t for t in self.excluded if t not in tags))

    def _with(self, excluded: tuple[str, ...]) -> "Mode":
        mode = copy.copy(self)
        mode.excluded = excluded
        return mode

    def __repr__(self) -> str:
        return f"{type(self).__name__}(linker={self.linker!r}, optimizer={self.optimizer!r})"


class ProfileMode(Mode):
    """Compiles with per-op profiling (no fusion, so each op keeps its own time) and keeps the
    profile of every function it compiled; `print_summary()` prints them."""

    def __init__(self, linker: str | None = None, optimizer: str | None = "fast_run"):
        super().__init__(linker, optimizer)
        self.profiles: list = []

    @property
    def name(self) -> str:
        return "ProfileMode"

    def print_summary(self, file: TextIO | None = None) -> None:
        for stats in self.profiles:
            stats.summary(file=file)


def get_default_mode() -> Mode:
    """`config.mode` as a Mode."""
    return Mode(optimizer="fast_compile" if config.mode == "FAST_COMPILE" else "fast_run")


def check_mode(mode: "str | Mode | None") -> str:
    """The pipeline name of `mode` (`config.mode` when None); a clear error for an unknown one."""
    name = config.mode if mode is None else getattr(mode, "name", mode)
    if name not in MODES:
        raise ValueError(f"unknown mode {name!r}; allowed: {', '.join(MODES)}, or an irc.Mode")
    return name


def _split_tags(text: str | Iterable[str]) -> set[str]:
    if isinstance(text, str):
        return {t for t in text.split(":") if t}
    return set(text)


def pipeline_for(mode: str, excluding: str | Iterable[str] = "") -> str:
    """The pipeline string `mode` runs now: registered passes only, minus excluded ones."""
    load_passes()
    drop = _split_tags(excluding)
    names = []
    for name in PIPELINES[mode]:
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
        self.stages.setdefault("tensor", render_ir(module, debuginfo=True))

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        if not self.per_pass:
            return
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
             per_pass: bool = True, excluding: Iterable[str] = ()) -> dict[str, str]:
    """Run `mode`'s pipeline over `module` in place; returns the recorded stage texts.
    (`config.dump_ir` is written by `irc.function`, replayably: see `runtime/ir_dump.py`.)"""
    insts: list[PassInstrumentation] = []
    recorder = StageRecorder(per_pass)
    if record:
        insts.append(recorder)
    insts.extend(instrumentations)
    pipeline = pipeline_for(mode, ":".join([config.optimizer_excluding, *excluding]))
    pm = PassManager.parse(pipeline, instrumentations=insts) if pipeline else PassManager([], insts)
    pm.run(module)
    if record:
        recorder.stages.setdefault("tensor", render_ir(module, debuginfo=True))
        recorder.stages["optimized"] = render_ir(module, debuginfo=True)
    return recorder.stages
