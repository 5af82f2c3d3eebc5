// RUN: irc-opt %s -p insert-transfers --split-input-file | filecheck %s

// The tutorials' minibatch NLL on the device: the `givens` slices of the shared dataset are
// device views (their bounds are arithmetic on the integer input `i`, which the host side
// computes), the log-softmax, arange, the two-index gather and the sum are device ops; only
// the input comes over and the cost goes back.
// CHECK-LABEL: func.func @nll
// CHECK-NEXT:    %[[I:.*]] = tensor.to_device %i
// CHECK:         %xb = tensor.dynamic_slice %x, {{.*}} -> tensor<?x?xf32, "cuda">
// CHECK-NEXT:    %yb = tensor.dynamic_slice %y, {{.*}} -> tensor<?xi64, "cuda">
// CHECK-NEXT:    %l = tensor.log_softmax %xb : tensor<?x?xf32, "cuda">
// CHECK:         %r = tensor.iota %n : (tensor<i64, "cuda">) -> tensor<?xi64, "cuda">
// CHECK-NEXT:    %g = tensor.gather %l, %r, %yb : {{.*}} -> tensor<?xf32, "cuda">
// CHECK-NEXT:    %s = tensor.reduce %g
// CHECK-NEXT:    %[[C:.*]] = tensor.to_host %s
// CHECK-NEXT:    func.return %[[C]]
func.func @nll(%i: tensor<i64>, %x: tensor<?x?xf32, "cuda"> {irc.shared = "x"}, %y: tensor<?xi64, "cuda"> {irc.shared = "y"}) -> tensor<f32> {
  %xh = tensor.to_host %x : (tensor<?x?xf32, "cuda">) -> tensor<?x?xf32>
  %yh = tensor.to_host %y : (tensor<?xi64, "cuda">) -> tensor<?xi64>
  %c2 = tensor.constant {value = dense<2> : tensor<i64>} : tensor<i64>
  %lo = tensor.mul %i, %c2 : tensor<i64>
  %hi = tensor.add %lo, %c2 : tensor<i64>
  %xb = tensor.dynamic_slice %xh, %lo, %hi {axis = 0} : (tensor<?x?xf32>, tensor<i64>, tensor<i64>) -> tensor<?x?xf32>
  %yb = tensor.dynamic_slice %yh, %lo, %hi {axis = 0} : (tensor<?xi64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %l = tensor.log_softmax %xb : tensor<?x?xf32>
  %n = tensor.dim %yb {axis = 0} : (tensor<?xi64>) -> tensor<i64>
  %r = tensor.iota %n : (tensor<i64>) -> tensor<?xi64>
  %g = tensor.gather %l, %r, %yb : (tensor<?x?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  %s = tensor.reduce %g {kind = "sum", axes = array<i64: 0>} : (tensor<?xf32>) -> tensor<f32>
  func.return %s : tensor<f32>
}

// -----

// A slice bound read from device data (a shared integer) cannot be computed by the host: the
// slice stays on the host, its data copied there.
// CHECK-LABEL: func.func @bound_from_device_data
// CHECK:         %[[XH:.*]] = tensor.to_host %x
// CHECK:         tensor.dynamic_slice %[[XH]], {{.*}} -> tensor<?xf32>
func.func @bound_from_device_data(%k: tensor<i64, "cuda"> {irc.shared = "k"}, %x: tensor<?xf32, "cuda"> {irc.shared = "x"}) -> tensor<?xf32> {
  %kh = tensor.to_host %k : (tensor<i64, "cuda">) -> tensor<i64>
  %xh = tensor.to_host %x : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  %c = tensor.constant {value = dense<3> : tensor<i64>} : tensor<i64>
  %s = tensor.dynamic_slice %xh, %kh, %c {axis = 0} : (tensor<?xf32>, tensor<i64>, tensor<i64>) -> tensor<?xf32>
  func.return %s : tensor<?xf32>
}
