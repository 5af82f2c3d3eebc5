// RUN: irc-opt %s | irc-opt | filecheck %s --check-prefix=TEXT
// RUN: irc-opt %s -t llvm-raw | filecheck %s --check-prefix=RAW
// RUN: irc-opt %s -t llvm | filecheck %s

// Complex numbers: `c64` is a pair of f32 (numpy's layout), a constant is `dense<(re, im)>`;
// the printed form parses back. The code generator writes the product over the parts: loads of
// the pair `{float, float}`, the parts taken apart, four products, no call.
// TEXT: dense<[(1.5, -2.0)]> : tensor<1xc64>
// TEXT: tensor.mul %{{.*}} : tensor<?xc64>
// TEXT: tensor.abs %{{.*}} : (tensor<?xc64>) -> tensor<?xf32>
// RAW: load {float, float}
// RAW: extractvalue {float, float}
// RAW: fmul float
// RAW: store {float, float}
// CHECK: define {{.*}}i32 @irc.f(
// CHECK-NOT: call {{.*}}@{{c?}}mul
func.func @f(%x: tensor<?xc64>) -> (tensor<?xc64>, tensor<?xf32>) {
  %c = tensor.constant {value = dense<(1.5, -2.0)> : tensor<1xc64>} : tensor<1xc64>
  %b = tensor.broadcast %c, %x : (tensor<1xc64>, tensor<?xc64>) -> tensor<?xc64>
  %r = tensor.mul %x, %b : tensor<?xc64>
  %a = tensor.abs %r : (tensor<?xc64>) -> tensor<?xf32>
  func.return %r, %a : tensor<?xc64>, tensor<?xf32>
}
