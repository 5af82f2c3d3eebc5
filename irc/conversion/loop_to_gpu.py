"""`outline-kernels`: every `loop.parallel` nest over device buffers becomes a `gpu.func` and a
`gpu.launch` in the host function: the nests at its top level, and those in its host loops and
branches (a device scan's steps, a product's size-picked variants), which stay host control
flow around the launches.

The kernel runs a grid-stride loop over the nest's flattened iteration space (row-major,
`work` = product of the trip counts), delinearized into the nest's indices where an access
needs them. An access that reads or writes a contiguous device buffer at exactly the nest's
indices (same sizes, lower bounds 0, steps 1) addresses it by the linear index alone, as a flat
1-d view: for a nest without inner loops the kernel then handles 4 consecutive items per step
(`items_per_thread = 4`: all loads first, then the arithmetic, then the stores, so that the
NVPTX load-store vectorizer merges them into 16-byte accesses) and finishes the last
`work % 4` items in a scalar tail loop. Strided and broadcast operands keep their own
indexing through strides.

Values the nest captures become kernel arguments (device memrefs, indices, scalars); constants
and `loop.global` data are re-created inside the kernel. A host loop's exit condition (a
0-d boolean a kernel stored: a scan's `until`) becomes a `gpu.read_flag`, which the runtime
reads back; any other access to device memory from the host function is an error naming the
op: the host cannot read device memory.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..dialects import gpu as G
from ..dialects import loop as L
from ..dialects import scalar as S
from ..dialects.builtin import MemRefType, ModuleOp
from ..dialects.func import FuncOp
from ..ir.attributes import DenseArrayAttr, IntegerAttr
from ..ir.builder import InsertionPoint
from ..ir.core import Operation, Value
from ..ir.pass_manager import Pass, register_pass
from ..ir.transforms import eliminate_dead_code, values_from_above
from ..ir.types import i1, index
from .loop_builder import Index, LoopBuilder

VECTOR_WIDTH = 4
PTX_NAME_UNSAFE = re.compile(r"[^A-Za-z0-9_$]")
REMATERIALIZED = (L.ConstantOp, S.ConstantOp, L.GlobalOp)
VIEWS = (L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp)
# ops that only compute addresses or read memory: scheduled first in a multi-item step
ADDRESSING = (L.LoadOp, L.ConstantOp, L.AddOp, L.SubOp, L.MulOp, L.FloorDivOp, L.MinOp, L.MaxOp,
              L.DimOp, L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp)


class OutlineError(ValueError):
    def __init__(self, message: str, op: Operation):
        super().__init__(message)
        self.op = op


def touches_device(op: Operation) -> bool:
    """Does `op` (or anything nested in it) use a device memref?"""
    return any(G.is_device_memref(v.type) for o in op.walk() for v in (*o.operands, *o.results))


def _reads_a_device_flag(op: Operation) -> bool:
    """A host-level `loop.load` of a 0-d device buffer of i1 (a loop's exit condition, which a
    kernel computed): the host reads it back (`gpu.read_flag`)."""
    if op.op_name != "loop.load" or op.num_operands != 1:
        return False
    t = op.operand(0).type
    return G.is_device_memref(t) and t.shape == () and t.element == i1


def _is_const(v: Value, value: int) -> bool:
    return LoopBuilder.static_value(v) == value


class SizeFacts:
    """Which index values are known equal in a host function: the same value, or two sizes a
    `loop.assert_eq` compared (the host plan checks them all, those of a loop's steps too,
    before any launch: the function stops first if they differ)."""

    def __init__(self, func: FuncOp):
        self.parent: dict[int, Value] = {}
        for op in func.walk():
            if isinstance(op, L.AssertEqOp):
                a, b = (self.find(v) for v in op.operands)
                if a is not b:
                    self.parent[id(a)] = b

    def find(self, v: Value) -> Value:
        while id(v) in self.parent:
            v = self.parent[id(v)]
        return v

    def equal(self, a: Value, b: Value) -> bool:
        return self.find(a) is self.find(b)

    def size_is(self, m: Value, axis: int, ub: Value) -> bool:
        """Is memref `m`'s size along `axis` provably the value `ub`?"""
        static = m.type.shape[axis]
        if static is not None:
            return LoopBuilder.static_value(ub) == static
        size = self._size_value(m, axis)
        if size is not None and self.equal(size, ub):
            return True
        owner = ub.owner
        return isinstance(owner, L.DimOp) and owner.operand(0) is m and owner.axis == axis

    @staticmethod
    def _size_value(m: Value, axis: int) -> Value | None:
        owner = m.owner
        if isinstance(owner, (L.AllocOp, L.ReshapeOp)):
            dyn = [a for a, d in enumerate(m.type.shape) if d is None]
            sizes = owner.operands if isinstance(owner, L.AllocOp) else owner.operands[1:]
            return sizes[dyn.index(axis)]
        for use in m.uses:  # a `loop.dim` of m somewhere in the function
            user = use.owner
            if isinstance(user, L.DimOp) and user.axis == axis:
                return user.result
        return None


def inplace_buffers(func: FuncOp) -> set[Value]:
    """Arguments and returned buffers the caller may make one storage (a result marked
    `irc.inplace = N`): their kernel pointers must not be `noalias`."""
    out: set[Value] = set()
    ret = func.body.terminator
    for k in range(len(func.function_type.results)):
        n = func.res_attrs(k).get("irc.inplace")
        if n is not None and ret is not None:
            out |= {func.args[n.value], ret.operands[k]}  # type: ignore[attr-defined]
    return out


@dataclass
class NestShape:
    """The iteration space of one nest, as seen from the host."""

    lbs: Sequence[Value]
    ubs: Sequence[Value]
    steps: Sequence[Value]

    @property
    def unit(self) -> bool:
        """Lower bounds 0 and steps 1: indices are the delinearized linear index itself."""
        return all(_is_const(lb, 0) for lb in self.lbs) and all(_is_const(s, 1) for s in self.steps)


class KernelOutliner:
    """Outlines the device nests of one host function into kernels placed before it."""

    def __init__(self, module: ModuleOp, func: FuncOp):
        self.module = module
        self.func = func
        self.count = 0
        self.facts = SizeFacts(func)
        self.shared_storage = inplace_buffers(func)

    def run(self) -> None:
        self._outline_nests_in(self.func.body)
        for op in list(self.func.walk()):
            if op is self.func or isinstance(op, G.LaunchOp):
                continue
            if _reads_a_device_flag(op):
                flag = G.ReadFlagOp([op.operand(0)], [i1], {}, (), (), op.location)
                op.parent.insert_before(op, flag)
                op.result.replace_all_uses_with(flag.result)
                op.erase()
                continue
            if op.op_name in ("loop.load", "loop.store") and touches_device(op):
                raise OutlineError(f"'{op.op_name}' accesses device memory from the host function; "
                                   f"only whole 'loop.parallel' nests run on the device (this one "
                                   f"is not in a top-level nest: not supported on the GPU yet)", op)

    def _outline_nests_in(self, block) -> None:
        """The device nests of `block`, and of the host loops and branches in it (a device
        scan's steps: the host runs the loop, launching the step's kernels)."""
        for op in list(block.ops):
            if isinstance(op, L.ParallelOp):
                if touches_device(op):
                    self.outline(op)
            elif isinstance(op, (L.ForOp, L.IfOp)) and touches_device(op):
                for region in op.regions:
                    for inner in region.blocks:
                        self._outline_nests_in(inner)

    # ------------------------------------------------------------------ one nest
    def outline(self, nest: L.ParallelOp) -> None:
        shape = NestShape(*nest.bounds())
        host = LoopBuilder(nest.parent, nest.location)
        host.b.insertion_point = InsertionPoint.before(nest)
        trips = [self._trip_count(host, lb, ub, st) for lb, ub, st in zip(*nest.bounds())]
        work = host.const(1)
        for t in trips:
            work = host.mul(work, t)
        args, remat = self._kernel_inputs([work, *trips, *values_from_above(nest, with_operands=True)], nest)
        # (PTX names allow letters, digits, _ and $: a user op's part function is "main.part0")
        name = PTX_NAME_UNSAFE.sub("_", f"{self.func.sym_name}_kernel{self.count}")
        self.count += 1
        kernel = G.GpuFuncOp.create(name, [v.type for v in args], (), location=nest.location)
        aliased = [i for i, v in enumerate(args) if v in self.shared_storage]
        if aliased:
            kernel.attributes["irc.may_alias"] = DenseArrayAttr(tuple(aliased))
        mapping: dict[Value, Value] = dict(zip(args, kernel.body.args))
        for a, v in zip(kernel.body.args, args):
            a.name_hint = v.name_hint
        KernelBody(kernel, nest, shape, mapping, work, trips, remat, self.facts).build()
        self.module.body.insert_before(self.func, kernel)
        launch = G.LaunchOp.create(name, work, args)
        launch.location = nest.location
        nest.parent.insert_before(nest, launch)
        nest.erase()

    def _kernel_inputs(self, values: list[Value], nest: Operation) -> tuple[list[Value], list[Operation]]:
        """(arguments, ops re-created in the kernel): constants, constant data and views of
        buffers are rebuilt inside (so a broadcast's zero strides and a contiguous source's
        unit strides are compile-time constants there); everything else is passed."""
        args: list[Value] = []
        remat: list[Operation] = []

        def need(v: Value) -> None:
            owner = v.owner
            if v in args or owner in remat:
                return
            if isinstance(owner, REMATERIALIZED):
                remat.append(owner)
            elif isinstance(owner, VIEWS):  # (a host view: the nest is outside any kernel)
                for o in owner.operands:
                    need(o)
                remat.append(owner)
            elif isinstance(v.type, MemRefType) and v.type.device is None:
                raise OutlineError(f"a device loop nest also reads host memory ({v.type}); "
                                   f"device code never touches host buffers", nest)
            else:
                args.append(v)

        for v in values:
            need(v)
        return args, remat

    @staticmethod
    def _trip_count(host: LoopBuilder, lb: Value, ub: Value, step: Value) -> Value:
        span = host.sub(ub, lb)
        if _is_const(step, 1):
            return span
        return host.floordiv(host.add(span, host.sub(step, host.const(1))), step)


class KernelBody:
    """Builds the grid-stride loop of one kernel around clones of the nest's body."""

    def __init__(self, kernel: G.GpuFuncOp, nest: L.ParallelOp, shape: NestShape,
                 mapping: dict[Value, Value], work: Value, trips: list[Value],
                 remat: list[Operation], facts: SizeFacts):
        self.kernel = kernel
        self.nest = nest
        self.shape = shape
        self.outer = mapping  # host values -> kernel values
        self.lb = LoopBuilder(kernel.body, nest.location)
        self.host_work = work
        self.host_trips = trips
        self.remat = remat
        self.facts = facts
        self.flat: dict[Value, Value] = {}  # kernel memref -> its flat 1-d view

    def build(self) -> None:
        lb = self.lb
        self._rematerialize()
        self.work = self.outer[self.host_work]
        self.trips = [self.outer[t] for t in self.host_trips]
        flat_access = self._find_flat_accesses()
        b = lb.b
        tid = b.create(G.ThreadIdOp, []).result
        bid = b.create(G.BlockIdOp, []).result
        bdim = b.create(G.BlockDimOp, []).result
        gdim = b.create(G.GridDimOp, []).result
        gid = lb.add(lb.mul(bid, bdim), tid)
        stride = lb.mul(bdim, gdim)
        body = self.nest.body
        # (one item per thread where a body has loops, or trades values between lanes)
        width = VECTOR_WIDTH if flat_access and not any(o.regions or isinstance(o, G.ShuffleXorOp)
                                                        for o in body.ops) else 1
        start = gid
        if width > 1:
            self.kernel.attributes["items_per_thread"] = IntegerAttr(width, index)
            chunks = lb.floordiv(self.work, lb.const(width))
            with lb.for_(gid, chunks, stride) as loop:
                base = lb.mul(loop.iv, lb.const(width))
                self._emit_scheduled([lb.add(base, lb.const(k)) for k in range(width)])
            start = lb.add(lb.mul(chunks, lb.const(width)), gid)
        with lb.for_(start, self.work, stride) as loop:
            self._emit_scheduled([loop.iv])
        b.create(G.ReturnOp, [], result_types=[])
        eliminate_dead_code(self.kernel)

    def _rematerialize(self) -> None:
        """Constants, constant buffers and views, re-created in the kernel instead of passed."""
        for op in self.remat:
            self.lb.b.insert(op.clone(self.outer))

    def _find_flat_accesses(self) -> set[Operation]:
        """Loads/stores at exactly the nest's indices of a contiguous device buffer whose sizes
        are the trip counts: addressed by the linear index through a flat view."""
        body = self.nest.body
        found: set[Operation] = set()
        self.flat_ops = found  # (filled below; empty when the nest does not start at 0 step 1)
        if not self.shape.unit:
            return found
        for op in body.ops:
            if not isinstance(op, (L.LoadOp, L.StoreOp)):
                continue
            k = 0 if isinstance(op, L.LoadOp) else 1
            m = op.operand(k)
            t = m.type
            if (self.outer.get(m) is None or t.strides is not None or t.offset != 0
                    or tuple(op.operands[k + 1:]) != tuple(body.args)):
                continue
            if all(self.facts.size_is(m, a, ub) for a, ub in enumerate(self.shape.ubs)):
                found.add(op)
                if self.outer[m] not in self.flat:
                    self.flat[self.outer[m]] = self._flat_view(self.outer[m])
        return found

    def _flat_view(self, m: Value) -> Value:
        t: MemRefType = m.type
        flat_type = MemRefType((None,), t.element, device=t.device)
        return self.lb.create(L.ReshapeOp, [m, self.work], {}, flat_type)

    # ------------------------------------------------------------------ the body, per item
    def _emit_scheduled(self, linear: list[Index]) -> None:
        """Clones of the nest body, one per linear index, ordered loads - arithmetic - stores
        (a valid order: loads depend only on indices)."""
        cloned: list[tuple[int, int, Operation]] = []
        for copy, lin in enumerate(linear):
            mapping = dict(self.outer)
            ivs = self._delinearize(lin)
            mapping.update(zip(self.nest.body.args, ivs))
            rank: dict[int, int] = {}
            for op in self.nest.body.ops[:-1]:
                new = self._clone(op, mapping, lin)
                base = 0 if isinstance(op, ADDRESSING) else (2 if isinstance(op, L.StoreOp) else 1)
                level = max([base] + [rank.get(id(v), 0) for v in new.operands])
                for r in new.results:
                    rank[id(r)] = level
                cloned.append((level, len(cloned), new))
        for _, _, op in sorted(cloned, key=lambda c: (c[0], c[1])):
            self.lb.b.insert(op)

    def _clone(self, op: Operation, mapping: dict[Value, Value], lin: Index) -> Operation:
        if op in self.flat_ops:
            k = 0 if isinstance(op, L.LoadOp) else 1
            flat = self.flat[self.outer[op.operand(k)]]
            operands = [flat, lin] if k == 0 else [mapping.get(op.operand(0), op.operand(0)), flat, lin]
            new = type(op)(operands, [r.type for r in op.results], dict(op.attributes), (), (), op.location)
            for old, r in zip(op.results, new.results):
                mapping[old] = r
            return new
        return op.clone(mapping)

    def _delinearize(self, lin: Index) -> list[Index]:
        """The nest's indices of linear index `lin` (row-major over the trip counts)."""
        lb = self.lb
        ivs: list[Index] = []
        rest = lin
        for axis in reversed(range(len(self.trips))):
            n = self.trips[axis]
            if axis == 0:
                idx = rest
            else:
                q = lb.floordiv(rest, n)
                idx = lb.sub(rest, lb.mul(q, n))
                rest = q
            ivs.append(idx)
        ivs.reverse()
        out = []
        for idx, lo, st in zip(ivs, self.shape.lbs, self.shape.steps):
            lo_k = self.outer.get(lo, lo)
            st_k = self.outer.get(st, st)
            out.append(lb.add(lo_k, lb.mul(idx, st_k)))
        return out


def host_functions(module: ModuleOp) -> list[FuncOp]:
    return [op for op in module.body.ops if isinstance(op, FuncOp) and not isinstance(op, G.GpuFuncOp)]


@register_pass
@dataclass
class OutlineKernels(Pass):
    """Turn every loop nest over device buffers outside a kernel into a `gpu.func` and a `gpu.launch`."""

    name = "outline-kernels"
    summary = "outline loop nests over device buffers into gpu.func kernels launched from the host"
    tags = ("lowering", "gpu")

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        for func in host_functions(module):
            try:
                KernelOutliner(module, func).run()
            except OutlineError as e:
                raise self.error(f"outline-kernels: {e}", e.op.location) from None
