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
from theano_api_private_names import HELPERS

BACKEND = os.environ.get("THEANO_API_BACKEND", "irc")
_HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(os.path.dirname(_HERE), "theano_api_modules.txt")) as _listing:
    THEANO_MODULES = frozenset(_listing.read().split())   # every module of Theano's sdist
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


def _absorb(cls, *_):
    """Arithmetic on a missing name at a test file's top level gives the missing name again, so
    the file imports and only the tests that use the value fail."""
    return cls


for _op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "neg"):
    setattr(_MissingMeta, f"__{_op}__", _absorb)
    setattr(_MissingMeta, f"__r{_op}__", _absorb)


def missing(theano_name: str) -> type:
    return _MissingMeta(theano_name.rsplit(".", 1)[-1], (), {"_theano_name": theano_name})


def _import_or_none(name: str):
    """The module `name`, or an object a module holds (`pytensor.config`), or None."""
    try:
        return importlib.import_module(name)
    except ImportError:
        parent, _, attr = name.rpartition(".")
        if not parent:
            return None
        try:
            return getattr(importlib.import_module(parent), attr, None)
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
                if isinstance(value, types.ModuleType) and f"{fullname}.{name}" in THEANO_MODULES:
                    return importlib.import_module(f"{fullname}.{name}")
                return value
    if name in HELPERS.get(fullname, {}):
        return HELPERS[fullname][name]
    if f"{fullname}.{name}" in THEANO_MODULES:
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
        if fullname not in THEANO_MODULES:
            return None
        if _is_theanos_own(fullname):
            own = _own_path(fullname)
            if own is None:
                return None
            is_package = own.endswith("__init__.py")
            return importlib.util.spec_from_file_location(
                fullname, own, submodule_search_locations=[os.path.dirname(own)] if is_package else None)
        return importlib.machinery.ModuleSpec(fullname, _Loader(), is_package=True)


# Theano's flags of its C implementation, at their defaults, for a backend without them: test
# files read them in class bodies; the tests that use them are out by the rule (C code).
_C_FLAGS = {"openmp_elemwise_minsize": 200000, "openmp": False, "cxx": ""}


class _ConfigWithTestSeed:
    """The backend's config, with Theano's `unittests.rseed` (666) where the backend dropped the
    flag (PyTensor 3): Theano's test helpers read it. A flag the backend lacks reads as a
    missing name (a test file's class body may read one: `config.openmp_elemwise_minsize`)."""

    def __init__(self, config):
        object.__setattr__(self, "_config", config)

    def __getattr__(self, name):
        if name == "unittests" and not hasattr(self._config, "unittests"):
            return types.SimpleNamespace(rseed="666")
        if name in _C_FLAGS and not hasattr(self._config, name):
            return _C_FLAGS[name]
        try:
            return getattr(self._config, name)
        except AttributeError:
            return missing(f"theano.config.{name}")

    def __setattr__(self, name, value):
        setattr(self._config, name, value)


sys.meta_path.insert(0, _Finder())
_root = importlib.import_module(BACKENDS[BACKEND]["root"])
_root_targets = [m for m in (_import_or_none(n) for n in backend_candidates("theano", BACKEND)) if m is not None]
config = _ConfigWithTestSeed(_root.config)


def __getattr__(name):
    return _lookup(__name__, _root_targets, name)
