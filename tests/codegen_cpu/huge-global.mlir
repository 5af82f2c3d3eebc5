// RUN: not irc-opt %s -t llvm-raw 2>&1 | filecheck %s
// A splat attribute is one element, but its bytes in object code would not be: refused, located.

func.func @f() -> memref<100000000000xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'loop.global' of 400000000000 bytes (tensor<100000000000xf32>) is too large to embed in compiled code
  %0 = loop.global {value = dense<1.0> : tensor<100000000000xf32>} : memref<100000000000xf32>
  %1 = loop.alloc : () -> memref<100000000000xf32>
  func.return %1 : memref<100000000000xf32>
}
