// RUN: irc-opt %s -p scan-prune | filecheck %s

// Result #1 (no taps) is never read: it goes, with the exp that only it needed. Result #0 has
// taps (later steps read it) and stays, read or not.
// CHECK-LABEL: func.func @prune
// CHECK:       %[[R:.*]] = "tensor.scan"(%n, %xs, %h0)
// CHECK-NOT:     tensor.exp
// CHECK:         tensor.scan_yield %{{.*}} : tensor<?xf32>
// CHECK-NEXT:  }) {sequences = 1, taps = [array<i64: -1>]}
// CHECK-SAME:    -> tensor<?x?xf32>
// CHECK:       func.return %[[R]]
func.func @prune(%n: tensor<i64>, %xs: tensor<?x?xf32>, %h0: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %r:2 = "tensor.scan"(%n, %xs, %h0) ({
  ^bb0(%x: tensor<?xf32>, %h: tensor<?xf32>):
    %s = tensor.add %x, %h : tensor<?xf32>
    %e = tensor.exp %x : tensor<?xf32>
    tensor.scan_yield %s, %e : tensor<?xf32>, tensor<?xf32>
  }) {sequences = 1 : i64, taps = [array<i64: -1>, array<i64>]} : (tensor<i64>, tensor<?x?xf32>, tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  func.return %r#0 : tensor<?x?xf32>
}
