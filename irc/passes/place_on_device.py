"""Place a whole tensor-level module on one side by retyping: every tensor value (arguments,
results, constants) gets the placement, as `device=cuda` gives an all-elementwise function.

`lower_for_gpu` (and so `irc-opt -t ptx`) puts a module with no placement on the device this
way; `device_edges.strip_placement` brings one back to the host (`device=None`)."""
from __future__ import annotations

from ..dialects.builtin import DenseAttr, ModuleOp, TensorType
from ..dialects.func import FuncOp
from ..ir.attributes import TypeAttr
from ..ir.types import FunctionType


def _placed(t, device: str | None):
    return t.with_device(device) if isinstance(t, TensorType) else t


def place_all_on_device(module: ModuleOp, device: str | None) -> None:
    """Retype every tensor of `module` (in place) to live on `device` (None: the host)."""
    for op in module.walk():
        if isinstance(op, FuncOp):
            ft = op.function_type
            op.attributes["function_type"] = TypeAttr(FunctionType(
                tuple(_placed(t, device) for t in ft.inputs), tuple(_placed(t, device) for t in ft.results)))
        for region in op.regions:
            for block in region.blocks:
                for a in block.args:
                    a.type = _placed(a.type, device)
        for r in op.results:
            r.type = _placed(r.type, device)
        value = op.attributes.get("value")
        if isinstance(value, DenseAttr) and isinstance(value.type, TensorType):
            op.attributes["value"] = DenseAttr(value.type.with_device(device), value.data)


def is_host_placed(module: ModuleOp) -> bool:
    """No tensor of the module is on a device yet."""
    return not any(isinstance(v.type, TensorType) and v.type.device is not None
                   for op in module.walk() for v in op.results)
