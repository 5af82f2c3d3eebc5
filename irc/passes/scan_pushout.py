"""`scan-pushout`: a product of a scan's sequence row by a non-sequence, computed for all steps
at once before the loop (Theano's `PushOutSeqScan`).

In `h_t = tanh(x_t·W + h_{t-1}·U)` the term `x_t·W` does not depend on the carried state: one
product of the whole sequence, `X·W` (a `(T·B)×n` by `n×m` matrix product for a sequence of
`B×n` rows, reshaped back to `T×B×m`), gives every step's value, and the step reads its row
as a new sequence. One large product replaces T small ones, and the step is left with the
work that has to be sequential: on a GPU one launch per step fewer, on the host one call.

The rule, per `tensor.scan` (bodies nested in it too): a `tensor.dot` whose first operand is a
sequence's row (a vector or a matrix) and whose second is a non-sequence matrix, both the
body's own arguments. Equal products are pushed once.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dialects.builtin import ModuleOp, TensorType
from ..dialects.func import FuncOp
from ..dialects.tensor_scan import ScanOp
from ..ir.core import Operation, Value
from ..ir.pass_manager import Pass, register_pass
from .scan_rewrite import Emitter, arg_index, rebuild_scan, take_over


@register_pass
@dataclass
class ScanPushout(Pass):
    """Compute sequence-by-weights products of scan steps before the loop."""

    name = "scan-pushout"
    summary = "compute a scan step's products of a sequence row by a non-sequence once, before the loop"
    tags = ("scan",)
    statistics = {"products-pushed": "step products computed for all steps before the loop"}

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        for func in [op for op in module.body.ops if isinstance(op, FuncOp)]:
            for scan in [op for op in func.walk(post_order=True) if isinstance(op, ScanOp)]:
                self.push_out(scan)

    def push_out(self, scan: ScanOp) -> None:
        if scan.has_until:  # (its rows past the last step run are not read: not worth computing)
            return
        body = scan.body
        n_seq = scan.num_sequences
        first_non_seq = len(body.args) - len(scan.non_sequences)
        found: dict[tuple[int, int], list[Operation]] = {}
        for op in body.ops:
            if op.op_name != "tensor.dot":
                continue
            a, b = op.operands
            if not (arg_index(a, body, 0, n_seq) is not None and b.type.rank == 2
                    and arg_index(b, body, first_non_seq, len(body.args)) is not None):
                continue
            found.setdefault((a.index, b.index), []).append(op)
        if not found:
            return
        new_seqs: list[Value] = []
        for (ai, bi), dots in found.items():
            seq = scan.sequences[ai]
            weights = scan.non_sequences[bi - first_non_seq]
            new_seqs.append(_whole_product(scan, seq, weights, dots[0]))
        rebuilt = _with_sequences(scan, new_seqs)
        for k, dots in enumerate(found.values()):
            row = rebuilt.body.args[n_seq + k]
            row.name_hint = dots[0].results[0].name_hint
            for dot in dots:
                dot.results[0].replace_all_uses_with(row)
                dot.erase()
                self.stats["products-pushed"] += 1


def _whole_product(scan: ScanOp, seq: Value, weights: Value, dot: Operation) -> Value:
    """seq·weights for every step, before `scan`: rows of `dot`'s result type stacked."""
    emit = Emitter(scan, dot.location)
    if seq.type.rank == 2:  # vector rows: one matrix product
        return emit("tensor.dot", [seq, weights])
    # matrix rows: (T·B)×n by n×m, then back to T×B×m
    steps, batch, inner = (emit.dim(seq, d) for d in range(3))
    product = emit("tensor.dot", [emit.reshape(seq, [emit("tensor.mul", [steps, batch]), inner]), weights])
    return emit.reshape(product, [steps, batch, emit.dim(weights, 1)])


def _with_sequences(scan: ScanOp, new_seqs: list[Value]) -> ScanOp:
    """`scan` rebuilt with `new_seqs` after its sequences (their rows as new body arguments, in
    that order); its uses moved over."""
    n_seq = scan.num_sequences
    ops = list(scan.operands)
    old_args = list(scan.body.args)
    rows = [TensorType(s.type.shape[1:], s.type.element, s.type.device) for s in new_seqs]
    arg_types = [a.type for a in old_args]
    rebuilt = rebuild_scan(scan, ops[:1 + n_seq] + new_seqs + ops[1 + n_seq:], n_seq + len(new_seqs),
                           scan.taps, arg_types[:n_seq] + rows + arg_types[n_seq:],
                           old_args[:n_seq] + [None] * len(rows) + old_args[n_seq:],
                           list(scan.body.terminator.operands), [r.type for r in scan.results])
    take_over(scan, rebuilt, range(len(scan.results)))
    return rebuilt
