"""`scan-pushout-sums`: a state that sums, over the steps, a sequence row's transpose times a
value of the step (`acc + x_tᵀ·δ_t`: a weight's gradient in backpropagation through time),
read only as its last value, is computed after the loop as one product `Xᵀ·Δ` over the
stacked rows (Theano's `PushOutScanOutput`). The step yields `δ_t` instead and the state is
gone: one small product fewer per step, one large one after the loop.

The rule: a state with one tap (-1) whose only reader is `acc + dot(transpose(row), b)` (that
sum yielded as its next value, the product and the transpose read by nothing else), `row` a
sequence's row (a matrix), and every reader of the scan's result `result[-1]`. Then, after
the loop, with `steps` the number of rows the scan made: `result[-1]` is
`init[0] + reshape(seq[:steps])ᵀ · reshape(Δ)` over (steps·rows) rows. No step: `init[0]`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..dialects.builtin import ModuleOp, TensorType
from ..dialects.func import FuncOp
from ..dialects.tensor_base import constant_value
from ..dialects.tensor_scan import ScanOp
from ..ir.attributes import DenseArrayAttr, IntegerAttr
from ..ir.core import Operation, Value
from ..ir.pass_manager import Pass, register_pass
from ..ir.transforms import eliminate_dead_code
from .scan_rewrite import Emitter, arg_index, rebuild_scan


@dataclass
class _Sum:
    k: int               # the state's result
    arg: int             # its tap's body argument
    row: int             # the sequence whose row is transposed
    step_value: Value    # δ_t, yielded instead
    readers: list[Operation]  # the `result[-1]`s outside


@register_pass
@dataclass
class ScanPushoutSums(Pass):
    """Compute a scan's sums of sequence-row products after the loop, as one product."""

    name = "scan-pushout-sums"
    summary = "compute a scan state summing x_tᵀ·δ_t over the steps as one product after the loop"
    tags = ("scan",)
    statistics = {"sums-pushed": "scan states summing products made one product after the loop"}

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        for func in [op for op in module.body.ops if isinstance(op, FuncOp)]:
            changed = True
            while changed:  # (each rewrite replaces the scan op: look again)
                changed = False
                for scan in [op for op in func.walk(post_order=True) if isinstance(op, ScanOp)]:
                    found = _find_sum(scan)
                    if found is not None:
                        _push_out(scan, found)
                        self.stats["sums-pushed"] += 1
                        changed = True
                        break


def _tap_args(scan: ScanOp) -> dict[int, list[int]]:
    """Result k -> the body arguments of its taps."""
    out, i = {}, scan.num_sequences
    for k in scan.recurrent:
        out[k] = list(range(i, i + len(scan.taps[k])))
        i += len(scan.taps[k])
    return out


def _find_sum(scan: ScanOp) -> _Sum | None:
    if scan.has_until:
        return None
    body, term = scan.body, scan.body.terminator
    n_seq = scan.num_sequences
    for k, args in _tap_args(scan).items():
        if tuple(scan.taps[k]) != (-1,):
            continue
        acc = body.args[args[0]]
        new = term.operands[k]
        add = new.owner
        if (len(acc.uses) != 1 or not isinstance(add, Operation) or add.op_name != "tensor.add"
                or add.parent is not body or acc not in add.operands or len(new.uses) != 1
                or list(term.operands).count(new) != 1):
            continue
        g = add.operand(1) if add.operand(0) is acc else add.operand(0)
        dot = g.owner
        if not isinstance(dot, Operation) or dot.op_name != "tensor.dot" or len(g.uses) != 1 \
                or g.type != acc.type:
            continue
        a, b = dot.operands
        shuffle = a.owner
        if not (isinstance(shuffle, Operation) and shuffle.op_name == "tensor.dimshuffle"
                and tuple(shuffle.attributes["pattern"].value) == (1, 0) and len(a.uses) == 1):
            continue
        row = shuffle.operand(0)
        if arg_index(row, body, 0, n_seq) is None or row.type.rank != 2 or b.type.rank != 2:
            continue
        readers = [u.owner for u in scan.results[k].uses]
        if not readers or not all(_last_row(op, scan.results[k]) for op in readers):
            continue
        return _Sum(k, args[0], row.index, b, readers)
    return None


def _last_row(op: Operation, result: Value) -> bool:
    """Is `op` `result[-1]` (an index by the constant -1 on axis 0)?"""
    if op.op_name != "tensor.index" or op.operand(0) is not result or len(op.operands) != 2:
        return False
    at = constant_value(op.operand(1))
    return tuple(op.attributes["axes"].value) == (0,) and at is not None and int(at.array.reshape(-1)[0]) == -1


def _push_out(scan: ScanOp, s: _Sum) -> None:
    body = scan.body
    n_seq = scan.num_sequences
    recurrent = scan.recurrent
    init = scan.initial[recurrent.index(s.k)]
    seq = scan.sequences[s.row]
    ops = list(scan.operands)
    init_at = 1 + n_seq + recurrent.index(s.k)
    operands = ops[:init_at] + ops[init_at + 1:]
    keep = [j for j in range(len(scan.results)) if j != s.k]
    old_args = [a for i, a in enumerate(body.args) if i != s.arg]
    yields = [body.terminator.operand(j) for j in keep]
    taps = [tuple(scan.taps[j]) for j in keep]
    types = [scan.results[j].type for j in keep]
    # δ_t's rows: a result that already stacks it (a second weight's sum pushed), or a new one
    stacking = [i for i, (v, t) in enumerate(zip(yields, taps)) if v is s.step_value and not t]
    if not stacking:
        step_type = s.step_value.type
        yields.append(s.step_value)
        taps.append(())
        types.append(TensorType((None, *step_type.shape), step_type.element, step_type.device))
    rebuilt = rebuild_scan(scan, operands, n_seq, taps, [a.type for a in old_args], old_args, yields, types)
    for j, new in zip(keep, rebuilt.results):
        scan.results[j].replace_all_uses_with(new)
    eliminate_dead_code(rebuilt)
    deltas = rebuilt.results[stacking[0] if stacking else -1]
    emit = Emitter(s.readers[0], s.readers[0].location)
    device = seq.type.device
    steps, rows = emit.dim(deltas, 0), emit.dim(deltas, 1)
    used = emit("tensor.dynamic_slice", [seq, emit.index_constant(0, device), steps], {"axis": IntegerAttr(0)})
    flat_rows = emit("tensor.mul", [steps, rows])
    xs = emit.reshape(used, [flat_rows, emit.dim(seq, 2)])
    ds = emit.reshape(deltas, [flat_rows, emit.dim(deltas, 2)])
    product = emit("tensor.dot", [emit("tensor.dimshuffle", [xs], {"pattern": DenseArrayAttr((1, 0))}), ds])
    first = emit("tensor.index", [init, emit.index_constant(0, device)], {"axes": DenseArrayAttr((0,))})
    final = emit("tensor.add", [first, product])
    for reader in s.readers:
        reader.results[0].replace_all_uses_with(final)
        reader.erase()
    scan.erase()
