// RUN: irc-opt %s -p "stabilize,specialize,canonicalize,insert-transfers{device=cuda},device-edges,specialize-device,fuse-elementwise,inplace" --emit-stage=gpu | filecheck %s --check-prefix=GPU
// RUN: irc-opt %s -p "stabilize,specialize,canonicalize,insert-transfers{device=cuda},device-edges,specialize-device,fuse-elementwise,inplace" -t ptx | filecheck %s --check-prefix=PTX

// tools/bench_dense.py's MLP step (256×784 → 512 tanh → 10 softmax, cross-entropy, SGD; as
// `dump_ir` wrote it after the first canonicalize) compiles for the GPU whole: five cuBLAS calls
// (the forward products, δ·W2ᵀ, and the two weight updates accumulating into W1 and W2).
// GPU-LABEL: func.func @mlp_step(
// GPU-COUNT-5: gpu.gemm
// GPU:         func.return
// PTX:       .target sm_90
// PTX:       .visible .entry mlp_step_kernel0(

module {
  func.func @mlp_step(%X: tensor<?x?xf32>, %Y: tensor<?x?xf32>, %W1: tensor<?x?xf32> {irc.shared = "W1"}, %b1: tensor<?xf32> {irc.shared = "b1"}, %W2: tensor<?x?xf32> {irc.shared = "W2"}, %b2: tensor<?xf32> {irc.shared = "b2"}) -> (tensor<f32>, tensor<?x?xf32> {irc.update = 2}, tensor<?xf32> {irc.update = 3}, tensor<?x?xf32> {irc.update = 4}, tensor<?xf32> {irc.update = 5}) {
    %0 = tensor.dot %X, %W1 : tensor<?x?xf32>
    %1 = tensor.dimshuffle %b1 {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
    %2 = tensor.add %0, %1 : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
    %3 = tensor.tanh %2 : tensor<?x?xf32>
    %4 = tensor.dot %3, %W2 : tensor<?x?xf32>
    %5 = tensor.dimshuffle %b2 {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
    %6 = tensor.add %4, %5 : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
    %7 = tensor.softmax %6 : tensor<?x?xf32>
    %8 = tensor.log %7 : tensor<?x?xf32>
    %9 = tensor.mul %Y, %8 : tensor<?x?xf32>
    %10 = tensor.reduce %9 {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
    %11 = tensor.neg %10 : tensor<?xf32>
    %12 = tensor.reduce %11 {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
    %13 = tensor.dim %10 {axis = 0} : (tensor<?xf32>) -> tensor<i64>
    %14 = tensor.cast %13 {to = f32} : (tensor<i64>) -> tensor<f32>
    %15 = tensor.div %12, %14 : tensor<f32>
    %16 = tensor.constant {value = dense<[[0.009999999776482582]]> : tensor<1x1xf32>} : tensor<1x1xf32>
    %17 = tensor.dimshuffle %X {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
    %18 = tensor.constant {value = dense<1.0> : tensor<f32>} : tensor<f32>
    %19 = tensor.div %18, %14 : tensor<f32>
    %20 = tensor.dimshuffle %19 {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
    %21 = tensor.broadcast %20, %11 : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
    %22 = tensor.neg %21 : tensor<?xf32>
    %23 = tensor.dimshuffle %22 {pattern = array<i64: 0, -1>} : (tensor<?xf32>) -> tensor<?x1xf32>
    %24 = tensor.broadcast %23, %9 : (tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %25 = tensor.mul %24, %Y : tensor<?x?xf32>
    %26 = tensor.div %25, %7 : tensor<?x?xf32>
    %27 = tensor.softmax_grad %26, %7 : tensor<?x?xf32>
    %28 = tensor.dimshuffle %W2 {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
    %29 = tensor.dot %27, %28 : tensor<?x?xf32>
    %30 = tensor.constant {value = dense<[[1.0]]> : tensor<1x1xf32>} : tensor<1x1xf32>
    %31 = tensor.square %3 : tensor<?x?xf32>
    %32 = tensor.sub %30, %31 : (tensor<1x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %33 = tensor.mul %29, %32 : tensor<?x?xf32>
    %34 = tensor.dot %17, %33 : tensor<?x?xf32>
    %35 = tensor.mul %16, %34 : (tensor<1x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %36 = tensor.sub %W1, %35 : tensor<?x?xf32>
    %37 = tensor.constant {value = dense<[0.009999999776482582]> : tensor<1xf32>} : tensor<1xf32>
    %38 = tensor.reduce %33 {axes = array<i64: 0>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
    %39 = tensor.mul %37, %38 : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
    %40 = tensor.sub %b1, %39 : tensor<?xf32>
    %41 = tensor.dimshuffle %3 {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
    %42 = tensor.dot %41, %27 : tensor<?x?xf32>
    %43 = tensor.mul %16, %42 : (tensor<1x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
    %44 = tensor.sub %W2, %43 : tensor<?x?xf32>
    %45 = tensor.reduce %27 {axes = array<i64: 0>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
    %46 = tensor.mul %37, %45 : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
    %47 = tensor.sub %b2, %46 : tensor<?xf32>
    func.return %15, %36, %40, %44, %47 : tensor<f32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xf32>, tensor<?xf32>
  }
}
