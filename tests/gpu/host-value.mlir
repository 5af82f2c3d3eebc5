// RUN: irc-opt %s -p lower-to-loops,outline-kernels | filecheck %s

// A `givens` minibatch `x[i * 2:(i + 1) * 2]` of a device array: the bounds are index
// arithmetic on the value of the uploaded integer input (`loop.host_value`), clipped by
// numpy's rules on the host; the slice is a view (no copy kernel), the product a kernel over it.
// CHECK-LABEL: func.func @batch(
// CHECK:         %[[I:.*]] = loop.host_value %i : (memref<i64, "cuda">) -> index
// CHECK:         loop.mul %[[I]]
// CHECK:         loop.min
// CHECK:         %[[V:.*]] = loop.subview %x
// CHECK:         gpu.launch @batch_kernel{{[0-9]+}}(
// CHECK-NOT:     loop.load
// CHECK:         func.return
func.func @batch(%i: tensor<i64, "cuda">, %x: tensor<?x?xf32, "cuda">) -> tensor<?x?xf32, "cuda"> {
  %c2 = tensor.constant {value = dense<2> : tensor<i64, "cuda">} : tensor<i64, "cuda">
  %c1 = tensor.constant {value = dense<1> : tensor<i64, "cuda">} : tensor<i64, "cuda">
  %lo = tensor.mul %i, %c2 : tensor<i64, "cuda">
  %j = tensor.add %i, %c1 : tensor<i64, "cuda">
  %hi = tensor.mul %j, %c2 : tensor<i64, "cuda">
  %s = tensor.dynamic_slice %x, %lo, %hi {axis = 0} : (tensor<?x?xf32, "cuda">, tensor<i64, "cuda">, tensor<i64, "cuda">) -> tensor<?x?xf32, "cuda">
  %r = tensor.add %s, %s : tensor<?x?xf32, "cuda">
  func.return %r : tensor<?x?xf32, "cuda">
}
