"""`lower-to-loops`: bufferize a tensor-level `func.func` into a loop-dialect function.

The function's ABI at the loop level (what `convert-to-llvm` and the runtime rely on):

* every tensor argument becomes a memref with dynamic strides and offset
  (`memref<?x?xf32, strided<[?, ?], offset: ?>>`): any numpy view is passed as it is;
* every result becomes a fresh contiguous buffer made by a top-level `loop.alloc` and returned
  by `func.return` (a result that would be a view, an argument or a constant is copied first),
  so the caller may allocate results itself: their sizes are the allocs' size operands, which
  depend only on `loop.dim`s of the arguments (see `irc.runtime.shapes`);
* size agreements the types cannot prove (two `?` dims that must match) are `loop.assert_eq`s.

Per op: elementwise ops and `tensor.fused` are one `loop.parallel` nest over the result
(`elementwise.py`; broadcast operands read index 0 on their static-1 dims); views (dimshuffle,
transpose, slice, broadcast, reshape of a contiguous buffer) only make a view; reductions,
products and copies are in `linalg.py`, `reduce.py` and `shapes.py`. Dead buffers are freed and
reused by `passes/plan_buffers.py`.

This module is the lowering's entry point: it imports every pattern module (each registers its
ops in the tables of `context.py`), so whoever lowers through it finds them all.
"""
from __future__ import annotations

from dataclasses import dataclass

from ...dialects import scalar as _scalar, tensor as _tensor  # noqa: F401  (the ops lowered here)
from ...dialects.builtin import ModuleOp, TensorType
from ...dialects.func import FuncOp
from ...ir.core import Operation
from ...ir.pass_manager import Pass, register_pass
from . import (creation, elementwise, fused_matvec, gather, ifelse, index, integer_power, linalg,  # noqa: F401
               order, pool, random, reduce, scalars, scan, shapes, softmax, splats, conv, transfers)  # (the patterns: they register their ops)
from .context import FuncLowering
from .simd import SimdRegisters, parse_simd


def lower_function(func: FuncOp, allow_gc: bool = True, simd: SimdRegisters | None = None) -> FuncOp:
    """The loop-level version of a tensor-level function (the input is left untouched);
    `allow_gc=False` keeps temporaries in a workspace across calls (see `plan_buffers`); `simd`
    (default: the host's) sizes the register tiles of products."""
    return FuncLowering(func, allow_gc, simd).lower()


def is_tensor_function(op: Operation) -> bool:
    return isinstance(op, FuncOp) and any(isinstance(t, TensorType) for t in
                                          (*op.function_type.inputs, *op.function_type.results))


@register_pass
@dataclass
class LowerToLoops(Pass):
    """Bufferize every tensor-level function of the module into loops over memrefs."""

    name = "lower-to-loops"
    summary = "bufferize tensor functions into loop-dialect loops over memrefs"
    tags = ("lowering",)
    allow_gc: bool = True
    simd: str = ""  # vector registers as BYTESxCOUNT (64x32: AVX-512); "": the host's

    def run(self, module: Operation) -> None:
        assert isinstance(module, ModuleOp)
        try:
            simd = parse_simd(self.simd)
        except ValueError as e:
            raise self.error(str(e), module.location) from None
        for op in list(module.body.ops):
            if not is_tensor_function(op):
                continue
            try:
                new = lower_function(op, self.allow_gc, simd)
            except ValueError as e:
                raise self.error(str(e), op.location) from None
            module.body.insert_before(op, new)
            op.erase(check_uses=False)
