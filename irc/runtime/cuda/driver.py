"""The one CUDA device of this process: PyCUDA on the device's *primary* context (the one torch
and cupy share), one stream, a device memory pool and a pinned host pool.

`pycuda.autoinit` is not used: its own context is popped at exit while pooled arrays are still
alive, which aborts the process. Here the primary context is retained and pushed once; an
atexit hook synchronizes, drops the pools' held blocks and pops it, so exit is clean.
Nothing is imported until a GPU is first used (`device()`); `why_unavailable()` answers
without raising, for the cpu fallback."""
from __future__ import annotations

import atexit
from dataclasses import dataclass
from typing import Any

from ...base.config import config


@dataclass
class OpenGpu:
    """What the runtime needs of the GPU, resolved once."""

    drv: Any              # pycuda.driver
    context: Any
    stream: Any
    pool: Any             # DeviceMemoryPool: device allocations
    pinned: Any           # PageLockedMemoryPool: host staging / results
    index: int
    name: str
    arch: str             # "sm_90"
    sm_count: int

    def synchronize(self) -> None:
        self.stream.synchronize()


_DEVICE: OpenGpu | None = None
_WHY: str | None = None
_PROBED = False


def _open(index: int) -> OpenGpu:
    import pycuda.driver as drv
    import pycuda.tools as tools
    drv.init()
    count = drv.Device.count()
    if count == 0:
        raise RuntimeError("the CUDA driver sees no GPU")
    if index >= count:
        raise RuntimeError(f"device cuda{index} asked for, but the driver sees {count} GPU(s)")
    dev = drv.Device(index)
    ctx = dev.retain_primary_context()
    ctx.push()
    major, minor = dev.compute_capability()
    sms = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    found = OpenGpu(drv, ctx, drv.Stream(), tools.DeviceMemoryPool(), tools.PageLockedMemoryPool(),
                   index, dev.name(), f"sm_{major}{minor}", sms)
    atexit.register(_close)
    if config.print_active_device:
        print(f"Using gpu device {index}: {found.name} ({found.arch}, {sms} SMs)")
    return found


def why_unavailable(index: int = 0) -> str | None:
    """None when GPU `index` can be used; else why not (for the fallback warning). A process
    works with one GPU: the first one opened."""
    global _PROBED, _WHY
    if not _PROBED:
        _PROBED = True
        try:
            device(index)
        except Exception as e:  # ImportError, a driver error, no device
            _WHY = f"{type(e).__name__}: {e}"
    if _WHY is None and _DEVICE is not None and _DEVICE.index != index:
        return f"this process already uses cuda{_DEVICE.index}; cuda{index} cannot be used as well"
    return _WHY


def device(index: int | None = None) -> OpenGpu:
    """The GPU, opened on first use (`index`, by default 0)."""
    global _DEVICE
    if _DEVICE is None:
        _DEVICE = _open(index or 0)
    return _DEVICE


def synchronize_after_launch() -> bool:
    """`config.gpu_sync` (which CUDA_LAUNCH_BLOCKING=1 also sets): wait for every launch."""
    return bool(config.gpu_sync)


def _close() -> None:
    """Finish queued work, return pooled memory and pop the primary context (at exit)."""
    global _DEVICE
    dev = _DEVICE
    if dev is None:
        return
    _DEVICE = None
    try:
        dev.context.synchronize()
        dev.pool.stop_holding()
        dev.pinned.stop_holding()
        dev.context.pop()
    except Exception:  # the driver may already be shutting down; never fail at exit
        pass
