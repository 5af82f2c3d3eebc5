// RUN: irc-opt %s -p canonicalize | filecheck %s
// RUN: irc-opt %s --emit-stage loop | filecheck %s --check-prefix=LOOP
// RUN: irc-opt %s -t llvm-raw | filecheck %s --check-prefix=LLVM
// A splat is one value, whatever its size: parsing, folding and lowering never make 373 GiB of it.

// CHECK: tensor.constant {value = dense<1.0> : tensor<100000000000xf32>}
// LOOP:      %[[G:.*]] = loop.global {value = dense<[1.0]> : tensor<1xf32>} : memref<1xf32>
// LOOP:      loop.broadcast %[[G]]
// LLVM:      internal constant [4 x i8] c"\00\00\80?"
func.func @f() -> tensor<100000000000xf32> {
  %0 = tensor.constant {value = dense<1.0> : tensor<100000000000xf32>} : tensor<100000000000xf32>
  func.return %0 : tensor<100000000000xf32>
}
