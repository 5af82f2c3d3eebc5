"""`device-edges`: the device part of a placed function, its edge transfers left to the runtime.

After `insert-transfers`, a function that runs wholly on the GPU only moves data at its edges:
user inputs go through `tensor.to_device`, host results come from `tensor.to_host`. The runtime
does those copies itself (pinned memory, one stream), so the function that is compiled has
those ops removed and every argument and result on the device; the attribute `irc.transfer`
says what the caller does: `"upload"` on an argument it passes as a host array, `"download"` on
a result it wants back on the host. A host argument that only `ifelse` branches read keeps its
host type and its copies inside the branches (`"in-branch"`): the branch taken uploads it, so
the untaken branch's inputs never cross (Theano's lazy `ifelse` over big host matrices). A function with ops left on the host between device ops
(no GPU kernel yet) cannot be split this way: `HostOpsLeft` names them, and the runtime runs
that function on the cpu (`strip_placement`: the same function with no placement at all)."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..base.device import CUDA
from ..dialects.builtin import ModuleOp, TensorType
from ..dialects.func import FuncOp, ReturnOp
from ..dialects.tensor_transfers import ToDeviceOp, ToHostOp
from ..ir.attributes import StringAttr
from ..ir.core import Operation
from ..ir.diagnostics import Diagnostic, PassError
from ..ir.pass_manager import Pass, register_pass
from .insert_transfers import has_complex_values
from .place_on_device import place_all_on_device

TRANSFER = "irc.transfer"


class HostOpsLeft(Exception):
    """Ops of the function stay on the host (no GPU kernel yet): `ops` names them."""

    def __init__(self, ops: list[Operation]):
        self.ops = ops
        names = sorted({op.op_name + (" (complex values)" if has_complex_values(op) else "") for op in ops})
        super().__init__(f"no GPU kernel yet for {', '.join(names)}")


@dataclass
class Edges:
    upload: list[bool]        # per argument: the caller passes a host array
    download: list[bool]      # per result: the caller wants a host array
    in_branch: list[bool] = field(default_factory=list)  # per argument: a host array only
    # `ifelse` branches read, uploaded by the branch taken (`gpu.upload`), not at the call


def _on_device(t: object) -> bool:
    return not isinstance(t, TensorType) or t.device is not None


def take_edge_transfers(func: FuncOp, device: str) -> Edges:
    """Remove `func`'s edge transfers in place and mark its signature (see the module doc)."""
    ret = func.body.terminator
    upload, in_branch = [], []
    for arg in func.args:
        users = arg.users
        lazy = not _on_device(arg.type) and bool(users) and all(
            isinstance(u, ToDeviceOp) and u.parent is not func.body for u in users)
        in_branch.append(lazy)
        if _on_device(arg.type) or lazy:
            upload.append(False)
            continue
        if not all(isinstance(u, ToDeviceOp) for u in users):
            raise HostOpsLeft([u for u in users if not isinstance(u, ToDeviceOp)])
        arg.type = arg.type.with_device(device)
        for u in users:
            u.result.replace_all_uses_with(arg)
            u.erase()
        upload.append(True)
    download = []
    for i, v in enumerate(ret.operands):
        owner = v.owner
        if isinstance(owner, ToHostOp):
            ret.set_operand(i, owner.operands[0])
            download.append(True)
        elif _on_device(v.type):
            download.append(False)
        else:  # a host value computed on the host, or a host argument returned as it is
            raise HostOpsLeft([owner] if isinstance(owner, Operation) else [ret])
    for op in list(func.body.ops):
        if isinstance(op, ToHostOp) and not op.result.has_uses:
            op.erase()
    left = [op for op in func.body.ops
            if not isinstance(op, ReturnOp) and not all(_on_device(r.type) for r in op.results)]
    if left:
        raise HostOpsLeft(left)
    func.update_function_type()
    func.set_arg_attrs([_marked(_marked(func.arg_attrs(i), up, "upload"), lazy, "in-branch")
                        for i, (up, lazy) in enumerate(zip(upload, in_branch))])
    func.set_res_attrs([_marked(func.res_attrs(i), down, "download") for i, down in enumerate(download)])
    return Edges(upload, download, in_branch)


def device_module(module: ModuleOp, device: str) -> tuple[ModuleOp, Edges]:
    """A clone of `module` with its function's edge transfers taken (see the module doc)."""
    module = module.clone()
    func = next(op for op in module.body.ops if type(op) is FuncOp)
    return module, take_edge_transfers(func, device)


def _marked(attrs: dict, on: bool, what: str) -> dict:
    return {**attrs, TRANSFER: StringAttr(what)} if on else attrs


def strip_placement(module: ModuleOp) -> ModuleOp:
    """A clone of `module` with every tensor on the host and no transfers left: what a function
    that cannot run on the GPU alone compiles to for the cpu."""
    module = module.clone()
    func = next(op for op in module.body.ops if isinstance(op, FuncOp))
    for op in list(func.walk()):
        if isinstance(op, (ToDeviceOp, ToHostOp)):
            op.result.replace_all_uses_with(op.operands[0])
            op.erase()
    place_all_on_device(module, None)
    func.set_res_attrs([{k: v for k, v in func.res_attrs(i).items() if k != "irc.device"}
                        for i in range(len(func.function_type.results))])
    func.update_function_type()
    return module


@register_pass
class DeviceEdges(Pass):
    """Hand a placed function's edge transfers to the runtime (`irc.transfer` marks)."""

    name = "device-edges"
    summary = "remove a device function's edge transfers, marking its arguments and results"
    tags = ("gpu",)
    device: str = CUDA

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        for func in [op for op in module.body.ops if type(op) is FuncOp]:
            try:
                take_edge_transfers(func, self.device)
            except HostOpsLeft as e:
                raise PassError(Diagnostic(f"device-edges: function '{func.sym_name}' cannot run on "
                                           f"the device alone: {e}", e.ops[0].location)) from None
