// RUN: irc-opt %s -p lower-to-loops | filecheck %s --check-prefix=LOOP
// RUN: irc-opt %s -p lower-to-loops,outline-kernels | filecheck %s --check-prefix=GPU

// A reduction keeping an axis over device memory: pass 1 combines interleaved chunks of the
// reduced rows (one thread per (chunk, column): columns fastest, so reads are coalesced; 4 loads
// in flight per thread, UNROLL_KEPT) into
// device partials; pass 2 combines each column's chunks in order. No host buffer, no atomics.
// LOOP-LABEL: func.func @columns
// LOOP:         %[[P:partials.*]] = loop.alloc %[[C:.*]], %[[N:.*]] : (index, index) -> memref<?x?xf32, "cuda">
// LOOP:         loop.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to (%{{.*}}, %[[N]])
// LOOP:           %[[M:.*]]:2 = loop.for %[[K:.*]] = %[[I]] to %{{.*}} step %{{.*}} iter_args
// LOOP-COUNT-4:     loop.load %x[%{{.*}}, %[[J]]]
// LOOP-COUNT-4:     scalar.add
// LOOP:           loop.for %[[T:.*]] = %[[M]]#1 to %{{.*}} step %[[C]] iter_args(%{{.*}} = %[[M]]#0)
// LOOP-NEXT:        loop.load %x[%[[T]], %[[J]]]
// LOOP:           loop.store %{{.*}}, %[[P]][%[[I]], %[[J]]]
// LOOP:         loop.parallel (%[[O:.*]]) = ({{.*}}) to (%{{.*}})
// LOOP:           loop.for %[[Q:.*]] = %{{.*}} to %{{.*}} step
// LOOP:             loop.load %[[P]][%{{.*}}, %[[O]]]
// LOOP:           loop.store %{{.*}}, %{{.*}}[%[[O]]] : memref<?xf32, "cuda">
// LOOP:         loop.dealloc %[[P]] : memref<?x?xf32, "cuda">

// Two kernels, two launches; the host only sizes, allocates and launches.
// GPU-LABEL: gpu.func @columns_kernel0(
// GPU:         loop.for
// GPU:           loop.for
// GPU:             scalar.add
// GPU-LABEL: gpu.func @columns_kernel1(
// GPU-LABEL: func.func @columns(
// GPU:         gpu.launch @columns_kernel0(
// GPU:         gpu.launch @columns_kernel1(
// GPU-NOT:     loop.load
// GPU:         func.return
func.func @columns(%x: tensor<?x?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
  %0 = tensor.reduce %x {kind = "sum", axes = array<i64: 0>} : (tensor<?x?xf32, "cuda">) -> tensor<?xf32, "cuda">
  func.return %0 : tensor<?xf32, "cuda">
}

// Row sums: a warp per row where rows are many or short: lane l reads the row's elements l,
// l + 32, ... (a warp reads neighbours), five shuffles combine the lanes, lane 0 stores. Else
// the chunked passes, with the chunks the fastest index (a warp reads consecutive elements).
// LOOP-LABEL: func.func @rows
// LOOP:         %[[P:partials.*]] = loop.alloc %[[M:.*]], %[[C:.*]] : (index, index) -> memref<?x?xf32, "cuda">
// LOOP:         loop.parallel (%[[R:.*]], %[[L:.*]]) = ({{.*}}) to (%{{.*}}, %{{.*}})
// LOOP:           loop.for %{{.*}} = %[[L]] to %{{.*}} step %{{.*}} iter_args
// LOOP-COUNT-5:   gpu.shuffle_xor
// LOOP:           "loop.if"
// LOOP-NEXT:        loop.store %{{.*}}, %{{.*}}[%[[R]]] : memref<?xf32, "cuda">
// LOOP:         loop.parallel (%[[I:.*]], %[[J:.*]]) = ({{.*}}) to (%{{.*}}, %[[C]])
// LOOP:           loop.for %[[K:.*]] = %[[J]] to %{{.*}} step %{{.*}} iter_args
// LOOP-COUNT-4:     loop.load %x[%[[I]], %{{.*}}]
// LOOP:           loop.store %{{.*}}, %[[P]][%[[I]], %[[J]]]
// LOOP:         loop.parallel
// LOOP:           loop.load %[[P]][
func.func @rows(%x: tensor<?x?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
  %0 = tensor.reduce %x {kind = "sum", axes = array<i64: 1>} : (tensor<?x?xf32, "cuda">) -> tensor<?xf32, "cuda">
  func.return %0 : tensor<?xf32, "cuda">
}

// A reduction to one number: the contiguous input read as a vector; a single one-thread pass
// when it is short, else pass 1, two levels of 64 partials per thread (none when pass 1 left at
// most 64), then a one-thread pass into the 0-d device result (five launches, at most four with
// work).
// LOOP-LABEL: func.func @total
// LOOP:         %[[F:.*]] = loop.reshape %x
// LOOP:         loop.parallel
// LOOP:           loop.load %[[F]][
// LOOP:           loop.store %{{.*}}, %{{.*}}[] : memref<f32, "cuda">
// LOOP:         loop.parallel
// LOOP:           loop.load %[[F]][
// LOOP:         loop.parallel
// LOOP:         loop.parallel
// LOOP:         loop.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// LOOP:           loop.store %{{.*}}, %{{.*}}[] : memref<f32, "cuda">
// GPU-LABEL: func.func @total(
// GPU-COUNT-5: gpu.launch
// GPU-NOT:     gpu.launch
// GPU:         func.return
func.func @total(%x: tensor<?x?xf32, "cuda">) -> tensor<f32, "cuda"> {
  %0 = tensor.reduce %x {kind = "max", axes = array<i64: 0, 1>} : (tensor<?x?xf32, "cuda">) -> tensor<f32, "cuda">
  func.return %0 : tensor<f32, "cuda">
}

// argmax carries (value, index) partials; ties go to the smaller index.
// LOOP-LABEL: func.func @argmax
// LOOP:         loop.alloc {{.*}} -> memref<?x?xf32, "cuda">
// LOOP:         loop.alloc {{.*}} -> memref<?x?xi64, "cuda">
// LOOP:         scalar.gt
// LOOP:         scalar.lt %{{.*}}, %{{.*}} : (i64, i64) -> i1
// LOOP:         scalar.select
func.func @argmax(%x: tensor<?x?xf32, "cuda">) -> tensor<?xi64, "cuda"> {
  %0 = tensor.reduce %x {kind = "argmax", axes = array<i64: 1>} : (tensor<?x?xf32, "cuda">) -> tensor<?xi64, "cuda">
  func.return %0 : tensor<?xi64, "cuda">
}

// A fused reduction computes its body in pass 1 and stores its elementwise result there (no
// temporary of the body's values); the final pass only combines partials.
// LOOP-LABEL: func.func @fused
// LOOP:         loop.parallel
// LOOP:           loop.for
// LOOP:             scalar.exp
// LOOP:             loop.store %{{.*}}, %[[E:.*]][%{{.*}}, %{{.*}}] : memref<?x?xf32, "cuda">
// LOOP:             scalar.add
// LOOP:           gpu.shuffle_xor
// LOOP:         loop.parallel
// LOOP:             scalar.exp
// LOOP:         loop.parallel
// LOOP-NOT:       scalar.exp
// LOOP:         func.return %[[E]]
func.func @fused(%x: tensor<?x?xf32, "cuda">) -> (tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">) {
  %r:2 = tensor.fused_reduce(%a = %x) {kind = "sum", axes = array<i64: 1>} : (tensor<?x?xf32, "cuda">) -> (tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">) {
    %e = scalar.exp %a : f32
    scalar.yield %e, %e : f32, f32
  }
  func.return %r#0, %r#1 : tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">
}

// A bias's SGD update, b - lr·(column sums of d): computed in the reduction's last pass, no
// kernel of its own. Column sums take the two chunked passes at every size (coalesced: a
// thread per chunk of rows and column, then a thread per column): two launches, no choice.
// GPU-LABEL: func.func @bias_update(
// GPU-NOT:     "loop.if"
// GPU-COUNT-2: gpu.launch
// GPU-NOT:     gpu.launch
// GPU:         func.return
func.func @bias_update(%d: tensor<?x?xf32, "cuda">, %b: tensor<?xf32, "cuda">) -> (tensor<?xf32, "cuda">, tensor<?xf32, "cuda">) {
  %s = tensor.reduce %d {kind = "sum", axes = array<i64: 0>} : (tensor<?x?xf32, "cuda">) -> tensor<?xf32, "cuda">
  %u = tensor.fused(%g = %s, %w = %b) : (tensor<?xf32, "cuda">, tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
    %lr = scalar.constant {value = 0.5 : f32} : f32
    %m = scalar.mul %lr, %g : f32
    %n = scalar.sub %w, %m : f32
    scalar.yield %n : f32
  }
  func.return %s, %u : tensor<?xf32, "cuda">, tensor<?xf32, "cuda">
}
