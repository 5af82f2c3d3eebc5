"""`insert-transfers`: place each tensor op on the device or the host, and copy values across
(`tensor.to_device` / `tensor.to_host`) where a reader sits on the other side.

Where an op runs comes from one table, `PLACEMENT`:

* `DEVICE` — ops with a device kernel: every elementwise op (the elementwise table's rows,
  comparisons, `select`, `cast`), `tensor.fused` groups, `tensor.random` (Philox draws) and
  the reductions `tensor.reduce` and `tensor.fused_reduce` (chunked deterministic passes:
  `conversion/tensor_to_loop/device_reduce.py`), the products `tensor.dot`/`gemv`/`gemm`
  (cuBLAS: `device_products.py`), the softmax family (`device_softmax.py`),
  `concat`, `insert_slice`, `gather` and `scatter` (`device_gather.py`: indices checked on
  the device, read back after the call), `insert_index` by indices `known_on_host`, and
  `alloc` and `iota` when their sizes are computed from constants, sizes and integer user
  inputs (`known_on_host`: the host side of the GPU function computes them). Their operands
  are copied to the device; constants feeding them become device constants (no copy at run
  time).
* `FOLLOW` — views and shapes (dimshuffle, transpose, reshape, broadcast, slice, dim; `index`
  by indices `known_on_host`; `dynamic_slice` whose bounds are `known_on_host`): they run
  where their data is, on the device when an operand that is not a constant is there (or is
  only a host copy of a device value, or was already copied there for an earlier reader), or
  when every reader runs on the device.
* a user op (`tensor.custom`) runs on the device when it has kernels (`device = "cuda"`, its
  `host_operands` staying on the host), on the host otherwise (`perform`).
* `tensor.scan` runs on the device when its step count is `known_on_host` and every op of
  its body has a device kernel or follows its data (`device_scan`): the host runs the loop
  (the step count, on the device like a `dynamic_slice`'s bounds, is computed there too) and
  launches the step's kernels; its body is placed as a function's is. Else the whole loop
  runs on the host.
* `tensor.if` runs its branches on the device when every op of both has a device kernel
  (`device_branches`): its condition is computed on the device too, and the host side reads
  it back (`gpu.read_flag`) and launches the taken branch only.
* integer indexing by 0-d indices only the device knows, on the leading axes, is first made a
  `gather` (or a "set" `scatter`: `device_indexing.py`), which runs on the device.
* `HOST` — everything else (fused_matvec, other indexing by an index computed from device
  data, sort, cumulative, conv2d and pool2d with their gradients, ...) until they get
  kernels: their operands are copied to the host.

Each value is copied at most once per placement, just before its first reader, and that copy
serves every later reader. A copy never undoes a copy (`to_host(to_device(x))` is `x`), so the
host copies the frontend makes of device-resident shared variables vanish. Function arguments
keep the placement their type states; a result is returned on the placement its attributes ask
for: `irc.device = "cuda"` (set by `gpu_from_host` on an output), else the placement of the
argument it updates (`irc.update = N`), else the host. Ops of other dialects are left where
they are: their operands are copied back to the placement they had.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..base.device import CUDA
from ..dialects.builtin import DenseAttr, ModuleOp, TensorType
from ..dialects.func import FuncOp, ReturnOp
from ..dialects.tensor_base import constant_value
from ..dialects.tensor_transfers import TRANSFER_OPS, transferred
from ..ir.attributes import IntegerAttr, StringAttr
from ..ir.core import Block, ElementwiseTrait, Operation, Value, create_op
from ..ir.diagnostics import PassError
from ..ir.pass_manager import Pass, register_pass
from ..ir.transforms import values_from_above
from .device_indexing import gather_by_device_indices

DEVICE, FOLLOW, HOST = "device", "follow", "host"

# Op name -> where it runs when a device is targeted. Elementwise ops not named here are
# DEVICE, any other op HOST: to move an op to the device once it has a kernel, add it here.
PLACEMENT: dict[str, str] = {
    "tensor.fused": DEVICE,
    "tensor.random": DEVICE,  # one parallel nest, every element its own Philox block
    "tensor.reduce": DEVICE,  # every kind, any axes: chunked passes without atomics
    "tensor.fused_reduce": DEVICE,  # the body computed in the reduction's first pass
    "tensor.dot": DEVICE,  # float matrices: cuBLAS (gpu.gemm); vectors: a device reduction
    "tensor.gemv": DEVICE,
    "tensor.gemm": DEVICE,
    "tensor.softmax": DEVICE,  # a row's statistics by the reduction passes, then one store
    "tensor.log_softmax": DEVICE,
    "tensor.softmax_grad": DEVICE,
    "tensor.concat": DEVICE,  # one copy nest per part (join, stack)
    "tensor.insert_slice": DEVICE,  # dest copied, then src into a strided view of the copy
    "tensor.dimshuffle": FOLLOW,
    "tensor.transpose": FOLLOW,
    "tensor.reshape": FOLLOW,
    "tensor.broadcast": FOLLOW,
    "tensor.slice": FOLLOW,
    "tensor.dim": FOLLOW,
    "tensor.alloc": DEVICE,  # a broadcast view of the value (sizes traced from shapes)
    "tensor.iota": DEVICE,  # arange(n): one nest
    # advanced indexing: indices checked on the device (flags read back after the call); a
    # scatter walks the indices per result element (deterministic, no atomics)
    "tensor.gather": DEVICE,
    "tensor.scatter": DEVICE,
    # convolution and pooling: one op each (and one per gradient), so a device kernel or cuDNN
    # plugs in by making them DEVICE here and giving them a device lowering
    "tensor.conv2d": HOST,
    "tensor.conv2d_grad_input": HOST,
    "tensor.conv2d_grad_filters": HOST,
    "tensor.pool2d": HOST,
    "tensor.pool2d_grad": HOST,
}

# Integer indexing (`x[:, 1]`, `x[i]`, `set_subtensor(x[i], v)`) by indices `known_on_host`
# (constants, sizes, integer user inputs): the host plan computes and checks them, so the op
# runs where its data is (`index`: a view) or on the device (`insert_index`); with an index
# computed from device data it stays on the host (the host plan cannot read device memory),
# unless `gather_by_device_indices` made it a gather first.
HOST_INDEXED = {"tensor.index": FOLLOW, "tensor.insert_index": DEVICE}
INDEX_OPERANDS = {"tensor.index": 1, "tensor.insert_index": 2}  # first index operand

# Ops whose result's size or offset comes from operands (from this one on): `x[i:j]` with bounds
# given at run time (the DLT's `givens` minibatch), alloc's sizes, arange's length. On the device
# when those are integer arithmetic on constants, sizes and integer user inputs, whose values
# the host side of the GPU function knows (`loop.host_value`); else on the host.
SIZED_BY_OPERANDS = {"tensor.dynamic_slice": 1, "tensor.alloc": 1, "tensor.iota": 0}
HOST_KNOWN_ARITHMETIC = ("tensor.add", "tensor.sub", "tensor.mul", "tensor.floordiv", "tensor.maximum",
                         "tensor.minimum", "tensor.neg", "tensor.cast", "tensor.dimshuffle",
                         "tensor.reshape", "tensor.broadcast", "tensor.to_device", "tensor.to_host")


def known_on_host(v: Value) -> bool:
    """Is `v` (a one-element integer) computed from constants, sizes and integer user inputs
    only, so that the host side of a GPU function can compute it without reading the device?"""
    t = v.type
    if not (isinstance(t, TensorType) and t.element.is_integer and all(d == 1 for d in t.shape)):
        return False
    owner = v.owner
    if isinstance(owner, Block):  # a user input arrives on the host; a step's argument does not
        return t.device is None and t.rank == 0 and isinstance(owner.parent_op, FuncOp)
    if owner.op_name in ("tensor.constant", "tensor.dim"):
        return True
    return owner.op_name in HOST_KNOWN_ARITHMETIC and all(known_on_host(w) for w in owner.operands)


# Ops that compute nothing a device kernel would: not reported as left on the host.
NOT_COMPUTATION = ("tensor.constant", "tensor.dim") + TRANSFER_OPS


def has_complex_values(op: Operation) -> bool:
    """Whether `op` reads or makes a complex tensor (those stay on the host)."""
    types = [v.type for v in (*op.operands, *op.results)]
    return any(isinstance(t, TensorType) and t.element.is_complex for t in types)


def placement_rule(op: Operation) -> str:
    """DEVICE, FOLLOW or HOST for a `tensor` op (see `PLACEMENT`)."""
    if has_complex_values(op):  # no device kernel handles complex numbers yet
        return HOST
    rule = PLACEMENT.get(op.op_name)
    if op.op_name == "tensor.scan":
        return DEVICE if device_scan(op) else HOST
    if op.op_name == "tensor.if":
        return DEVICE if device_branches(op) else HOST
    if op.op_name in HOST_INDEXED:
        first = INDEX_OPERANDS[op.op_name]
        known = all(known_on_host(v) for v in op.operands[first:])
        return HOST_INDEXED[op.op_name] if known else HOST
    if op.op_name in SIZED_BY_OPERANDS:  # sizes or bounds the host must compute
        known = all(known_on_host(v) for v in op.operands[SIZED_BY_OPERANDS[op.op_name]:])
        return (rule or FOLLOW) if known else HOST
    if rule is not None:
        return rule
    if op.op_name == "tensor.custom":  # a user op: on the device when it brings a kernel
        return DEVICE if "device" in op.attributes else HOST
    return DEVICE if op.has_trait(ElementwiseTrait) else HOST


# Ops of a scan body that stay where the body is: its terminator, and the ops that compute
# nothing (their readers' placement decides)
SCAN_BODY_NEUTRAL = ("tensor.scan_yield", "tensor.constant") + TRANSFER_OPS


def device_scan(op: Operation) -> bool:
    """Can this `tensor.scan` run on the device: a host loop launching its step's kernels? Its
    step count must be known on the host, and every op of its body must have a device kernel
    (or follow its data there); a body with a host op runs the whole loop on the host."""
    if not known_on_host(op.operand(0)):
        return False
    for inner in op.regions[0].blocks[0].ops:
        if inner.op_name in SCAN_BODY_NEUTRAL or not is_tensor_op(inner):
            continue
        if placement_rule(inner) == HOST or inner.op_name == "tensor.custom":
            return False  # (a user op is cut around, at a function's top level only)
    return True


def device_branches(op: Operation) -> bool:
    """Can this `tensor.if` run its branches on the device (the host reads the condition back
    and launches the taken branch's kernels)? Every op of both branches must have a device
    kernel or follow its data (a nested scan or if: by the same rules); a user op keeps it
    on the host (user ops are cut around, at a function's top level only)."""
    for region in op.regions:
        for inner in region.blocks[0].ops:
            if inner.op_name in SCAN_BODY_NEUTRAL + ("tensor.yield",) or not is_tensor_op(inner):
                continue
            if inner.op_name == "tensor.custom" or placement_rule(inner) == HOST:
                return False
    return True


def is_tensor_op(op: Operation) -> bool:
    return op.op_name.startswith("tensor.")


def ops_left_on_host(func: Operation) -> list[Operation]:
    """The `tensor` ops of `func` that compute on the host (`assert_no_cpu_op`'s report):
    every result on the host, and not a constant, a size or a transfer."""
    return [op for op in func.regions[0].blocks[0].ops
            if is_tensor_op(op) and op.op_name not in NOT_COMPUTATION and op.results
            and all(isinstance(r.type, TensorType) and r.type.device is None for r in op.results)]


def result_placement(func: FuncOp, index: int) -> str | None:
    """Where result `index` of `func` is returned: `irc.device`, else the placement of the
    argument it updates (`irc.update`), else the host (None)."""
    attrs = func.res_attrs(index)
    device = attrs.get("irc.device")
    if isinstance(device, StringAttr):
        return device.value
    update = attrs.get("irc.update")
    if isinstance(update, IntegerAttr) and 0 <= update.value < len(func.body.args):
        arg_type = func.body.args[update.value].type
        return arg_type.device if isinstance(arg_type, TensorType) else None
    return None


class _Placer:
    """Places the ops of one function in order (its body is one block in SSA order, so every
    operand is placed before its readers). New ops (copies, constants) go just before the op
    being placed, their first reader; the block's order is rebuilt once at the end (inserting
    one by one would make the pass quadratic in the function's size)."""

    def __init__(self, func: FuncOp, device: str, stats, block: Block | None = None):
        self.func, self.device, self.stats = func, device, stats
        self.block = func.body if block is None else block  # a function's, or a device scan's body
        self.copies: dict[tuple[Value, str | None], Value] = {}
        self.original: dict[Value, str | None] = {}  # placement before this pass, when changed
        self.new_ops: list[Operation] = []  # made for the op being placed
        self.reader_location = func.location
        self.device_only: dict[Operation, bool] = {}  # `feeds_device_only`, per view

    def run(self) -> None:
        block = self.block
        order: list[Operation] = []
        for op in list(block.ops):
            self.reader_location = op.location  # a copy points at the line that needs it
            if isinstance(op, ReturnOp):
                for k, v in enumerate(op.operands):
                    op.set_operand(k, self.on(v, result_placement(self.func, k)))
            elif op.op_name in ("tensor.scan_yield", "tensor.yield"):  # a device step's or branch's values
                for k, v in enumerate(op.operands):
                    op.set_operand(k, self.on(v, self.device))
            elif not is_tensor_op(op):
                for i, v in enumerate(op.operands):
                    op.set_operand(i, self.on(v, self.original.get(v, _placement(v))))
            elif op.op_name != "tensor.constant" and op.op_name not in TRANSFER_OPS:
                self.place(op)
            order += self.new_ops
            order.append(op)
            self.new_ops.clear()
        block.ops[:] = order  # the same ops (new ones adopted by `_emit`), in dominance order
        for op in reversed(order):  # copies and constants nothing reads any more
            if (op.op_name in TRANSFER_OPS or op.op_name == "tensor.constant") \
                    and not any(r.uses for r in op.results):
                op.erase()
        if block is self.func.body:
            self.func.update_function_type()

    def _emit(self, op: Operation) -> Value:
        self.block.append(op)  # adopted now, put in place by `run`
        self.new_ops.append(op)
        return op.results[0]

    def place(self, op: Operation) -> None:
        rule = placement_rule(op)
        if rule == FOLLOW:
            rule = DEVICE if any(self.on_device(v) for v in op.operands
                                 if isinstance(v.type, TensorType) and constant_value(v) is None) \
                or self.feeds_device_only(op) else HOST
        where = self.device if rule == DEVICE else None
        on_host = set(getattr(op, "host_operands", ()))  # a user GPU op's launch sizes
        for i, v in enumerate(op.operands):
            if isinstance(v.type, TensorType):
                op.set_operand(i, self.on(v, None if i in on_host else where))
        if op.regions and where is None:  # a host region op (`tensor.if`): its branches too
            self._bring_captures_to_host(op)
        elif op.op_name == "tensor.scan":
            self._place_scan_body(op)
        elif op.regions:
            self._place_branches(op)
        for r in op.results:
            if isinstance(r.type, TensorType) and r.type.device != where:
                self.original.setdefault(r, r.type.device)
                r.type = r.type.with_device(where)
        if where is not None:
            self.stats["ops-on-device"] += 1

    def _bring_captures_to_host(self, op: Operation) -> None:
        """The ops inside a host op's regions stay host ops: what they read from above comes
        to the host once, before the op."""
        for v in values_from_above(op):
            if not (isinstance(v.type, TensorType) and v.type.device is not None):
                continue
            host = self.on(v, None)
            v.replace_uses_where(
                host, lambda u: u.owner is not op and op.is_ancestor_of(u.owner))

    def _place_scan_body(self, op: Operation) -> None:
        """A device scan's body (isolated from above: it reads only its arguments) is placed like
        a function's, its arguments and yielded values on the device."""
        body = op.regions[0].blocks[0]
        for arg in body.args:
            arg.type = arg.type.with_device(self.device)
        _Placer(self.func, self.device, self.stats, body).run()

    def _place_branches(self, op: Operation) -> None:
        """A device `tensor.if`'s branches are placed like function bodies, their yielded
        values on the device. A host value a branch reads is copied inside the branch, so only
        the taken branch's inputs cross (Theano's lazy `ifelse` over big host matrices)."""
        for region in op.regions:
            _Placer(self.func, self.device, self.stats, region.blocks[0]).run()

    def feeds_device_only(self, op: Operation) -> bool:
        """A view whose every reader runs on the device (through other views, maybe): it runs
        there too, so its host operand crosses once, whole, instead of the view being made on
        the host. Memoized: each view is looked at once however its readers nest."""
        known = self.device_only.get(op)
        if known is None:
            users = [u for r in op.results for u in r.users]
            known = bool(users) and all(
                is_tensor_op(u) and (placement_rule(u) == DEVICE
                                     or placement_rule(u) == FOLLOW and self.feeds_device_only(u))
                for u in users)
            self.device_only[op] = known
        return known

    def on_device(self, v: Value) -> bool:
        """Whether `v` lives on the device, is a host copy of a value that does, or already
        has a device copy (made for an earlier reader)."""
        return _placement(v) is not None or transferred(v, self.device) is not None \
            or (v, self.device) in self.copies

    def on(self, v: Value, where: str | None) -> Value:
        """`v` on placement `where`: itself, the value it was copied from, a constant made
        there, or one copy made for its first reader there (the op being placed)."""
        if not isinstance(v.type, TensorType) or v.type.device == where:
            return v
        key = (v, where)
        if key not in self.copies:
            self.copies[key] = (transferred(v, where) or self._constant_on(v, where)
                                or self._copy(v, where))
        return self.copies[key]

    def _constant_on(self, v: Value, where: str | None) -> Value | None:
        value = constant_value(v)
        if value is None:
            return None
        const = v.owner
        type_ = v.type.with_device(where)
        new = create_op("tensor.constant", [], [type_], {"value": DenseAttr(type_, value.data)},
                        location=const.location)
        self.stats["device-constants" if where else "host-constants"] += 1
        return self._emit(new)

    def _copy(self, v: Value, where: str | None) -> Value:
        if where is not None and _placement(v) is not None:
            v = self.on(v, None)  # device to another device: through the host
        if where is None:
            copy = create_op("tensor.to_host", [v], [v.type.with_device(None)], location=self.reader_location)
            self.stats["to-host"] += 1
        else:
            copy = create_op("tensor.to_device", [v], [v.type.with_device(where)],
                             {"device": StringAttr(where)}, location=self.reader_location)
            self.stats["to-device"] += 1
        return self._emit(copy)


def _placement(v: Value) -> str | None:
    return v.type.device if isinstance(v.type, TensorType) else None


@register_pass
@dataclass
class InsertTransfers(Pass):
    """Put ops with a device kernel on `device`; copy values between host and device."""

    name = "insert-transfers"
    summary = "place ops on the device or the host and insert the transfers between them"
    tags = ("gpu",)
    statistics = {"ops-on-device": "ops placed on the device",
                  "to-device": "host values copied to the device",
                  "to-host": "device values copied to the host",
                  "device-constants": "constants made on the device for device readers",
                  "host-constants": "constants made on the host for host readers",
                  "indices-on-device": "x[i] by an index only the device knows, made a gather (or scatter)"}
    device: str = CUDA

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        if not self.device or self.device == "cpu":
            raise PassError(f"insert-transfers: option device={self.device!r} must name a device "
                            f"(e.g. cuda); the host needs no placement")
        for func in [op for op in module.body.ops if isinstance(op, FuncOp)]:
            self.stats["indices-on-device"] += gather_by_device_indices(func, known_on_host)
            _Placer(func, self.device, self.stats).run()
