"""The kernels of irc's declarative GPU ops (`irc.CudaKernelOp`), compiled once and cached.

CUDA C is compiled by PyCUDA's compiler (`pycuda.compiler.compile`, what `SourceModule` runs:
nvcc, the source wrapped in `extern "C"` unless the op says otherwise) into a cubin for the
GPU's architecture, kept in irc's verified disk cache (`<compiledir>/cuda-user/`, keyed by the
source, the architecture and the compiler options), so a warm start runs no nvcc. PTX the user
gives is loaded by the driver as it is (the driver compiles it for the GPU and keeps its own
cache); it needs no toolkit. A loaded module is kept for the process. PyCUDA is imported only
when a kernel is compiled or loaded, so this module's cache logic is testable without a GPU."""
from __future__ import annotations

import shutil
from typing import Any, Callable, Sequence

from ..object_cache import ObjectCache, cache_key

CACHE_KIND = "cuda-user"
_LOADED: dict[tuple, Any] = {}  # (what the image was made from) -> the loaded module


class KernelCompileError(ValueError):
    """A user kernel that could not be compiled or loaded: the compiler's or the driver's own
    message, with the op that holds the kernel (the runtime adds the user's line)."""


def cubin_for(what: str, source: str, arch: str, no_extern_c: bool = False, options: Sequence[str] = (),
              compile_source: Callable[..., bytes] | None = None) -> bytes:
    """The cubin of CUDA C `source` for `arch` (`sm_90`), from the disk cache when it holds a
    valid entry; else compiled by `compile_source` (PyCUDA's nvcc by default) and stored.
    `what` names the op in errors."""
    cache = ObjectCache(kind=CACHE_KIND, extension="cubin")
    key = cache_key("cuda-c", source, arch, f"no_extern_c={no_extern_c}", " ".join(options))
    hit = cache.load(key)
    if hit is not None:
        return hit
    cubin = (compile_source or compile_with_nvcc)(what, source, arch, no_extern_c, tuple(options))
    cache.store(key, cubin)
    return cubin


def compile_with_nvcc(what: str, source: str, arch: str, no_extern_c: bool, options: tuple[str, ...]) -> bytes:
    """PyCUDA's compile (nvcc) of `source`; a `KernelCompileError` with nvcc's messages (the
    kernel's line in them) when it fails, or saying that nvcc is missing."""
    if shutil.which("nvcc") is None:
        raise KernelCompileError(f"{what}: compiling its CUDA C source needs nvcc, the CUDA toolkit's "
                                 f"compiler, which is not on PATH: install the toolkit (or add its bin "
                                 f"folder to PATH), or give the op PTX (`ptx = ...`), which the driver "
                                 f"compiles itself")
    from pycuda.compiler import compile as pycuda_compile  # PyCUDA
    import pycuda.driver as drv
    try:
        return pycuda_compile(source, no_extern_c=no_extern_c, arch=arch, options=list(options), cache_dir=False)
    except drv.CompileError as e:
        details = getattr(e, "stderr", None) or str(e)
        where = "that source" if no_extern_c else "that source after PyCUDA's first line, extern \"C\" {"
        raise KernelCompileError(f"{what}: nvcc could not compile its CUDA C source (kernel.cu is {where}):"
                                 f"\n{details.strip()}") from None


def load_kernel(what: str, kernel_name: str, source: str | None = None, ptx: str | None = None,
                no_extern_c: bool = False, options: Sequence[str] = ()) -> Any:
    """The PyCUDA function `kernel_name` of the op's CUDA C `source` or `ptx`, on irc's GPU."""
    from .driver import device  # PyCUDA
    gpu = device()
    if (source is None) == (ptx is None):
        raise KernelCompileError(f"{what}: give the kernel as CUDA C (`source`) or as PTX (`ptx`), one of them")
    key = (source, ptx, gpu.arch, no_extern_c, tuple(options))
    module = _LOADED.get(key)
    if module is None:
        image = (ptx.encode() + b"\0") if ptx is not None else cubin_for(what, source, gpu.arch, no_extern_c, options)
        try:
            module = gpu.drv.module_from_buffer(image)
        except gpu.drv.Error as e:
            kind = "PTX" if ptx is not None else "cubin"
            raise KernelCompileError(f"{what}: the CUDA driver could not load its {kind} for {gpu.arch}: {e}") from None
        _LOADED[key] = module
    try:
        return module.get_function(kernel_name)
    except gpu.drv.Error as e:
        hint = "" if ptx is not None or not no_extern_c else " (with no_extern_c, declare it extern \"C\")"
        raise KernelCompileError(f"{what}: its module has no kernel named {kernel_name!r}{hint}: {e}") from None
