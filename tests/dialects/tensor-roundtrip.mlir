// RUN: irc-opt %s | filecheck %s
// RUN: irc-opt %s | irc-opt | filecheck %s
// RUN: irc-opt %s --mlir-print-op-generic | irc-opt | filecheck %s

// Every family of tensor ops prints in its short form and parses back to the same text.
// CHECK-LABEL: func.func @ops
// CHECK:       %b = tensor.add %x, %r : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
// CHECK:       %m = tensor.lt %b, %x : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xi1>
// CHECK:       %s = tensor.select %m, %b, %x : (tensor<?x3xi1>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK:       %c = tensor.cast %s {to = f64} : (tensor<?x3xf32>) -> tensor<?x3xf64>
// CHECK:       %d = tensor.dimshuffle %r {pattern = array<i64: 1, -1>} : (tensor<1x3xf32>) -> tensor<3x1xf32>
// CHECK:       %t = tensor.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
// CHECK:       %e = tensor.reshape %x {shape = array<i64: -1>} : (tensor<?x3xf32>) -> tensor<?xf32>
// CHECK:       %n = tensor.dim %x {axis = 0} : (tensor<?x3xf32>) -> tensor<i64>
// CHECK:       %sum = tensor.reduce %x {axes = array<i64: 0>, kind = "sum"} : (tensor<?x3xf32>) -> tensor<3xf32>
// CHECK:       %am = tensor.reduce %x {axes = array<i64: 1>, kind = "argmax"} : (tensor<?x3xf32>) -> tensor<?xi64>
// CHECK:       %v = tensor.dot %x, %sum : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?xf32>
// CHECK:       %g = tensor.gemm %t, %x, %w {alpha = 2.0, beta = 1.0} : (tensor<3x?xf32>, tensor<?x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
// CHECK:       %sl = tensor.slice %x {starts = array<i64: 1, -9223372036854775808>, steps = array<i64: 1, -1>, stops = array<i64: -9223372036854775808, -9223372036854775808>} : tensor<?x3xf32>
// CHECK:       %is = tensor.insert_slice %x, %sl {starts = array<i64: 1, -9223372036854775808>, steps = array<i64: 1, -1>, stops = array<i64: -9223372036854775808, -9223372036854775808>} : tensor<?x3xf32>
// CHECK:       %cat = tensor.concat %x, %r {axis = 0} : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
// CHECK:       %dev = tensor.to_device %x {device = "cuda"} : (tensor<?x3xf32>) -> tensor<?x3xf32, "cuda">
// CHECK:       %host = tensor.to_host %dev : (tensor<?x3xf32, "cuda">) -> tensor<?x3xf32>
// CHECK:       %f:2 = tensor.fused(%a = %x, %bb = %r) : (tensor<?x3xf32>, tensor<1x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xi1>) {
// CHECK-NEXT:    %p = scalar.add %a, %bb : f32
// CHECK-NEXT:    %one = scalar.constant {value = 1.0 : f32} : f32
// CHECK-NEXT:    %q = scalar.lt %p, %one : (f32, f32) -> i1
// CHECK-NEXT:    scalar.yield %p, %q : f32, i1
// CHECK-NEXT:  }
func.func @ops(%x: tensor<?x3xf32>, %r: tensor<1x3xf32>, %w: tensor<3x3xf32>) -> tensor<?x3xf32> {
  %b = tensor.add %x, %r : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  %m = tensor.lt %b, %x : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xi1>
  %s = tensor.select %m, %b, %x : (tensor<?x3xi1>, tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %c = tensor.cast %s {to = f64} : (tensor<?x3xf32>) -> tensor<?x3xf64>
  %d = tensor.dimshuffle %r {pattern = array<i64: 1, -1>} : (tensor<1x3xf32>) -> tensor<3x1xf32>
  %t = tensor.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
  %e = tensor.reshape %x {shape = array<i64: -1>} : (tensor<?x3xf32>) -> tensor<?xf32>
  %n = tensor.dim %x {axis = 0} : (tensor<?x3xf32>) -> tensor<i64>
  %sum = tensor.reduce %x {axes = array<i64: 0>, kind = "sum"} : (tensor<?x3xf32>) -> tensor<3xf32>
  %am = tensor.reduce %x {axes = array<i64: 1>, kind = "argmax"} : (tensor<?x3xf32>) -> tensor<?xi64>
  %v = tensor.dot %x, %sum : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?xf32>
  %g = tensor.gemm %t, %x, %w {alpha = 2.0, beta = 1.0} : (tensor<3x?xf32>, tensor<?x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %sl = tensor.slice %x {starts = array<i64: 1, -9223372036854775808>, steps = array<i64: 1, -1>, stops = array<i64: -9223372036854775808, -9223372036854775808>} : tensor<?x3xf32>
  %is = tensor.insert_slice %x, %sl {starts = array<i64: 1, -9223372036854775808>, steps = array<i64: 1, -1>, stops = array<i64: -9223372036854775808, -9223372036854775808>} : tensor<?x3xf32>
  %cat = tensor.concat %x, %r {axis = 0} : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  %dev = tensor.to_device %x {device = "cuda"} : (tensor<?x3xf32>) -> tensor<?x3xf32, "cuda">
  %host = tensor.to_host %dev : (tensor<?x3xf32, "cuda">) -> tensor<?x3xf32>
  %f:2 = tensor.fused(%a = %x, %bb = %r) : (tensor<?x3xf32>, tensor<1x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xi1>) {
    %p = scalar.add %a, %bb : f32
    %one = scalar.constant {value = 1.0 : f32} : f32
    %q = scalar.lt %p, %one : (f32, f32) -> i1
    scalar.yield %p, %q : f32, i1
  }
  func.return %f#0 : tensor<?x3xf32>
}
