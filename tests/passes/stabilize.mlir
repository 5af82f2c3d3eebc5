// RUN: irc-opt %s -p stabilize --split-input-file | filecheck %s

// The logistic-regression forms: sigmoid from 1/(1+exp(-z)), then log(p), log(1-p) as softplus.
// CHECK-LABEL: func.func @logistic
// CHECK-NEXT:    %[[N:.*]] = tensor.neg %z
// CHECK-NEXT:    %[[SP:.*]] = tensor.softplus %[[N]]
// CHECK-NEXT:    %[[L1:.*]] = tensor.neg %[[SP]]
// CHECK-NEXT:    %[[SP2:.*]] = tensor.softplus %z
// CHECK-NEXT:    %[[L2:.*]] = tensor.neg %[[SP2]]
// CHECK-NEXT:    tensor.add %[[L1]], %[[L2]]
func.func @logistic(%z: tensor<?xf32>) -> tensor<?xf32> {
  %one = tensor.constant {value = dense<1.0> : tensor<1xf32>} : tensor<1xf32>
  %n = tensor.neg %z : tensor<?xf32>
  %e = tensor.exp %n : tensor<?xf32>
  %u = tensor.add %one, %e : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %p = tensor.div %one, %u : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %l = tensor.log %p : tensor<?xf32>
  %q = tensor.sub %one, %p : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %l2 = tensor.log %q : tensor<?xf32>
  %s = tensor.add %l, %l2 : tensor<?xf32>
  func.return %s : tensor<?xf32>
}

// -----

// `-a - b` is rewritten to `-(a + b)` so that exp(-(a + b)) becomes a sigmoid.
// CHECK-LABEL: func.func @neg_sub
// CHECK-NEXT:    %[[S:.*]] = tensor.add %a, %b
// CHECK-NEXT:    %[[G:.*]] = tensor.sigmoid %[[S]]
// CHECK-NEXT:    func.return %[[G]]
func.func @neg_sub(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %one = tensor.constant {value = dense<1.0> : tensor<1xf32>} : tensor<1xf32>
  %n = tensor.neg %a : tensor<?xf32>
  %d = tensor.sub %n, %b : tensor<?xf32>
  %e = tensor.exp %d : tensor<?xf32>
  %u = tensor.add %e, %one : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %p = tensor.div %one, %u : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %p : tensor<?xf32>
}

// -----

// log(1+x) -> log1p, exp(x)-1 -> expm1, log(1+exp(x)) -> softplus.
// CHECK-LABEL: func.func @small
// CHECK-DAG:     tensor.log1p %x
// CHECK-DAG:     tensor.expm1 %x
// CHECK-DAG:     tensor.softplus %x
func.func @small(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %one = tensor.constant {value = dense<1.0> : tensor<4xf64>} : tensor<4xf64>
  %a = tensor.add %x, %one : tensor<4xf64>
  %l = tensor.log %a : tensor<4xf64>
  %e = tensor.exp %x : tensor<4xf64>
  %m = tensor.sub %e, %one : tensor<4xf64>
  %b = tensor.add %one, %e : tensor<4xf64>
  %sp = tensor.log %b : tensor<4xf64>
  func.return %l, %m, %sp : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
}

// -----

// A match whose type would change by broadcasting is left alone.
// CHECK-LABEL: func.func @untouched
// CHECK:         tensor.div
// CHECK-NOT:     tensor.sigmoid
func.func @untouched(%z: tensor<1xf32>) -> tensor<3xf32> {
  %one = tensor.constant {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %n = tensor.neg %z : tensor<1xf32>
  %e = tensor.exp %n : tensor<1xf32>
  %u = tensor.add %one, %e : (tensor<3xf32>, tensor<1xf32>) -> tensor<3xf32>
  %p = tensor.div %one, %u : tensor<3xf32>
  func.return %p : tensor<3xf32>
}

// -----

// The gradient reverse mode writes for p = 1/(1+exp(-z)) under log(p): g/p * p/u * exp(-z).
// After stabilize no division by a sigmoid or by 1+exp remains: it is g * sigmoid(-z).
// CHECK-LABEL: func.func @grad_of_log_sigmoid
// CHECK-NOT:     tensor.div
// CHECK-NOT:     tensor.exp
// CHECK:         tensor.sigmoid
// CHECK-NOT:     tensor.div
// CHECK:         func.return
func.func @grad_of_log_sigmoid(%z: tensor<?xf32>, %g: tensor<?xf32>) -> tensor<?xf32> {
  %one = tensor.constant {value = dense<1.0> : tensor<1xf32>} : tensor<1xf32>
  %n = tensor.neg %z : tensor<?xf32>
  %e = tensor.exp %n : tensor<?xf32>
  %u = tensor.add %one, %e : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %p = tensor.div %one, %u : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %gp = tensor.div %g, %p : tensor<?xf32>
  %t = tensor.mul %gp, %p : tensor<?xf32>
  %gu = tensor.div %t, %u : tensor<?xf32>
  %ge = tensor.mul %gu, %e : tensor<?xf32>
  func.return %ge : tensor<?xf32>
}
