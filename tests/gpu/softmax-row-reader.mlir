// RUN: irc-opt %s -p lower-to-loops,outline-kernels | filecheck %s

// A cross-entropy's row sums Σ y·log p read the log_softmax: the softmax's warp per row runs
// them too (`softmax_row_reader.py`): its kernel has three butterflies of five shuffles (the
// max, the sum of exponentials, then the reader's sums of y·log p, computed as log p is stored).
// CHECK-LABEL: gpu.func @fused_kernel0(
// CHECK-COUNT-10: gpu.shuffle_xor
// CHECK:         scalar.mul
// CHECK-COUNT-5: gpu.shuffle_xor
// CHECK-LABEL: gpu.func @fused_kernel1(
func.func @fused(%x: tensor<?x?xf32, "cuda">, %y: tensor<?x?xf32, "cuda">) -> (tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">) {
  %p = tensor.log_softmax %x : tensor<?x?xf32, "cuda">
  %r:2 = tensor.fused_reduce(%arg0 = %y, %arg1 = %p) {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32, "cuda">, tensor<?x?xf32, "cuda">) -> (tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">) {
    %0 = scalar.mul %arg0, %arg1 : f32
    scalar.yield %0, %0 : f32, f32
  }
  func.return %r#0, %r#1 : tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">
}

// The reader writes over %t, which an op between the two reads: fused, that write would come
// before the read. The softmax's kernel (kernel1; kernel0 makes %t) keeps its two butterflies;
// the reader runs after %s.
// CHECK-LABEL: gpu.func @overwritten_kernel0(
// CHECK-LABEL: gpu.func @overwritten_kernel1(
// CHECK-COUNT-10: gpu.shuffle_xor
// CHECK-NOT:     gpu.shuffle_xor
// CHECK-LABEL: gpu.func @overwritten_kernel2(

func.func @overwritten(%x: tensor<?x?xf32, "cuda">, %y: tensor<?x?xf32, "cuda">) -> (tensor<?xf32, "cuda">, tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">) {
  %t = tensor.mul %y, %y : tensor<?x?xf32, "cuda">
  %p = tensor.log_softmax %x : tensor<?x?xf32, "cuda">
  %s = tensor.reduce %t {kind = "max", axes = array<i64: 1>} : (tensor<?x?xf32, "cuda">) -> tensor<?xf32, "cuda">
  %r:2 = tensor.fused_reduce(%arg0 = %t, %arg1 = %p) {axes = array<i64: 1>, inplace = array<i64: 0, -1>, kind = "sum"} : (tensor<?x?xf32, "cuda">, tensor<?x?xf32, "cuda">) -> (tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">) {
    %0 = scalar.mul %arg0, %arg1 : f32
    scalar.yield %0, %0 : f32, f32
  }
  func.return %s, %r#0, %r#1 : tensor<?xf32, "cuda">, tensor<?x?xf32, "cuda">, tensor<?xf32, "cuda">
}
