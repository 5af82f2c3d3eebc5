// RUN: irc-opt %s -t asm | filecheck %s

// Host assembly: the entry point is a global symbol, and returns.
// CHECK: .globl irc.f
// CHECK: irc.f:
// CHECK: ret
func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.add %x, %y : tensor<?xf32>
  func.return %r : tensor<?xf32>
}
