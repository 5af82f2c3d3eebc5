"""Passes and the pass manager: an ordered list of passes run over a module, with hooks.

A pass is a small `@dataclass` whose fields are its options (`max_iterations` is spelled
`max-iterations` in a pipeline string), registered by name with `@register_pass`. The pass
manager runs each pass on the module, verifies after each one (so a pass that breaks the IR
is named at once), and calls its instrumentations (printing, timing, statistics, reproducers:
see `instrumentation.py`) around every pass, so `irc-opt` and `irc.function` share them.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, ClassVar, Iterable, Sequence

from .core import Operation
from .diagnostics import Diagnostic, IRError, PassError
from ..registry import ensure
from .location import Location, UNKNOWN_LOC

__all__ = ["Pass", "PassError", "option", "PassManager", "PassInstrumentation", "PASS_REGISTRY",
           "register_pass", "lookup_pass", "load_passes"]


class Pass:
    """Base of all passes. Subclasses are `@dataclass`es: their fields are the options.

    `stats` is a fresh `Counter` for each run; `statistics` maps a counter's name to its
    description for the statistics report. Raise `PassError` from `run` to fail."""

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    tags: ClassVar[tuple[str, ...]] = ()
    statistics: ClassVar[dict[str, str]] = {}
    # Set by the pipeline parser: where this pass was named, so diagnostics can point there.
    pipeline_location: Location = UNKNOWN_LOC
    stats: "Counter[str]"

    def __post_init__(self) -> None:
        """Options out of their declared range are refused here, so a pass never sees one."""
        for f in dataclasses.fields(self) if dataclasses.is_dataclass(self) else ():
            low = f.metadata.get("minimum")
            value = getattr(self, f.name)
            if low is not None and not (isinstance(value, (int, float)) and value >= low):
                raise ValueError(f"option '{f.name.replace('_', '-')}' must be at least {low}, got {value!r}")

    def run(self, module: Operation) -> None:
        raise NotImplementedError(f"pass '{self.name}' does not implement run()")

    @property
    def display_name(self) -> str:
        """The name MLIR shows in dumps and reports: the class name."""
        return type(self).__name__

    def options(self) -> dict[str, Any]:
        """Option values by pipeline spelling (`max-iterations`), in declaration order."""
        if not dataclasses.is_dataclass(self):
            return {}
        return {f.name.replace("_", "-"): getattr(self, f.name) for f in dataclasses.fields(self)}

    def error(self, message: str, location: Location = UNKNOWN_LOC) -> PassError:
        """A `PassError` to raise from `run`, located at the op that could not be handled."""
        return PassError(Diagnostic(message, location))


def option(default: Any, help: str = "", minimum: int | float | None = None) -> Any:
    """A pass option (a dataclass field) with its help text and, for numbers, a lower bound."""
    metadata: dict[str, Any] = {"help": help} if help else {}
    if minimum is not None:
        metadata["minimum"] = minimum
    return dataclasses.field(default=default, metadata=metadata)


PASS_REGISTRY: dict[str, type[Pass]] = {}


def register_pass(cls: type[Pass]) -> type[Pass]:
    """Class decorator: make a pass available to pipeline strings under `cls.name`."""
    if not cls.name:
        raise ValueError(f"pass class {cls.__name__} has no `name`")
    other = PASS_REGISTRY.get(cls.name)
    if other is not None and other.__qualname__ != cls.__qualname__:
        raise ValueError(f"pass name '{cls.name}' registered twice "
                         f"({other.__qualname__}, {cls.__qualname__})")
    if not dataclasses.is_dataclass(cls):
        cls = dataclasses.dataclass(cls)
    PASS_REGISTRY[cls.name] = cls
    return cls


def load_passes() -> None:
    """Fill `PASS_REGISTRY` through the loader the top installed (see `irc/plugins.py`)."""
    ensure("passes")


def lookup_pass(name: str) -> type[Pass] | None:
    load_passes()
    return PASS_REGISTRY.get(name)


class PassInstrumentation:
    """Hooks around each pass. `before_pass` hooks run in registration order, `after_pass`
    and `after_failure` in reverse, so the first instrumentation added wraps all others."""

    def before_pipeline(self, pm: "PassManager", module: Operation) -> None:
        pass

    def after_pipeline(self, pm: "PassManager", module: Operation, failed: bool) -> None:
        pass

    def before_pass(self, pass_: Pass, module: Operation) -> None:
        pass

    def after_pass(self, pass_: Pass, module: Operation) -> None:
        pass

    def after_failure(self, pass_: Pass, module: Operation, error: Exception) -> None:
        pass


def _verify(module: Operation, allow_unregistered: bool) -> None:
    from .verifier import verify
    verify(module, allow_unregistered=allow_unregistered)


class PassManager:
    """Runs `passes` in order over a module. With `verify_each`, the IR is verified after
    every pass; a verifier error then fails that pass (naming it), like a pass's own error.
    `allow_unregistered` lets that verifier accept ops of unknown dialects."""

    def __init__(self, passes: Iterable[Pass] = (), instrumentations: Iterable[PassInstrumentation] = (),
                 verify_each: bool = True, allow_unregistered: bool = False):
        self.passes: list[Pass] = list(passes)
        self.instrumentations: list[PassInstrumentation] = list(instrumentations)
        self.verify_each = verify_each
        self.allow_unregistered = allow_unregistered

    @classmethod
    def parse(cls, pipeline: str, instrumentations: Iterable[PassInstrumentation] = (),
              verify_each: bool = True, exclude_tags: Iterable[str] = (),
              allow_unregistered: bool = False) -> "PassManager":
        """Build from a pipeline string such as `canonicalize,stabilize{max-iterations=3}`;
        passes carrying any of `exclude_tags` are left out (`optimizer_excluding`)."""
        from .pass_pipeline import parse_pipeline
        pm = cls(parse_pipeline(pipeline), instrumentations, verify_each, allow_unregistered)
        return pm.excluding(exclude_tags)

    def add(self, pass_: Pass) -> "PassManager":
        self.passes.append(pass_)
        return self

    def add_instrumentation(self, inst: PassInstrumentation) -> "PassManager":
        self.instrumentations.append(inst)
        return self

    def excluding(self, tags: Iterable[str]) -> "PassManager":
        """Drop (in place) the passes that carry any of `tags`; returns self."""
        drop = set(tags)
        if drop:
            self.passes = [p for p in self.passes if not drop.intersection(p.tags)]
        return self

    def pipeline_string(self) -> str:
        """The canonical textual form, `builtin.module(a,b{opt=1})`, which parses back."""
        from .pass_pipeline import format_pipeline
        return format_pipeline(self.passes)

    def run(self, module: Operation) -> None:
        """Run every pass; on failure the after_failure hooks run and the error propagates."""
        insts = self.instrumentations
        for inst in insts:
            inst.before_pipeline(self, module)
        failed = True
        try:
            for pass_ in self.passes:
                self._run_one(pass_, module)
            failed = False
        finally:
            for inst in reversed(insts):
                inst.after_pipeline(self, module, failed)

    def _run_one(self, pass_: Pass, module: Operation) -> None:
        insts = self.instrumentations
        pass_.stats = Counter()
        for inst in insts:
            inst.before_pass(pass_, module)
        try:
            pass_.run(module)
            if self.verify_each:
                try:
                    _verify(module, self.allow_unregistered)
                except IRError as e:
                    raise _broken_by(pass_, e) from None
        except Exception as e:  # an error or a crash; not KeyboardInterrupt
            for inst in reversed(insts):
                inst.after_failure(pass_, module, e)
            raise
        for inst in reversed(insts):
            inst.after_pass(pass_, module)


def _broken_by(pass_: Pass, err: IRError) -> PassError:
    """A verifier error after a pass, with a note that names the pass that broke the IR."""
    note = Diagnostic(f"IR failed to verify after pass '{pass_.name}' ({pass_.display_name})",
                      pass_.pipeline_location, severity="note")
    return PassError([*err.diagnostics, note])


def run_passes(module: Operation, passes: Sequence[Pass] | str, **kwargs: Any) -> None:
    """Convenience: run a pipeline (string or list of passes) over `module`."""
    pm = PassManager.parse(passes, **kwargs) if isinstance(passes, str) else PassManager(passes, **kwargs)
    pm.run(module)
