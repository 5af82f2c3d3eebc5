// RUN: irc-opt %s -p lower-to-loops | filecheck %s

// A minibatch x[2 i : 2 i + 2]: the bounds are read, wrapped when negative and clipped to the
// axis (numpy's rules) where the op stands, then the slice is a subview: no copy.
// CHECK-LABEL: func.func @minibatch
// CHECK:         %[[N:.*]] = loop.dim %x {axis = 0}
// CHECK:         %[[I:.*]] = loop.load %i[]
// CHECK:         %[[S:.*]] = scalar.mul %[[I]], %{{.*}} : i64
// CHECK:         %[[E:.*]] = scalar.add %[[S]], %{{.*}} : i64
// CHECK:         %[[NEG:.*]] = scalar.lt %[[S]], %{{.*}} : (i64, i64) -> i1
// CHECK:         scalar.select %[[NEG]]
// CHECK:         scalar.maximum
// CHECK:         scalar.minimum
// CHECK:         %[[START:.*]] = scalar.cast %{{.*}} {to = index} : (i64) -> index
// CHECK:         %[[STOP:.*]] = scalar.cast %{{.*}} {to = index} : (i64) -> index
// CHECK:         %[[SPAN:.*]] = loop.sub %[[STOP]], %[[START]] : index
// CHECK:         %[[ROWS:.*]] = loop.max %{{.*}}, %[[SPAN]] : index
// CHECK:         %b = loop.subview %x, %[[START]], %{{.*}}, %[[ROWS]]
// CHECK-NOT:     loop.alloc %[[ROWS]]
func.func @minibatch(%x: tensor<?x4xf32>, %i: tensor<i64>) -> tensor<f32> {
  %c = tensor.constant {value = dense<2> : tensor<i64>} : tensor<i64>
  %s = tensor.mul %i, %c : tensor<i64>
  %e = tensor.add %s, %c : tensor<i64>
  %b = tensor.dynamic_slice %x, %s, %e {axis = 0} : (tensor<?x4xf32>, tensor<i64>, tensor<i64>) -> tensor<?x4xf32>
  %r = tensor.reduce %b {kind = "sum", axes = array<i64: 0, 1>} : (tensor<?x4xf32>) -> tensor<f32>
  func.return %r : tensor<f32>
}
