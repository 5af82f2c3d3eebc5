"""The kernel ABI: how a `gpu.func`'s arguments become the packed parameter buffer of a CUDA
launch, and how big the grid is. The one place that the code generator (`convert_to_nvvm`),
the PyCUDA runtime and the CPU emulator all follow.

Parameters, per kernel argument in order:

* a memref: the device address of its element [0, ..., 0] (the view's offset is folded into
  it, so a kernel never adds an offset), then its size along each axis the type leaves
  dynamic (`?`), then — only for a strided type (`strided<[...]>`) — its stride, in elements,
  along each axis whose stride the type leaves dynamic. A contiguous type (no `strided<>`)
  means a dense row-major array whose address is a multiple of 16 bytes: kernels read it
  with 16-byte vector loads (the CUDA allocator's 256-byte alignment gives this);
* an `index`: an int64;
* a scalar: its value in its own storage type (bool as one byte, f16 as its 2 bytes).

Every parameter is aligned to its own size, as CUDA lays out kernel parameters; all are
little-endian. No library here: the runtime calls `pack_params`, the code generator
`kernel_params`.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any, Sequence

from ..dialects.builtin import MemRefType
from ..dialects.gpu import GpuFuncOp
from ..ir.types import ScalarType, index

BLOCK = 256
# Blocks per SM at most: 8 of 256 threads are resident at once on sm_80/sm_90, and 8 waves of
# them keep enough loads in flight to stream HBM (measured on an H100, a 2^26-element chain:
# 207 µs with 8 blocks per SM, 190 µs with 64, a device copy 181 µs); grid-stride loops cover
# any larger work.
BLOCKS_PER_SM = 64
VECTOR_ALIGN = 16

_FORMATS = {"i1": "B", "i8": "b", "i16": "h", "i32": "i", "i64": "q", "index": "q",
            "ui8": "B", "ui16": "H", "ui32": "I", "ui64": "Q", "f16": "e", "f32": "f", "f64": "d"}


@dataclass(frozen=True)
class Param:
    """One kernel parameter: `kind` is "ptr", "size", "stride" (of memref argument `arg` along
    `axis`), "index" or "scalar"; `fmt` its `struct` code."""

    arg: int
    kind: str
    fmt: str
    axis: int = -1

    @property
    def size(self) -> int:
        return struct.calcsize("<" + self.fmt)


@dataclass(frozen=True)
class DeviceView:
    """A memref argument as the launcher knows it: device address of the allocation's first
    byte, the view's offset, shape and strides in elements, and the element size."""

    address: int
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    itemsize: int

    @property
    def pointer(self) -> int:
        return self.address + self.offset * self.itemsize


def scalar_format(t: ScalarType) -> str:
    return _FORMATS[str(t)]


def memref_params(arg: int, t: MemRefType) -> list[Param]:
    params = [Param(arg, "ptr", "Q")]
    params += [Param(arg, "size", "q", a) for a, d in enumerate(t.shape) if d is None]
    if t.strides is not None:
        params += [Param(arg, "stride", "q", a) for a, s in enumerate(t.strides) if s is None]
    return params


def kernel_params(kernel: GpuFuncOp) -> list[Param]:
    """The parameters of `kernel` in ABI order."""
    params: list[Param] = []
    for i, t in enumerate(kernel.function_type.inputs):
        if isinstance(t, MemRefType):
            params += memref_params(i, t)
        elif t == index:
            params.append(Param(i, "index", "q"))
        else:
            params.append(Param(i, "scalar", scalar_format(t)))
    return params


def param_layout(params: Sequence[Param]) -> tuple[str, list[int]]:
    """(struct format with explicit padding, byte offset of each parameter)."""
    fmt = "<"
    offsets: list[int] = []
    at = 0
    for p in params:
        pad = -at % p.size
        fmt += "x" * pad
        at += pad
        offsets.append(at)
        fmt += p.fmt
        at += p.size
    return fmt, offsets


def param_struct(kernel: GpuFuncOp) -> struct.Struct:
    return struct.Struct(param_layout(kernel_params(kernel))[0])


def param_values(kernel: GpuFuncOp, args: Sequence[Any]) -> list[Any]:
    """The parameter values for `args` (one per kernel argument: a `DeviceView` for a memref,
    an int for an index, a number for a scalar), checking what the kernel assumes."""
    types = kernel.function_type.inputs
    if len(args) != len(types):
        raise ValueError(f"kernel @{kernel.sym_name} takes {len(types)} arguments, got {len(args)}")
    values: list[Any] = []
    for p in kernel_params(kernel):
        t, a = types[p.arg], args[p.arg]
        if p.kind == "ptr":
            _check_view(kernel, p.arg, t, a)
            values.append(a.pointer)
        elif p.kind == "size":
            values.append(int(a.shape[p.axis]))
        elif p.kind == "stride":
            values.append(int(a.strides[p.axis]))
        elif p.kind == "index":
            values.append(int(a))
        else:
            values.append(bool(a) if t.is_bool else (float(a) if t.is_float else int(a)))
    return values


def pack_params(kernel: GpuFuncOp, args: Sequence[Any]) -> bytes:
    """The packed parameter buffer of a launch of `kernel` with `args` (see `param_values`)."""
    return param_struct(kernel).pack(*param_values(kernel, args))


def unpack_params(kernel: GpuFuncOp, data: bytes) -> list[Any]:
    """The parameter values back from a packed buffer (the emulator reads launches this way)."""
    return list(param_struct(kernel).unpack(data))


def _check_view(kernel: GpuFuncOp, arg: int, t: MemRefType, view: DeviceView) -> None:
    where = f"kernel @{kernel.sym_name} argument {arg} ({t})"
    if len(view.shape) != t.rank:
        raise ValueError(f"{where}: got a rank-{len(view.shape)} array")
    for axis, (d, n) in enumerate(zip(t.shape, view.shape)):
        if d is not None and d != n:
            raise ValueError(f"{where}: size {n} along axis {axis}, the type says {d}")
    if t.strides is None:
        dense = dense_strides(view.shape)
        empty = 0 in view.shape  # no element to address: any strides will do
        if not empty and any(s != e for s, e, n in zip(view.strides, dense, view.shape) if n > 1):
            raise ValueError(f"{where}: needs a dense row-major array, got strides {view.strides}")
        if view.pointer % VECTOR_ALIGN:
            raise ValueError(f"{where}: needs a {VECTOR_ALIGN}-byte aligned address")
    else:
        for axis, (s, v) in enumerate(zip(t.strides, view.strides)):
            if s is not None and s != v and view.shape[axis] > 1:
                raise ValueError(f"{where}: stride {v} along axis {axis}, the type says {s}")


def dense_strides(shape: Sequence[int]) -> list[int]:
    """Row-major element strides of a concrete shape."""
    out, acc = [], 1
    for n in reversed(shape):
        out.append(acc)
        acc *= n
    return list(reversed(out))


def launch_dims(work: int, sm_count: int, items_per_thread: int = 1, block: int = BLOCK
                ) -> tuple[int, int]:
    """(blocks in the grid, threads per block) for `work` iteration points of a kernel whose
    threads take `items_per_thread` of them per step: enough threads for all the work, at
    most `BLOCKS_PER_SM` blocks per SM (the grid-stride loop covers the rest). A
    launch with no work is not made at all (the caller skips it: CUDA refuses empty grids)."""
    if work <= 0:
        return 0, block
    threads = -(-work // items_per_thread)
    return max(1, min(-(-threads // block), sm_count * BLOCKS_PER_SM)), block
