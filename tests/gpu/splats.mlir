// RUN: irc-opt %s -p lower-to-loops,outline-kernels | filecheck %s

// The gradient of a mean, -(1/n) broadcast over a batch and reshaped into a column, read by
// an elementwise op: a splat (`splats.py`). The host computes the number once per shape
// signature and the op's kernel takes it as an argument; the broadcast's shape check stays;
// no kernel fills a buffer with n copies of it.
// CHECK-LABEL: func.func @mean_gradient(
// CHECK:         scalar.div
// CHECK:         scalar.neg
// CHECK:         loop.assert_eq {{.*}}operands differ in size in dim 0
// CHECK-COUNT-1: gpu.launch
// CHECK-NOT:     gpu.launch
// CHECK:         func.return
func.func @mean_gradient(%x: tensor<?x?xf32, "cuda">, %v: tensor<?xf32, "cuda">) -> tensor<?x?xf32, "cuda"> {
  %n = tensor.dim %v {axis = 0} : (tensor<?xf32, "cuda">) -> tensor<i64, "cuda">
  %nf = tensor.cast %n {to = f32} : (tensor<i64, "cuda">) -> tensor<f32, "cuda">
  %one = tensor.constant {value = dense<1.0> : tensor<f32, "cuda">} : tensor<f32, "cuda">
  %inv = tensor.div %one, %nf : tensor<f32, "cuda">
  %inv1 = tensor.dimshuffle %inv {pattern = array<i64: -1>} : (tensor<f32, "cuda">) -> tensor<1xf32, "cuda">
  %g = tensor.broadcast %inv1, %v : (tensor<1xf32, "cuda">, tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda">
  %ng = tensor.neg %g : tensor<?xf32, "cuda">
  %col = tensor.dimshuffle %ng {pattern = array<i64: 0, -1>} : (tensor<?xf32, "cuda">) -> tensor<?x1xf32, "cuda">
  %r = tensor.mul %col, %x : (tensor<?x1xf32, "cuda">, tensor<?x?xf32, "cuda">) -> tensor<?x?xf32, "cuda">
  func.return %r : tensor<?x?xf32, "cuda">
}

// A splat returned (or read by an op that needs a buffer) is filled where it is needed: one
// kernel, as before.
// CHECK-LABEL: func.func @returned(
// CHECK-COUNT-1: gpu.launch
// CHECK-NOT:     gpu.launch
// CHECK:         func.return
func.func @returned(%v: tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
  %n = tensor.dim %v {axis = 0} : (tensor<?xf32, "cuda">) -> tensor<i64, "cuda">
  %nf = tensor.cast %n {to = f32} : (tensor<i64, "cuda">) -> tensor<f32, "cuda">
  %n1 = tensor.dimshuffle %nf {pattern = array<i64: -1>} : (tensor<f32, "cuda">) -> tensor<1xf32, "cuda">
  %g = tensor.broadcast %n1, %v : (tensor<1xf32, "cuda">, tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda">
  func.return %g : tensor<?xf32, "cuda">
}

// The mean's division by n, in the reduction's last pass (`device_epilogue.py`): n comes from a
// size, made after the reduction in the block but lowered ahead of its place, so no kernel of
// its own divides.
// CHECK-LABEL: gpu.func @mean_kernel0(
// CHECK:         scalar.div %{{.*}}, %arg{{[0-9]+}} : f32
// CHECK-LABEL: func.func @mean(
// CHECK-COUNT-5: gpu.launch @mean_kernel
// CHECK-NOT:     gpu.launch
// CHECK:         func.return
func.func @mean(%v: tensor<?xf32, "cuda">) -> tensor<f32, "cuda"> {
  %s = tensor.reduce %v {kind = "sum", axes = array<i64: 0>} : (tensor<?xf32, "cuda">) -> tensor<f32, "cuda">
  %n = tensor.dim %v {axis = 0} : (tensor<?xf32, "cuda">) -> tensor<i64, "cuda">
  %nf = tensor.cast %n {to = f32} : (tensor<i64, "cuda">) -> tensor<f32, "cuda">
  %m = tensor.div %s, %nf : tensor<f32, "cuda">
  func.return %m : tensor<f32, "cuda">
}
