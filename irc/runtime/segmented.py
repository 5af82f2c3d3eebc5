"""The executor of a function with user ops: its native parts and the user ops' `perform`, in turn.

`segments.split` cuts the optimized function; each native part is compiled by `compile_cpu`
(so it is cached, threaded and vectorized like any function) and each user op runs through
its registered runner (`tensor.custom`'s registry; the runner checks what `perform`
returns; it is called straight: its inputs come typed from the parts and the arguments, and
no part writes over its arguments, so tensor_eval's generic checks and copies are not needed;
an op declaring `destroy_map` overwrites the inputs the plan donates uncopied). Every value lives in one slot list per call; results may be arguments or constants,
so `Function` copies what it must (`fresh_results = False`)."""
from __future__ import annotations

from time import perf_counter
from typing import Any, Callable, Sequence

from ..dialects.tensor_custom import checking_inputs_now, user_op_impl
from .reference import run_located
from .segments import NativePart, SegmentPlan


class SegmentedExecutor:
    """`run(args) -> results` over the plan's steps; `natives[k]` is the executor of the compiled
    step k (a `NativeExecutor`; None for a user op)."""

    fresh_results = False

    def __init__(self, plan: SegmentPlan, natives: list[Any]):
        self.plan = plan
        self.natives = natives
        self.constants = dict(plan.constants)
        self.user_timing: Any = None  # a profile's `UserOpTiming`: what each user op took
        # the native parts' loop-level IR, one module each (`f.ir("loop")`)
        self.loop_ir = "\n".join(n.native.loop_ir for n in natives if getattr(n, "native", None) is not None)

    def run(self, args: Sequence[Any], hook: Callable | None = None, outs: list | None = None) -> list:
        def user_op(k: int, step: Any, ins: list) -> list:
            t0 = perf_counter()
            values = run_located(lambda op, arrays: user_op_impl(op).run(
                op, arrays, checking_inputs_now(), step.donated), step.op, ins)
            if hook is not None:
                hook(step.op, perf_counter() - t0)
            elif self.user_timing is not None:
                self.user_timing.record_op(step.op, perf_counter() - t0)
            return values

        env = run_steps(self.plan, self.natives, args, self.constants, user_op)
        return [env[s] for s in self.plan.results]


def run_steps(plan: SegmentPlan, natives: list[Any], args: Sequence[Any], constants: dict[int, Any],
              user_op: Callable[[int, Any, list], list]) -> list:
    """Every slot's value after the plan's steps ran on `args`: a compiled part by its
    executor (`natives[k]`), a user op by `user_op(k, step, inputs)`."""
    if len(args) != plan.num_args:
        raise TypeError(f"expected {plan.num_args} arguments, got {len(args)}")
    env: list[Any] = [None] * plan.num_slots
    env[:plan.num_args] = args
    for s, v in constants.items():
        env[s] = v
    for k, (step, native) in enumerate(zip(plan.steps, natives)):
        ins = [env[i] for i in step.inputs]
        values = native.run(ins) if native is not None else user_op(k, step, ins)
        for s, v in zip(step.outputs, values):
            env[s] = v
    return env


def compile_parts(plan: SegmentPlan, compile_part: Callable[[Any, str], Any]) -> SegmentedExecutor:
    """The executor of `plan`, each native part compiled by `compile_part(module, name)`."""
    natives = [compile_part(step.module, step.name) if isinstance(step, NativePart) else None
               for step in plan.steps]
    return SegmentedExecutor(plan, natives)
