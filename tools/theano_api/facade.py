"""The throw-away `theano` package: Theano's module names mapped onto a backend (irc or PyTensor).

Copied as `theano/__init__.py` into the harness's run directory. Every `theano.X` module is a
proxy whose attributes come from the backend modules `backends.backend_candidates` lists; a name
the backend lacks is a `Missing` class, so that Theano's test files import whole and only the
tests that use the name fail, with "<backend> has no theano.X.name". Theano's own test helpers
and `theano.compat` (modules whose path has a `tests` part, or under `theano.compat`) are loaded
from Theano's files copied next to this one.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types

from theano_api_backends import BACKENDS, backend_candidates
from theano_api_tolerances import HELPERS

BACKEND = os.environ.get("THEANO_API_BACKEND", "irc")
_HERE = os.path.dirname(os.path.abspath(__file__))
_THEANOS_OWN = ("theano.compat",)
# names pytest probes on every module: absent, as in Theano's modules
_PROBED = ("__", "pytest_", "setup", "setUp", "teardown", "tearDown")


class _MissingMeta(type):
    """Stands for a name the backend lacks: usable in imports, as a base class and in isinstance."""

    def __call__(cls, *args, **kwargs):
        raise NotImplementedError(f"{BACKEND} has no {cls._theano_name}")

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return missing(f"{cls._theano_name}.{name}")

    def __iter__(cls):
        raise NotImplementedError(f"{BACKEND} has no {cls._theano_name}")


def missing(theano_name: str) -> type:
    return _MissingMeta(theano_name.rsplit(".", 1)[-1], (), {"_theano_name": theano_name})


def _import_or_none(name: str):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _is_theanos_own(fullname: str) -> bool:
    return "tests" in fullname.split(".") or fullname.startswith(_THEANOS_OWN)


def _own_path(fullname: str) -> str | None:
    base = os.path.join(os.path.dirname(_HERE), *fullname.split("."))
    if os.path.isfile(os.path.join(base, "__init__.py")):
        return os.path.join(base, "__init__.py")
    if os.path.isfile(base + ".py"):
        return base + ".py"
    return None


def _lookup(fullname: str, targets: list, name: str):
    if name.startswith(_PROBED):
        raise AttributeError(name)
    renamed = BACKENDS[BACKEND]["names"].get(name, name)
    for target in targets:
        for candidate in (name, renamed):
            if hasattr(target, candidate):
                value = getattr(target, candidate)
                if isinstance(value, types.ModuleType) and (_is_theanos_own(f"{fullname}.{name}") or
                                                            _import_or_none(f"{fullname}.{name}")):
                    return sys.modules[f"{fullname}.{name}"]
                return value
    if name in HELPERS.get(fullname, {}):
        return HELPERS[fullname][name]
    if _own_path(f"{fullname}.{name}"):
        return importlib.import_module(f"{fullname}.{name}")
    return missing(f"{fullname}.{name}")


class _Proxy(types.ModuleType):
    """A Theano module whose names come from the backend's modules."""

    def __init__(self, fullname: str, targets: list):
        super().__init__(fullname)
        self.__path__ = []
        self._targets = targets

    def __getattr__(self, name):
        if name == "_targets":
            raise AttributeError(name)
        return _lookup(self.__name__, self._targets, name)


class _Loader(importlib.abc.Loader):
    def create_module(self, spec):
        targets = [m for m in (_import_or_none(n) for n in backend_candidates(spec.name, BACKEND)) if m]
        return _Proxy(spec.name, targets)

    def exec_module(self, module):
        pass


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("theano."):
            return None
        if _is_theanos_own(fullname):
            own = _own_path(fullname)
            if own is None:
                return None
            is_package = own.endswith("__init__.py")
            return importlib.util.spec_from_file_location(
                fullname, own, submodule_search_locations=[os.path.dirname(own)] if is_package else None)
        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)


sys.meta_path.insert(0, _Finder())
_root = importlib.import_module(BACKENDS[BACKEND]["root"])


def __getattr__(name):
    return _lookup(__name__, [_root], name)
