// RUN: irc-opt %s -p lower-to-loops --split-input-file | filecheck %s

// Transposes, dimshuffles and slices are views: no buffer, no loop, until something reads them.
// CHECK-LABEL: func.func @views
// CHECK:         %[[T:.*]] = loop.transpose %x {perm = array<i64: 1, 0>}
// CHECK-SAME:      : memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[S:.*]] = loop.subview %[[T]], {{.*}} -> memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK:         %[[D:.*]] = loop.broadcast %[[S]], {{.*}} {dims = array<i64: 0, -1, 1>}
// CHECK-NEXT:    %[[R:.*]] = loop.alloc
// CHECK-NEXT:    loop.parallel (%i, %j, %l)
// CHECK-NEXT:      loop.load %[[D]][%i, %{{.*}}, %l]
func.func @views(%x: tensor<?x?xf32>) -> tensor<?x1x?xf32> {
  %t = tensor.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %s = tensor.slice %t {starts = array<i64: 1, 0>, stops = array<i64: -9223372036854775808, -9223372036854775808>, steps = array<i64: 2, -1>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %d = tensor.dimshuffle %s {pattern = array<i64: 0, -1, 1>} : (tensor<?x?xf32>) -> tensor<?x1x?xf32>
  %r = tensor.exp %d : tensor<?x1x?xf32>
  func.return %r : tensor<?x1x?xf32>
}

// -----

// A result that is a view of an argument is copied into a returned buffer.
// CHECK-LABEL: func.func @transpose_out
// CHECK:         %[[T:.*]] = loop.transpose %x
// CHECK-NEXT:    %[[R:.*]] = loop.alloc
// CHECK-NEXT:    loop.parallel (%i, %j)
// CHECK-NEXT:      %[[V:.*]] = loop.load %[[T]][%i, %j]
// CHECK-NEXT:      loop.store %[[V]], %[[R]][%i, %j]
// CHECK:         func.return %[[R]]
func.func @transpose_out(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %t = tensor.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %t : tensor<?x?xf32>
}

// -----

// Constants become read-only global data.
// CHECK-LABEL: func.func @const
// CHECK:         %[[C:.*]] = loop.global {value = dense<[1.0, 2.0]> : tensor<2xf32>} : memref<2xf32>
// CHECK:         loop.load %[[C]][%i]
func.func @const(%x: tensor<2xf32>) -> tensor<2xf32> {
  %c = tensor.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %r = tensor.mul %x, %c : tensor<2xf32>
  func.return %r : tensor<2xf32>
}
