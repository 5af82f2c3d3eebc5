"""`tensor.to_device` inside a device function: a host argument that only an `ifelse` branch
reads crosses when that branch runs — a device buffer of its shape and a `gpu.upload` into it
(the host plan copies it in order with the launches). A function's other transfers are at its
edges and are the runtime's (`device-edges`), so this is the one left to lower."""
from __future__ import annotations

from ...dialects import gpu as G
from ...dialects.func import FuncOp
from ...ir.core import Block, Operation
from .context import FuncLowering, lowering


@lowering("tensor.to_device")
def lower_to_device(ctx: FuncLowering, op: Operation) -> None:
    src = ctx.materialize(op.operand(0))
    owner = src.owner
    if not (isinstance(owner, Block) and isinstance(owner.parent_op, FuncOp)):
        raise ValueError(f"lower-to-loops: 'tensor.to_device' of {op.operand(0).type} at {op.location}: only "
                         f"a function argument is copied to the device inside a function (the runtime "
                         f"moves every other value at the function's edges)")
    sizes = ctx.sizes[src]
    dst = ctx.alloc(op.results[0].type, sizes)
    ctx.lb.b.create(G.UploadOp, [src, dst], result_types=[])
    ctx.bind(op.results[0], dst, ctx.sizes[dst], contiguous=True)
