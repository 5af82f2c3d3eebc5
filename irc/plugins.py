"""The composition point: what fills the core's registries, installed once when `irc` is imported.

Levels stand straight (ir < dialects < passes < conversion < codegen < runtime < frontend
< cli): a level only imports the ones below it, so the core cannot load its own plug-ins. This
module, above all of them, tells the core where dialects and passes come from. Nothing is
imported until a registry is first needed."""
from __future__ import annotations

import importlib

from .base.registry import set_loader


def install() -> None:
    set_loader("dialects", lambda: importlib.import_module("irc.dialects").load_all())
    set_loader("passes", _load_passes)


def _load_passes() -> None:
    """The passes that stay on one level, then the conversions between levels."""
    importlib.import_module("irc.passes.registered")
    importlib.import_module("irc.conversion")
