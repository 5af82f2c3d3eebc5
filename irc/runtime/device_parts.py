"""A GPU function with users' GPU ops: device parts, and each op's thunk between them on
device arrays.

A GPU user op (`tensor.custom {device = "cuda"}`) is Python that launches its own kernels, and
its outputs' sizes are known only once it has run, so the placed function is cut around it
exactly as a CPU function is cut around `perform` (`segments.split`): the ops between two user
ops become one device function of their own (edge transfers taken, kernels outlined, a host
plan per shape signature, CUDA graphs: everything a GPU function has), and the executor runs
part, op, part, ... over one list of slots (a CPU user op, `perform`, runs there too, on the
host values the parts hand it). The values crossing a GPU user op stay device arrays
(a part's device result is the op's input as it is; the op's output is the next part's
argument), so nothing is copied to the host around it; only the function's own host inputs
and results cross, as in any GPU function.

The executor's steps, in order, are the launch order of the whole function (`launch_order`);
a profiled function's rows follow it too: each part's kernels, then the op under its own name
with the GPU time its thunk took. A thunk is never recorded into a part's CUDA graph (the
parts around it are graphs of their own).

`DeviceBackend` is what this needs of a GPU: the CUDA runtime gives one
(`cuda/user_ops.cuda_backend`), and the tests give one over the CPU kernel emulator, so CI
checks this plumbing without a GPU. No PyCUDA here."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ..dialects.func import FuncOp
from ..dialects.tensor_transfers import ToDeviceOp
from ..dialects.tensor_custom import checking_inputs_now, user_op_impl, user_op_label
from ..ir.core import Operation
from ..passes.device_edges import HostOpsLeft
from .profile_timing import CompositeTiming, TimedUserOp, host_clock
from .reference import run_located
from .segmented import run_steps
from .segments import NativePart, SegmentPlan, UserStep, split, splittable, user_ops


class UserOpsNested(HostOpsLeft):
    """GPU user ops inside a scan body or an ifelse branch (compiled as a whole) cannot run
    between device parts: the function runs on the host, the ops' thunks still on the GPU."""

    def __init__(self, ops: list[Operation]):
        super().__init__(ops)
        names = ", ".join(sorted({user_op_label(op) for op in ops}))
        self.args = (f"its GPU user ops ({names}) are inside a scan or an ifelse branch, which compiles "
                     f"as a whole: their inputs are copied to the device and their outputs back around "
                     f"each call",)


@dataclass
class DeviceBackend:
    """What running device parts needs of a GPU (the CUDA driver's, or the CPU emulator's)."""

    compile_part: Callable[[Any, bool], tuple[Any, Any]]   # (placed part module, profiling) -> (executor, program)
    run_user_op: Callable[[Operation, list], list]         # a GPU user op on device arrays
    to_device: Callable[[np.ndarray], Any]                 # a host array's device copy
    copy: Callable[[Any], Any]                             # a new device array equal to one
    user_op_timing: Callable[[Any, Operation], Any] | None = None  # profiling: a source with `timed(work)`


def device_user_ops(module: Any) -> list[Operation]:
    """The GPU user ops of a placed module."""
    return [op for op in module.walk() if op.op_name == "tensor.custom" and "device" in op.attributes]


def cut_on_device(module: Any) -> bool:
    """Whether a placed module runs as device parts: it has GPU user ops."""
    return bool(device_user_ops(module))


class DeviceParts:
    """What `irc.function` keeps of a profiled function run as device parts: their loop IR
    and one timing source for all of them, in launch order."""

    def __init__(self, loop_ir: str, timing: Any):
        self.loop_ir = loop_ir
        self.timing = timing


def compile_device_parts(module: Any, func: Any, backend: DeviceBackend, profiling: bool) -> tuple[Any, Any]:
    """(executor, DeviceParts when profiling else None) for a placed module with GPU user ops;
    `HostOpsLeft` when it cannot run as device parts (an op with no GPU kernel, or a user op
    nested in a region): the caller runs it on the host then."""
    nested = [op for op in user_ops(func) if not splittable(func)]
    if nested:
        raise UserOpsNested([op for op in nested if "device" in op.attributes] or nested)
    plan = split(func)
    natives: list[Any] = []
    sources: list[Any] = []
    programs: list[Any] = []
    for step in plan.steps:
        if isinstance(step, NativePart) and _only_uploads(step):
            natives.append(Uploads(backend.to_device))  # no kernel copying what was just uploaded
            if profiling:
                sources.append(_NoRows())
        elif isinstance(step, NativePart):
            executor, program = backend.compile_part(step.module, profiling)
            natives.append(executor)
            programs.append(program)
            if profiling:
                sources.append(program.timing)
        else:
            natives.append(None)
            if profiling:
                on_device = "device" in step.op.attributes
                sources.append(backend.user_op_timing(func, step.op) if on_device
                               else TimedUserOp(func, step.op, host_clock, device="cpu"))
    executor = DeviceSegmentedExecutor(plan, natives, backend, func, sources if profiling else None)
    executor.loop_ir = "\n".join(p.loop_ir for p in programs if p is not None)
    if profiling:
        return executor, DeviceParts(executor.loop_ir, CompositeTiming(sources))
    return executor, None


class DeviceSegmentedExecutor:
    """`run(args) -> results` over the plan's steps: `natives[k]` runs device part k (None for
    a user op, run by `backend.run_user_op`). Results are fresh: one that is an argument, a
    constant, another result or a view an op declared (`view_map`) is copied."""

    fresh_results = True
    native = None  # no buffers are handed in for results (`outs`)

    def __init__(self, plan: SegmentPlan, natives: list[Any], backend: DeviceBackend, func: Any,
                 sources: list[Any] | None = None):
        self.plan = plan
        self.natives = natives
        self.backend = backend
        self.constants: dict = {}  # Function's constants (none: results are fresh)
        self.timers = sources
        self.loop_ir = ""
        results = func.function_type.results
        # a constant a GPU user op reads on the device, or a device result, goes up once
        self.env_constants = dict(plan.constants)
        for step in plan.steps:
            if isinstance(step, UserStep) and "device" in step.op.attributes:
                on_host = set(step.op.host_operands)
                for i, s in enumerate(step.inputs):
                    if s in plan.constants and i not in on_host:
                        self.env_constants[s] = backend.to_device(plan.constants[s])
        for k, s in enumerate(plan.results):
            if s in plan.constants and getattr(results[k], "device", None) is not None:
                self.env_constants[s] = backend.to_device(plan.constants[s])
        made_by_views = {s for step in plan.steps if isinstance(step, UserStep) and _declares_views(step.op)
                         for s in step.outputs}
        self._copied = [s < plan.num_args or s in plan.constants or s in made_by_views
                        or s in plan.results[:k] for k, s in enumerate(plan.results)]

    def launch_order(self) -> list[str]:
        """The steps as they run: each part's name, and each user op as `user op Label`."""
        return [step.name if isinstance(step, NativePart) else f"user op {user_op_label(step.op)}"
                for step in self.plan.steps]

    def run(self, args: Sequence[Any], hook: Callable | None = None, outs: list | None = None) -> list:
        timers = self.timers
        env = run_steps(self.plan, self.natives, args, self.env_constants,
                        lambda k, step, ins: self._user_op(step.op, ins, None if timers is None else timers[k]))
        return [self._fresh(env[s]) if copy else env[s] for s, copy in zip(self.plan.results, self._copied)]

    def _user_op(self, op: Operation, ins: list, timer: Any) -> list:
        if "device" not in op.attributes:  # a CPU op (`perform`): the parts moved its values
            return self._timed(timer, lambda: run_located(_run_on_host, op, ins))
        on_host = op.host_operands
        # (an argument kept on the host, a shared variable made while device was cpu, goes up)
        ins = [a if i in on_host or hasattr(a, "gpudata") else self.backend.to_device(a)
               for i, a in enumerate(ins)]
        return self._timed(timer, lambda: run_located(self.backend.run_user_op, op, ins))

    @staticmethod
    def _timed(timer: Any, work: Callable[[], list]) -> list:
        return work() if timer is None else timer.timed(work)

    def _fresh(self, value: Any) -> Any:
        return self.backend.copy(value) if hasattr(value, "gpudata") else np.array(value, copy=True)


class Uploads:
    """A part that only moves host values to the device (what a CPU user op made, for a GPU
    one): uploaded as they are, without compiling a function that would copy them again."""

    def __init__(self, to_device: Callable[[Any], Any]):
        self.to_device = to_device

    def run(self, arrays: list) -> list:
        return [a if hasattr(a, "gpudata") else self.to_device(a) for a in arrays]


class _NoRows:
    """The profile's source for `Uploads` (nothing the profile shows)."""

    name = "uploads"

    def applies(self) -> list:
        return []

    def collect(self) -> dict:
        return {}


def _only_uploads(part: NativePart) -> bool:
    """Whether the part's function is `tensor.to_device`s of its arguments, returned in order."""
    body = part_function(part.module).body
    ops = body.ops[:-1]
    return bool(ops) and len(ops) == len(body.args) \
        and all(isinstance(op, ToDeviceOp) and op.operands[0] is arg for op, arg in zip(ops, body.args)) \
        and list(body.ops[-1].operands) == [op.results[0] for op in ops]


def _run_on_host(op: Operation, arrays: list) -> list:
    """A CPU user op between device parts: its operands and results are host values (the
    parts around it download and upload them, as insert-transfers placed)."""
    return user_op_impl(op).run(op, arrays, checking_inputs_now())


def _declares_views(op: Operation) -> bool:
    impl = user_op_impl(op)
    return bool(getattr(getattr(impl, "op", None), "view_map", None))


def part_function(module: Any) -> FuncOp:
    """The function of a part's module."""
    return next(op for op in module.body.ops if type(op) is FuncOp)
