"""Which buffers a kernel writes: what the runtime needs to know to run kernels side by side.

A memref argument is only read when every use of it, and of every view made from it
(transpose, subview, broadcast, reshape), loads from it, prefetches it or asks its size or
an address's alignment.
Anything else — a store, or an op this analysis does not know — counts as a write, so an
unknown op can only cost concurrency, never order."""
from __future__ import annotations

from ..dialects import loop as L
from ..dialects.builtin import MemRefType
from ..dialects.gpu import GpuFuncOp
from ..ir.core import Value

_READS = (L.LoadOp, L.PrefetchOp, L.DimOp, L.AlignGapOp)
_VIEWS = (L.TransposeOp, L.SubviewOp, L.BroadcastOp, L.ReshapeOp)


def written_arguments(kernel: GpuFuncOp) -> frozenset[int]:
    """The indices of `kernel`'s memref arguments that it may write."""
    return frozenset(i for i, arg in enumerate(kernel.body.args)
                     if isinstance(arg.type, MemRefType) and _may_write(arg))


def _may_write(buffer: Value) -> bool:
    pending = [buffer]
    while pending:
        v = pending.pop()
        for use in v.uses:
            user = use.owner
            if isinstance(user, _READS) and use.index == 0:
                continue
            if isinstance(user, _VIEWS) and use.index == 0:
                pending.extend(user.results)
                continue
            return True
    return False
