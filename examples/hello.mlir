// A logistic-regression prediction, p = 1 / (1 + exp(-(x . w + b))), written naively,
// as the frontend first emits it: constants that fold, a multiply by one, a dead op.
//
//   irc-opt examples/hello.mlir -p canonicalize --print-ir-after-all
//   irc-opt examples/hello.mlir -p canonicalize,stabilize,specialize --print-ir-after-change
func.func @predict(%x: tensor<?x?xf32>, %w: tensor<?xf32> {irc.shared = "w"},
                   %b: tensor<f32> {irc.shared = "b"}) -> tensor<?xf32> {
  %one = tensor.constant {value = dense<1.0> : tensor<1xf32>} : tensor<1xf32>
  %half = tensor.constant {value = dense<0.5> : tensor<1xf32>} : tensor<1xf32>
  %scale = tensor.add %half, %half : tensor<1xf32>
  %z = tensor.dot %x, %w : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %bb = tensor.dimshuffle %b {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %zb = tensor.add %z, %bb : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %zs = tensor.mul %zb, %scale : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %unused = tensor.exp %zs : tensor<?xf32>
  %n = tensor.neg %zs : tensor<?xf32>
  %e = tensor.exp %n : tensor<?xf32>
  %d = tensor.add %one, %e : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %p = tensor.div %one, %d : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %p : tensor<?xf32>
}
