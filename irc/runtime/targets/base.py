"""A target: what `irc.function` and `irc-opt` ask of one backend, in one object.

`Target` holds the backend's device kind (`name`, what `config.device` names), the placement
its tensor types carry (None for the host), the passes it needs (the tensor pipeline of a mode
with that placement, then its loop-level passes), how it compiles an optimized module into an
executor, where it keeps shared values, whether its device can be used, and the stages it
renders (`irc-opt -t NAME`, `f.ir(NAME)`, `dump_ir`). Backends build one each (`cpu.py`,
`cuda.py`); the table (`__init__.py`) lists them.

A field is a plain function so that a test or a plug-in can swap one (`dataclasses.replace`)
and a shared variable can pickle the `to_storage` it keeps."""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ...base.config import config
from ...ir.core import Operation
from ...ir.instrumentation import render_ir
from ...ir.pass_base import Pass, lookup_pass
from ...passes.pipelines import build_pipeline


@dataclass(frozen=True)
class Stage:
    """An output rendered from a module at any level (tensor, loop, kernels):
    `render(module, **options) -> str`. Options are the printing flags (`generic`, `debuginfo`)
    and what a target knows of its device (`arch`); a render takes the ones it names."""

    name: str
    help: str
    render: Callable[..., str]

    def emit(self, module: Operation, **options: Any) -> str:
        """Render `module`, passing only the options `render` accepts."""
        try:
            params = inspect.signature(self.render).parameters
        except (TypeError, ValueError):
            return self.render(module)
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return self.render(module, **options)
        return self.render(module, **{k: v for k, v in options.items() if k in params})


def render_mlir(module: Operation, generic: bool = False, debuginfo: bool = False) -> str:
    """The module as MLIR text (what irc-opt prints by default)."""
    return render_ir(module, generic=generic, debuginfo=debuginfo)


MLIR = Stage("mlir", "MLIR text of the module (the default)", render_mlir)


def always_available(index: int) -> str | None:
    return None


def keep_on_host(value: Any) -> Any:
    """The host's storage: the value as it is."""
    return value


def as_optimized(module: Operation) -> Operation:
    return module


def no_options() -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Target:
    """One backend. `compile(module, func, config, profiling) -> (executor, native or None)`;
    `loop_passes()` fresh loop-level passes (what `dump_ir` replays after the tensor pipeline);
    `why_unavailable(index) -> str | None`; `to_storage(array) -> value` where `irc.shared`
    keeps a value; `codegen_input(module)` the optimized module as the code generator takes it
    (what `f.ir` renders target stages from); `stage_options()` what the stages render with
    for a compiled function (the GPU's arch); `dump_stages` the stages `dump_ir` writes."""

    name: str
    placement: str | None
    summary: str
    compile: Callable[[Any, Any, Any, bool], tuple[Any, Any]]
    loop_passes: Callable[[], list[Pass]]
    stages: dict[str, Stage] = field(default_factory=dict)
    dump_stages: tuple[str, ...] = ()
    why_unavailable: Callable[[int], str | None] = always_available
    to_storage: Callable[[Any], Any] = keep_on_host
    codegen_input: Callable[[Operation], Operation] = as_optimized
    stage_options: Callable[[], dict[str, Any]] = no_options

    def tensor_passes(self, mode: str, excluding: Iterable[str] = ()) -> list[Pass]:
        """Fresh tensor-level passes `mode` runs here, without those `config.optimizer_excluding`
        or `excluding` name or tag; a device target's placement pass is given its placement."""
        return build_pipeline(mode, self.placement, [config.optimizer_excluding, *excluding])

    def render(self, stage: str, module: Operation) -> str:
        """Stage `stage` of `module`, rendered for this target's device."""
        return self.stages[stage].emit(module, **self.stage_options())


def registered_pass(name: str) -> Pass:
    """A fresh instance of the registered pass `name`: the conversions (`lower-to-loops`,
    `outline-kernels`) load with the registry at the first compile, not with the target table
    (so `import irc.tensor` stays light)."""
    cls = lookup_pass(name)
    if cls is None:
        raise LookupError(f"no pass named {name!r} is registered")
    return cls()
