"""`tensor.scan`: a loop over steps whose body is a region (Theano's `scan`).

    %ys, %hs = "tensor.scan"(%n, %xs, %h0, %w) ({
    ^bb0(%x: tensor<?xf32>, %h: tensor<?xf32>, %wi: tensor<?x?xf32>):
      ...
      tensor.scan_yield %y, %h1 : tensor<f32>, tensor<?xf32>
    }) {sequences = 1 : i64, taps = [array<i64>, array<i64: -1>]}
      : (tensor<i64>, tensor<?x?xf32>, tensor<1x?xf32>, tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>)

Operands: the step count `n` (a 0-d integer, -1: no limit besides the sequences), the
`sequences` (each read one slice along its first dim per step), one initial window per result
with taps (`taps[k]` is a non-empty list of negative offsets; its window holds `-min(taps)`
states along a new first dim, the oldest first), then the non-sequences (read whole every step).
The body's block takes, in that order, one slice per sequence, one state per tap of each
recurrent result, one value per non-sequence; it yields one value per result. Result `k` stacks
what step 0, 1, ... yielded along a new first dim. The steps are `n`, cut to the shortest
sequence; the body reads only its arguments (isolated from above), so the loop can be lowered
and the body optimized on its own. Operands and results are all on the host, or all on one
device (the host then runs the loop, launching the step's kernels).

With the unit attribute `until` (Theano's `scan_module.until`, a while loop) the body yields one
more value after the results, a 0-d `i1`: the loop stops after the first step where it is true,
and each result stacks only the steps run (`n` is then the most steps it may run).
"""
from __future__ import annotations

import numpy as np

from ..ir.assembly_forms import OperandListForm
from ..ir.attributes import ArrayAttr, DenseArrayAttr, IntegerAttr, UnitAttr
from ..ir.core import Block, IsolatedFromAbove, Operation, Pure, Terminator, Value
from .builtin import TensorType
from .op_base import compatible
from .tensor_if import IfOp
from .tensor_eval import EvalError, evaluator, run_block


def step_type(t: TensorType) -> TensorType:
    """The type of one slice of `t` along its first dim."""
    return TensorType(t.shape[1:], t.element, t.device)


def stacked_type(t: TensorType) -> TensorType:
    """Values of type `t`, one per step, stacked along a new first dim of unknown size."""
    return TensorType((None, *t.shape), t.element, t.device)


class ScanYieldOp(OperandListForm, Operation):
    """`tensor.scan_yield %a, %b : t1, t2` — ends a `tensor.scan` body with one step's results."""

    name = "tensor.scan_yield"
    traits = (Terminator, Pure)


class ScanOp(Operation):
    """`tensor.scan`: see the module docstring."""

    name = "tensor.scan"
    traits = (Pure, IsolatedFromAbove)

    # -- the operand layout
    @property
    def num_sequences(self) -> int:
        return self.attributes["sequences"].value

    @property
    def taps(self) -> list[tuple[int, ...]]:
        return [tuple(a) for a in self.attributes["taps"]]

    @property
    def recurrent(self) -> list[int]:
        """The results that read their own earlier values (those with taps)."""
        return [k for k, t in enumerate(self.taps) if t]

    @property
    def n_steps(self) -> Value:
        return self.operand(0)

    @property
    def sequences(self) -> list[Value]:
        return list(self.operands[1:1 + self.num_sequences])

    @property
    def initial(self) -> list[Value]:
        first = 1 + self.num_sequences
        return list(self.operands[first:first + len(self.recurrent)])

    @property
    def non_sequences(self) -> list[Value]:
        return list(self.operands[1 + self.num_sequences + len(self.recurrent):])

    @property
    def body(self) -> Block:
        return self.regions[0].blocks[0]

    @property
    def has_until(self) -> bool:
        """Whether the body yields a stopping condition after the results (a while loop)."""
        return "until" in self.attributes

    @property
    def yielded_results(self) -> list[Value]:
        """The body's yielded values for the results (without the stopping condition)."""
        values = list(self.body.terminator.operands)
        return values[:-1] if self.has_until else values

    @property
    def stop_condition(self) -> Value | None:
        """The body's yielded stopping condition, or None."""
        return self.body.terminator.operands[-1] if self.has_until else None

    @staticmethod
    def window(taps: tuple[int, ...]) -> int:
        """How many earlier states a result with `taps` keeps."""
        return -min(taps) if taps else 0

    def block_arg_types(self) -> list[TensorType]:
        """The body's argument types the operands imply."""
        types = [step_type(s.type) for s in self.sequences]
        for init, k in zip(self.initial, self.recurrent):
            types += [step_type(init.type)] * len(self.taps[k])
        return types + [v.type for v in self.non_sequences]

    # -- checks
    def verify_(self) -> None:
        for key, kind in (("sequences", IntegerAttr), ("taps", ArrayAttr)):
            if not isinstance(self.attributes.get(key), kind):
                raise self.error(f"needs a '{key}' attribute ({kind.__name__})")
        taps = self.attributes["taps"]
        if len(taps) != len(self.results):
            raise self.error(f"has {len(self.results)} result(s) but {len(taps)} 'taps' entries")
        for k, t in enumerate(taps):
            if not isinstance(t, DenseArrayAttr) or any(d >= 0 for d in t) or len(set(t)) != len(t):
                raise self.error(f"taps of result #{k} must be distinct negative offsets, got {t}")
        n_fixed = 1 + self.num_sequences + len(self.recurrent)
        if self.num_sequences < 0 or len(self.operands) < n_fixed:
            raise self.error(f"needs at least {n_fixed} operands (steps, {self.num_sequences} "
                             f"sequence(s), {len(self.recurrent)} initial window(s)), got {len(self.operands)}")
        for i, v in enumerate(self.operands):
            if not isinstance(v.type, TensorType):
                raise self.error(f"operand #{i} must be a tensor, got {v.type}")
        placements = {v.type.device for v in self.operands} | {r.type.device for r in self.results}
        if len(placements) > 1:
            raise self.error(f"mixes placements {sorted(map(str, placements))}: a scan's operands and "
                             f"results are all on the host or all on one device")
        n = self.n_steps.type
        if n.rank != 0 or not n.element.is_integer:
            raise self.error(f"the step count must be a 0-d integer tensor, got {n}")
        for i, s in enumerate(self.sequences):
            if s.type.rank == 0:
                raise self.error(f"sequence #{i} must have at least one dim, got {s.type}")
        for k, init in zip(self.recurrent, self.initial):
            if init.type.rank == 0:
                raise self.error(f"the initial window of result #{k} must have at least one dim, got {init.type}")
        self._verify_body()

    def _verify_body(self) -> None:
        if len(self.regions) != 1 or len(self.regions[0].blocks) != 1:
            raise self.error("must have one region with one block")
        block = self.body
        expected = self.block_arg_types()
        if len(block.args) != len(expected):
            raise self.error(f"body takes {len(block.args)} argument(s) but the operands give {len(expected)}")
        for i, (arg, t) in enumerate(zip(block.args, expected)):
            if not compatible(arg.type, t) and not compatible(t, arg.type):
                raise self.error(f"body argument #{i} has type {arg.type} but the operands give {t}")
        term = block.ops[-1] if block.ops else None
        if not isinstance(term, ScanYieldOp):
            raise self.error("body must end in 'tensor.scan_yield'")
        if self.has_until and not isinstance(self.attributes["until"], UnitAttr):
            raise self.error("'until' must be a unit attribute")
        extra = 1 if self.has_until else 0
        if len(term.operands) != len(self.results) + extra:
            raise self.error(f"body yields {len(term.operands)} value(s) but the op has "
                             f"{len(self.results)} result(s)" + (" and a stopping condition" if extra else ""))
        if extra:
            cond = term.operands[-1].type
            if not isinstance(cond, TensorType) or cond.rank != 0 or not cond.element.is_bool:
                raise self.error(f"the stopping condition (the last yielded value) must be a 0-d i1, got {cond}")
        inits = dict(zip(self.recurrent, self.initial))
        for k, (v, r) in enumerate(zip(term.operands, self.results)):
            if not isinstance(v.type, TensorType):
                raise self.error(f"yielded value #{k} must be a tensor, got {v.type}")
            if k in inits:
                state = step_type(inits[k].type)
                if v.type.element != state.element or v.type.rank != state.rank:
                    raise self.error(f"result #{k} yields {v.type} but its initial state is {state}: "
                                     f"a recurrent value keeps its dtype and rank")
            stacked = stacked_type(v.type)  # either side may know sizes the other does not
            if not compatible(r.type, stacked) and not compatible(stacked, r.type):
                raise self.error(f"result #{k} has type {r.type}, but the body yields {v.type} "
                                 f"(stacked: {stacked_type(v.type)})")


def scan_attributes(num_sequences: int, taps: list[tuple[int, ...]], until: bool = False) -> dict:
    """The attributes of a `tensor.scan` (`until`: the body also yields a stopping condition)."""
    attrs = {"sequences": IntegerAttr(num_sequences),
             "taps": ArrayAttr(tuple(DenseArrayAttr(tuple(t)) for t in taps))}
    if until:
        attrs["until"] = UnitAttr()
    return attrs


def tensor_bodies(root: Operation) -> list[Block]:
    """The blocks of tensor ops nested in `root`, outer ones first: each `tensor.scan` body and
    `tensor.if` branch, which passes working block by block (fusion) treat like a function body
    (a fused op's body holds scalar ops: not one)."""
    return [block for op in root.walk() if isinstance(op, (ScanOp, IfOp)) and op is not root
            for region in op.regions for block in region.blocks]


@evaluator("tensor.scan")
def _evaluate_scan(op: ScanOp, arrays: list) -> list[np.ndarray]:
    """The reference: the body run op by op, once per step, in numpy."""
    n = int(arrays[0])
    if n < -1:
        raise EvalError(f"'tensor.scan' at {op.location}: n_steps is negative ({n})")
    first = 1 + op.num_sequences
    seqs, rest = arrays[1:first], arrays[first:]
    inits, non_seqs = rest[:len(op.recurrent)], rest[len(op.recurrent):]
    steps = min([n] * (n >= 0) + [len(s) for s in seqs])
    rows: list[list[np.ndarray]] = [[] for _ in op.results]
    taps = op.taps
    windows = {k: ScanOp.window(taps[k]) for k in op.recurrent}
    for k, init in zip(op.recurrent, inits):
        if len(init) != windows[k]:
            raise EvalError(f"'tensor.scan' at {op.location}: the initial value of result #{k} holds "
                            f"{len(init)} states, its taps {list(taps[k])} need {windows[k]}")
        rows[k] = list(init)
    body = op.body
    for t in range(steps):
        args = [s[t] for s in seqs]
        for k in op.recurrent:
            args += [rows[k][windows[k] + t + tap] for tap in taps[k]]
        values = run_block(body, dict(zip(body.args, args + list(non_seqs))))
        for k, a in enumerate(values[:len(op.results)]):
            rows[k].append(np.asarray(a))
        if op.has_until and bool(values[-1]):
            break
    out = []
    for k, r in enumerate(op.results):
        kept = rows[k][windows.get(k, 0):]
        t: TensorType = r.type
        empty = np.empty((0, *[d or 0 for d in t.shape[1:]]), t.element.numpy_name)
        out.append(np.stack(kept).astype(t.element.numpy_name, copy=False) if kept else empty)
    return out
