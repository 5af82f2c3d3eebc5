"""Device arrays for users' GPU ops, under the names the tutorial's pages use: the old backend's
`CudaNdarray.zeros(shape)` (float32), and `empty`/`zeros` of any dtype, all irc's
`DeviceArray`s (PyCUDA `GPUArray`s) from irc's memory pool; `current_stream()` is irc's stream,
for kernels that want to be launched on it (`stream=`). PyCUDA loads on first use."""
from __future__ import annotations

from typing import Any, Sequence


def empty(shape: Sequence[int], dtype: Any = "float32") -> Any:
    """An uninitialized device array from irc's pool."""
    from .device_array import empty as device_empty  # PyCUDA
    return device_empty(tuple(int(n) for n in shape), dtype)


def zeros(shape: Sequence[int], dtype: Any = "float32") -> Any:
    """A device array of zeros (filled on irc's stream, which is then waited for)."""
    from .driver import device
    out = empty(shape, dtype)
    if out.size:
        gpu = device()
        gpu.drv.memset_d8_async(out.gpudata, 0, out.nbytes, gpu.stream)
        gpu.stream.synchronize()
    return out


def current_stream() -> Any:
    """irc's CUDA stream (a `pycuda.driver.Stream`)."""
    from .driver import device
    return device().stream


class CudaNdarray:
    """Theano's old GPU array type, as far as users' ops allocate with it: float32 only."""

    @staticmethod
    def zeros(shape: Sequence[int], dtype: Any = "float32") -> Any:
        if str(dtype) != "float32":
            raise TypeError(f"CudaNdarray holds float32 only, got {dtype}; use irc.sandbox.cuda.zeros(shape, dtype)")
        return zeros(shape, "float32")

    @staticmethod
    def empty(shape: Sequence[int]) -> Any:
        return empty(shape, "float32")
