"""Tiny passes for testing the pass manager and its instrumentation without the real passes:
one that changes the IR, one that leaves it alone, and ones that fail in each way a pass can
(a located error, IR the verifier rejects, an internal crash)."""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.attributes import TypeAttr
from ..ir.core import Operation, Pure, Terminator
from ..ir.diagnostics import Diagnostic, PassError
from ..ir.pass_manager import Pass, register_pass
from ..ir.types import FunctionType, i1


@register_pass
@dataclass
class TestEraseUnused(Pass):
    """Dead-code elimination of pure ops, to a fixpoint: a pass that visibly changes the IR."""

    name = "test-erase-unused"
    summary = "Erase pure ops whose results are unused (a test pass)"
    tags = ("testing",)
    statistics = {"erased": "Number of unused pure ops erased"}

    def run(self, module: Operation) -> None:
        changed = True
        while changed:
            changed = False
            for op in list(module.walk(post_order=True)):
                if (op is not module and op.parent is not None and op.has_trait(Pure)
                        and not op.has_trait(Terminator) and not any(r.uses for r in op.results)):
                    op.erase()
                    self.stats["erased"] += 1
                    changed = True


@register_pass
@dataclass
class TestOptions(Pass):
    """Does nothing but count the ops; its options exercise typed pipeline parsing."""

    name = "test-options"
    summary = "Accept one option of each type and count ops (a test pass)"
    tags = ("testing",)
    statistics = {"ops": "Number of ops seen"}
    count: int = 1
    ratio: float = 0.5
    flag: bool = False
    label: str = "none"

    def run(self, module: Operation) -> None:
        for _ in range(self.count):
            self.stats["ops"] += sum(1 for _ in module.walk())


@register_pass
@dataclass
class TestFail(Pass):
    """Always fails, with an error located at the first function (or the module)."""

    name = "test-fail"
    summary = "Always fail with a located error (a test pass)"
    tags = ("testing",)
    message: str = "test-fail: failing as requested"

    def run(self, module: Operation) -> None:
        target = next((op for op in module.walk() if op.op_name == "func.func"), module)
        raise PassError(Diagnostic(self.message, target.location))


@register_pass
@dataclass
class TestBreakIR(Pass):
    """Gives every function a signature that does not match its body, so the verifier run
    after the pass fails and names it."""

    name = "test-break-ir"
    summary = "Corrupt function signatures so verification fails (a test pass)"
    tags = ("testing",)

    def run(self, module: Operation) -> None:
        for op in module.walk():
            ftype = op.attributes.get("function_type")
            if op.op_name == "func.func" and isinstance(ftype, TypeAttr):
                ft = ftype.value
                op.attributes["function_type"] = TypeAttr(FunctionType((*ft.inputs, i1), ft.results))


@register_pass
@dataclass
class TestCrash(Pass):
    """Raises a plain Python exception: how an internal bug in a pass looks."""

    name = "test-crash"
    summary = "Raise an internal error (a test pass)"
    tags = ("testing",)

    def run(self, module: Operation) -> None:
        raise RuntimeError("test-crash: simulated internal error")
