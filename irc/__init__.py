"""irc: a tensor compiler in pure Python with Theano's user API.

Attributes load lazily (PEP 562) so that `irc-opt --help` and other light entry points stay
fast: nothing heavy (numpy, llvmlite) is imported until it is used."""
from __future__ import annotations

import importlib
from typing import Any

from . import plugins

plugins.install()

__version__ = "0.1.0"

# public name -> (module, attribute or None for the module itself)
_LAZY: dict[str, tuple[str, str | None]] = {
    "config": ("irc.config", None),
    "change_flags": ("irc.config", "change_flags"),
    "function": ("irc.frontend.function", "function"),
    "In": ("irc.frontend.function", "In"),
    "Out": ("irc.frontend.function", "Out"),
    "Param": ("irc.frontend.function", "Param"),
    "shared": ("irc.frontend.shared", "shared"),
    "printing": ("irc.printing", None),
    "tensor": ("irc.tensor", None),
    "pp": ("irc.printing", "pp"),
    "debugprint": ("irc.printing", "debugprint"),
    "gradient": ("irc.gradient", None),
    "grad": ("irc.gradient", "grad"),
    "clone": ("irc.frontend.clone", "clone"),
    "compile": ("irc.compile", None),
    "Mode": ("irc.compile.mode", "Mode"),
    "ProfileMode": ("irc.compile.mode", "ProfileMode"),
    "gpu_from_host": ("irc.frontend.transfers", "gpu_from_host"),
    "host_from_gpu": ("irc.frontend.transfers", "host_from_gpu"),
    "sandbox": ("irc.sandbox", None),
    "scan": ("irc.frontend.scan", "scan"),
    "map": ("irc.frontend.scan", "map"),
    "reduce": ("irc.frontend.scan", "reduce"),
    "foldl": ("irc.frontend.scan", "foldl"),
    "foldr": ("irc.frontend.scan", "foldr"),
    "scan_module": ("irc.scan_module", None),
    "ifelse": ("irc.ifelse", None),
    "dot": ("irc.frontend.matrix_products", "dot"),
    "Op": ("irc.frontend.user_op", "UserOp"),
    "Apply": ("irc.frontend.graph", "Apply"),
    "Variable": ("irc.frontend.graph", "Variable"),
    "as_op": ("irc.frontend.as_op", "as_op"),
    "CudaKernelOp": ("irc.frontend.cuda_kernel_op", "CudaKernelOp"),
    "gof": ("irc.gof", None),
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    entry = _LAZY.get(name)
    if entry is None:
        raise AttributeError(f"module 'irc' has no attribute '{name}'")
    module = importlib.import_module(entry[0])
    value = module if entry[1] is None else getattr(module, entry[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
