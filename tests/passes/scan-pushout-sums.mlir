// RUN: irc-opt %s -p scan-pushout-sums | filecheck %s

// A weight's gradient summed over the steps (acc + x_tᵀ·d_t), read only as its last value:
// the step yields d_t instead (the state is gone), and the sum is one product after the loop
// over the (steps·rows) stacked rows, plus the initial value.
// CHECK-LABEL: func.func @weight_gradient
// CHECK:       %[[R:.*]]:2 = "tensor.scan"(%n, %xs, %ds, %h0)
// CHECK-NEXT:  ^bb0(%x: tensor<?x?xf32>, %d: tensor<?x?xf32>, %h: tensor<?x?xf32>):
// CHECK-NOT:     tensor.dot
// CHECK:         tensor.scan_yield %{{.*}}, %d
// CHECK-NEXT:  }) {sequences = 2, taps = [array<i64: -1>, array<i64>]}
// CHECK:       %[[STEPS:.*]] = tensor.dim %[[R]]#1 {axis = 0}
// CHECK:       %[[USED:.*]] = tensor.dynamic_slice %xs, %{{.*}}, %[[STEPS]] {axis = 0}
// CHECK:       %[[XS:.*]] = tensor.reshape %[[USED]]
// CHECK:       %[[DS:.*]] = tensor.reshape %[[R]]#1
// CHECK:       %[[XT:.*]] = tensor.dimshuffle %[[XS]] {pattern = array<i64: 1, 0>}
// CHECK:       %[[P:.*]] = tensor.dot %[[XT]], %[[DS]]
// CHECK:       %[[FIRST:.*]] = tensor.index %g0, %{{.*}} {axes = array<i64: 0>}
// CHECK:       %[[G:.*]] = tensor.add %[[FIRST]], %[[P]]
// CHECK:       func.return %[[G]], %[[R]]#0
func.func @weight_gradient(%n: tensor<i64>, %xs: tensor<?x?x?xf32>, %ds: tensor<?x?x?xf32>, %g0: tensor<1x?x?xf32>,
                           %h0: tensor<1x?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?x?xf32>) {
  %r:2 = "tensor.scan"(%n, %xs, %ds, %g0, %h0) ({
  ^bb0(%x: tensor<?x?xf32>, %d: tensor<?x?xf32>, %acc: tensor<?x?xf32>, %h: tensor<?x?xf32>):
    %xt = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
    %g = tensor.dot %xt, %d : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %next = tensor.add %acc, %g : tensor<?x?xf32>
    %h1 = tensor.tanh %h : tensor<?x?xf32>
    tensor.scan_yield %next, %h1 : tensor<?x?xf32>, tensor<?x?xf32>
  }) {sequences = 2 : i64, taps = [array<i64: -1>, array<i64: -1>]} : (tensor<i64>, tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<1x?x?xf32>, tensor<1x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  %m = tensor.constant {value = dense<-1> : tensor<i64>} : tensor<i64>
  %last = tensor.index %r#0, %m {axes = array<i64: 0>} : (tensor<?x?x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  func.return %last, %r#1 : tensor<?x?xf32>, tensor<?x?x?xf32>
}

// A sum read whole (not only its last value) stays a state.
// CHECK-LABEL: func.func @read_whole
// CHECK:         tensor.dot
// CHECK:       {sequences = 1, taps = [array<i64: -1>]}
func.func @read_whole(%n: tensor<i64>, %xs: tensor<?x?x?xf32>, %g0: tensor<1x?x?xf32>, %d: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %r = "tensor.scan"(%n, %xs, %g0, %d) ({
  ^bb0(%x: tensor<?x?xf32>, %acc: tensor<?x?xf32>, %di: tensor<?x?xf32>):
    %xt = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
    %g = tensor.dot %xt, %di : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %next = tensor.add %acc, %g : tensor<?x?xf32>
    tensor.scan_yield %next : tensor<?x?xf32>
  }) {sequences = 1 : i64, taps = [array<i64: -1>]} : (tensor<i64>, tensor<?x?x?xf32>, tensor<1x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  func.return %r : tensor<?x?x?xf32>
}
