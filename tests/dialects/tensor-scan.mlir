// RUN: irc-opt %s | irc-opt | filecheck %s
// RUN: irc-opt %s --mlir-print-op-generic | irc-opt | filecheck %s
// RUN: irc-opt %s -p canonicalize,fuse-elementwise | filecheck %s --check-prefix=OPT

// A scan: one sequence, a state read at t-2 and t-1, a per-step output, a non-sequence.
// CHECK-LABEL: func.func @rnn
// CHECK:       %ys:2 = "tensor.scan"(%n, %xs, %h0, %w) ({
// CHECK-NEXT:  ^bb0(%x: tensor<?xf32>, %h2: tensor<?xf32>, %h1: tensor<?xf32>, %wi: tensor<?x?xf32>):
// CHECK:         tensor.scan_yield %h, %s : tensor<?xf32>, tensor<f32>
// CHECK-NEXT:  }) {sequences = 1, taps = [array<i64: -2, -1>, array<i64>]} : (tensor<i64>, tensor<?x?xf32>, tensor<2x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>)
// The body is optimized like a function body: its elementwise ops and reduction fuse.
// OPT-LABEL:   func.func @rnn
// OPT:         "tensor.scan"
// OPT:         tensor.dot
// OPT-NEXT:    tensor.fused_reduce
// OPT:         scalar.tanh
// OPT:         tensor.scan_yield %0#0, %0#1
func.func @rnn(%n: tensor<i64>, %xs: tensor<?x?xf32>, %h0: tensor<2x?xf32>, %w: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %ys:2 = "tensor.scan"(%n, %xs, %h0, %w) ({
  ^bb0(%x: tensor<?xf32>, %h2: tensor<?xf32>, %h1: tensor<?xf32>, %wi: tensor<?x?xf32>):
    %d = tensor.dot %h1, %wi : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?xf32>
    %a = tensor.add %d, %x : tensor<?xf32>
    %b = tensor.add %a, %h2 : tensor<?xf32>
    %h = tensor.tanh %b : tensor<?xf32>
    %s = tensor.reduce %h {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
    tensor.scan_yield %h, %s : tensor<?xf32>, tensor<f32>
  }) {sequences = 1 : i64, taps = [array<i64: -2, -1>, array<i64>]} : (tensor<i64>, tensor<?x?xf32>, tensor<2x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>)
  func.return %ys#0, %ys#1 : tensor<?x?xf32>, tensor<?xf32>
}
