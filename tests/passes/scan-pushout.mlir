// RUN: irc-opt %s -p scan-pushout | filecheck %s

// x_t·W does not depend on the state: one product of the whole sequence before the loop
// ((T·B)×n by n×m, reshaped back to T×B×m), read by the step as a new sequence; h·U stays.
// CHECK-LABEL: func.func @rnn
// CHECK:       %[[FLAT:.*]] = tensor.reshape %xs, %{{.*}} : (tensor<?x?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
// CHECK:       %[[XW:.*]] = tensor.dot %[[FLAT]], %w : tensor<?x?xf32>
// CHECK:       %[[SEQ:.*]] = tensor.reshape %[[XW]], %{{.*}} : (tensor<?x?xf32>, tensor<3xi64>) -> tensor<?x?x?xf32>
// CHECK:       "tensor.scan"(%n, %xs, %[[SEQ]], %h0, %w, %u)
// CHECK-NEXT:  ^bb0(%x: tensor<?x?xf32>, %[[ROW:[a-z0-9_]+]]: tensor<?x?xf32>, %[[H:[a-z0-9_]+]]: tensor<?x?xf32>,
// CHECK:         %[[HU:.*]] = tensor.dot %[[H]], %{{.*}}
// CHECK-NEXT:    %[[S:.*]] = tensor.add %[[ROW]], %[[HU]]
// CHECK:       {sequences = 2, taps = [array<i64: -1>]}
func.func @rnn(%n: tensor<i64>, %xs: tensor<?x?x?xf32>, %h0: tensor<1x?x?xf32>, %w: tensor<?x?xf32>,
               %u: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %r = "tensor.scan"(%n, %xs, %h0, %w, %u) ({
  ^bb0(%x: tensor<?x?xf32>, %h: tensor<?x?xf32>, %wi: tensor<?x?xf32>, %ui: tensor<?x?xf32>):
    %a = tensor.dot %x, %wi : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %b = tensor.dot %h, %ui : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %s = tensor.add %a, %b : tensor<?x?xf32>
    %t = tensor.tanh %s : tensor<?x?xf32>
    tensor.scan_yield %t : tensor<?x?xf32>
  }) {sequences = 1 : i64, taps = [array<i64: -1>]} : (tensor<i64>, tensor<?x?x?xf32>, tensor<1x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  func.return %r : tensor<?x?x?xf32>
}

// Vector rows: one matrix product, no reshape. A product of the state is left alone.
// CHECK-LABEL: func.func @vectors
// CHECK-NOT:   tensor.reshape
// CHECK:       %[[XW:.*]] = tensor.dot %xs, %w : tensor<?x?xf64>
// CHECK:       "tensor.scan"(%n, %xs, %[[XW]], %h0, %w)
func.func @vectors(%n: tensor<i64>, %xs: tensor<?x?xf64>, %h0: tensor<1x?xf64>, %w: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = "tensor.scan"(%n, %xs, %h0, %w) ({
  ^bb0(%x: tensor<?xf64>, %h: tensor<?xf64>, %wi: tensor<?x?xf64>):
    %a = tensor.dot %x, %wi : (tensor<?xf64>, tensor<?x?xf64>) -> tensor<?xf64>
    %s = tensor.add %a, %h : tensor<?xf64>
    tensor.scan_yield %s : tensor<?xf64>
  }) {sequences = 1 : i64, taps = [array<i64: -1>]} : (tensor<i64>, tensor<?x?xf64>, tensor<1x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  func.return %r : tensor<?x?xf64>
}
