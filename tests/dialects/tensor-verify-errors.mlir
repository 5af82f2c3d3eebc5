// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

// CHECK: 'tensor.add' op operands have incompatible shapes tensor<2x3xf32> and tensor<4x3xf32> (dim 0: 2 vs 4)
func.func @shapes(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %0 = tensor.add %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  func.return %0 : tensor<2x3xf32>
}

// -----

// CHECK: 'tensor.mul' op mixes placements: tensor<3xf32> is on the host but tensor<3xf32, "cuda"> is on "cuda"; this needs a transfer
func.func @placement(%a: tensor<3xf32>, %b: tensor<3xf32, "cuda">) -> tensor<3xf32> {
  %0 = tensor.mul %a, %b : (tensor<3xf32>, tensor<3xf32, "cuda">) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// CHECK: 'tensor.exp' op needs float or complex operands, got i32
func.func @dtype(%a: tensor<3xi32>) -> tensor<3xi32> {
  %0 = tensor.exp %a : tensor<3xi32>
  func.return %0 : tensor<3xi32>
}

// -----

// CHECK: 'tensor.dimshuffle' op pattern [1] drops dim 0 of tensor<?x3xf32>, which is not broadcastable
func.func @dimshuffle(%a: tensor<?x3xf32>) -> tensor<3xf32> {
  %0 = tensor.dimshuffle %a {pattern = array<i64: 1>} : (tensor<?x3xf32>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

// CHECK: 'tensor.fused' op body argument #0 has type f64 but operand #0 is tensor<3xf32>
func.func @fused(%a: tensor<3xf32>) -> tensor<3xf64> {
  %0 = "tensor.fused"(%a) ({
  ^bb0(%x: f64):
    "scalar.yield"(%x) : (f64) -> ()
  }) : (tensor<3xf32>) -> tensor<3xf64>
  func.return %0 : tensor<3xf64>
}

// -----

// Every tensor op but the transfers keeps one placement, results included.
// CHECK: 'tensor.reduce' op mixes placements: tensor<?xf32, "cuda"> is on "cuda" but tensor<f32> is on the host
func.func @reduce_placement(%a: tensor<?xf32, "cuda">) -> tensor<f32> {
  %0 = tensor.reduce %a {kind = "sum", axes = array<i64: 0>} : (tensor<?xf32, "cuda">) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

// CHECK: 'tensor.to_device' op input tensor<3xf32, "cuda"> is already on a device
func.func @to_device_twice(%a: tensor<3xf32, "cuda">) -> tensor<3xf32, "cuda"> {
  %0 = tensor.to_device %a {device = "cuda"} : (tensor<3xf32, "cuda">) -> tensor<3xf32, "cuda">
  func.return %0 : tensor<3xf32, "cuda">
}
