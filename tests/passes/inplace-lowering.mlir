// RUN: irc-opt %s -p inplace,lower-to-loops | filecheck %s
// RUN: irc-opt %s -p lower-to-loops | filecheck %s --check-prefix=OFF
// RUN: irc-opt %s -p 'inplace,lower-to-loops{allow-gc=false}' | filecheck %s --check-prefix=NOGC

// The marked op writes into its operand's buffer (one temporary, no second alloc); the update
// says which argument's storage the caller may pass as its buffer; the peak is known.
// CHECK-LABEL: func.func @step
// CHECK-SAME:    {irc.inplace = 1, irc.update = 1}
// CHECK-SAME:    irc.peak_bytes = "4*w.shape[0] + 4*x.shape[0]"
// CHECK-COUNT-2: loop.alloc
// CHECK-NOT:     loop.alloc
// OFF-LABEL: func.func @step
// OFF-NOT:     irc.inplace
// OFF-COUNT-3: loop.alloc
func.func @step(%x: tensor<?xf32>, %w: tensor<?xf32> {irc.shared = "w"})
    -> (tensor<?xf32>, tensor<?xf32> {irc.update = 1 : i64}) {
  %e = tensor.exp %x : tensor<?xf32>
  %t = tensor.tanh %e : tensor<?xf32>
  %n = tensor.sub %w, %x : tensor<?xf32>
  func.return %t, %n : tensor<?xf32>, tensor<?xf32>
}

// allow_gc=False: the temporary lives in the function's workspace (never freed per call).
// CHECK-LABEL: func.func @temp
// CHECK:         loop.dealloc
// NOGC-LABEL: func.func @temp
// NOGC:        loop.alloc %{{.*}} {irc.workspace = 0}
// NOGC-NOT:    loop.dealloc
func.func @temp(%x: tensor<?xf32>) -> tensor<f32> {
  %e = tensor.exp %x : tensor<?xf32>
  %t = tensor.tanh %e : tensor<?xf32>
  %s = tensor.reduce %t {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
  func.return %s : tensor<f32>
}
