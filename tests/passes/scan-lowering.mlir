// RUN: irc-opt %s -p lower-to-loops | filecheck %s

// A state read one step back: the result holds one row per step and is returned as it is.
// Step 0 runs in a loop of its own (0 or 1 steps) reading the initial state; the loop over
// steps 1.. reads row t - 1 of the result. The body's temporary (its size does not change
// between steps) is allocated once, before the loops, and freed after them.
// CHECK-LABEL: func.func @cumulative
// CHECK:       %[[N:.*]] = scalar.cast %{{.*}} {to = index} : (i64) -> index
// CHECK:       loop.assert_eq %{{.*}}, %[[N]] {msg = "'tensor.scan': n_steps is negative"}
// CHECK:       %[[STEPS:.*]] = loop.min %[[N]], %{{.*}} : index
// CHECK:       %[[OUT:.*]] = loop.alloc %[[STEPS]], %{{.*}} : (index, index) -> memref<?x?xf64>
// CHECK:       %[[FIRST:.*]] = loop.min %[[STEPS]], %{{.*}} : index
// CHECK:       %[[TMP:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf64>
// CHECK-NEXT:  loop.for %[[T:.*]] = %{{.*}} to %[[FIRST]] step %{{.*}} {
// CHECK:         loop.subview %xs, %[[T]]
// CHECK:         loop.subview %h0, %{{.*}}
// CHECK:         loop.parallel
// CHECK:           scalar.add
// CHECK:           loop.store {{.*}}, %[[TMP]]
// CHECK:         loop.subview %[[OUT]], %[[T]]
// CHECK:       loop.for %[[T2:.*]] = %[[FIRST]] to %[[STEPS]] step %{{.*}} {
// CHECK:         %[[PREV:.*]] = loop.add %[[T2]], %{{.*}} : index
// CHECK:         loop.subview %[[OUT]], %[[PREV]]
// CHECK:         loop.assert_eq {{.*}} {msg = "'tensor.add': operands differ in size in dim 0 {{.*}}"}
// CHECK:         loop.subview %[[OUT]], %[[T2]]
// CHECK:         loop.assert_eq {{.*}} {msg = "'tensor.scan': result #0 changes size in dim 0 between steps"}
// CHECK-NOT:     loop.alloc
// CHECK:       loop.dealloc %[[TMP]]
// CHECK-NEXT:  func.return %[[OUT]]
// The initial state's size is static here (1 row): nothing to check at run time.
// CHECK-NOT:   holds the wrong number of states
func.func @cumulative(%n: tensor<i64>, %xs: tensor<?x?xf64>, %h0: tensor<1x?xf64>) -> tensor<?x?xf64> {
  %r = "tensor.scan"(%n, %xs, %h0) ({
  ^bb0(%x: tensor<?xf64>, %h: tensor<?xf64>):
    %s = tensor.add %x, %h : tensor<?xf64>
    tensor.scan_yield %s : tensor<?xf64>
  }) {sequences = 1 : i64, taps = [array<i64: -1>]} : (tensor<i64>, tensor<?x?xf64>, tensor<1x?xf64>) -> tensor<?x?xf64>
  func.return %r : tensor<?x?xf64>
}

// A window of two states: the buffer has 2 rows in front holding them (the initial value's
// row count checked), tap -j reads row t + 2 - j, step t writes row t + 2, and the result is
// the view of the rows after the window (copied by the return).
// CHECK-LABEL: func.func @fibonacci
// CHECK:       loop.assert_eq %{{.*}}, %{{.*}} {msg = "'tensor.scan': the initial value of result #0 holds the wrong number of states for its taps [-2, -1] (2 needed)"}
// CHECK:       %[[ROWS:.*]] = loop.add %[[STEPS:.*]], %[[TWO:.*]] : index
// CHECK:       %[[BUF:.*]] = loop.alloc %[[ROWS]] : (index) -> memref<?xi64>
// CHECK:       loop.for %[[T:.*]] = %{{.*}} to %[[STEPS]] step
// CHECK:         loop.subview %[[BUF]], %[[T]]
// CHECK:         %[[B:.*]] = loop.add %[[T]], %{{.*}} : index
// CHECK:         loop.subview %[[BUF]], %[[B]]
// CHECK:         %[[W:.*]] = loop.add %[[T]], %[[TWO]] : index
// CHECK:         loop.subview %[[BUF]], %[[W]]
// CHECK:       loop.subview %[[BUF]], %[[TWO]], %[[STEPS]]
func.func @fibonacci(%n: tensor<i64>, %x0: tensor<?xi64>) -> tensor<?xi64> {
  %r = "tensor.scan"(%n, %x0) ({
  ^bb0(%a: tensor<i64>, %b: tensor<i64>):
    %s = tensor.add %a, %b : tensor<i64>
    tensor.scan_yield %s : tensor<i64>
  }) {sequences = 0 : i64, taps = [array<i64: -2, -1>]} : (tensor<i64>, tensor<?xi64>) -> tensor<?xi64>
  func.return %r : tensor<?xi64>
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
    tensor.scan_yield %s : tensor<f32>
  }) {sequences = 1 : i64, taps = [array<i64>]} : (tensor<i64>, tensor<?x?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
