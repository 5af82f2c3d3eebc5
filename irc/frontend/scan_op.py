"""`Scan`: a loop as one node whose inner graph is the step function (tensor.scan).

The node's inputs are the step count (an int64 scalar; -1: as long as the sequences), the
sequences, one initial window per output with taps (`-min(taps)` states stacked along a new
first dim, the oldest first) and the non-sequences. The inner graph reads one placeholder per
sequence slice, per tap of each recurrent output and per non-sequence (in that order) and
computes one value per output; output k stacks those values along a new first dim. The inner
graph is lowered as the op's region, so the body compiles with the rest of the function. A scan
with a stopping `condition` (`until`) yields it after the outputs and stops after the first step
where it holds; its outputs then hold only the steps run.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..dialects.tensor_scan import scan_attributes
from ..ir.attributes import Attribute
from .graph import Apply, Op, Variable
from .tensor_type import TensorType


@dataclass(frozen=True)
class ScanInfo:
    """How a scan's inputs are laid out: sequence count, the taps of each output (empty: an
    output that does not read its past), the non-sequence count."""

    n_sequences: int
    taps: tuple[tuple[int, ...], ...]
    n_non_sequences: int

    @property
    def recurrent(self) -> list[int]:
        return [k for k, t in enumerate(self.taps) if t]

    def n_inner_inputs(self) -> int:
        return self.n_sequences + sum(len(t) for t in self.taps) + self.n_non_sequences


class Scan(Op):
    """One loop; compares equal only to itself (its inner graph is its identity)."""

    ir_name = "tensor.scan"

    def __init__(self, info: ScanInfo, inner_inputs: Sequence[Variable], inner_outputs: Sequence[Variable],
                 name: str | None = None, truncate_gradient: int = -1, condition: Variable | None = None):
        if len(inner_inputs) != info.n_inner_inputs() or len(inner_outputs) != len(info.taps):
            raise ValueError("scan: the inner graph does not match its layout")
        if condition is not None and (condition.ndim != 0 or condition.dtype != "bool"):
            raise ValueError(f"scan: the stopping condition must be a 0-d bool, got {condition.type}")
        self.info = info
        self.inner_inputs = list(inner_inputs)
        self.inner_outputs = list(inner_outputs)
        self.name = name
        self.truncate_gradient = int(truncate_gradient)  # steps back the gradient goes (-1: all)
        self.condition = condition  # the inner graph's stopping condition (`until`), or None

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)

    def __str__(self) -> str:
        return f"Scan{{{self.name}}}" if self.name else "Scan"

    def ir_attributes(self) -> dict[str, Attribute]:
        return scan_attributes(self.info.n_sequences, list(self.info.taps), self.condition is not None)

    def inner_graph(self) -> tuple[list[Variable], list[Variable]]:
        """The step function: its placeholders and what it yields, the outputs then the stopping
        condition if any (lowered as the op's region)."""
        cond = [self.condition] if self.condition is not None else []
        return self.inner_inputs, [*self.inner_outputs, *cond]

    def make_node(self, n_steps: Variable, *outer: Variable) -> Apply:
        info = self.info
        expected = info.n_sequences + len(info.recurrent) + info.n_non_sequences
        if len(outer) != expected:
            raise TypeError(f"{self}: expects {expected} inputs after the step count, got {len(outer)}")
        if n_steps.ndim != 0 or not n_steps.dtype.startswith("int"):
            raise TypeError(f"{self}: the step count must be an integer scalar, got {n_steps.type}")
        outputs = [TensorType(v.dtype, (False, *v.broadcastable))() for v in self.inner_outputs]
        return Apply(self, [n_steps, *outer], outputs)
