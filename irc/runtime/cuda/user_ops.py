"""The hook a CUDA executor calls to run a GPU user op (`tensor.custom {device = "cuda"}`)
between its native parts: irc's device arrays in, the op's device arrays out.

    outs = run_device_user_op(op, arrays)

`arrays` follow the op's operands: `DeviceArray`s for device operands, numpy arrays for its
`host_operands`. The op's thunk (Theano's `make_thunk` protocol, `frontend/user_gpu_op.py`,
reached through the `tensor.custom` registry) runs after irc's stream is drained and is
waited for before this returns, so a kernel the user launches on PyCUDA's default stream is
ordered with irc's own launches. A part holding a user op is not captured in a CUDA graph
unless the op declares `_capturable = True`."""
from __future__ import annotations

from typing import Any

from ...dialects.tensor_custom import user_op_impl
from ...ir.core import Operation
from ...passes.device_edges import HostOpsLeft
from .driver import device


def run_device_user_op(op: Operation, arrays: list) -> list:
    """The results of the GPU user op `op` on `arrays` (see the module docstring)."""
    impl = user_op_impl(op)
    run = getattr(impl, "run_on_device", None)
    if run is None:
        raise ValueError(f"'tensor.custom' at {op.location}: {op.attributes['op'].value} has no device "
                         f"implementation (make_thunk) but was placed on the device")
    gpu = device()
    return run(op, arrays, gpu.context.synchronize)


def capturable(op: Operation) -> bool:
    """Whether a CUDA graph may record the op's launches (it declares `_capturable = True`)."""
    impl = user_op_impl(op)
    return bool(getattr(getattr(impl, "op", None), "_capturable", False))


def device_user_ops(func: Any) -> list[Operation]:
    """The GPU user ops of a placed function."""
    return [op for op in func.walk() if op.op_name == "tensor.custom" and "device" in op.attributes]


class UserOpsThroughHost(HostOpsLeft):
    """Why a function with GPU user ops runs through the host for now: the CUDA executor does
    not yet call `run_device_user_op` between its plans; the ops still run on the GPU (their
    inputs uploaded and outputs downloaded around each call)."""

    def __init__(self, ops: list[Operation]):
        super().__init__(ops)
        names = ", ".join(sorted({op.attributes["op"].value for op in ops}))
        self.args = (f"its GPU user ops ({names}) run between host parts: their inputs are copied to "
                     f"the device and their outputs back around each call",)
