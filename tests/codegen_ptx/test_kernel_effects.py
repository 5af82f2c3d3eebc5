"""Which arguments a kernel writes (`kernel_effects`): through stores, through views of an
argument, and for any op the analysis does not know (counted as a write)."""
from __future__ import annotations

from irc.codegen_ptx.kernel_effects import written_arguments
from irc.dialects.gpu import GpuFuncOp
from irc.ir.parser import parse_module

KERNELS = """
module {
  gpu.func @copy_scaled(%n: index, %src: memref<?xf32, "cuda">, %dst: memref<?xf32, "cuda">, %s: f32) {
    %0 = gpu.thread_id : index
    %1 = loop.dim %src {axis = 0} : (memref<?xf32, "cuda">) -> index
    %2 = loop.load %src[%0] : memref<?xf32, "cuda">
    %3 = scalar.mul %2, %s : f32
    loop.store %3, %dst[%0] : memref<?xf32, "cuda">
    gpu.return
  }
  gpu.func @through_a_view(%a: memref<?x?xf32, "cuda">, %b: memref<?x?xf32, "cuda">) {
    %0 = gpu.thread_id : index
    %t = loop.transpose %a {perm = array<i64: 1, 0>} : (memref<?x?xf32, "cuda">) -> memref<?x?xf32, strided<[?, ?], offset: ?>, "cuda">
    %v = loop.load %b[%0, %0] : memref<?x?xf32, "cuda">
    loop.store %v, %t[%0, %0] : memref<?x?xf32, strided<[?, ?], offset: ?>, "cuda">
    gpu.return
  }
}
"""


def kernels() -> dict[str, GpuFuncOp]:
    module = parse_module(KERNELS)
    return {op.sym_name: op for op in module.body.ops if isinstance(op, GpuFuncOp)}


def test_a_stored_argument_is_written_a_loaded_one_is_not():
    assert written_arguments(kernels()["copy_scaled"]) == {2}


def test_a_store_through_a_view_writes_the_viewed_argument():
    assert written_arguments(kernels()["through_a_view"]) == {0}
