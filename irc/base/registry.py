"""Plug-in loading for the registries the core holds (ops, passes, and any a higher level adds).

The core never imports a dialect, a pass or a code generator. The composition point at the top
(`irc/plugins.py`) installs one loader per kind; the core calls `ensure(kind)` right before a
lookup that needs the registry full (parsing a module, parsing a pipeline). Loading is lazy so
that light entry points (`irc-opt --help`) import nothing they do not use."""
from __future__ import annotations

from typing import Callable

_LOADERS: dict[str, Callable[[], None]] = {}
_LOADED: set[str] = set()


def set_loader(kind: str, load: Callable[[], None]) -> None:
    """Install how to fill the registry `kind` (called once, at the first `ensure(kind)`)."""
    _LOADERS[kind] = load


def ensure(kind: str) -> None:
    """Fill the registry `kind` if it has a loader and has not been filled yet."""
    if kind in _LOADED or kind not in _LOADERS:
        return
    _LOADED.add(kind)
    _LOADERS[kind]()
