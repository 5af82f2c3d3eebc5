"""`gpu_from_host` / `host_from_gpu`: Theano's explicit transfers, as placement hints.

In irc the placement of every op is chosen by `insert-transfers` from the target, so a
transfer in the middle of a graph changes nothing: lowering binds its output to its input.
What it does say is at the end of a graph: an output that is `gpu_from_host(...)` is returned
on the device (the result attribute `irc.device`, when `config.device` is a GPU), so the
caller gets a device array and no copy to the host is made. With `device=cpu` both are the
identity and results stay numpy arrays."""
from __future__ import annotations

from typing import Any

from ..base.device import CUDA
from ..ir.attributes import Attribute, StringAttr
from .basic import as_tensor_variable
from .graph import Apply, Op, Variable


class PlacementHint(Op):
    """A transfer the user wrote: the identity on values, a placement wish for lowering."""

    def make_node(self, x: Any) -> Apply:  # type: ignore[override]
        x = as_tensor_variable(x)
        return Apply(self, [x], [Variable(x.type)])

    def grad(self, inputs, outputs, output_grads):
        return [output_grads[0]]  # a copy: the gradient passes through unchanged


class GpuFromHost(PlacementHint):
    """`gpu_from_host(x)`: x on the device (a device result when it is an output). On its own
    (`.eval()`, type inference) it is a `tensor.to_device` to the CUDA placement, the GPU
    Theano's name means, whatever the target; compiled, it is bound to x (see above)."""

    ir_name = "tensor.to_device"

    def ir_attributes(self) -> dict[str, Attribute]:
        return {"device": StringAttr(CUDA)}


class HostFromGpu(PlacementHint):
    """`host_from_gpu(x)`: x on the host (results are returned there anyway)."""

    ir_name = "tensor.to_host"


gpu_from_host = GpuFromHost()
host_from_gpu = HostFromGpu()


def returned_on_device(var: Variable) -> bool:
    """Whether an output asks to stay on the device (`gpu_from_host(...)` last)."""
    owner = var.owner
    return owner is not None and isinstance(owner.op, GpuFromHost)
