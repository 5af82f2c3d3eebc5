"""The reference executor: runs a tensor-dialect `func.func` with numpy, one op at a time.

It owns no op semantics: each op is evaluated by `irc.dialects.tensor_eval.evaluate`. What it
adds is a plan made once per function (value slots, constants evaluated ahead of time, the
point after which each value is dead) so a call is a tight loop, and errors that point back
to the user's Python line."""
from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter
from typing import Any, Callable, Sequence

from ..dialects.tensor_eval import evaluate, evaluated_inputs
from ..ir.core import Operation, Value
from .errors import ExecutionError, IndexOutOfRangeError


@dataclass
class _Step:
    op: Operation
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]
    free: tuple[int, ...]  # slots dead once this step is done (empty when gc is off)


def _evaluator() -> Callable[[Operation, list], list]:
    return evaluate


def run_located(run: Callable[[Operation, list], list], op: Operation, arrays: list) -> list:
    """`run(op, arrays)`, its ValueError/IndexError made an `ExecutionError` naming the op,
    its line and the input shapes."""
    try:
        return run(op, arrays)
    except (ValueError, IndexError) as e:
        shapes = [getattr(a, "shape", ()) for a in arrays]
        reason = str(e)
        prefix = f"'{op.op_name}' at {op.location}: "
        if reason.startswith(prefix):  # tensor_eval already names the op
            reason = reason[len(prefix):]
        cls = IndexOutOfRangeError if isinstance(e, IndexError) else ExecutionError
        raise cls(op.op_name, op.location, shapes, reason) from e


class ReferenceExecutor:
    """Executes `func` (a `func.func` op) on numpy arrays: `run(args) -> results`."""

    def __init__(self, func: Operation, allow_gc: bool = True):
        self.func = func
        self.allow_gc = allow_gc
        self._evaluate = _evaluator()
        self._plan()

    def _plan(self) -> None:
        body = self.func.regions[0].blocks[0]
        slots: dict[Value, int] = {}
        for arg in body.args:
            slots[arg] = len(slots)
        self.num_args = len(body.args)
        constants: dict[int, Any] = {}
        steps: list[_Step] = []
        ret = body.ops[-1]
        for op in body.ops[:-1]:
            ins = tuple(slots[v] for v in evaluated_inputs(op))
            outs = []
            for r in op.results:
                slots[r] = len(slots)
                outs.append(slots[r])
            if not op.operands and not op.regions:  # constants: evaluate once, keep forever
                for s, value in zip(outs, self._run_op(op, [])):
                    constants[s] = value
                continue
            steps.append(_Step(op, ins, tuple(outs), ()))
        self.result_slots = tuple(slots[v] for v in ret.operands)
        self.num_slots = len(slots)
        self.constants = constants
        if self.allow_gc:
            keep = set(self.result_slots) | set(constants) | set(range(self.num_args))
            last: dict[int, int] = {}
            for i, st in enumerate(steps):
                for s in st.inputs + st.outputs:
                    last[s] = i
            frees: dict[int, list[int]] = {}
            for s, i in last.items():
                if s not in keep:
                    frees.setdefault(i, []).append(s)
            for i, st in enumerate(steps):
                st.free = tuple(frees.get(i, ()))
        self.steps = steps

    def _run_op(self, op: Operation, arrays: list) -> list:
        return run_located(self._evaluate, op, arrays)

    def run(self, args: Sequence[Any], hook: Callable[[Operation, float], None] | None = None) -> list:
        """Execute once; `hook(op, seconds)` (profiling) is called after each op when given."""
        if len(args) != self.num_args:
            raise TypeError(f"expected {self.num_args} arguments, got {len(args)}")
        env: list[Any] = [None] * self.num_slots
        env[:self.num_args] = args
        for s, v in self.constants.items():
            env[s] = v
        run_op = self._run_op
        if hook is None:
            for st in self.steps:
                outs = run_op(st.op, [env[i] for i in st.inputs])
                for s, v in zip(st.outputs, outs):
                    env[s] = v
                for s in st.free:
                    env[s] = None
        else:
            for st in self.steps:
                t0 = perf_counter()
                outs = run_op(st.op, [env[i] for i in st.inputs])
                hook(st.op, perf_counter() - t0)
                for s, v in zip(st.outputs, outs):
                    env[s] = v
                for s in st.free:
                    env[s] = None
        return [env[s] for s in self.result_slots]
