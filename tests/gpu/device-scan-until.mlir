// RUN: irc-opt %s -p lower-to-loops,outline-kernels | filecheck %s

// A scan with `until` on the device: the host loop carries `going` and the steps run; each
// step launches its kernels, then the host reads the step's condition back (`gpu.read_flag`:
// one small copy and a synchronization) and decides whether to go on. The result is the rows
// run, copied into a buffer of that many rows (its size is a host value once the loop is done).
// CHECK-LABEL: func.func @doubling
// CHECK:       %[[OUT:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf32, "cuda">
// CHECK:       %[[R:.*]]:2 = loop.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[GO:.*]] = %{{.*}}, %[[N:.*]] = %{{.*}}) -> (i1, index) {
// CHECK:         "loop.if"(%[[GO]])
// CHECK:           gpu.launch @doubling_kernel{{[0-9]+}}({{.*}}%[[OUT]], %[[T]]
// CHECK:           %[[STOP:.*]] = gpu.read_flag %{{.*}} : (memref<i1, "cuda">) -> i1
// CHECK-NEXT:      %[[NOT:.*]] = scalar.logical_not %[[STOP]] : i1
// CHECK:           loop.yield %[[NOT]], %{{.*}} : i1, index
// CHECK:       } {irc.while = 0}
// CHECK:       %[[ROWS:.*]] = loop.alloc %[[R]]#1 : (index) -> memref<?xf32, "cuda">
// CHECK:       gpu.launch @doubling_kernel{{[0-9]+}}({{.*}}%[[OUT]], %[[ROWS]])
// CHECK:       func.return %[[ROWS]]
func.func @doubling(%x: tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
  %n = tensor.constant {value = dense<-1> : tensor<i64, "cuda">} : tensor<i64, "cuda">
  %r = "tensor.scan"(%n, %x) ({
  ^bb0(%x_t: tensor<f32, "cuda">):
    %two = tensor.constant {value = dense<2.0> : tensor<f32, "cuda">} : tensor<f32, "cuda">
    %y = tensor.mul %x_t, %two : tensor<f32, "cuda">
    %three = tensor.constant {value = dense<3.0> : tensor<f32, "cuda">} : tensor<f32, "cuda">
    %c = tensor.gt %x_t, %three : (tensor<f32, "cuda">, tensor<f32, "cuda">) -> tensor<i1, "cuda">
    tensor.scan_yield %y, %c : tensor<f32, "cuda">, tensor<i1, "cuda">
  }) {sequences = 1, taps = [array<i64>], until} : (tensor<i64, "cuda">, tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda">
  func.return %r : tensor<?xf32, "cuda">
}
