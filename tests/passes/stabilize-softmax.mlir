// RUN: irc-opt %s -p stabilize --split-input-file | filecheck %s

// Softmax written by hand (shifted by the row max) is one op.
// CHECK-LABEL: func.func @softmax_by_hand
// CHECK-NEXT:    %[[S:.*]] = tensor.softmax %x : tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[S]]
func.func @softmax_by_hand(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = tensor.reduce %x {axes = array<i64: 1>, kind = "max"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %mk = tensor.dimshuffle %m {pattern = array<i64: 0, -1>} : (tensor<?xf32>) -> tensor<?x1xf32>
  %s = tensor.sub %x, %mk : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %e = tensor.exp %s : tensor<?x?xf32>
  %t = tensor.reduce %e {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %tk = tensor.dimshuffle %t {pattern = array<i64: 0, -1>} : (tensor<?xf32>) -> tensor<?x1xf32>
  %p = tensor.div %e, %tk : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  func.return %p : tensor<?x?xf32>
}

// -----

// Unshifted, exp(x)/sum(exp(x)) overflows for large x: the op is stable.
// CHECK-LABEL: func.func @softmax_unshifted
// CHECK-NEXT:    %[[S:.*]] = tensor.softmax %x : tensor<?xf64>
// CHECK-NEXT:    func.return %[[S]]
func.func @softmax_unshifted(%x: tensor<?xf64>) -> tensor<?xf64> {
  %e = tensor.exp %x : tensor<?xf64>
  %t = tensor.reduce %e {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf64>) -> tensor<f64>
  %tk = tensor.dimshuffle %t {pattern = array<i64: -1>} : (tensor<f64>) -> tensor<1xf64>
  %p = tensor.div %e, %tk : (tensor<?xf64>, tensor<1xf64>) -> tensor<?xf64>
  func.return %p : tensor<?xf64>
}

// -----

// Log-softmax by hand, and log of a softmax.
// CHECK-LABEL: func.func @log_softmax
// CHECK-NEXT:    %[[A:.*]] = tensor.log_softmax %x : tensor<?x?xf32>
// CHECK-NEXT:    %[[B:.*]] = tensor.log_softmax %y : tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]]
func.func @log_softmax(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %m = tensor.reduce %x {axes = array<i64: 1>, kind = "max"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %mk = tensor.dimshuffle %m {pattern = array<i64: 0, -1>} : (tensor<?xf32>) -> tensor<?x1xf32>
  %s = tensor.sub %x, %mk : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %e = tensor.exp %s : tensor<?x?xf32>
  %t = tensor.reduce %e {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %tk = tensor.dimshuffle %t {pattern = array<i64: 0, -1>} : (tensor<?xf32>) -> tensor<?x1xf32>
  %l = tensor.log %tk : tensor<?x1xf32>
  %r = tensor.sub %s, %l : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %p = tensor.softmax %y : tensor<?x?xf32>
  %lp = tensor.log %p : tensor<?x?xf32>
  func.return %r, %lp : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// The cross-entropy gradient at the logits: no division by p.
// CHECK-LABEL: func.func @xent_grad
// CHECK:         %[[P:.*]] = tensor.softmax %x
// CHECK-NEXT:    %[[T:.*]] = tensor.reduce %a {axes = array<i64: 1>, kind = "sum"}
// CHECK-NEXT:    %[[K:.*]] = tensor.dimshuffle %[[T]] {pattern = array<i64: 0, -1>}
// CHECK-NEXT:    %[[M:.*]] = tensor.mul %[[P]], %[[K]]
// CHECK-NEXT:    %[[G:.*]] = tensor.sub %a, %[[M]]
// CHECK-NEXT:    func.return %[[G]]
// CHECK-NOT:     tensor.div
func.func @xent_grad(%x: tensor<?x?xf32>, %a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %p = tensor.softmax %x : tensor<?x?xf32>
  %g = tensor.div %a, %p : tensor<?x?xf32>
  %r = tensor.softmax_grad %g, %p : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// -----

// Not a softmax: the max is over the first axis, or of another tensor.
// CHECK-LABEL: func.func @not_softmax
// CHECK-NOT:     tensor.softmax
func.func @not_softmax(%x: tensor<?x?xf32>, %z: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %m = tensor.reduce %x {axes = array<i64: 0>, kind = "max"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %mk = tensor.dimshuffle %m {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
  %s = tensor.sub %x, %mk : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %e = tensor.exp %s : tensor<?x?xf32>
  %t = tensor.reduce %e {axes = array<i64: 0>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %tk = tensor.dimshuffle %t {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
  %p = tensor.div %e, %tk : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %e2 = tensor.exp %z : tensor<?x?xf32>
  %t2 = tensor.reduce %e {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %tk2 = tensor.dimshuffle %t2 {pattern = array<i64: 0, -1>} : (tensor<?xf32>) -> tensor<?x1xf32>
  %q = tensor.div %e2, %tk2 : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  func.return %p, %q : tensor<?x?xf32>, tensor<?x?xf32>
}
