// RUN: not irc-opt %s -p device-edges 2>&1 | filecheck %s

// A host op between device ops: the function cannot run on the device alone.
// CHECK: device-edges-errors.mlir:8:3: error: device-edges: function 'host_middle' cannot run on the device alone: no GPU kernel yet for tensor.reduce
func.func @host_middle(%x: tensor<?xf32, "cuda">) -> tensor<f32> {
  %0 = tensor.exp %x : tensor<?xf32, "cuda">
  %1 = tensor.to_host %0 : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  %2 = tensor.reduce %1 {kind = "sum", axes = array<i64: 0>} : (tensor<?xf32>) -> tensor<f32>
  func.return %2 : tensor<f32>
}
