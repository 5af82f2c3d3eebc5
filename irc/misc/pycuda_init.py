"""`import irc.misc.pycuda_init` (Theano's `theano.misc.pycuda_init`): PyCUDA on irc's context.

Importing it opens irc's GPU (the device's primary context, made current, with irc's stream
and memory pool), so that PyCUDA code the user writes next — `SourceModule`, `GPUArray`s —
works in the context irc's own kernels and arrays use. Where no GPU can be used it does
nothing but set `pycuda_available = False` (and `why_unavailable`), as Theano's did."""
from __future__ import annotations

from ..runtime.cuda.driver import device, why_unavailable as _why

why_unavailable: str | None = _why()
pycuda_available = why_unavailable is None
if pycuda_available:
    device()  # already open: its context is current on this thread

__all__ = ["pycuda_available", "why_unavailable"]
