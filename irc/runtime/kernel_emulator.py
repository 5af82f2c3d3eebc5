"""Run GPU kernels on the CPU with numpy: the proof, without a GPU, that kernels compute the
right numbers (and a debugging aid: out-of-bounds accesses are reported with the op's line).

A launch is emulated all blocks at once (block by block where a view depends on the block);
every IR op is applied to an array with one entry per thread of the grid (lockstep: a
`gpu.barrier` holds trivially; blocks share no memory but the buffers), loops run while any thread
is still inside (per-thread masks), loads and stores go through the buffers' element
addresses. Arguments arrive exactly as on the device: packed by `abi.pack_params` into bytes
holding device addresses, unpacked here, and the addresses resolved to the numpy buffers of an
emulated device memory. Scalar ops use the elementwise table's numpy references.

`run_function(module, inputs)` runs a whole host function: `host_plan.record_plan` gives the
launches, this module executes them.
"""
from __future__ import annotations

import weakref
from typing import Callable, Sequence

import numpy as np

from ..codegen_ptx.abi import DeviceView, dense_strides, kernel_params, launch_dims, pack_params, unpack_params
from ..dialects import gpu as G
from ..dialects import loop as L
from ..dialects.builtin import MemRefType, ModuleOp
from ..dialects.tensor_eval import evaluate_scalar
from ..ir.core import Block, Operation, Value
from ..dialects.func import FuncOp
from .blas_layout import column_major_gemm, gemm_args
from .host_plan import (Branch, GemmCall, HostPlan, Launch, Upload, View, failed_check, host_value_args,
                        record_plan, record_plan_branches_first, run_readbacks)

SLOT_SPACING = 1 << 40  # emulated device addresses: slot k's bytes start at (k + 1) << 40
DEFAULT_SM_COUNT = 2


class EmulatorError(RuntimeError):
    """A kernel did something a GPU would not survive (an access out of its buffer)."""


class DeviceMemory:
    """Numpy byte buffers standing for device allocations, each at a fake device address."""

    def __init__(self) -> None:
        self.slots: dict[int, np.ndarray] = {}

    def allocate(self, slot: int, nbytes: int, fill: int = 0xFF) -> None:
        # unwritten memory reads as all-ones bytes (NaN for floats): a kernel reading what no
        # one wrote shows up in the results instead of passing by luck
        # (an empty array still gets 16 bytes, so a kernel that reads none of it can view it
        # as any element type)
        self.slots[slot] = np.full(max(nbytes, 16), fill, dtype=np.uint8)

    def address(self, slot: int) -> int:
        return (slot + 1) * SLOT_SPACING

    def resolve(self, address: int) -> tuple[np.ndarray, int]:
        """(the slot's bytes, byte offset) of a device address."""
        slot, offset = divmod(address, SLOT_SPACING)
        if slot - 1 not in self.slots:
            raise EmulatorError(f"address {address:#x} is in no allocation")
        return self.slots[slot - 1], offset


class EmuMemRef:
    """A memref inside the emulated kernel: typed flat elements plus offset/sizes/strides."""

    def __init__(self, data: np.ndarray, offset: int, sizes: Sequence[int], strides: Sequence[int]):
        self.data, self.offset, self.sizes, self.strides = data, int(offset), list(sizes), list(strides)

    def address(self, indices: Sequence) -> np.ndarray:
        addr = np.int64(self.offset)
        for i, s in zip(indices, self.strides):
            addr = addr + np.asarray(i, dtype=np.int64) * s
        return addr


def _uniform(v) -> int:
    """A value all threads agree on (sizes and view parameters are uniform)."""
    arr = np.asarray(v)
    if arr.ndim and not (arr == arr.flat[0]).all():
        raise EmulatorError("a view's parameters differ between threads")
    return int(arr.flat[0]) if arr.ndim else int(arr)


def kernel_arguments(kernel: G.GpuFuncOp, params: bytes, memory: DeviceMemory) -> list:
    """The kernel's argument values from its packed parameter buffer (the device's view)."""
    values = iter(unpack_params(kernel, params))
    types = kernel.function_type.inputs
    by_arg: dict[int, list] = {}
    for p in kernel_params(kernel):
        by_arg.setdefault(p.arg, []).append((p, next(values)))
    out = []
    for i, t in enumerate(types):
        parts = by_arg[i]
        if isinstance(t, MemRefType):
            raw, byte_offset = memory.resolve(parts[0][1])
            dtype = np.dtype(t.element.numpy_name)
            data = raw.view(np.uint8 if t.element.is_bool else dtype)
            if byte_offset % dtype.itemsize:
                raise EmulatorError(f"@{kernel.sym_name} argument {i}: misaligned pointer")
            sizes_in = {p.axis: v for p, v in parts if p.kind == "size"}
            strides_in = {p.axis: v for p, v in parts if p.kind == "stride"}
            sizes = [d if d is not None else sizes_in[a] for a, d in enumerate(t.shape)]
            strides = dense_strides(sizes) if t.strides is None else \
                [s if s is not None else strides_in[a] for a, s in enumerate(t.strides)]
            out.append(EmuMemRef(data, byte_offset // dtype.itemsize, sizes, strides))
        elif t.is_bool:
            out.append(np.bool_(parts[0][1]))
        else:
            out.append(np.array(parts[0][1], dtype=t.numpy_name)[()])
    return out


def emulate_launch(kernel: G.GpuFuncOp, grid: int, block: int, params: bytes, memory: DeviceMemory) -> None:
    """Run `kernel` over a grid of `grid` blocks of `block` threads: all blocks at once (one
    entry per thread of the grid: the Python per op is paid once, not once a block) unless a
    view's parameters depend on the block (they must be uniform), then block by block."""
    args = kernel_arguments(kernel, params, memory)
    thread_ids = np.arange(block, dtype=np.int64)
    if not views_depend_on_block(kernel):
        grid_values = {"gpu.thread_id": np.tile(thread_ids, grid),
                       "gpu.block_id": np.repeat(np.arange(grid, dtype=np.int64), block),
                       "gpu.block_dim": np.int64(block), "gpu.grid_dim": np.int64(grid)}
        env: dict[Value, object] = dict(zip(kernel.body.args, args))
        _BlockRun(kernel, env, grid_values).run(kernel.body, np.ones(grid * block, dtype=bool))
        return
    for b in range(grid):
        env = dict(zip(kernel.body.args, args))
        grid_values = {"gpu.thread_id": thread_ids, "gpu.block_id": np.int64(b),
                       "gpu.block_dim": np.int64(block), "gpu.grid_dim": np.int64(grid)}
        _BlockRun(kernel, env, grid_values).run(kernel.body, np.ones(block, dtype=bool))


_VIEWS = (L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp)
_BLOCK_DEPENDENT: "weakref.WeakKeyDictionary[G.GpuFuncOp, bool]" = weakref.WeakKeyDictionary()


def views_depend_on_block(kernel: G.GpuFuncOp) -> bool:
    """Whether a view's parameters in `kernel` are computed from `gpu.block_id` (through any
    chain of ops, loop-carried values and branches' results): such a kernel runs block by block.
    Remembered per kernel op."""
    known = _BLOCK_DEPENDENT.get(kernel)
    if known is not None:
        return known
    ops = list(kernel.walk())
    tainted: set[Value] = set()
    changed = True
    while changed:
        changed = False
        for op in ops:
            if op.op_name != "gpu.block_id" and not any(v in tainted for v in op.operands):
                continue
            reached = list(op.results)
            for region in op.regions:
                for blk in region.blocks:
                    reached += blk.args
            parent = op.parent_op
            if op.op_name == "loop.yield" and parent is not None and parent is not kernel:
                reached += list(parent.results)
                for region in parent.regions:
                    for blk in region.blocks:
                        reached += blk.args
            fresh = [v for v in reached if v not in tainted]
            if fresh:
                tainted.update(fresh)
                changed = True
    depends = any(isinstance(op, _VIEWS) and any(v in tainted for v in op.operands[1:]) for op in ops)
    _BLOCK_DEPENDENT[kernel] = depends
    return depends


class _BlockRun:
    def __init__(self, kernel: G.GpuFuncOp, env: dict, grid_values: dict):
        self.kernel = kernel
        self.env = env
        self.grid_values = grid_values

    def run(self, block: Block, mask: np.ndarray) -> list:
        env = self.env
        for op in block.ops:
            name = op.op_name
            if name in ("gpu.return", "loop.yield"):
                return [env[v] for v in op.operands]
            if name in self.grid_values:
                env[op.result] = self.grid_values[name]
            elif isinstance(op, L.ConstantOp):
                env[op.result] = np.int64(op.value)
            elif name in L.INDEX_BINARY:
                env[op.result] = _index_binary(name, env[op.operand(0)], env[op.operand(1)])
            elif isinstance(op, L.DimOp):
                env[op.result] = np.int64(env[op.operand(0)].sizes[op.axis])
            elif isinstance(op, (L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp, L.GlobalOp)):
                env[op.result] = self._view(op)
            elif isinstance(op, L.LoadOp):
                env[op.result] = self._load(op, mask)
            elif isinstance(op, L.StoreOp):
                self._store(op, mask)
            elif isinstance(op, L.ForOp):
                for r, v in zip(op.results, self._for(op, mask)):
                    env[r] = v
            elif isinstance(op, L.PrefetchOp):
                pass  # a cache hint: nothing to compute
            elif isinstance(op, L.AlignGapOp):
                env[op.result] = np.int64(0)  # no addresses here: no split (see `loop.align_gap`)
            elif isinstance(op, G.BarrierOp):
                pass  # lockstep execution: every thread of the block is here together
            elif isinstance(op, G.ShuffleXorOp):
                env[op.result] = self._shuffle(op, mask)
            elif isinstance(op, L.IfOp):
                for r, v in zip(op.results, self._if(op, mask)):
                    env[r] = v
            elif name.startswith("scalar."):
                with np.errstate(all="ignore"):
                    env[op.result] = evaluate_scalar(op, [env[v] for v in op.operands])
            else:
                raise EmulatorError(f"the kernel emulator cannot run '{name}' (at {op.location})")
        return []

    def _for(self, op: L.ForOp, mask: np.ndarray) -> list:
        lb, ub, step = (self.env[v] for v in op.operands[:3])
        n = mask.shape[0]
        iv = np.broadcast_to(np.asarray(lb, dtype=np.int64), (n,)).copy()
        carried = [np.broadcast_to(self.env[v], (n,)).copy() for v in op.operands[3:]]
        active = mask & (iv < ub)
        while active.any():
            self.env[op.body.args[0]] = iv
            for a, c in zip(op.body.args[1:], carried):
                self.env[a] = c
            yielded = self.run(op.body, active)
            carried = [np.where(active, y, c) for y, c in zip(yielded, carried)]
            iv = np.where(active, iv + step, iv)
            active = mask & (iv < ub)
        return carried

    def _if(self, op: L.IfOp, mask: np.ndarray) -> list:
        cond = np.broadcast_to(np.asarray(self.env[op.operand(0)], dtype=bool), mask.shape)
        taken = self.run(op.branch(True), mask & cond) if (mask & cond).any() else None
        other = self.run(op.branch(False), mask & ~cond) if (mask & ~cond).any() else None
        if taken is None or other is None:
            ran = taken if other is None else other
            return ran if ran is not None else [np.zeros(mask.shape)] * len(op.results)
        return [np.where(cond, t, o) for t, o in zip(taken, other)]

    def _shuffle(self, op: Operation, mask: np.ndarray):
        """A warp shuffle: each lane reads its xor partner's value. Like `shfl.sync` over a
        full warp, it needs all 32 lanes of a warp there, or none."""
        warps = mask.reshape(-1, G.WARP_SIZE)
        if (warps.any(axis=1) & ~warps.all(axis=1)).any():
            raise EmulatorError(f"@{self.kernel.sym_name}: '{op.op_name}' reached by part of a warp "
                                f"(at {op.location}): its lanes would read undefined values")
        value = np.broadcast_to(np.asarray(self.env[op.operand(0)]), mask.shape)
        partner = np.arange(mask.shape[0]) ^ int(_uniform(self.env[op.operand(1)]))
        return value[partner]

    def _addresses(self, op: Operation, m: EmuMemRef, indices, mask: np.ndarray) -> np.ndarray:
        addr = np.broadcast_to(m.address(indices), mask.shape)
        bad = mask & ((addr < 0) | (addr >= m.data.shape[0]))
        if bad.any():
            lane = int(np.argmax(bad))
            thread = int(np.broadcast_to(self.grid_values["gpu.thread_id"], mask.shape)[lane])
            block = int(np.broadcast_to(self.grid_values["gpu.block_id"], mask.shape)[lane])
            raise EmulatorError(f"@{self.kernel.sym_name}: '{op.op_name}' out of bounds (thread {thread} "
                                f"of block {block}, element {int(addr[lane])} of {m.data.shape[0]}; "
                                f"at {op.location})")
        return np.where(mask, addr, 0)

    def _load(self, op: Operation, mask: np.ndarray):
        m: EmuMemRef = self.env[op.operand(0)]
        addr = self._addresses(op, m, [self.env[v] for v in op.operands[1:]], mask)
        v = m.data[addr]
        return v.astype(bool) if op.result.type.is_bool else v

    def _store(self, op: Operation, mask: np.ndarray) -> None:
        m: EmuMemRef = self.env[op.operand(1)]
        addr = self._addresses(op, m, [self.env[v] for v in op.operands[2:]], mask)
        value = np.broadcast_to(np.asarray(self.env[op.operand(0)]), mask.shape)
        m.data[addr[mask]] = value[mask].astype(m.data.dtype)

    def _view(self, op: Operation):
        if isinstance(op, L.GlobalOp):
            data = np.ascontiguousarray(op.attributes["value"].array).reshape(-1)
            if op.result.type.element.is_bool:
                data = data.astype(np.uint8)
            return EmuMemRef(data, 0, list(op.result.type.shape), dense_strides(op.result.type.shape))
        src: EmuMemRef = self.env[op.operand(0)]
        vals = [_uniform(self.env[v]) for v in op.operands[1:]]
        if isinstance(op, L.TransposeOp):
            return EmuMemRef(src.data, src.offset, [src.sizes[p] for p in op.perm], [src.strides[p] for p in op.perm])
        if isinstance(op, L.SubviewOp):
            r = len(src.sizes)
            offsets, sizes, steps = vals[:r], vals[r:2 * r], vals[2 * r:]
            return EmuMemRef(src.data, src.offset + sum(o * s for o, s in zip(offsets, src.strides)), sizes,
                             [s * k for s, k in zip(src.strides, steps)])
        t: MemRefType = op.result.type
        if isinstance(op, L.BroadcastOp):
            strides = [0 if d < 0 or op.operand(0).type.shape[d] == 1 else src.strides[d] for d in op.dims]
            return EmuMemRef(src.data, src.offset, [d if d is not None else n for d, n in zip(t.shape, vals)], strides)
        dyn = iter(vals)
        sizes = [d if d is not None else next(dyn) for d in t.shape]
        return EmuMemRef(src.data, src.offset, sizes, dense_strides(sizes))


def _index_binary(name: str, a, b):
    if name == "loop.floordiv":
        with np.errstate(all="ignore"):
            return np.floor_divide(a, np.where(np.asarray(b) == 0, 1, b))
    if name == "loop.min":
        return np.minimum(a, b)
    if name == "loop.max":
        return np.maximum(a, b)
    return L.INDEX_BINARY[name](np.int64(a) if np.isscalar(a) else a, b)


# ---------------------------------------------------------------------------- whole functions
def execute_plan(plan: HostPlan, kernels: dict[str, G.GpuFuncOp], inputs: Sequence[np.ndarray],
                 sm_count: int = DEFAULT_SM_COUNT,
                 replan: Callable[[tuple[int, ...]], HostPlan] | None = None) -> list[np.ndarray]:
    """Run a recorded plan on emulated device memory; the results as fresh numpy arrays. A
    plan that reads flags back needs `replan` (`host_plan.run_readbacks`)."""
    memory = DeviceMemory()
    dtypes: dict[int, np.dtype] = {}
    for slot, x in enumerate(inputs):
        flat = np.ascontiguousarray(x).reshape(-1)
        dtypes[slot] = flat.dtype
        memory.allocate(slot, flat.nbytes)
        memory.slots[slot][:flat.nbytes] = flat.view(np.uint8)

    def allocate(allocs) -> None:
        for a in allocs:
            dtypes[a.slot] = np.dtype(a.dtype)
            memory.allocate(a.slot, int(np.prod(a.shape, dtype=np.int64)) * dtypes[a.slot].itemsize)

    def run(p: HostPlan, lo: int, hi: int) -> None:
        for launch in p.launches[lo:hi]:
            _emulate_launch(launch, kernels, memory, dtypes, sm_count)

    def read(flag: View) -> bool:
        return bool(_read_view(flag, dtypes[flag.slot], memory).reshape(-1)[0])

    allocate(plan.allocs)
    if plan.readbacks:
        if replan is None:
            raise ValueError("a plan that reads flags back runs with `replan`")
        plan = run_readbacks(plan, replan, run, read, lambda new, done: allocate(new.allocs[done:]))
    else:
        run(plan, 0, len(plan.launches))
    for check in plan.checks:  # read back after the launches, as the CUDA runtime does
        if _read_view(check.flag, dtypes[check.flag.slot], memory).reshape(-1)[0]:
            raise failed_check(check)
    return [_read_view(v, dtypes[v.slot], memory) for v in plan.results]


def _emulate_launch(launch: Launch | GemmCall | Upload | Branch, kernels: dict[str, G.GpuFuncOp], memory: DeviceMemory,
                    dtypes: dict[int, np.dtype], sm_count: int) -> None:
    if isinstance(launch, GemmCall):
        _emulate_gemm(launch, memory, dtypes)
        return
    if isinstance(launch, Branch):  # the device decides (a conditional graph node): the flag
        taken = launch.then if _read_view(launch.flag, dtypes[launch.flag.slot], memory).reshape(-1)[0] \
            else launch.otherwise
        for inner in taken:
            _emulate_launch(inner, kernels, memory, dtypes, sm_count)
        return
    if isinstance(launch, Upload):  # (inputs sit in emulated memory too: the same bytes)
        src, dst, itemsize = launch.src, launch.dst, dtypes[launch.src.slot].itemsize
        nbytes, to, fro = launch.work * itemsize, dst.offset * itemsize, src.offset * itemsize
        memory.slots[dst.slot][to:to + nbytes] = memory.slots[src.slot][fro:fro + nbytes]
        return
    kernel = kernels[launch.kernel]
    grid, block = launch_dims(launch.work, sm_count, kernel.items_per_thread)
    if grid == 0:
        return
    args = [DeviceView(memory.address(a.slot), a.offset, a.shape, a.strides, dtypes[a.slot].itemsize)
            if isinstance(a, View) else a for a in launch.args]
    emulate_launch(kernel, grid, block, pack_params(kernel, args), memory)


def _emulate_gemm(call: GemmCall, memory: DeviceMemory, dtypes: dict[int, np.dtype]) -> None:
    """The library call through its stand-in: the column-major arguments the runtime passes
    cuBLAS, applied by `blas_layout.column_major_gemm` to the emulated buffers."""
    if call.work == 0:
        return
    args = gemm_args(call.a, call.b, call.c)
    dtype = dtypes[call.c.slot]
    if call.c_in is not None and call.beta != 0.0:
        size = int(np.prod(call.c.shape))
        memory.slots[call.c.slot].view(dtype)[call.c.offset:call.c.offset + size] = \
            _read_view(call.c_in, dtype, memory).reshape(-1)

    def flat(v: View) -> np.ndarray:
        return memory.slots[v.slot].view(dtypes[v.slot])[v.offset:]

    accumulate = np.dtype("float32") if dtype == np.float16 else dtype
    column_major_gemm(args, call.alpha, call.beta, flat(args.first), flat(args.second), flat(call.c),
                      accumulate)


def _read_view(v: View, dtype: np.dtype, memory: DeviceMemory) -> np.ndarray:
    flat = memory.slots[v.slot].view(np.uint8 if dtype == np.bool_ else dtype)
    out = np.lib.stride_tricks.as_strided(flat[v.offset:], shape=v.shape,
                                          strides=[s * flat.itemsize for s in v.strides]).copy()
    return out.astype(bool) if dtype == np.bool_ else out


def run_function(module: ModuleOp, inputs: Sequence[np.ndarray], func: str | None = None,
                 sm_count: int = DEFAULT_SM_COUNT) -> list[np.ndarray]:
    """Run host function `func` (the first by default) of a kernel-level module (after
    `lower_for_gpu`) on `inputs`: `host_plan.record_plan` gives the launches, this module
    runs them."""
    funcs = [op for op in module.body.ops if isinstance(op, FuncOp) and not isinstance(op, G.GpuFuncOp)]
    chosen = next((f for f in funcs if func is None or f.sym_name == func), None)
    if chosen is None:
        raise ValueError(f"no host function{' @' + func if func else ''} in the module")
    kernels = {op.sym_name: op for op in module.body.ops if isinstance(op, G.GpuFuncOp)}
    values = {k: int(np.asarray(inputs[k])) for k in host_value_args(chosen)}
    shapes, dtypes = [np.shape(x) for x in inputs], [np.asarray(x).dtype for x in inputs]
    plan = record_plan_branches_first(chosen, shapes, dtypes, values)
    return execute_plan(plan, kernels, inputs, sm_count,
                        lambda stops: record_plan(chosen, shapes, dtypes, values, stops))
