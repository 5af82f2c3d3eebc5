// RUN: irc-opt %s -p specialize --split-input-file | filecheck %s

// A product of complex matrices becomes four real gemms over the parts, the difference folded
// into one of them as its accumulator (beta = 1, alpha = -1), put back together by tensor.complex.
// CHECK-LABEL: func.func @cdot
// CHECK-DAG:     %[[AR:.*]] = tensor.real %a : (tensor<?x?xc64>) -> tensor<?x?xf32>
// CHECK-DAG:     %[[AI:.*]] = tensor.imag %a : (tensor<?x?xc64>) -> tensor<?x?xf32>
// CHECK-DAG:     %[[BR:.*]] = tensor.real %b : (tensor<?x?xc64>) -> tensor<?x?xf32>
// CHECK-DAG:     %[[BI:.*]] = tensor.imag %b : (tensor<?x?xc64>) -> tensor<?x?xf32>
// CHECK-DAG:     %[[RR:.*]] = tensor.gemm %[[AR]], %[[BR]] {alpha = 1.0, beta = 0.0}
// CHECK-DAG:     %[[RE:.*]] = tensor.gemm %[[AI]], %[[BI]], %[[RR]] {alpha = -1.0, beta = 1.0}
// CHECK-DAG:     %[[RI:.*]] = tensor.gemm %[[AR]], %[[BI]] {alpha = 1.0, beta = 0.0}
// CHECK-DAG:     %[[IM:.*]] = tensor.gemm %[[AI]], %[[BR]], %[[RI]] {alpha = 1.0, beta = 1.0}
// CHECK:         %[[C:.*]] = tensor.complex %[[RE]], %[[IM]] : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xc64>
// CHECK-NEXT:    func.return %[[C]]
func.func @cdot(%a: tensor<?x?xc64>, %b: tensor<?x?xc64>) -> tensor<?x?xc64> {
  %r = tensor.dot %a, %b : (tensor<?x?xc64>, tensor<?x?xc64>) -> tensor<?x?xc64>
  func.return %r : tensor<?x?xc64>
}

// -----

// A complex matrix-vector product stays a dot (its nest reads the matrix's rows in order).
// CHECK-LABEL: func.func @cgemv
// CHECK-NEXT:    tensor.dot %a, %x
func.func @cgemv(%a: tensor<?x?xc128>, %x: tensor<?xc128>) -> tensor<?xc128> {
  %r = tensor.dot %a, %x : (tensor<?x?xc128>, tensor<?xc128>) -> tensor<?xc128>
  func.return %r : tensor<?xc128>
}
