"""cuBLASLt products whose algorithm is chosen by timing, once per shape and layout.

cuBLAS picks a product's kernel by a heuristic, and for the small and skinny products of a
training step it often picks a slower one than it has: on an H100, the MLP's weight updates
(784×256 by 256×512, 512×256 by 256×10, in float32) ran 10–25% faster with another of the
heuristic's own first eight candidates. So, as XLA does, each distinct product (sizes,
leading dimensions, transposes, dtype, compute type, whether it accumulates) is timed once
per process with each candidate on scratch buffers of its shape, and the fastest is kept.
Products larger than `TUNED_FLOPS_MAX` keep the heuristic's first choice (their kernels fill
the GPU however they are tiled, and timing them would cost a first call tens of ms).

A product cuBLASLt does not take (no library, no candidate, an error) returns None: the
caller keeps `cublasGemmEx`."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import Any

from ..blas_layout import GemmArgs
from .launch import driver

LIBRARY_NAMES = ("libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so")
DESC_TRANSA, DESC_TRANSB = 3, 4
PREF_MAX_WORKSPACE_BYTES = 1
CANDIDATES = 8
TUNED_FLOPS_MAX = 1 << 31  # m·n·k
TIMED_RUNS = 5
ITEMSIZE = {0: 4, 1: 8, 2: 2}  # by cudaDataType: float32, float64, float16


class Algo(ctypes.Structure):
    """cublasLtMatmulAlgo_t: opaque, 64 bytes."""
    _fields_ = [("data", ctypes.c_uint64 * 8)]


class HeuristicResult(ctypes.Structure):
    """cublasLtMatmulHeuristicResult_t."""
    _fields_ = [("algo", Algo), ("workspace_size", ctypes.c_size_t), ("state", ctypes.c_int),
                ("waves", ctypes.c_float), ("reserved", ctypes.c_int * 4)]


@dataclass
class LtProduct:
    """The descriptors of one product and its chosen algorithm (kept for the process)."""

    desc: ctypes.c_void_p
    a: ctypes.c_void_p
    b: ctypes.c_void_p
    c: ctypes.c_void_p
    algo: HeuristicResult
    microseconds: float  # what the choice took per call when timed (0: not timed)


_LIB: Any = None
_HANDLE = ctypes.c_void_p()
_CHOSEN: dict[tuple, LtProduct | None] = {}


def handle() -> ctypes.c_void_p | None:
    """The process's cuBLASLt handle, or None without the library."""
    global _LIB
    if _LIB is None:
        _LIB = False
        for name in LIBRARY_NAMES:
            try:
                _LIB = ctypes.CDLL(name)
                break
            except OSError:
                continue
        if _LIB and _LIB.cublasLtCreate(ctypes.byref(_HANDLE)) != 0:
            _LIB = False
    return _HANDLE if _LIB else None


def matmul() -> Any:
    """`cublasLtMatmul` (after `handle()` found the library)."""
    return _LIB.cublasLtMatmul


def product(args: GemmArgs, data_type: int, compute: int, scale_type: int, scalar: Any, accumulates: bool,
            stream_handle: int, workspace: int, workspace_bytes: int, pool: Any) -> LtProduct | None:
    """The chosen cuBLASLt product for `args`, or None (keep `cublasGemmEx`)."""
    key = (args.trans_first, args.trans_second, args.m, args.n, args.k, args.ld_first, args.ld_second, args.ldc,
           data_type, compute, accumulates)
    if key not in _CHOSEN:
        _CHOSEN[key] = _choose(args, data_type, compute, scale_type, scalar, accumulates, stream_handle,
                               workspace, workspace_bytes, pool) if handle() is not None else None
    return _CHOSEN[key]


def _choose(args: GemmArgs, data_type: int, compute: int, scale_type: int, scalar: Any, accumulates: bool,
            stream_handle: int, workspace: int, workspace_bytes: int, pool: Any) -> LtProduct | None:
    lib = _LIB
    if min(args.m, args.n, args.k) == 0:
        return None
    desc = ctypes.c_void_p()
    if lib.cublasLtMatmulDescCreate(ctypes.byref(desc), ctypes.c_int(compute), ctypes.c_int(scale_type)):
        return None
    for attr, trans in ((DESC_TRANSA, args.trans_first), (DESC_TRANSB, args.trans_second)):
        value = ctypes.c_int(int(trans))
        if lib.cublasLtMatmulDescSetAttribute(desc, ctypes.c_int(attr), ctypes.byref(value), ctypes.c_size_t(4)):
            return None
    shapes = [((args.k, args.m) if args.trans_first else (args.m, args.k), args.ld_first),
              ((args.n, args.k) if args.trans_second else (args.k, args.n), args.ld_second),
              ((args.m, args.n), args.ldc)]
    layouts = []
    for (rows, cols), ld in shapes:
        layout = ctypes.c_void_p()
        if lib.cublasLtMatrixLayoutCreate(ctypes.byref(layout), ctypes.c_int(data_type), ctypes.c_uint64(rows),
                                          ctypes.c_uint64(cols), ctypes.c_int64(ld)):
            return None
        layouts.append(layout)
    pref = ctypes.c_void_p()
    limit = ctypes.c_uint64(workspace_bytes)
    if lib.cublasLtMatmulPreferenceCreate(ctypes.byref(pref)) or lib.cublasLtMatmulPreferenceSetAttribute(
            pref, ctypes.c_int(PREF_MAX_WORKSPACE_BYTES), ctypes.byref(limit), ctypes.c_size_t(8)):
        return None
    found = (HeuristicResult * CANDIDATES)()
    count = ctypes.c_int(0)
    status = lib.cublasLtMatmulAlgoGetHeuristic(_HANDLE, desc, layouts[0], layouts[1], layouts[2], layouts[2], pref,
                                                ctypes.c_int(CANDIDATES), found, ctypes.byref(count))
    lib.cublasLtMatmulPreferenceDestroy(pref)
    if status or count.value == 0:
        return None
    candidates = [found[i] for i in range(count.value) if found[i].state == 0]
    if not candidates:
        return None
    chosen, micros = candidates[0], 0.0
    if len(candidates) > 1 and args.m * args.n * args.k <= TUNED_FLOPS_MAX:
        chosen, micros = _fastest(candidates, desc, layouts, shapes, scalar, accumulates, stream_handle,
                                  workspace, workspace_bytes, pool, ITEMSIZE[data_type])
    return LtProduct(desc, *layouts, chosen, micros)


def _fastest(candidates: list[HeuristicResult], desc: ctypes.c_void_p, layouts: list, shapes: list, scalar: Any,
             accumulates: bool, stream_handle: int, workspace: int, workspace_bytes: int, pool: Any,
             itemsize: int) -> tuple[HeuristicResult, float]:
    """The candidate with the least time per call on zeroed scratch buffers of the product's
    shape (the timing of these kernels does not depend on the values)."""
    cu = driver()
    blocks = [pool.allocate(max(1, ld * cols * itemsize)) for (_, cols), ld in shapes]
    stream = ctypes.c_void_p(stream_handle)
    for block, ((_, cols), ld) in zip(blocks, shapes):
        cu.cuMemsetD8Async(ctypes.c_void_p(int(block)), ctypes.c_ubyte(0), ctypes.c_size_t(ld * cols * itemsize),
                           stream)
    alpha, beta = scalar(1.0), scalar(1.0 if accumulates else 0.0)
    start, end = ctypes.c_void_p(), ctypes.c_void_p()
    cu.cuEventCreate(ctypes.byref(start), 0)
    cu.cuEventCreate(ctypes.byref(end), 0)
    best, best_time = candidates[0], float("inf")
    try:
        for candidate in candidates:
            if candidate.workspace_size > workspace_bytes:
                continue

            def call() -> int:
                return _LIB.cublasLtMatmul(_HANDLE, desc, ctypes.byref(alpha), ctypes.c_void_p(int(blocks[0])),
                                           layouts[0], ctypes.c_void_p(int(blocks[1])), layouts[1],
                                           ctypes.byref(beta), ctypes.c_void_p(int(blocks[2])), layouts[2],
                                           ctypes.c_void_p(int(blocks[2])), layouts[2], ctypes.byref(candidate.algo),
                                           ctypes.c_void_p(workspace), ctypes.c_size_t(workspace_bytes), stream)
            if call() or call():
                continue
            cu.cuEventRecord(start, stream)
            if any(call() for _ in range(TIMED_RUNS)):
                continue
            cu.cuEventRecord(end, stream)
            cu.cuEventSynchronize(end)
            ms = ctypes.c_float()
            cu.cuEventElapsedTime(ctypes.byref(ms), start, end)
            if ms.value < best_time:
                best, best_time = candidate, ms.value
    finally:
        cu.cuStreamSynchronize(stream)
        cu.cuEventDestroy_v2(start)
        cu.cuEventDestroy_v2(end)
        for block in blocks:
            block.free()
    return best, best_time * 1000.0 / TIMED_RUNS

