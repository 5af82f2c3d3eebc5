"""The device part of a placed function: transfers at its edges become the runtime's job.

After `insert-transfers`, a function that runs wholly on the GPU only moves data at its edges:
user inputs go through `tensor.to_device` and host results come from `tensor.to_host`. The
runtime does those copies itself (pinned memory, one stream), so the compiled module is the
function with those ops removed: every argument and result on the device. `device_function`
returns that module plus which arguments to upload and which results to download, or the host
ops that keep the function from running on the GPU alone (reported by the caller)."""
from __future__ import annotations

from dataclasses import dataclass

from ...dialects.builtin import ModuleOp, TensorType
from ...dialects.func import FuncOp, ReturnOp
from ...dialects.tensor_transfers import ToDeviceOp, ToHostOp
from ...ir.core import Operation


@dataclass
class DeviceFunction:
    module: ModuleOp          # one func.func, every argument and result placed on the device
    upload: list[bool]        # per argument: the caller passes a host array
    download: list[bool]      # per result: the caller wants a host array


class HostOpsLeft(Exception):
    """Ops of the function stay on the host (no GPU kernel yet): `ops` names them."""

    def __init__(self, ops: list[Operation]):
        self.ops = ops
        names = sorted({op.op_name for op in ops})
        super().__init__(f"no GPU kernel yet for {', '.join(names)}")


def _on_device(t: object) -> bool:
    return not isinstance(t, TensorType) or t.device is not None


def device_function(module: ModuleOp, device: str) -> DeviceFunction:
    """A clone of `module`'s function with the edge transfers taken out (see the module doc)."""
    module = module.clone()
    func = next(op for op in module.body.ops if isinstance(op, FuncOp))
    ret = func.body.terminator
    upload = []
    for arg in func.args:
        if _on_device(arg.type):
            upload.append(False)
            continue
        users = arg.users
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
        else:  # a host value computed on the host, or a host argument returned as is
            raise HostOpsLeft([owner] if isinstance(owner, Operation) else [ret])
    for op in list(func.body.ops):
        if isinstance(op, ToHostOp) and not op.result.has_uses:
            op.erase()
    left = [op for op in func.body.ops
            if not isinstance(op, ReturnOp) and not all(_on_device(r.type) for r in op.results)]
    if left:
        raise HostOpsLeft(left)
    func.update_function_type()
    return DeviceFunction(module, upload, download)


def strip_placement(module: ModuleOp) -> ModuleOp:
    """A clone of `module` with every tensor on the host and no transfers left: what a function
    that cannot run on the GPU alone compiles to for the cpu."""
    module = module.clone()
    func = next(op for op in module.body.ops if isinstance(op, FuncOp))
    for op in list(func.walk()):
        if isinstance(op, (ToDeviceOp, ToHostOp)):
            op.result.replace_all_uses_with(op.operands[0])
            op.erase()
    for arg in func.args:
        if isinstance(arg.type, TensorType):
            arg.type = arg.type.with_device(None)
    for op in func.walk():
        for r in op.results:
            if isinstance(r.type, TensorType):
                r.type = r.type.with_device(None)
    func.set_res_attrs([{k: v for k, v in func.res_attrs(i).items() if k != "irc.device"}
                        for i in range(len(func.function_type.results))])
    func.update_function_type()
    return module
