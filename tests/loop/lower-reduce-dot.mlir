// RUN: irc-opt %s -p lower-to-loops --split-input-file | filecheck %s

// A reduction over the innermost axis carries an accumulator through a loop.for marked
// `reduction` (codegen gives its combining op `reassoc`, so it vectorizes).
// CHECK-LABEL: func.func @rowsum
// CHECK:         loop.parallel (%i) = (%{{.*}}) to (%[[N:.*]]) step
// CHECK-NEXT:      %[[Z:.*]] = scalar.constant {value = 0.0 : f32} : f32
// CHECK-NEXT:      %[[S:.*]] = loop.for %k = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%acc = %[[Z]]) -> (f32) {
// CHECK-NEXT:        %[[V:.*]] = loop.load %x[%i, %k]
// CHECK-NEXT:        %[[A:.*]] = scalar.add %acc, %[[V]] : f32
// CHECK-NEXT:        loop.yield %[[A]] : f32
// CHECK-NEXT:      } {reduction}
// CHECK-NEXT:      loop.store %[[S]], %{{.*}}[%i]
func.func @rowsum(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = tensor.reduce %x {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %s : tensor<?xf32>
}

// -----

// Keeping the innermost axis: fill with the identity, then combine rows in input order (the
// inner loop walks the contiguous axis of both buffers), in parallel over blocks of 256
// columns, each owning its slice of the output.
// CHECK-LABEL: func.func @colmax
// CHECK:         loop.parallel (%i)
// CHECK-NEXT:      %[[INF:.*]] = scalar.constant {value = -inf} : f64
// CHECK-NEXT:      loop.store %[[INF]]
// CHECK:         %[[NB:.*]] = loop.floordiv
// CHECK:         loop.parallel (%[[B:.*]]) = (%{{.*}}) to (%[[NB]])
// CHECK-NEXT:      %[[J0:.*]] = loop.mul %[[B]], %{{.*}}
// CHECK:           %[[J1:.*]] = loop.min
// CHECK-NEXT:      loop.for %k = {{.*}} {
// CHECK-NEXT:      loop.for %k_1 = %[[J0]] to %[[J1]] step {{.*}} {
// CHECK-NEXT:        %[[V:.*]] = loop.load %x[%k, %k_1]
// CHECK-NEXT:        %[[O:.*]] = loop.load %[[OUT:.*]][%k_1]
// CHECK-NEXT:        %[[M:.*]] = scalar.maximum %[[O]], %[[V]] : f64
// CHECK-NEXT:        loop.store %[[M]], %[[OUT]][%k_1]
func.func @colmax(%x: tensor<?x?xf64>) -> tensor<?xf64> {
  %s = tensor.reduce %x {axes = array<i64: 0>, kind = "max"} : (tensor<?x?xf64>) -> tensor<?xf64>
  func.return %s : tensor<?xf64>
}

// -----

// gemv: dot products of blocks of rows (one accumulator per row), alpha and beta once per row
// (the loop structure of products: lower-products.mlir).
// CHECK-LABEL: func.func @gemv
// CHECK:         loop.assert_eq %{{.*}}, %{{.*}} {msg = "'tensor.gemv': inner dimensions differ"}
// CHECK:         loop.parallel (%blk)
// CHECK:           loop.for %q {{.*}} iter_args(%acc = {{.*}}) -> (f32, f32, f32, f32) {
// CHECK:             scalar.mul
// CHECK:             scalar.add %acc
// CHECK:           } {reduction}
// CHECK:           loop.load %y[
// CHECK:           scalar.mul %{{.*}}, %{{.*}} : f32
func.func @gemv(%A: tensor<?x?xf32>, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.gemv %A, %x, %y {alpha = 2.0, beta = 0.5} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
