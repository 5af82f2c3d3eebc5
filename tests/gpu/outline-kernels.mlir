// RUN: irc-opt %s -p lower-to-loops,outline-kernels | filecheck %s
// RUN: irc-opt %s -p lower-to-loops,outline-kernels | irc-opt | filecheck %s

// A contiguous elementwise op: 4 items per thread (flat views, loads first, then the math,
// then the stores), a scalar tail loop, and a launch over all elements.
// CHECK-LABEL: gpu.func @f_kernel0(%arg0: index, %x: memref<?xf32, "cuda">, %arg1: memref<?xf32, "cuda">) attributes {items_per_thread = 4 : index} {
// CHECK: %[[FX:.*]] = loop.reshape %x, %arg0
// CHECK: %[[FO:.*]] = loop.reshape %arg1, %arg0
// CHECK: %[[TID:.*]] = gpu.thread_id
// CHECK: %[[BID:.*]] = gpu.block_id
// CHECK: %[[BDIM:.*]] = gpu.block_dim
// CHECK: %[[GDIM:.*]] = gpu.grid_dim
// CHECK: %[[CHUNKS:.*]] = loop.floordiv %arg0, %{{.*}}
// CHECK: loop.for %{{.*}} = %{{.*}} to %[[CHUNKS]] step
// CHECK-COUNT-4: loop.load %[[FX]]
// CHECK-COUNT-4: scalar.exp
// CHECK-COUNT-4: loop.store %{{.*}}, %[[FO]]
// CHECK: loop.for %[[I:.*]] = %{{.*}} to %arg0 step
// CHECK-NEXT: loop.load %[[FX]][%[[I]]]
// CHECK: gpu.return

// A broadcast operand keeps its strided view (re-created in the kernel from its buffer);
// the contiguous ones are flat.
// CHECK-LABEL: gpu.func @f_kernel1(
// CHECK: loop.broadcast
// CHECK: loop.floordiv
// CHECK: loop.load %{{.*}}[%{{.*}}, %{{.*}}] : memref<1x?xf32, strided<[?, ?], offset: ?>, "cuda">

// The host function keeps only sizes, allocations and launches.
// CHECK-LABEL: func.func @f(
// CHECK: %[[N:.*]] = loop.dim %x {axis = 0}
// CHECK: %[[T:.*]] = loop.alloc %[[N]]
// CHECK: gpu.launch @f_kernel0(%[[N]], %x, %[[T]]) work %[[N]]
// CHECK: %[[W:.*]] = loop.mul
// CHECK: gpu.launch @f_kernel1(%[[W]], {{.*}}) work %[[W]]
// CHECK-NOT: loop.load
// CHECK-NOT: loop.parallel
// CHECK: func.return
func.func @f(%x: tensor<?xf32, "cuda">, %y: tensor<?x?xf32, "cuda">) -> tensor<?x?xf32, "cuda"> {
  %0 = tensor.exp %x : tensor<?xf32, "cuda">
  %1 = tensor.dimshuffle %0 {pattern = array<i64: -1, 0>} : (tensor<?xf32, "cuda">) -> tensor<1x?xf32, "cuda">
  %2 = tensor.add %1, %y : (tensor<1x?xf32, "cuda">, tensor<?x?xf32, "cuda">) -> tensor<?x?xf32, "cuda">
  func.return %2 : tensor<?x?xf32, "cuda">
}

// A 0-d device result is a one-element nest (the host never writes device memory).
// CHECK-LABEL: gpu.func @g_kernel0(
// CHECK: scalar.mul
// CHECK-LABEL: func.func @g(
// CHECK: gpu.launch @g_kernel0(
func.func @g(%x: tensor<f32, "cuda">) -> tensor<f32, "cuda"> {
  %0 = tensor.mul %x, %x : tensor<f32, "cuda">
  func.return %0 : tensor<f32, "cuda">
}
