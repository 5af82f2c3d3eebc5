"""Theano's mode objects: `irc.Mode(linker=, optimizer=)`, `irc.ProfileMode`,
`get_default_mode()`. A mode's `name` is the pipeline it runs (irc/passes/pipelines.py)."""
from __future__ import annotations

import copy
from typing import TextIO

from ..base.config import config
from ..passes.pipelines import MODES, check_mode

# Theano's `theano.compile.mode.FAST_RUN`/`FAST_COMPILE`: the mode names, which `mode=` accepts
FAST_RUN = "FAST_RUN"
FAST_COMPILE = "FAST_COMPILE"
# Theano's optimizer names -> the pipeline they stand for here
OPTIMIZERS = {"fast_run": "FAST_RUN", "o4": "FAST_RUN", "o3": "FAST_RUN", "fast_compile": "FAST_COMPILE",
              "o1": "FAST_COMPILE", "merge": "FAST_COMPILE", "None": "NO_OPT", None: "NO_OPT"}
# every linker runs the target's compiled code, except 'py' (op by op in numpy: the reference
# executor); the '_nogc' ones keep temporaries between calls (as config.allow_gc=False)
LINKERS = ("cvm", "vm", "c", "c|py", "c|py_nogc", "cvm_nogc", "vm_nogc", "py")
assert set(OPTIMIZERS.values()) <= set(MODES)


class Mode:
    """How `irc.function` compiles: `optimizer` names a pipeline ('fast_run', 'fast_compile',
    None for none), `linker` 'py' runs op by op in numpy and every other one compiled code.
    `excluding(*tags)`/`including(*tags)` give modified copies (tags as in
    `config.optimizer_excluding`)."""

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
        """The pipeline this mode runs (a key of `irc.passes.pipelines.PIPELINES`)."""
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


class _NamedMode(Mode):
    """A mode given by a name that no optimizer stands for ('DebugMode'): `get_mode`'s answer."""

    def __init__(self, pipeline: str):
        super().__init__()
        self._pipeline = pipeline

    @property
    def name(self) -> str:
        return self._pipeline


def get_mode(mode: "str | Mode | None" = None) -> Mode:
    """Theano's `compile.mode.get_mode`: the Mode of a mode name ('FAST_RUN', 'FAST_COMPILE',
    'DebugMode', 'ProfileMode', 'NO_OPT'; None: `config.mode`); a Mode is returned as it is.
    An unknown name is a ValueError listing the known ones."""
    if isinstance(mode, Mode):
        return mode
    name = check_mode(mode)
    if name == "ProfileMode":
        return ProfileMode()
    optimizer = {"FAST_RUN": "fast_run", "FAST_COMPILE": "fast_compile", "NO_OPT": None}.get(name, "fast_run")
    return Mode(optimizer=optimizer) if name in ("FAST_RUN", "FAST_COMPILE", "NO_OPT") else _NamedMode(name)
