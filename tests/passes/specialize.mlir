// RUN: irc-opt %s -p specialize --split-input-file | filecheck %s

// CHECK-LABEL: func.func @gemv
// CHECK-NEXT:    %[[G:.*]] = tensor.gemv %A, %x {alpha = 1.0, beta = 0.0}
// CHECK-NEXT:    func.return %[[G]]
func.func @gemv(%A: tensor<?x?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %d = tensor.dot %A, %x : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %d : tensor<?xf32>
}

// -----

// A vector times a matrix is a gemv on the transposed matrix; scaling folds into alpha,
// an added vector into beta.
// CHECK-LABEL: func.func @vecmat
// CHECK-NEXT:    %[[T:.*]] = tensor.transpose %B {permutation = array<i64: 1, 0>}
// CHECK-NEXT:    %[[G:.*]] = tensor.gemv %[[T]], %x, %y {alpha = 0.5, beta = 1.0}
// CHECK-NEXT:    func.return %[[G]]
func.func @vecmat(%x: tensor<3xf32>, %B: tensor<3x4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %half = tensor.constant {value = dense<0.5> : tensor<4xf32>} : tensor<4xf32>
  %d = tensor.dot %x, %B : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  %s = tensor.mul %half, %d : tensor<4xf32>
  %r = tensor.add %y, %s : tensor<4xf32>
  func.return %r : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @gemm_and_pow
// CHECK:         tensor.gemm %a, %b {alpha = 1.0, beta = 0.0}
// CHECK:         tensor.mul %a, %a
// CHECK-NOT:     tensor.pow
func.func @gemm_and_pow(%a: tensor<2x2xf64>, %b: tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %two = tensor.constant {value = dense<2.0> : tensor<2x2xf64>} : tensor<2x2xf64>
  %d = tensor.dot %a, %b : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  %p = tensor.pow %a, %two : tensor<2x2xf64>
  func.return %d, %p : tensor<2x2xf64>, tensor<2x2xf64>
}

// -----

// A dot of two vectors stays a dot.
// CHECK-LABEL: func.func @vecvec
// CHECK:         tensor.dot
func.func @vecvec(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {
  %d = tensor.dot %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  func.return %d : tensor<f32>
}

// -----

// An SGD update folds into the gradient's gemm: W - lr·(Xᵀ·δ) accumulates into W.
// CHECK-LABEL: func.func @sgd_update
// CHECK-NEXT:    %[[T:.*]] = tensor.transpose %X
// CHECK-NEXT:    %[[G:.*]] = tensor.gemm %[[T]], %d, %W {alpha = -0.25, beta = 1.0}
// CHECK-NEXT:    func.return %[[G]]
func.func @sgd_update(%X: tensor<?x?xf32>, %d: tensor<?x?xf32>, %W: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %lr = tensor.constant {value = dense<0.25> : tensor<1x1xf32>} : tensor<1x1xf32>
  %t = tensor.transpose %X {permutation = array<i64: 1, 0>} : tensor<?x?xf32>
  %g = tensor.dot %t, %d : tensor<?x?xf32>
  %s = tensor.mul %lr, %g : (tensor<1x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = tensor.sub %W, %s : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// -----

// With weight decay, W - lr·(Xᵀ·δ + λ·W): alpha = -lr, beta = 1 - lr·λ.
// CHECK-LABEL: func.func @sgd_weight_decay
// CHECK-NEXT:    %[[G:.*]] = tensor.gemm %X, %d, %W {alpha = -0.5, beta = 0.875}
// CHECK-NEXT:    func.return %[[G]]
func.func @sgd_weight_decay(%X: tensor<?x?xf64>, %d: tensor<?x?xf64>, %W: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %lr = tensor.constant {value = dense<0.5> : tensor<1x1xf64>} : tensor<1x1xf64>
  %lam = tensor.constant {value = dense<0.25> : tensor<1x1xf64>} : tensor<1x1xf64>
  %g = tensor.dot %X, %d : tensor<?x?xf64>
  %decay = tensor.mul %lam, %W : (tensor<1x1xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  %sum = tensor.add %g, %decay : tensor<?x?xf64>
  %s = tensor.mul %lr, %sum : (tensor<1x1xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  %r = tensor.sub %W, %s : tensor<?x?xf64>
  func.return %r : tensor<?x?xf64>
}

// -----

// The gradient is read twice: it stays a separate product, and the subtraction stays.
// CHECK-LABEL: func.func @gradient_kept
// CHECK:         %[[G:.*]] = tensor.gemm %X, %d {alpha = 1.0, beta = 0.0}
// CHECK:         tensor.sub %W, %[[G]]
func.func @gradient_kept(%X: tensor<?x?xf32>, %d: tensor<?x?xf32>, %W: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %g = tensor.dot %X, %d : tensor<?x?xf32>
  %r = tensor.sub %W, %g : tensor<?x?xf32>
  func.return %r, %g : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A dense layer tanh(x·W + b): the bias row is the gemm's accumulator (broadcast over the
// rows), tanh its epilogue.
// CHECK-LABEL: func.func @dense_layer
// CHECK-NEXT:    %[[B:.*]] = tensor.dimshuffle %b
// CHECK-NEXT:    %[[G:.*]] = tensor.gemm %x, %W, %[[B]] {alpha = 1.0, beta = 1.0, epilogue = "tanh"} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    func.return %[[G]]
func.func @dense_layer(%x: tensor<?x?xf32>, %W: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %d = tensor.dot %x, %W : tensor<?x?xf32>
  %r = tensor.dimshuffle %b {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
  %s = tensor.add %d, %r : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %h = tensor.tanh %s : tensor<?x?xf32>
  func.return %h : tensor<?x?xf32>
}

// -----

// After an epilogue nothing more folds in (2·tanh(p) is not tanh(2·p)); a product read twice
// takes no epilogue; a column broadcast along the rows is an accumulator too.
// CHECK-LABEL: func.func @epilogue_limits
// CHECK:         %[[G:.*]] = tensor.gemm %x, %W {alpha = 1.0, beta = 0.0, epilogue = "sigmoid"}
// CHECK-NEXT:    tensor.mul %{{.*}}, %[[G]]
// CHECK:         %[[P:.*]] = tensor.gemm %x, %W {alpha = 1.0, beta = 0.0} : tensor<?x?xf32>
// CHECK-NEXT:    tensor.exp %[[P]]
// CHECK:         tensor.gemm %x, %W, %c {alpha = 1.0, beta = 1.0} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
func.func @epilogue_limits(%x: tensor<?x?xf32>, %W: tensor<?x?xf32>, %c: tensor<?x1xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %two = tensor.constant {value = dense<2.0> : tensor<1x1xf32>} : tensor<1x1xf32>
  %d = tensor.dot %x, %W : tensor<?x?xf32>
  %s = tensor.sigmoid %d : tensor<?x?xf32>
  %m = tensor.mul %two, %s : (tensor<1x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %p = tensor.dot %x, %W : tensor<?x?xf32>
  %e = tensor.exp %p : tensor<?x?xf32>
  %q = tensor.dot %x, %W : tensor<?x?xf32>
  %a = tensor.add %q, %c : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  func.return %m, %e, %p, %a : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
