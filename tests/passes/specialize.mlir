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
