"""Running a GPU user op: Theano's `make_thunk(node, storage_map, compute_map, no_recycling)`
on irc's device arrays (PyCUDA `GPUArray`s), the registered implementation of its
`tensor.custom {device = "cuda"}`.

`run_on_device` is what a device executor calls between its native parts (device arrays in
and out; `irc/runtime/cuda/user_ops.py`). `run` is the numpy path, used where the function
runs on the host (the CUDA target's host fallback, the reference executor, DebugMode): inputs
are uploaded, the thunk runs, outputs come back. Both need a GPU; without one the error says
so and names the op. PyCUDA is imported only when a thunk first runs."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .graph import Apply
from .tensor_type import TensorType


class ThunkRunner:
    """One GPU op's thunks (made once per set of IR types) and their storage cells."""

    def __init__(self, op: Any):
        self.op = op
        self._thunks: dict[tuple, tuple[Apply, Callable[[], Any], dict]] = {}

    def __getstate__(self) -> dict:
        return {"op": self.op, "_thunks": {}}  # thunks hold compiled kernels: made again

    def _thunk(self, ir_op: Any) -> tuple[Apply, Callable[[], Any], dict]:
        key = (tuple(v.type for v in ir_op.operands), tuple(r.type for r in ir_op.results))
        found = self._thunks.get(key)
        if found is None:
            ins = [TensorType.from_ir(t.with_device(None))() for t in key[0]]
            outs = [TensorType.from_ir(t.with_device(None))() for t in key[1]]
            node = Apply(self.op, ins, outs, ir_op.location)
            storage = {v: [None] for v in (*ins, *outs)}
            compute = {v: [v in ins] for v in (*ins, *outs)}
            thunk = self.op.make_thunk(node, storage, compute, list(outs))
            if not callable(thunk):
                raise ValueError(f"{self.op}.make_thunk (op used at {ir_op.location}) returned "
                                 f"{type(thunk).__name__}, not a function of no arguments")
            found = self._thunks[key] = (node, thunk, storage)
        return found

    def run_on_device(self, ir_op: Any, arrays: list, synchronize: Callable[[], None]) -> list:
        """The op on device arrays (host arrays for its `host_inputs`); `synchronize` waits for
        irc's stream, before the thunk (its inputs are ready) and after (its outputs are).
        A CUDA error (a kernel that does not compile, a launch that fails) becomes a
        ValueError naming the op, with CUDA's or the compiler's own words."""
        try:
            node, thunk, storage = self._thunk(ir_op)
        except Exception as e:
            _raise_located(e, f"{self.op}.make_thunk", ir_op)
        for v, a in zip(node.inputs, arrays):
            storage[v][0] = a
        for v in node.outputs:  # no recycling: irc may still hold the previous call's results
            storage[v][0] = None
        try:
            synchronize()
            thunk()
            synchronize()  # (a kernel that failed on the device reports it here)
        except Exception as e:
            if isinstance(e, (ValueError, ArithmeticError, IndexError)) and not _from_cuda(e):
                raise ValueError(f"{self.op}'s thunk raised {type(e).__name__}: {e}") from e
            _raise_located(e, f"{self.op}'s thunk", ir_op)
        finally:
            for v in node.inputs:
                storage[v][0] = None
        outs = []
        for k, v in enumerate(node.outputs):
            value = storage[v][0]
            storage[v][0] = None
            outs.append(check_device_output(self.op, k, value, v.type, ir_op.location))
        return outs

    def run(self, ir_op: Any, arrays: list, check_inputs: bool, donated: frozenset = frozenset()) -> list:
        """The numpy path: upload, run the thunk, download."""
        gpu = _open_gpu(self.op, ir_op)
        host = set(getattr(self.op, "host_inputs", ()))
        device_arrays = [a if i in host else gpu.upload(a) for i, a in enumerate(arrays)]
        outs = self.run_on_device(ir_op, device_arrays, gpu.synchronize)
        return [np.asarray(o.get()) for o in outs]


def _from_cuda(e: Exception) -> bool:
    cls = type(e)
    return cls.__module__.startswith("pycuda") or cls.__name__ == "CudaError"


def _raise_located(e: Exception, what: str, ir_op: Any) -> None:
    """Raise `e` as a ValueError naming `what` when it is CUDA's (PyCUDA's driver or compiler
    errors, irc's `CudaError`: the runtime adds the op's line); any other exception as it is,
    with a note naming the op and its line."""
    if _from_cuda(e):
        raise ValueError(f"{what} failed with a CUDA error ({type(e).__name__}): {e}") from e
    e.add_note(f"raised by {what}, for the op used at {ir_op.location}")
    raise e


def check_device_output(op: Any, k: int, value: Any, declared: TensorType, where: Any) -> Any:
    """`value` as output #k of a GPU op, or a ValueError saying how it differs from `declared`."""
    prefix = f"{op}'s thunk (op used at {where}): output #{k}"
    if value is None:
        raise ValueError(f"{prefix} was not set: the thunk must assign storage_map[node.outputs[{k}]][0]")
    if not hasattr(value, "gpudata"):
        raise ValueError(f"{prefix} is a {type(value).__name__}, expected a device array (a PyCUDA "
                         f"GPUArray, e.g. irc.sandbox.cuda.CudaNdarray.zeros(shape)) of {declared}")
    if np.dtype(value.dtype).name != declared.dtype:
        raise ValueError(f"{prefix} has dtype {np.dtype(value.dtype).name}, but make_node declared {declared}")
    if len(value.shape) != declared.ndim:
        raise ValueError(f"{prefix} has shape {value.shape}, but make_node declared {declared} "
                         f"({declared.ndim} dimension(s))")
    for axis, (n, b) in enumerate(zip(value.shape, declared.broadcastable)):
        if b and n != 1:
            raise ValueError(f"{prefix} has shape {value.shape}, but make_node declared dim {axis} "
                             f"broadcastable (size 1) in {declared}")
    return value


class _Gpu:
    """What the numpy path needs of irc's GPU (PyCUDA, loaded on first use)."""

    def __init__(self) -> None:
        from ..runtime.cuda.device_array import to_device  # PyCUDA
        from ..runtime.cuda.driver import device
        self.upload = to_device
        self.synchronize = device().context.synchronize


def _open_gpu(op: Any, ir_op: Any) -> _Gpu:
    try:
        return _Gpu()
    except Exception as e:  # no PyCUDA, no driver, no device
        raise ValueError(f"{op} runs its kernels through make_thunk and needs a GPU, which this process "
                         f"cannot use ({type(e).__name__}: {e}); op used at {ir_op.location}") from None
