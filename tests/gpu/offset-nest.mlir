// RUN: irc-opt %s -t nvvm | filecheck %s
// A parallel nest that does not start at 0 reads its buffers by their indices, not a flat view.

// CHECK: define ptx_kernel void @"f_kernel0"
func.func @f(%x: memref<?xf32, "cuda">) -> memref<?xf32, "cuda"> {
  %c2 = loop.constant {value = 2 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %x {axis = 0} : (memref<?xf32, "cuda">) -> index
  %o = loop.alloc %n : (index) -> memref<?xf32, "cuda">
  loop.parallel (%i) = (%c2) to (%n) step (%c1) {
    %v = loop.load %x[%i] : memref<?xf32, "cuda">
    %w = scalar.exp %v : f32
    loop.store %w, %o[%i] : memref<?xf32, "cuda">
    loop.yield
  }
  func.return %o : memref<?xf32, "cuda">
}
