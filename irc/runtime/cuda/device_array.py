"""The device array irc hands out: PyCUDA's `GPUArray`, plus what numpy users expect.

`numpy.asarray(r)` copies it to the host (the tutorial does exactly that; a plain GPUArray
becomes an object array), `.get()`, shape/dtype/strides, `__cuda_array_interface__` (torch and
cupy see the same memory), and `sync()` from the GpuArray backend. Memory comes from the
process's `DeviceMemoryPool`.

Making a GPUArray runs a page of Python; results of a compiled function are made by copying a
template's attributes instead (`ArrayFactory`), and an array the caller has dropped is handed
out again as it is, which is what keeps a call's host cost small."""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pycuda.gpuarray as gpuarray

from .driver import device
from .recycle import Recent


class DeviceArray(gpuarray.GPUArray):
    """A GPUArray that numpy can convert."""

    @functools.cached_property
    def address(self) -> int:
        """The device address as a Python int, read once (`int()` of a PyCUDA allocation costs
        about 0.7 µs, and the launch path needs every buffer's address every call)."""
        return int(self.gpudata) if self.gpudata is not None else 0

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        host = self.get()
        return host if dtype is None else host.astype(dtype, copy=False)

    def sync(self) -> None:
        """Wait until the work queued for this array (on irc's stream) is done."""
        device().synchronize()

    def __repr__(self) -> str:
        return f"DeviceArray({self.get()!r})"


def empty(shape: tuple[int, ...], dtype: Any) -> DeviceArray:
    return DeviceArray(shape, np.dtype(dtype), allocator=device().pool.allocate)


def to_device(value: Any) -> DeviceArray:
    """A new device array holding `value` (a numpy array, or anything numpy converts)."""
    host = np.asarray(value)
    if not host.flags.c_contiguous:
        host = np.ascontiguousarray(host)  # (never for 0-d values: it would make them 1-d)
    out = empty(host.shape, host.dtype)
    if host.size:
        device().drv.memcpy_htod(out.gpudata, host)
    return out


class ArrayFactory(Recent):
    """Fresh device arrays of one shape and dtype, made from a template's attributes; an array
    the caller has dropped is handed out again (`take`, from `recycle.Recent`). `make` is a
    method, not a bound method held by the instance, so a dropped factory is freed at once
    rather than by the cyclic garbage collector."""

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype):
        super().__init__()
        template = empty(shape, dtype)
        self.attrs = {k: v for k, v in template.__dict__.items() if k != "address"}
        self.nbytes = max(template.nbytes, 1)
        self.allocate = device().pool.allocate
        self.made = 0  # arrays allocated (not handed out again): the profiler's count

    def make(self) -> DeviceArray:
        out = DeviceArray.__new__(DeviceArray)
        out.__dict__.update(self.attrs)
        out.gpudata = self.allocate(self.nbytes)
        self.made += 1
        return out
