// RUN: irc-opt %s | irc-opt | filecheck %s
// RUN: irc-opt %s --mlir-print-op-generic | irc-opt | filecheck %s
// RUN: irc-opt %s -p canonicalize | filecheck %s --check-prefix=FOLD
// RUN: irc-opt %s -p lower-to-loops | filecheck %s --check-prefix=LOOP

// Integer indexing: constant and run-time indices, the indexed axes dropped.
// CHECK-LABEL: func.func @index
// CHECK:       %row = tensor.index %m, %i {axes = array<i64: 0>} : (tensor<?x?xf32>, tensor<i64>) -> tensor<?xf32>
// CHECK:       %e = tensor.index %m, %i, %j {axes = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<i64>, tensor<i32>) -> tensor<f32>
// CHECK:       %w = tensor.insert_index %m, %row, %i {axes = array<i64: 1>} : (tensor<?x?xf32>, tensor<?xf32>, tensor<i64>) -> tensor<?x?xf32>
// LOOP-LABEL:  func.func @index
// LOOP:        %[[I:.*]] = loop.load %i[] : memref<i64, strided<[], offset: ?>>
// LOOP:        %[[II:.*]] = scalar.cast %[[I]] {to = index} : (i64) -> index
// LOOP:        %[[N:.*]] = loop.check_index %[[II]], %{{.*}} {msg = "'tensor.index': index out of range for axis 0"} : index
// LOOP:        %[[S:.*]] = loop.subview %m, %[[N]], %{{.*}}
// LOOP:        loop.broadcast %[[S]], %{{.*}} {dims = array<i64: 1>}
// LOOP:        loop.check_index {{.*}} {msg = "'tensor.index': index out of range for axis 1"}
// LOOP:        loop.check_index {{.*}} {msg = "'tensor.insert_index': index out of range for axis 1"}
func.func @index(%m: tensor<?x?xf32>, %i: tensor<i64>, %j: tensor<i32>) -> (tensor<?xf32>, tensor<f32>, tensor<?x?xf32>) {
  %row = tensor.index %m, %i {axes = array<i64: 0>} : (tensor<?x?xf32>, tensor<i64>) -> tensor<?xf32>
  %e = tensor.index %m, %i, %j {axes = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<i64>, tensor<i32>) -> tensor<f32>
  %w = tensor.insert_index %m, %row, %i {axes = array<i64: 1>} : (tensor<?x?xf32>, tensor<?xf32>, tensor<i64>) -> tensor<?x?xf32>
  func.return %row, %e, %w : tensor<?xf32>, tensor<f32>, tensor<?x?xf32>
}

// Constant operands fold with numpy's rule; an index out of range stays for run time.
// FOLD-LABEL: func.func @fold
// FOLD:       %[[C:.*]] = tensor.constant {value = dense<3.0> : tensor<f32>}
// FOLD:       %[[BAD:.*]] = tensor.index %{{.*}}, %{{.*}} {axes = array<i64: 0>}
// FOLD:       func.return %[[C]], %[[BAD]]
func.func @fold() -> (tensor<f32>, tensor<f32>) {
  %v = tensor.constant {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %last = tensor.constant {value = dense<-1> : tensor<i64>} : tensor<i64>
  %big = tensor.constant {value = dense<3> : tensor<i64>} : tensor<i64>
  %a = tensor.index %v, %last {axes = array<i64: 0>} : (tensor<3xf32>, tensor<i64>) -> tensor<f32>
  %b = tensor.index %v, %big {axes = array<i64: 0>} : (tensor<3xf32>, tensor<i64>) -> tensor<f32>
  func.return %a, %b : tensor<f32>, tensor<f32>
}
