// RUN: irc-opt %s -p canonicalize | filecheck %s

// Ops on constants fold to one constant of the exact result type; x's static dim folds too.
// CHECK-LABEL: func.func @fold
// CHECK-DAG:     tensor.constant {value = dense<[3.0, 5.0]> : tensor<2xf32>} : tensor<2xf32>
// CHECK-DAG:     tensor.constant {value = dense<3> : tensor<i64>} : tensor<i64>
// CHECK-NOT:     tensor.add
// CHECK-NOT:     tensor.dim
func.func @fold(%x: tensor<?x3xf32>) -> (tensor<2xf32>, tensor<i64>) {
  %a = tensor.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %b = tensor.constant {value = dense<[2.0, 3.0]> : tensor<2xf32>} : tensor<2xf32>
  %c = tensor.add %a, %b : tensor<2xf32>
  %n = tensor.dim %x {axis = 1} : (tensor<?x3xf32>) -> tensor<i64>
  func.return %c, %n : tensor<2xf32>, tensor<i64>
}
