"""PTX text through the verified disk cache (`<compiledir>/ptx/`): a warm start skips LLVM's
NVPTX backend, and a damaged entry is rebuilt instead of reaching the CUDA driver (see
`irc/runtime/object_cache.py`). Kept apart from the executor: it needs no driver or device."""
from __future__ import annotations

from ...codegen_ptx.pipeline import compile_kernels
from ...codegen_ptx.target import ptx_cache_key
from ...dialects.builtin import ModuleOp
from ...ir.instrumentation import render_ir
from ..object_cache import ObjectCache


def cached_ptx(module: ModuleOp, arch: str) -> str:
    """PTX of the kernels of `module` (after `lower_for_gpu`) for `arch`, from the cache when
    it holds a valid entry."""
    cache = ObjectCache(kind="ptx", extension="ptx")
    key = ptx_cache_key(render_ir(module), arch)
    hit = cache.load(key)
    if hit is not None:
        return hit.decode()
    ptx = compile_kernels(module, arch)
    cache.store(key, ptx.encode())
    return ptx
