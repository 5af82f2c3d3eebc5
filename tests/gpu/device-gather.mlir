// RUN: irc-opt %s -p lower-to-loops | filecheck %s --check-prefix=LOOP
// RUN: irc-opt %s -p lower-to-loops,outline-kernels | filecheck %s --check-prefix=GPU

// A gather over device memory: a kernel cannot stop the function, so the indices are checked
// on the device into flags (zeroed by one nest, set by one thread per index position) that
// the host reads back after the call (`loop.check_flag`); an axis of size 0 with indices to
// read is refused by the host plan (`loop.check_index` of sizes only); the gather itself
// clamps the (wrapped) index into [0, n - 1], so a bad one never reads out of bounds.
// LOOP-LABEL: func.func @rows
// LOOP:         %[[F:index_flags.*]] = loop.alloc : memref<2xi32, "cuda">
// LOOP:         loop.parallel
// LOOP:           loop.store %{{.*}}, %[[F]][%{{.*}}] : memref<2xi32, "cuda">
// LOOP:         loop.parallel
// LOOP:           scalar.select
// LOOP:           loop.store %{{.*}}, %[[F]][%{{.*}}] : memref<2xi32, "cuda">
// LOOP:         %[[V:.*]] = loop.subview %[[F]]
// LOOP:         loop.check_flag %[[V]] {msg = "'tensor.gather': index out of range for axis 0"}
// LOOP:         loop.check_index
// LOOP:         loop.parallel
// LOOP:           scalar.maximum
// LOOP:           scalar.minimum
// LOOP:           loop.load %x

// Three kernels; the flag check stays in the host function, after the launches it follows.
// GPU-LABEL: gpu.func @rows_kernel0(
// GPU-LABEL: gpu.func @rows_kernel1(
// GPU-LABEL: gpu.func @rows_kernel2(
// GPU-LABEL: func.func @rows(
// GPU:         gpu.launch @rows_kernel0(
// GPU:         gpu.launch @rows_kernel1(
// GPU:         loop.check_flag
// GPU:         gpu.launch @rows_kernel2(
// GPU-NOT:     loop.load
// GPU:         func.return
func.func @rows(%x: tensor<?x?xf32, "cuda">, %i: tensor<?xi64, "cuda">) -> tensor<?x?xf32, "cuda"> {
  %0 = tensor.gather %x, %i : (tensor<?x?xf32, "cuda">, tensor<?xi64, "cuda">) -> tensor<?x?xf32, "cuda">
  func.return %0 : tensor<?x?xf32, "cuda">
}

// A scatter-add: one thread per element of the result walks every index position in order
// (a `loop.for` carrying the sum), adding where the index hits its row: no atomics.
// LOOP-LABEL: func.func @add_rows
// LOOP:         loop.check_flag
// LOOP:         loop.parallel (%[[R:.*]], %[[C:.*]]) =
// LOOP:           %[[D:.*]] = loop.load %d[%[[R]], %[[C]]]
// LOOP:           loop.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[D]])
// LOOP:             scalar.eq
// LOOP:             scalar.select
// LOOP:           loop.store
func.func @add_rows(%d: tensor<?x?xf32, "cuda">, %s: tensor<?x?xf32, "cuda">, %i: tensor<?xi64, "cuda">) -> tensor<?x?xf32, "cuda"> {
  %0 = tensor.scatter %d, %s, %i {mode = "add"} : (tensor<?x?xf32, "cuda">, tensor<?x?xf32, "cuda">, tensor<?xi64, "cuda">) -> tensor<?x?xf32, "cuda">
  func.return %0 : tensor<?x?xf32, "cuda">
}
