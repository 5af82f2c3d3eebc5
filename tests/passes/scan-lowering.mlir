// RUN: irc-opt %s -p lower-to-loops | filecheck %s

// One loop.for over the steps: the result buffer holds the initial window then one row per
// step; taps read views of earlier rows, the yielded value is copied into row window + t.
// The body's temporary (its size does not change between steps) is allocated once, before
// the loop, and freed after it.
// CHECK-LABEL: func.func @cumulative
// CHECK:       %[[N:.*]] = scalar.cast %{{.*}} {to = index} : (i64) -> index
// CHECK:       loop.assert_eq %{{.*}}, %[[N]] {msg = "'tensor.scan': n_steps is negative"}
// CHECK:       %[[STEPS:.*]] = loop.min %[[N]], %{{.*}} : index
// CHECK:       %[[ROWS:.*]] = loop.add %[[STEPS]], %{{.*}} : index
// CHECK:       %[[BUF:.*]] = loop.alloc %[[ROWS]], %{{.*}} : (index, index) -> memref<?x?xf64>
// CHECK:       %[[TMP:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf64>
// CHECK-NEXT:  loop.for %[[T:.*]] = %{{.*}} to %[[STEPS]] step %{{.*}} {
// CHECK:         loop.subview %xs, %[[T]]
// CHECK:         loop.subview %[[BUF]], %[[T]]
// CHECK:         loop.assert_eq {{.*}} {msg = "'tensor.add': operands differ in size in dim 0 {{.*}}"}
// CHECK:         loop.parallel
// CHECK:           scalar.add
// CHECK:           loop.store {{.*}}, %[[TMP]]
// CHECK:         %[[ROW:.*]] = loop.add %[[T]], %{{.*}} : index
// CHECK:         loop.subview %[[BUF]], %[[ROW]]
// CHECK:         loop.assert_eq {{.*}} {msg = "'tensor.scan': result #0 changes size in dim 0 between steps"}
// CHECK-NOT:     loop.alloc
// CHECK:       loop.dealloc %[[TMP]]
// CHECK:       loop.subview %[[BUF]], %{{.*}}, %{{.*}}, %[[STEPS]]
// The initial window's size is static here (1 row): nothing to check at run time.
// CHECK-NOT:   holds the wrong number of states
func.func @cumulative(%n: tensor<i64>, %xs: tensor<?x?xf64>, %h0: tensor<1x?xf64>) -> tensor<?x?xf64> {
  %r = "tensor.scan"(%n, %xs, %h0) ({
  ^bb0(%x: tensor<?xf64>, %h: tensor<?xf64>):
    %s = tensor.add %x, %h : tensor<?xf64>
    tensor.yield %s : tensor<?xf64>
  }) {sequences = 1 : i64, taps = [array<i64: -1>]} : (tensor<i64>, tensor<?x?xf64>, tensor<1x?xf64>) -> tensor<?x?xf64>
  func.return %r : tensor<?x?xf64>
}

// A result without taps is allocated before the loop with the sizes the body gives it (here
// a reduction: one element per step, stored as a scalar); no step count: the sequence's length.
// CHECK-LABEL: func.func @row_sums
// CHECK-NOT:   n_steps is negative
// CHECK:       %[[OUT:.*]] = loop.alloc %[[LEN:.*]] : (index) -> memref<?xf32>
// CHECK:       loop.for %[[T:.*]] = %{{.*}} to %[[LEN]] step
// CHECK:         loop.store %{{.*}}, %{{.*}}[] : memref<f32, strided<[], offset: ?>>
// CHECK:       func.return %[[OUT]]
func.func @row_sums(%xs: tensor<?x?xf32>) -> tensor<?xf32> {
  %n = tensor.constant {value = dense<-1> : tensor<i64>} : tensor<i64>
  %r = "tensor.scan"(%n, %xs) ({
  ^bb0(%x: tensor<?xf32>):
    %s = tensor.reduce %x {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
    tensor.yield %s : tensor<f32>
  }) {sequences = 1 : i64, taps = [array<i64>]} : (tensor<i64>, tensor<?x?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
