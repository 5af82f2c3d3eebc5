"""Importing this module registers every pass of `irc/passes/` in `PASS_REGISTRY`.

Every module of the package is imported (no list to keep in sync), plus `EXTRA_MODULES` for
passes that live elsewhere. Each import is defensive: a module that fails does not hide the
others' passes; `PASS_IMPORT_ERRORS` (shown by `irc-opt --list-passes` and by the unknown-pass
error) says which failed and why."""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from ..ir.pass_base import PASS_IMPORT_ERRORS

# Modules outside this package that register passes (imported after this package's own).
EXTRA_MODULES: tuple[str, ...] = ()
_PACKAGE, _, _SELF = __name__.rpartition(".")


def _load() -> None:
    own = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)]) if not m.name.startswith("_"))
    for full in [f"{_PACKAGE}.{m}" for m in own if m != _SELF] + list(EXTRA_MODULES):
        try:
            importlib.import_module(full)
        except ModuleNotFoundError as e:
            if e.name != full:
                PASS_IMPORT_ERRORS[full] = f"{type(e).__name__}: {e}"
        except Exception as e:  # keep the other passes usable; report it where asked
            PASS_IMPORT_ERRORS[full] = f"{type(e).__name__}: {e}"


_load()
