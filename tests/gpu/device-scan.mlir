// RUN: irc-opt %s -p lower-to-loops,outline-kernels | filecheck %s

// A scan on the device: the host function runs the loop over the steps and launches the
// step's kernel from inside it, with the step's rows as views made on the host (the kernel
// gets the buffer and the step index); the step writes its row of the result directly (no
// copy kernel after it: the tanh reads the sum and stores into row t).
// CHECK-LABEL: gpu.func @cumulative_kernel0
// CHECK-LABEL: func.func @cumulative
// CHECK:       %[[OUT:.*]] = loop.alloc %{{.*}}, %{{.*}} : (index, index) -> memref<?x?xf32, "cuda">
// CHECK:       loop.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT:     loop.parallel
// CHECK:         gpu.launch @cumulative_kernel{{[0-9]+}}({{.*}}%[[OUT]], %[[T]]
// CHECK-NEXT:    loop.yield
// CHECK:       loop.for %[[T2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:         gpu.launch @cumulative_kernel{{[0-9]+}}({{.*}}%[[OUT]], %[[T2]]
// CHECK-NEXT:    loop.yield
// CHECK:       func.return %[[OUT]]
func.func @cumulative(%n: tensor<i64, "cuda">, %xs: tensor<?x?xf32, "cuda">, %h0: tensor<1x?xf32, "cuda">) -> tensor<?x?xf32, "cuda"> {
  %r = "tensor.scan"(%n, %xs, %h0) ({
  ^bb0(%x: tensor<?xf32, "cuda">, %h: tensor<?xf32, "cuda">):
    %s = tensor.add %x, %h : tensor<?xf32, "cuda">
    %t = tensor.tanh %s : tensor<?xf32, "cuda">
    tensor.scan_yield %t : tensor<?xf32, "cuda">
  }) {sequences = 1 : i64, taps = [array<i64: -1>]} : (tensor<i64, "cuda">, tensor<?x?xf32, "cuda">, tensor<1x?xf32, "cuda">) -> tensor<?x?xf32, "cuda">
  func.return %r : tensor<?x?xf32, "cuda">
}
