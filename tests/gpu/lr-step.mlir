// RUN: irc-opt %s -p "insert-transfers{device=cuda},device-edges,specialize-device,fuse-elementwise,inplace" --emit-stage=gpu | filecheck %s --check-prefix=GPU
// RUN: irc-opt %s -p "insert-transfers{device=cuda},device-edges,specialize-device,fuse-elementwise,inplace" -t ptx | filecheck %s --check-prefix=PTX

// The tutorial's logistic-regression step (examples/logistic_regression.py, as `dump_ir` wrote it
// after canonicalize) compiles for the GPU whole: x·w is a device reduction of the products
// along x's rows (no cuBLAS call), the gradient's product a cuBLAS call accumulating into w (the
// SGD update folded in); everything else is kernels.
// GPU-LABEL: func.func @train(
// GPU-NOT:     gpu.gemm %x, %w
// GPU:         gpu.launch @train_kernel0({{.*}}%x, %w
// GPU:         gpu.gemm {{.*}}, %w {alpha = -0.{{[0-9]+}}, beta = 0.9998
// GPU:         func.return
// PTX:       .target sm_90
// PTX:       .visible .entry train_kernel0(

module {
  func.func @train(%x: tensor<?x?xf32>, %y: tensor<?xf32>, %w: tensor<?xf32> {irc.shared = "w"}, %b: tensor<f32> {irc.shared = "b"}) -> (tensor<?xi1>, tensor<?xf32>, tensor<?xf32> {irc.update = 2}, tensor<f32> {irc.update = 3}) {
    %0 = tensor.constant {value = dense<[1.0]> : tensor<1xf32>} : tensor<1xf32>
    %1 = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %2 = tensor.dimshuffle %b {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
    %3 = tensor.add %1, %2 : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
    %4 = tensor.sigmoid %3 : tensor<?xf32>
    %5 = tensor.constant {value = dense<[0.5]> : tensor<1xf32>} : tensor<1xf32>
    %6 = tensor.gt %4, %5 : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xi1>
    %7 = tensor.neg %y : tensor<?xf32>
    %8 = tensor.neg %3 : tensor<?xf32>
    %9 = tensor.softplus %8 : tensor<?xf32>
    %10 = tensor.neg %9 : tensor<?xf32>
    %11 = tensor.mul %7, %10 : tensor<?xf32>
    %12 = tensor.sub %0, %y : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
    %13 = tensor.sigmoid %8 : tensor<?xf32>
    %14 = tensor.softplus %3 : tensor<?xf32>
    %15 = tensor.neg %14 : tensor<?xf32>
    %16 = tensor.mul %12, %15 : tensor<?xf32>
    %17 = tensor.sub %11, %16 : tensor<?xf32>
    %18 = tensor.constant {value = dense<[0.009999999776482582]> : tensor<1xf32>} : tensor<1xf32>
    %19 = tensor.constant {value = dense<1.0> : tensor<f32>} : tensor<f32>
    %20 = tensor.constant {value = dense<[2.0]> : tensor<1xf32>} : tensor<1xf32>
    %21 = tensor.mul %w, %w : tensor<?xf32>
    %22 = tensor.broadcast %18, %21 : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
    %23 = tensor.mul %20, %w : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
    %24 = tensor.mul %22, %23 : tensor<?xf32>
    %25 = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
    %26 = tensor.dim %y {axis = 0} : (tensor<?xf32>) -> tensor<i64>
    %27 = tensor.cast %26 {to = f32} : (tensor<i64>) -> tensor<f32>
    %28 = tensor.div %19, %27 : tensor<f32>
    %29 = tensor.dimshuffle %28 {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
    %30 = tensor.broadcast %29, %17 : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
    %31 = tensor.mul %4, %30 : tensor<?xf32>
    %32 = tensor.mul %31, %12 : tensor<?xf32>
    %33 = tensor.mul %13, %30 : tensor<?xf32>
    %34 = tensor.mul %33, %y : tensor<?xf32>
    %35 = tensor.neg %34 : tensor<?xf32>
    %36 = tensor.add %32, %35 : tensor<?xf32>
    %37 = tensor.gemv %25, %36, %24 {alpha = 0.009999999776482582, beta = 0.009999999776482582} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    %38 = tensor.sub %w, %37 : tensor<?xf32>
    %39 = tensor.constant {value = dense<0.009999999776482582> : tensor<f32>} : tensor<f32>
    %40 = tensor.reduce %36 {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
    %41 = tensor.mul %39, %40 : tensor<f32>
    %42 = tensor.sub %b, %41 : tensor<f32>
    func.return %6, %17, %38, %42 : tensor<?xi1>, tensor<?xf32>, tensor<?xf32>, tensor<f32>
  }
}
