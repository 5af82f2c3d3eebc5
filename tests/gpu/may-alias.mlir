// RUN: irc-opt %s -p outline-kernels | filecheck %s
// RUN: irc-opt %s -p outline-kernels -t nvvm | filecheck %s --check-prefix=NVVM

// An update written over its input (irc.inplace): both pointers may be one buffer, so no noalias
// (and no ld.global.nc of memory the kernel writes). Other kernels keep noalias.
// CHECK: gpu.func @f_kernel0(%n: index, %x: memref<?xf32, "cuda">, %o: memref<?xf32, "cuda">) attributes {irc.may_alias = array<i64: 1, 2>
// NVVM: define ptx_kernel void @"f_kernel0"(i64 %".1", ptr align 16 %".2", i64 %".3", ptr align 16 %".4", i64 %".5")
func.func @f(%x: memref<?xf32, "cuda">) -> (memref<?xf32, "cuda"> {irc.inplace = 0 : i64}) {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %x {axis = 0} : (memref<?xf32, "cuda">) -> index
  %o = loop.alloc %n : (index) -> memref<?xf32, "cuda">
  loop.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = loop.load %x[%i] : memref<?xf32, "cuda">
    %w = scalar.exp %v : f32
    loop.store %w, %o[%i] : memref<?xf32, "cuda">
    loop.yield
  }
  func.return %o : memref<?xf32, "cuda">
}
