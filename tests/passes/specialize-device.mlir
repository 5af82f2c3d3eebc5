// RUN: irc-opt %s -p specialize-device --split-input-file | filecheck %s

// The logistic regression's update on the device: w - lr·(Xᵀ·d + λ·w) becomes one gemv that
// accumulates into w (alpha = -lr·a, beta = 1 - lr·b·c).
// CHECK-LABEL: func.func @update
// CHECK-NEXT:    %[[G:.*]] = tensor.gemv %xt, %d, %w {alpha = -0.5, beta = 0.875}
// CHECK-NEXT:    func.return %[[G]]
func.func @update(%xt: tensor<?x?xf32, "cuda">, %d: tensor<?xf32, "cuda">, %w: tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
  %c = tensor.constant {value = dense<[0.25]> : tensor<1xf32, "cuda">} : tensor<1xf32, "cuda">
  %cw = tensor.mul %c, %w : (tensor<1xf32, "cuda">, tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda">
  %g = tensor.gemv %xt, %d, %cw {alpha = 0.5, beta = 0.5} : (tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">, tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda">
  %u = tensor.sub %w, %g : tensor<?xf32, "cuda">
  func.return %u : tensor<?xf32, "cuda">
}

// -----

// On the host the gemv is left to fuse-matvec.
// CHECK-LABEL: func.func @host_update
// CHECK:         tensor.gemv
// CHECK-NEXT:    tensor.sub
func.func @host_update(%xt: tensor<?x?xf32>, %d: tensor<?xf32>, %w: tensor<?xf32>) -> tensor<?xf32> {
  %g = tensor.gemv %xt, %d {alpha = 0.5, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %u = tensor.sub %w, %g : tensor<?xf32>
  func.return %u : tensor<?xf32>
}

// -----

// A softmax beside the log_softmax of the same rows is read from it; the log_softmax moves up to
// where the softmax was.
// CHECK-LABEL: func.func @classifier
// CHECK-NEXT:    %[[L:.*]] = tensor.log_softmax %x
// CHECK-NEXT:    %[[P:.*]] = tensor.exp %[[L]]
// CHECK-NEXT:    func.return %[[P]], %[[L]]
// CHECK-NOT:     tensor.softmax
func.func @classifier(%x: tensor<?x?xf32, "cuda">) -> (tensor<?x?xf32, "cuda">, tensor<?x?xf32, "cuda">) {
  %p = tensor.softmax %x : tensor<?x?xf32, "cuda">
  %l = tensor.log_softmax %x : tensor<?x?xf32, "cuda">
  func.return %p, %l : tensor<?x?xf32, "cuda">, tensor<?x?xf32, "cuda">
}

// -----

// A softmax alone stays.
// CHECK-LABEL: func.func @alone
// CHECK-NEXT:    tensor.softmax
func.func @alone(%x: tensor<?x?xf32, "cuda">) -> tensor<?x?xf32, "cuda"> {
  %p = tensor.softmax %x : tensor<?x?xf32, "cuda">
  func.return %p : tensor<?x?xf32, "cuda">
}
