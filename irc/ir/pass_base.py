"""The `Pass` base class and the registry of passes by name: below both the pipeline parser
(which looks passes up) and the pass manager (which runs them)."""
from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any, ClassVar

from ..base.registry import ensure
from .core import Operation
from .diagnostics import Diagnostic, PassError
from .location import Location, UNKNOWN_LOC


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
# module -> why it failed to import: its passes are missing (said by `--list-passes` and by the
# unknown-pass error); filled by whatever loads the pass modules
PASS_IMPORT_ERRORS: dict[str, str] = {}


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
