// RUN: irc-opt %s -t llvm | filecheck %s
// RUN: irc-opt %s -t llvm-raw | filecheck %s --check-prefix=RAW

// Integer pow: squaring steps with selects (no call, no branch per element), vectorized at O3.
// CHECK: define {{.*}}i32 @irc.f(ptr noalias
// CHECK: mul <{{[0-9]+}} x i32>
// CHECK-NOT: call {{.*}}@pow
// RAW: define i32 @"irc.f"(
// RAW-COUNT-31: mul i32
// RAW-NOT: sdiv
func.func @f(%x: tensor<?xi32>, %y: tensor<?xi32>) -> tensor<?xi32> {
  %r = tensor.pow %x, %y : tensor<?xi32>
  func.return %r : tensor<?xi32>
}
