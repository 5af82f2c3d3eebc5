// RUN: irc-opt %s -t llvm | filecheck %s
// RUN: irc-opt %s -t llvm-raw | filecheck %s --check-prefix=RAW

// The exp of a vector: one entry point, vectorized at O3, the math inline (no libm call).
// CHECK: target triple
// CHECK: define {{.*}}i32 @irc.f(ptr noalias
// CHECK: load <{{[0-9]+}} x float>
// CHECK-NOT: call {{.*}}@expf
// RAW: define i32 @"irc.f"(
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.exp %x : tensor<?xf32>
  func.return %r : tensor<?xf32>
}
