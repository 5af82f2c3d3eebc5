"""Passes and the pass manager: an ordered list of passes run over a module, with hooks.

A pass is a small `@dataclass` whose fields are its options (`max_iterations` is spelled
`max-iterations` in a pipeline string), registered by name with `@register_pass`. The pass
manager runs each pass on the module, verifies after each one (so a pass that breaks the IR
is named at once), and calls its instrumentations (printing, timing, statistics, reproducers:
see `instrumentation.py`) around every pass, so `irc-opt` and `irc.function` share them.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Sequence

from .core import Operation
from .diagnostics import Diagnostic, IRError, PassError
from .pass_base import PASS_REGISTRY, Pass, load_passes, lookup_pass, option, register_pass  # noqa: F401  (re-exported)
from .pass_pipeline import format_pipeline, parse_pipeline
from .verifier import verify

__all__ = ["Pass", "PassError", "option", "PassManager", "PassInstrumentation", "PASS_REGISTRY",
           "register_pass", "lookup_pass", "load_passes"]


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


def verify_after_pipeline(module: Operation, hint: str) -> None:
    """The verifier once after a pipeline run without `verify_each`; an error carries `hint`
    (how to find the pass that broke the IR) as a note."""
    try:
        _verify(module, allow_unregistered=False)
    except IRError as e:
        note = Diagnostic(f"IR failed to verify after the pipeline; {hint}", severity="note")
        raise PassError([*e.diagnostics, note]) from None


def run_passes(module: Operation, passes: Sequence[Pass] | str, **kwargs: Any) -> None:
    """Convenience: run a pipeline (string or list of passes) over `module`."""
    pm = PassManager.parse(passes, **kwargs) if isinstance(passes, str) else PassManager(passes, **kwargs)
    pm.run(module)
