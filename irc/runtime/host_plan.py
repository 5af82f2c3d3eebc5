"""Record what a host function (after `outline-kernels`) does for given input shapes: the
buffers it needs, the kernel launches with their argument values and grid sizes, the frees,
and which views it returns.

The host function of a GPU module only computes sizes, allocates, makes views and launches
kernels, so one pass over it with concrete shapes yields a flat `HostPlan`; an executor (the
PyCUDA runtime, or `kernel_emulator` on the CPU) then just runs that list. Buffers are
abstract slots: the executor decides where they live. A size check that fails raises
`HostPlanError` with the op's message and location, before anything runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence, Union

import numpy as np

from ..dialects import gpu as G
from ..dialects import loop as L
from ..dialects.builtin import MemRefType, ModuleOp
from ..dialects.func import FuncOp, ReturnOp
from ..dialects.tensor_eval import evaluate_scalar
from ..codegen_ptx.abi import dense_strides, launch_dims
from ..ir.core import Operation, Value


class HostPlanError(ValueError):
    """The host function cannot run for these inputs (a size check failed) or holds an op a
    plan cannot express."""


@dataclass(frozen=True)
class Buffer:
    """Slot `slot`: an input (`arg` = its position), a temporary or result (`alloc`) or
    constant data (`const`, with `data`)."""

    slot: int
    kind: str
    shape: tuple[int, ...]
    dtype: str
    arg: int = -1
    data: np.ndarray | None = field(default=None, compare=False)

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class View:
    """Elements of buffer `slot`: element (i, j, ...) at `offset + i*strides[0] + ...`."""

    slot: int
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: str


@dataclass(frozen=True)
class Launch:
    kernel: str
    work: int
    grid: int
    block: int
    args: tuple[Union[View, int, float, bool], ...]


@dataclass(frozen=True)
class Free:
    slot: int


@dataclass
class HostPlan:
    buffers: list[Buffer]
    steps: list[Union[Launch, Free]]
    results: list[View]
    kernels: dict[str, G.GpuFuncOp]


def find_function(module: ModuleOp, name: str | None = None) -> FuncOp:
    funcs = [op for op in module.body.ops if isinstance(op, FuncOp) and not isinstance(op, G.GpuFuncOp)]
    for f in funcs:
        if name is None or f.sym_name == name:
            return f
    raise HostPlanError(f"no host function{' @' + name if name else ''} in the module")


def record(module: ModuleOp, shapes: Sequence[Sequence[int]], sm_count: int,
           func: str | None = None) -> HostPlan:
    """The plan of host function `func` (the first one by default) for inputs of `shapes`."""
    return _Recorder(module, find_function(module, func), sm_count).run([tuple(s) for s in shapes])


class _Recorder:
    def __init__(self, module: ModuleOp, func: FuncOp, sm_count: int):
        self.func = func
        self.sm_count = sm_count
        self.kernels = {op.sym_name: op for op in module.body.ops if isinstance(op, G.GpuFuncOp)}
        self.env: dict[Value, object] = {}
        self.buffers: list[Buffer] = []
        self.steps: list[Union[Launch, Free]] = []

    def run(self, shapes: list[tuple[int, ...]]) -> HostPlan:
        args = self.func.args
        if len(shapes) != len(args):
            raise HostPlanError(f"@{self.func.sym_name} takes {len(args)} inputs, got {len(shapes)} shapes")
        for i, (a, shape) in enumerate(zip(args, shapes)):
            t: MemRefType = a.type
            if len(shape) != t.rank or any(d is not None and d != n for d, n in zip(t.shape, shape)):
                raise HostPlanError(f"input {i} of @{self.func.sym_name} has shape {shape}, "
                                    f"the function takes {t}")
            self.env[a] = self._new_buffer("arg", shape, t, arg=i)
        for op in self.func.body.ops:
            if isinstance(op, ReturnOp):
                return HostPlan(self.buffers, self.steps, [self.env[v] for v in op.operands], self.kernels)
            self.op(op)
        raise HostPlanError(f"@{self.func.sym_name} has no 'func.return'")

    def _new_buffer(self, kind: str, shape, t: MemRefType, arg: int = -1, data=None) -> View:
        slot = len(self.buffers)
        dtype = t.element.numpy_name
        self.buffers.append(Buffer(slot, kind, tuple(shape), dtype, arg, data))
        return View(slot, 0, tuple(shape), tuple(dense_strides(shape)), dtype)

    def op(self, op: Operation) -> None:
        env = self.env
        name = op.op_name
        if isinstance(op, L.ConstantOp):
            env[op.result] = op.value
        elif name in L.INDEX_BINARY:
            a, b = (env[v] for v in op.operands)
            env[op.result] = L.INDEX_BINARY[name](a, b)
        elif isinstance(op, L.DimOp):
            env[op.result] = env[op.operand(0)].shape[op.axis]
        elif isinstance(op, L.AssertEqOp):
            a, b = (env[v] for v in op.operands)
            if a != b:
                raise HostPlanError(f"{op.message} ({a} vs {b}; at {op.location})")
        elif isinstance(op, L.AllocOp):
            t: MemRefType = op.result.type
            dyn = iter(env[v] for v in op.operands)
            env[op.result] = self._new_buffer("alloc", [d if d is not None else next(dyn) for d in t.shape], t)
        elif isinstance(op, L.DeallocOp):
            self.steps.append(Free(env[op.operand(0)].slot))
        elif isinstance(op, L.GlobalOp):
            data = op.attributes["value"].array
            env[op.result] = self._new_buffer("const", data.shape, op.result.type, data=data)
        elif isinstance(op, (L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp)):
            env[op.result] = view_of(op, env[op.operand(0)], [env[v] for v in op.operands[1:]])
        elif isinstance(op, G.LaunchOp):
            self._launch(op)
        elif name.startswith("scalar."):
            env[op.result] = evaluate_scalar(op, [np.asarray(env[v]) for v in op.operands])[()]
        else:
            raise HostPlanError(f"the host function of a GPU module cannot run '{name}' "
                                f"(at {op.location})")

    def _launch(self, op: G.LaunchOp) -> None:
        kernel = self.kernels[op.kernel]
        work = self.env[op.work]
        grid, block = launch_dims(work, self.sm_count, kernel.items_per_thread)
        if grid == 0:
            return
        args = tuple(_plain(self.env[v]) for v in op.args)
        self.steps.append(Launch(op.kernel, work, grid, block, args))


def _plain(v):
    return v.item() if isinstance(v, np.generic) else v


def view_of(op: Operation, src: View, operands: list[int]) -> View:
    """The view a `loop` view op makes of `src` (same arithmetic as the code generators')."""
    if isinstance(op, L.TransposeOp):
        perm = op.perm
        return View(src.slot, src.offset, tuple(src.shape[p] for p in perm),
                    tuple(src.strides[p] for p in perm), src.dtype)
    if isinstance(op, L.SubviewOp):
        r = len(src.shape)
        offsets, sizes, steps = operands[:r], operands[r:2 * r], operands[2 * r:]
        offset = src.offset + sum(o * s for o, s in zip(offsets, src.strides))
        return View(src.slot, offset, tuple(sizes), tuple(s * k for s, k in zip(src.strides, steps)), src.dtype)
    if isinstance(op, L.BroadcastOp):
        t: MemRefType = op.result.type
        strides = tuple(0 if d < 0 or op.operand(0).type.shape[d] == 1 else src.strides[d] for d in op.dims)
        sizes = tuple(d if d is not None else n for d, n in zip(t.shape, operands))
        return View(src.slot, src.offset, sizes, strides, src.dtype)
    t = op.result.type  # reshape of a contiguous buffer
    dyn = iter(operands)
    shape = tuple(d if d is not None else next(dyn) for d in t.shape)
    return View(src.slot, src.offset, shape, tuple(dense_strides(shape)), src.dtype)
