// RUN: irc-opt %s -p lower-to-loops | filecheck %s

// A dead device buffer goes to a new temporary only where the temporary's first user already
// waits for every op that used the buffer: @independent's %b (negated %x) does not wait for the
// sum that reads %a, so it gets a buffer of its own (reusing %a would order the two kernels,
// which the GPU runs side by side); @dependent's %b reads the sum and takes %a's buffer; on the
// host (@host) the ops run in order anyway and %b takes %a's buffer.
// CHECK-LABEL: func.func @independent
// CHECK:         %a = loop.alloc
// CHECK:         %b = loop.alloc
// CHECK:         %c = loop.alloc
// CHECK-LABEL: func.func @dependent
// CHECK:         %a = loop.alloc
// CHECK-NOT:     %b = loop.alloc
// CHECK:         %c = loop.alloc
// CHECK-LABEL: func.func @host
// CHECK:         %a = loop.alloc
// CHECK-NOT:     %b = loop.alloc
// CHECK:         %c = loop.alloc
func.func @independent(%x: tensor<?xf32, "cuda">) -> (tensor<f32, "cuda">, tensor<?xf32, "cuda">) {
  %a = tensor.exp %x : tensor<?xf32, "cuda">
  %s = tensor.reduce %a {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32, "cuda">) -> tensor<f32, "cuda">
  %b = tensor.neg %x : tensor<?xf32, "cuda">
  %c = tensor.exp %b : tensor<?xf32, "cuda">
  func.return %s, %c : tensor<f32, "cuda">, tensor<?xf32, "cuda">
}
func.func @dependent(%x: tensor<?xf32, "cuda">) -> (tensor<f32, "cuda">, tensor<?xf32, "cuda">) {
  %a = tensor.exp %x : tensor<?xf32, "cuda">
  %s = tensor.reduce %a {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32, "cuda">) -> tensor<f32, "cuda">
  %t = tensor.dimshuffle %s {pattern = array<i64: -1>} : (tensor<f32, "cuda">) -> tensor<1xf32, "cuda">
  %b = tensor.mul %x, %t : (tensor<?xf32, "cuda">, tensor<1xf32, "cuda">) -> tensor<?xf32, "cuda">
  %c = tensor.exp %b : tensor<?xf32, "cuda">
  func.return %s, %c : tensor<f32, "cuda">, tensor<?xf32, "cuda">
}
func.func @host(%x: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %a = tensor.exp %x : tensor<?xf32>
  %s = tensor.reduce %a {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
  %b = tensor.neg %x : tensor<?xf32>
  %c = tensor.exp %b : tensor<?xf32>
  func.return %s, %c : tensor<f32>, tensor<?xf32>
}
