// RUN: not irc-opt %s -p outline-kernels 2>&1 | filecheck %s

// The host cannot read device memory: a load outside a parallel nest is refused.
func.func @f(%x: memref<?xf32, "cuda">) -> f32 {
  %c0 = loop.constant {value = 0 : index} : index
  // CHECK: error: outline-kernels: 'loop.load' accesses device memory from the host function
  %v = loop.load %x[%c0] : memref<?xf32, "cuda">
  func.return %v : f32
}
