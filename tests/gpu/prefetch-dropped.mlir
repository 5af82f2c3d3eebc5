// RUN: irc-opt %s -t nvvm | filecheck %s
// A prefetch in a kernel is a hint the NVPTX target has no use for: it is dropped, the load
// and store stay.
// CHECK: define ptx_kernel void @"f_kernel0"
// CHECK-NOT: prefetch
// CHECK: load float
// CHECK-NOT: prefetch
// CHECK: store float
func.func @f(%x: memref<?xf32, "cuda">) -> memref<?xf32, "cuda"> {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %x {axis = 0} : (memref<?xf32, "cuda">) -> index
  %o = loop.alloc %n : (index) -> memref<?xf32, "cuda">
  loop.parallel (%i) = (%c0) to (%n) step (%c1) {
    loop.prefetch %x[%i] {locality = 3} : memref<?xf32, "cuda">
    %v = loop.load %x[%i] : memref<?xf32, "cuda">
    loop.store %v, %o[%i] : memref<?xf32, "cuda">
    loop.yield
  }
  func.return %o : memref<?xf32, "cuda">
}
