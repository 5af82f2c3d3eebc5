"""cuBLAS through ctypes: the library behind `gpu.gemm`, on irc's stream and context.

One handle per process, made on first use with the device's stream and a workspace of its
own from the device pool (so that a CUDA graph can capture its calls: cuBLAS then allocates
nothing while capturing). A `GemmLauncher` is one call with every argument converted once,
like a kernel's `Launcher`: only the three matrix addresses change per call (its `slots`).
float32 and float64 compute in their own precision, float16 stores halves and computes in
float32; a `gpu.gemm` compiled with `config.allow_tf32` (its `tf32` attribute) lets float32
products use TF32 tensor cores. Where cuBLASLt takes a product, it runs there with the
algorithm timed fastest for its shape (`cublaslt.py`). A graph's other lanes
(`concurrent_capture`) get handles and workspaces of their own.

The library is found as the CUDA toolkit installs it (`libcublas.so.13`/`.12`) or in the
`nvidia-cublas` wheel's folder (`pip install nvidia-cublas`)."""
from __future__ import annotations

import ctypes
import glob
import os
import site
from typing import Any

import numpy as np

from ..blas_layout import GemmArgs
from . import cublaslt
from .launch import CUDA_ERROR_OUT_OF_MEMORY, CudaError, check, driver

WORKSPACE_BYTES = 32 << 20  # what NVIDIA advises for Hopper
OP_N, OP_T = 0, 1
GEMM_DEFAULT = -1
# cudaDataType and cublasComputeType_t by element
DATA_TYPE = {np.dtype("float32"): 0, np.dtype("float64"): 1, np.dtype("float16"): 2}
COMPUTE_32F, COMPUTE_32F_FAST_TF32, COMPUTE_64F = 68, 77, 70
STATUS = {1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
          7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH",
          11: "CUBLAS_STATUS_MAPPING_ERROR", 13: "CUBLAS_STATUS_EXECUTION_FAILED",
          14: "CUBLAS_STATUS_INTERNAL_ERROR", 15: "CUBLAS_STATUS_NOT_SUPPORTED"}
LIBRARY_NAMES = ("libcublas.so.13", "libcublas.so.12", "libcublas.so")


class BlasError(CudaError):
    """A cuBLAS call failed: the status's name, and what was being done."""

    def __init__(self, what: str, status: int):
        RuntimeError.__init__(self, f"{what}: {STATUS.get(status, 'cuBLAS status')} ({status})")
        self.code = CUDA_ERROR_OUT_OF_MEMORY if status == 3 else 999


_LIB: Any = None
_HANDLE: ctypes.c_void_p | None = None
_WORKSPACE: Any = None
_LANE_HANDLES: dict[int, tuple[ctypes.c_void_p, Any]] = {}  # by stream: (handle, its workspace)


def library() -> ctypes.CDLL:
    """libcublas, loaded once; a clear error saying how to install it when it is missing."""
    global _LIB
    if _LIB is None:
        _LIB = _load()
        _LIB.cublasGemmEx.restype = ctypes.c_int
        i, p = ctypes.c_int, ctypes.c_void_p
        _LIB.cublasGemmEx.argtypes = [p, i, i, i, i, i, p, p, i, i, p, i, i, p, p, i, i, i, i]
    return _LIB


def _load() -> ctypes.CDLL:
    tried = []
    for name in LIBRARY_NAMES:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            tried.append(str(e))
    roots = site.getsitepackages() + [site.getusersitepackages()]
    for root in roots:
        for path in sorted(glob.glob(os.path.join(root, "nvidia", "**", "libcublas.so*"), recursive=True)):
            try:
                return ctypes.CDLL(path)
            except OSError as e:
                tried.append(str(e))
    raise RuntimeError("products on the GPU need cuBLAS, which was not found (install the CUDA "
                       "toolkit, or `pip install nvidia-cublas`); tried: " + "; ".join(tried))


def handle(stream_handle: int, pool: Any) -> ctypes.c_void_p:
    """The process's cuBLAS handle, bound to irc's stream, with its own workspace."""
    global _HANDLE, _WORKSPACE
    if _HANDLE is None:
        h, _WORKSPACE = _new_handle(stream_handle, pool)
        _HANDLE = h
        _warm_up(library(), h, stream_handle, pool)
    return _HANDLE


def lane(stream_handle: int, pool: Any) -> tuple[ctypes.c_void_p, Any]:
    """(a handle, a workspace) of its own for a graph's other lane (`concurrent_capture`): two
    products running side by side must not share a workspace."""
    found = _LANE_HANDLES.get(stream_handle)
    if found is None:
        found = _LANE_HANDLES[stream_handle] = _new_handle(stream_handle, pool)
    return found


def _new_handle(stream_handle: int, pool: Any) -> tuple[ctypes.c_void_p, Any]:
    """A cuBLAS handle on `stream_handle` with a workspace of its own from `pool`."""
    lib = library()
    h = ctypes.c_void_p()
    _check(lib.cublasCreate_v2(ctypes.byref(h)), "creating a cuBLAS handle")
    _check(lib.cublasSetStream_v2(h, ctypes.c_void_p(stream_handle)), "setting cuBLAS's stream")
    workspace = pool.allocate(WORKSPACE_BYTES)
    _check(lib.cublasSetWorkspace_v2(h, ctypes.c_void_p(int(workspace)), ctypes.c_size_t(WORKSPACE_BYTES)),
           "giving cuBLAS its workspace")
    return h, workspace


def _warm_up(lib: ctypes.CDLL, h: ctypes.c_void_p, stream_handle: int, pool: Any) -> None:
    """One small float32 product on scratch memory: cuBLAS loads its kernels lazily, and its
    first call took ~90 ms on the H100 machines; done here, when a function is compiled, it
    is not paid by the function's first call."""
    n = 64
    scratch = pool.allocate(3 * n * n * 4)
    a = int(scratch)
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    i, p = ctypes.c_int, ctypes.c_void_p
    status = lib.cublasGemmEx(h, i(OP_N), i(OP_N), i(n), i(n), i(n), p(ctypes.addressof(one)), p(a), i(0), i(n),
                              p(a + n * n * 4), i(0), i(n), p(ctypes.addressof(zero)), p(a + 2 * n * n * 4), i(0),
                              i(n), i(COMPUTE_32F), i(GEMM_DEFAULT))
    check(driver().cuStreamSynchronize(ctypes.c_void_p(stream_handle)), "warming cuBLAS up")
    _check(status, "warming cuBLAS up (a 64x64 float32 product)")


def _check(status: int, what: str) -> None:
    if status != 0:
        raise BlasError(what, status)


class GemmLauncher:
    """One cuBLAS gemm with its arguments converted once. `slots` are the pointer arguments
    (first, second, C, and Cin when `copy_bytes`) to patch with the call's addresses;
    `launch(*args)` copies Cin into C when they are not one storage, calls cuBLAS and returns
    0, or raises `BlasError` naming `what`."""

    def __init__(self, args: GemmArgs, alpha: float, beta: float, dtype: np.dtype, what: str,
                 stream_handle: int, pool: Any, copy_bytes: int = 0, tf32: bool = False):
        lib = library()
        dtype = np.dtype(dtype)
        if dtype not in DATA_TYPE:
            raise TypeError(f"{what}: cuBLAS has no gemm for {dtype}")
        data = DATA_TYPE[dtype]
        if dtype == np.float64:
            compute, scalar = COMPUTE_64F, ctypes.c_double
        else:
            compute = COMPUTE_32F_FAST_TF32 if dtype == np.float32 and tf32 else COMPUTE_32F
            scalar = ctypes.c_float
        self.alpha, self.beta = scalar(alpha), scalar(beta)
        self.slots = [ctypes.c_void_p(0) for _ in range(4 if copy_bytes else 3)]
        first, second, c = self.slots[:3]
        self.copy_bytes = ctypes.c_size_t(copy_bytes)
        self.stream = ctypes.c_void_p(stream_handle)
        i = ctypes.c_int
        self.args = (handle(stream_handle, pool), i(OP_T if args.trans_first else OP_N),
                     i(OP_T if args.trans_second else OP_N), i(args.m), i(args.n), i(args.k),
                     ctypes.c_void_p(ctypes.addressof(self.alpha)), first, i(data), i(args.ld_first), second, i(data),
                     i(args.ld_second), ctypes.c_void_p(ctypes.addressof(self.beta)), c, i(data), i(args.ldc), i(compute),
                     i(GEMM_DEFAULT))
        self.what = what
        self.pool = pool
        self._gemm = lib.cublasGemmEx
        # the product through cuBLASLt with the algorithm timed fastest for its shape, where
        # the library takes it (`cublaslt.py`)
        self.tuned = cublaslt.product(args, data, compute, 1 if dtype == np.float64 else 0, scalar, beta != 0.0,
                                      stream_handle, int(_WORKSPACE), WORKSPACE_BYTES, pool)
        if self.tuned is not None:
            t = self.tuned
            self.args = (cublaslt.handle(), t.desc, ctypes.c_void_p(ctypes.addressof(self.alpha)), first, t.a, second,
                         t.b, ctypes.c_void_p(ctypes.addressof(self.beta)), c, t.c, c, t.c,
                         ctypes.c_void_p(ctypes.addressof(t.algo.algo)), ctypes.c_void_p(int(_WORKSPACE)),
                         ctypes.c_size_t(WORKSPACE_BYTES), self.stream)
            self._gemm = cublaslt.matmul()

    def launch(self, *args: Any) -> int:
        if self.copy_bytes.value:
            c, c_in = self.slots[2], self.slots[3]
            if c.value != c_in.value:
                check(driver().cuMemcpyDtoDAsync_v2(c, c_in, self.copy_bytes, self.stream),
                      f"copying the accumulator for {self.what}")
        status = self._gemm(*args)
        if status:
            raise BlasError(self.what, status)
        return 0

    def launch_on(self, stream_handle: int) -> int:
        """This call on another stream, with that stream's handle and workspace (a graph's lane)."""
        if stream_handle == self.stream.value:
            return self.launch(*self.args)
        own = self.stream
        self.stream = ctypes.c_void_p(stream_handle)
        h, workspace = lane(stream_handle, self.pool)
        if self.tuned is not None:
            args = (*self.args[:13], ctypes.c_void_p(int(workspace)), self.args[14], self.stream)
        else:
            args = (h, *self.args[1:])
        try:
            return self.launch(*args)
        finally:
            self.stream = own
