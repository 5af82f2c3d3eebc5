"""`scan-prune`: the results of a `tensor.scan` nothing reads, and the step work that only
they needed, removed (part of Theano's `ScanSaveMem`'s job).

The gradient of a scan yields the gradient of every float sequence, the step's inputs
included, although a training step asks only for the weights': those results are stacked
every step and never read. A result without taps that no op uses is dropped with its yielded
value; the body's dead ops go with it. A result with taps stays (later steps read it)."""
from __future__ import annotations

from dataclasses import dataclass

from ..dialects.builtin import ModuleOp
from ..dialects.func import FuncOp
from ..dialects.tensor_scan import ScanOp
from ..ir.core import Operation
from ..ir.pass_manager import Pass, register_pass
from ..ir.transforms import eliminate_dead_code
from .scan_rewrite import rebuild_scan, take_over


@register_pass
@dataclass
class ScanPrune(Pass):
    """Drop the results of scans that nothing reads (and the step work behind them)."""

    name = "scan-prune"
    summary = "remove unread results of tensor.scan and the step work only they needed"
    tags = ("scan",)
    statistics = {"results-removed": "scan results nothing read"}

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        for func in [op for op in module.body.ops if isinstance(op, FuncOp)]:
            for scan in [op for op in func.walk() if isinstance(op, ScanOp)]:
                self.prune(scan)

    def prune(self, scan: ScanOp) -> None:
        if scan.has_until:  # (its yields end with the condition: left as they are)
            return
        taps = scan.taps
        dead = [k for k, r in enumerate(scan.results) if not taps[k] and not r.has_uses]
        if not dead or len(dead) == len(scan.results):
            return  # (a scan nothing reads at all is the function's DCE's to remove)
        keep = [k for k in range(len(scan.results)) if k not in dead]
        body = scan.body
        args = list(body.args)
        rebuilt = rebuild_scan(scan, list(scan.operands), scan.num_sequences, [scan.taps[k] for k in keep],
                               [a.type for a in args], args, [body.terminator.operand(k) for k in keep],
                               [scan.results[k].type for k in keep])
        take_over(scan, rebuilt, keep)
        eliminate_dead_code(rebuilt)
        self.stats["results-removed"] += len(dead)
