// RUN: irc-opt %s | irc-opt | filecheck %s
// RUN: irc-opt %s --mlir-print-op-generic | irc-opt | filecheck %s

// CHECK-LABEL: gpu.func @k(%x: memref<?xf32, "cuda">, %n: index, %s: f32) attributes {items_per_thread = 1 : index} {
// CHECK-NEXT: %t = gpu.thread_id : index
// CHECK-NEXT: %b = gpu.block_id : index
// CHECK-NEXT: %d = gpu.block_dim : index
// CHECK-NEXT: %g = gpu.grid_dim : index
// CHECK-NEXT: gpu.barrier
// CHECK: gpu.return
gpu.func @k(%x: memref<?xf32, "cuda">, %n: index, %s: f32) attributes {items_per_thread = 1 : index} {
  %t = gpu.thread_id : index
  %b = gpu.block_id : index
  %d = gpu.block_dim : index
  %g = gpu.grid_dim : index
  gpu.barrier
  %i = loop.add %t, %b : index
  loop.store %s, %x[%i] : memref<?xf32, "cuda">
  gpu.return
}

// CHECK-LABEL: func.func @host(
// CHECK: gpu.launch @k(%x, %n, %s) work %n : (memref<?xf32, "cuda">, index, f32)
func.func @host(%x: memref<?xf32, "cuda">, %n: index, %s: f32) {
  gpu.launch @k(%x, %n, %s) work %n : (memref<?xf32, "cuda">, index, f32)
  func.return
}
