"""Output targets of `irc-opt -t NAME`: an open registry, so code generators plug in
(`llvm`, `asm`, `ptx`) without the CLI changing.

A target is `fn(module, **options) -> str`; `options` are the printing flags (`generic`,
`debuginfo`) — a target takes the ones it understands, or just `fn(module)`. The function
may be given as a `"package.module:function"` string so that registering it imports
nothing: `irc-opt --help` stays fast.
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Any, Callable

from ..ir.instrumentation import render_ir


@dataclass
class Target:
    name: str
    fn: "Callable[..., str] | str"
    help: str

    def resolve(self) -> Callable[..., str]:
        if isinstance(self.fn, str):
            mod, _, attr = self.fn.partition(":")
            self.fn = getattr(importlib.import_module(mod), attr)
        return self.fn

    def emit(self, module: Any, **options: Any) -> str:
        """Run the target, passing only the options its function accepts."""
        fn = self.resolve()
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            return fn(module)
        if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
            return fn(module, **options)
        return fn(module, **{k: v for k, v in options.items() if k in params})


TARGETS: dict[str, Target] = {}


def register_target(name: str, fn: "Callable[..., str] | str", help: str) -> None:
    """Make `irc-opt -t name` emit `fn(module)`; `fn` may be a lazy `"module:function"`."""
    TARGETS[name] = Target(name, fn, help)


def emit_mlir(module: Any, generic: bool = False, debuginfo: bool = False) -> str:
    """The module as MLIR text (what irc-opt prints by default)."""
    return render_ir(module, generic=generic, debuginfo=debuginfo)


register_target("mlir", emit_mlir, "MLIR text of the module (the default)")
# Code generators register here, lazily (nothing is imported until the target is used).
register_target("llvm", "irc.codegen_cpu.emit:emit_llvm_ir", "LLVM IR for the host CPU, optimized at O2")
register_target("llvm-raw", "irc.codegen_cpu.emit:emit_llvm_ir_unoptimized",
                "LLVM IR for the host CPU as generated, before optimization")
register_target("asm", "irc.codegen_cpu.emit:emit_asm", "host assembly (x86-64, AArch64, ...)")
register_target("ptx", "irc.codegen_ptx.emit:emit_ptx_text", "PTX of the module's GPU kernels (sm_90)")
register_target("nvvm", "irc.codegen_ptx.emit:emit_nvvm_ir", "LLVM IR of the GPU kernels for NVPTX, unoptimized")
