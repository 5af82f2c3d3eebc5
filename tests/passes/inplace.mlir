// RUN: irc-opt %s -p inplace --split-input-file | filecheck %s

// A temporary nothing reads afterwards is overwritten; a user's input never is.
// CHECK-LABEL: func.func @temporary
// CHECK:         %[[E:.*]] = tensor.exp %x : tensor<?xf32>
// CHECK-NEXT:    %{{.*}} = tensor.neg %[[E]] {inplace = array<i64: 0>}
func.func @temporary(%x: tensor<?xf32>) -> tensor<?xf32> {
  %e = tensor.exp %x : tensor<?xf32>
  %n = tensor.neg %e : tensor<?xf32>
  func.return %n : tensor<?xf32>
}

// -----

// Read again later (%e by %b), or returned to the user (%b): not overwritten; %b may take
// over %e's buffer, as %b is %e's last reader.
// CHECK-LABEL: func.func @still_live
// CHECK:         %a = tensor.neg %e : tensor<?xf32>
// CHECK-NEXT:    %b = tensor.add %e, %a {inplace = array<i64: 0>}
// CHECK-NEXT:    %c = tensor.tanh %b : tensor<?xf32>
func.func @still_live(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.exp %x : tensor<?xf32>
  %a = tensor.neg %e : tensor<?xf32>
  %b = tensor.add %e, %a : tensor<?xf32>
  %c = tensor.tanh %b : tensor<?xf32>
  func.return %b, %c : tensor<?xf32>, tensor<?xf32>
}

// -----

// A broadcast operand (another shape) or one of another dtype is not a candidate.
// CHECK-LABEL: func.func @shape_and_dtype
// CHECK-NOT:     inplace
func.func @shape_and_dtype(%x: tensor<?x?xf32>, %v: tensor<1x?xf32>) -> tensor<?x?xf64> {
  %e = tensor.exp %v : tensor<1x?xf32>
  %a = tensor.add %x, %e : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %c = tensor.cast %a {to = f64} : (tensor<?x?xf32>) -> tensor<?x?xf64>
  func.return %c : tensor<?x?xf64>
}

// -----

// A view of the buffer is read by the same op at other indices: not overwritten.
// CHECK-LABEL: func.func @view_alias
// CHECK-NOT:     inplace
func.func @view_alias(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %e = tensor.exp %x : tensor<?x?xf32>
  %t = tensor.transpose %e {permutation = array<i64: 1, 0>} : tensor<?x?xf32>
  %a = tensor.add %e, %t : tensor<?x?xf32>
  func.return %a : tensor<?x?xf32>
}

// -----

// A shared variable's update is done over its storage when nothing reads the old value
// afterwards; the user's input %x is never overwritten.
// CHECK-LABEL: func.func @update
// CHECK:         tensor.sub %w, %g {inplace = array<i64: 0>}
func.func @update(%x: tensor<?xf32>, %w: tensor<?xf32> {irc.shared = "w"})
    -> (tensor<?xf32>, tensor<?xf32> {irc.update = 1 : i64}) {
  %g = tensor.mul %x, %w : tensor<?xf32>
  %n = tensor.sub %w, %g : tensor<?xf32>
  %y = tensor.exp %x : tensor<?xf32>
  func.return %y, %n : tensor<?xf32>, tensor<?xf32>
}

// -----

// The old value is read after the update (%late): the update gets a fresh buffer.
// CHECK-LABEL: func.func @update_read_later
// CHECK-NOT:     inplace
func.func @update_read_later(%x: tensor<?xf32>, %w: tensor<?xf32> {irc.shared = "w"})
    -> (tensor<?xf32>, tensor<?xf32> {irc.update = 1 : i64}) {
  %n = tensor.sub %w, %x : tensor<?xf32>
  %late = tensor.mul %x, %w : tensor<?xf32>
  func.return %late, %n : tensor<?xf32>, tensor<?xf32>
}

// -----

// The update is also returned to the user (no borrow): it must not be the shared storage.
// CHECK-LABEL: func.func @update_also_output
// CHECK-NOT:     inplace
func.func @update_also_output(%x: tensor<?xf32>, %w: tensor<?xf32> {irc.shared = "w"})
    -> (tensor<?xf32>, tensor<?xf32> {irc.update = 1 : i64}) {
  %n = tensor.sub %w, %x : tensor<?xf32>
  func.return %n, %n : tensor<?xf32>, tensor<?xf32>
}

// -----

// A fused reduction's elementwise result may take over a dead temporary; its reduced result
// never (another shape).
// CHECK-LABEL: func.func @fused_reduce_result
// CHECK:         tensor.fused_reduce(%{{.*}} = %t) {axes = array<i64: 0>, inplace = array<i64: 0, -1>, kind = "sum"}
func.func @fused_reduce_result(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %t = tensor.exp %x : tensor<?xf32>
  %0:2 = tensor.fused_reduce(%a = %t) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
    %n = scalar.neg %a : f32
    scalar.yield %n, %n : f32, f32
  }
  func.return %0#0, %0#1 : tensor<?xf32>, tensor<f32>
}

// -----

// Both operands are dead, and one is the shared variable this result updates: that one is
// overwritten (the update is then done in place, with no copy back).
// CHECK-LABEL: func.func @prefer_the_update
// CHECK:         tensor.fused(%{{.*}} = %s, %{{.*}} = %b) {inplace = array<i64: 1>}
func.func @prefer_the_update(%x: tensor<?xf32>, %b: tensor<f32> {irc.shared = "b"}) -> (tensor<f32> {irc.update = 1}) {
  %s = tensor.reduce %x {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
  %u = tensor.fused(%p = %s, %q = %b) : (tensor<f32>, tensor<f32>) -> tensor<f32> {
    %v = scalar.sub %q, %p : f32
    scalar.yield %v : f32
  }
  func.return %u : tensor<f32>
}

// -----

// A folded SGD update (gemm accumulating into W) writes over W's storage: only the
// accumulator C is a candidate, never A or B (a gemm reads those at other indices).
// CHECK-LABEL: func.func @gemm_update
// CHECK:         tensor.gemm %x, %d, %w {alpha = -0.1, beta = 1.0, inplace = array<i64: 2>}
// CHECK:         tensor.gemm %e, %e2 {alpha = 1.0, beta = 0.0} : tensor<?x?xf32>
func.func @gemm_update(%x: tensor<?x?xf32>, %d: tensor<?x?xf32>, %w: tensor<?x?xf32> {irc.shared = "w"})
    -> (tensor<?x?xf32>, tensor<?x?xf32> {irc.update = 2 : i64}) {
  %g = tensor.gemm %x, %d, %w {alpha = -0.1, beta = 1.0} : tensor<?x?xf32>
  %e = tensor.exp %x : tensor<?x?xf32>
  %e2 = tensor.exp %d : tensor<?x?xf32>
  %p = tensor.gemm %e, %e2 {alpha = 1.0, beta = 0.0} : tensor<?x?xf32>
  func.return %p, %g : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A scatter writes over its dest when nothing reads it afterwards (Theano's
// AdvancedIncSubtensor1{inplace}): a dead temporary, or the shared variable it updates; never
// when dest is also an index array or read later, never a user's input.
// CHECK-LABEL: func.func @scatter
// CHECK:         %[[T:.*]] = tensor.exp %m
// CHECK:         tensor.scatter %[[T]], %y, %i {inplace = array<i64: 0>, mode = "add"}
// CHECK:         %[[U:.*]] = tensor.scatter %m, %y, %i {mode = "set"}
// CHECK:         %[[V:.*]] = tensor.scatter %w, %y, %i {inplace = array<i64: 0>, mode = "add"}
// CHECK:         %[[K:.*]] = tensor.add %i, %i
// CHECK:         tensor.scatter %[[K]], %[[K]], %[[K]] {mode = "add"}
func.func @scatter(%m: tensor<?x3xf32>, %y: tensor<?x3xf32>, %i: tensor<?xi64>, %w: tensor<?x3xf32> {irc.shared = "w"})
    -> (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32> {irc.update = 3 : i64}) {
  %t = tensor.exp %m : tensor<?x3xf32>
  %a = tensor.scatter %t, %y, %i {mode = "add"} : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  %u = tensor.scatter %m, %y, %i {mode = "set"} : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  %v = tensor.scatter %w, %y, %i {mode = "add"} : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  %k = tensor.add %i, %i : tensor<?xi64>
  %s = tensor.scatter %k, %k, %k {mode = "add"} : (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  func.return %a, %u, %s, %v : tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32>
}
