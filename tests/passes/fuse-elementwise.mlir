// RUN: irc-opt %s -p fuse-elementwise --split-input-file | filecheck %s

// Siblings reading the same full-shape value: one op, two results (one loop).
// CHECK-LABEL: func.func @siblings
// CHECK-NEXT:    %[[F:.*]]:2 = tensor.fused(%[[A:.*]] = %x, %[[B:.*]] = %y)
// CHECK-NEXT:      %[[S:.*]] = scalar.add %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[D:.*]] = scalar.sub %[[A]], %[[B]] : f32
// CHECK-NEXT:      scalar.yield %[[S]], %[[D]] : f32, f32
// CHECK:         func.return %[[F]]#0, %[[F]]#1
func.func @siblings(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %a = tensor.add %x, %y : tensor<?xf32>
  %s = tensor.sub %x, %y : tensor<?xf32>
  func.return %a, %s : tensor<?xf32>, tensor<?xf32>
}

// -----

// A chain with a broadcast constant, a cast and a select; an inner value read outside
// (%e, returned) is a second result; the constant goes into the body.
// CHECK-LABEL: func.func @chain
// CHECK-NOT:     tensor.constant
// CHECK:         %[[F:.*]]:2 = tensor.fused(%{{.*}} = %x, %{{.*}} = %m)
// CHECK:           scalar.constant {value = 2.0 : f32} : f32
// CHECK:           scalar.exp
// CHECK:           scalar.select
// CHECK:           scalar.cast
// CHECK:           scalar.yield
// CHECK-NOT:     tensor.
// CHECK:         func.return %[[F]]#0, %[[F]]#1
func.func @chain(%x: tensor<?xf32>, %m: tensor<?xi1>) -> (tensor<?xf32>, tensor<?xf64>) {
  %c = tensor.constant {value = dense<[2.0]> : tensor<1xf32>} : tensor<1xf32>
  %a = tensor.mul %x, %c : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %e = tensor.exp %a : tensor<?xf32>
  %n = tensor.neg %e : tensor<?xf32>
  %s = tensor.select %m, %e, %n : (tensor<?xi1>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %d = tensor.cast %s {to = f64} : (tensor<?xf32>) -> tensor<?xf64>
  func.return %e, %d : tensor<?xf32>, tensor<?xf64>
}

// -----

// A broadcast row (a view) is an operand read with broadcasting; `tensor.broadcast` is absorbed.
// CHECK-LABEL: func.func @across_broadcast
// CHECK:         %[[R:.*]] = tensor.dimshuffle %b
// CHECK-NEXT:    %[[F:.*]] = tensor.fused(%{{.*}} = %x, %{{.*}} = %[[R]], %{{.*}} = %c)
// CHECK-NOT:     tensor.broadcast
// CHECK:         func.return %[[F]]
func.func @across_broadcast(%x: tensor<?x?xf32>, %b: tensor<?xf32>, %c: tensor<1x1xf32>) -> tensor<?x?xf32> {
  %r = tensor.dimshuffle %b {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
  %a = tensor.add %x, %r : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  %cb = tensor.broadcast %c, %a : (tensor<1x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %t = tensor.tanh %a : tensor<?x?xf32>
  %m = tensor.mul %t, %cb : tensor<?x?xf32>
  func.return %m : tensor<?x?xf32>
}

// -----

// A cycle: %mx depends on %e and feeds %s, so %e and %s stay apart (fusing them would make
// the fused op depend on itself). The max joins %e's loop nest, which also keeps %e.
// CHECK-LABEL: func.func @no_cycle
// CHECK:         %[[E:.*]]:2 = tensor.fused_reduce(%{{.*}} = %x) {axes = array<i64: 0>, kind = "max"} : (tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>)
// CHECK:         %[[D:.*]] = tensor.dimshuffle %[[E]]#1
// CHECK:         tensor.sub %[[E]]#0, %[[D]]
func.func @no_cycle(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = tensor.neg %x : tensor<?xf32>
  %e = tensor.exp %a : tensor<?xf32>
  %mx = tensor.reduce %e {axes = array<i64: 0>, kind = "max"} : (tensor<?xf32>) -> tensor<f32>
  %d = tensor.dimshuffle %mx {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %s = tensor.sub %e, %d : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  func.return %s : tensor<?xf32>
}

// -----

// A non-elementwise op in between (gemv) splits the chain in two fused ops.
// CHECK-LABEL: func.func @gemv_between
// CHECK:         %[[P:.*]] = tensor.fused(%{{.*}} = %v)
// CHECK:         %[[G:.*]] = tensor.gemv %A, %[[P]]
// CHECK:         %[[Q:.*]] = tensor.fused(%{{.*}} = %[[G]])
// CHECK:         func.return %[[Q]]
func.func @gemv_between(%A: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<?xf32> {
  %a = tensor.exp %v : tensor<?xf32>
  %b = tensor.neg %a : tensor<?xf32>
  %g = tensor.gemv %A, %b {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %c = tensor.tanh %g : tensor<?xf32>
  %d = tensor.sigmoid %c : tensor<?xf32>
  func.return %d : tensor<?xf32>
}

// -----

// Different iteration spaces (a row-sized value and a matrix) are not merged.
// CHECK-LABEL: func.func @shapes_apart
// CHECK:         %[[R:.*]] = tensor.fused(%{{.*}} = %b)
// CHECK:         tensor.dimshuffle %[[R]]
// CHECK:         tensor.add %x
func.func @shapes_apart(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %e = tensor.exp %b : tensor<?xf32>
  %n = tensor.neg %e : tensor<?xf32>
  %r = tensor.dimshuffle %n {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
  %a = tensor.add %x, %r : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  func.return %a : tensor<?x?xf32>
}

// -----

// Elementwise producers fused into the reduction they feed: one pass over memory.
// CHECK-LABEL: func.func @sum_exp_mul
// CHECK-NEXT:    %[[R:.*]] = tensor.fused_reduce(%[[A:.*]] = %x, %[[B:.*]] = %y) {axes = array<i64: 1>, kind = "sum"}
// CHECK-NEXT:      %[[E:.*]] = scalar.exp %[[A]] : f32
// CHECK-NEXT:      %[[M:.*]] = scalar.mul %[[E]], %[[B]] : f32
// CHECK-NEXT:      scalar.yield %[[M]] : f32
// CHECK:         func.return %[[R]]
func.func @sum_exp_mul(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?xf32> {
  %e = tensor.exp %x : tensor<?x?xf32>
  %m = tensor.mul %e, %y : tensor<?x?xf32>
  %r = tensor.reduce %m {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// -----

// A value read by the reduction and by something else: one loop nest stores it and sums it.
// CHECK-LABEL: func.func @reduce_shared_input
// CHECK-NEXT:    %[[F:.*]]:2 = tensor.fused_reduce(%[[A:.*]] = %x) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
// CHECK-NEXT:      %[[E:.*]] = scalar.exp %[[A]] : f32
// CHECK-NEXT:      %[[N:.*]] = scalar.neg %[[E]] : f32
// CHECK-NEXT:      scalar.yield %[[N]], %[[N]] : f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[F]]#1, %[[F]]#0
func.func @reduce_shared_input(%x: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %e = tensor.exp %x : tensor<?xf32>
  %n = tensor.neg %e : tensor<?xf32>
  %r = tensor.reduce %n {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
  func.return %r, %n : tensor<f32>, tensor<?xf32>
}

// A number made from sizes and constants alone (`1 / n` of a batch) stays out of the group:
// the loop lowering makes it a host scalar the fused kernel takes as an argument, instead of
// computing it in the group's loop.
// CHECK-LABEL: func.func @size_arithmetic
// CHECK:         %[[N:.*]] = tensor.dim %x
// CHECK:         %[[F:.*]] = tensor.cast %[[N]]
// CHECK:         %[[INV:.*]] = tensor.div %{{.*}}, %[[F]]
// CHECK:         tensor.fused(%{{.*}} = %x, %{{.*}} = %{{.*}})
// CHECK:           scalar.mul
// CHECK:           scalar.exp
// CHECK-NOT:       scalar.div
func.func @size_arithmetic(%x: tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
  %n = tensor.dim %x {axis = 0} : (tensor<?xf32, "cuda">) -> tensor<i64, "cuda">
  %nf = tensor.cast %n {to = f32} : (tensor<i64, "cuda">) -> tensor<f32, "cuda">
  %one = tensor.constant {value = dense<1.0> : tensor<f32, "cuda">} : tensor<f32, "cuda">
  %inv = tensor.div %one, %nf : tensor<f32, "cuda">
  %inv1 = tensor.dimshuffle %inv {pattern = array<i64: -1>} : (tensor<f32, "cuda">) -> tensor<1xf32, "cuda">
  %y = tensor.mul %x, %inv1 : (tensor<?xf32, "cuda">, tensor<1xf32, "cuda">) -> tensor<?xf32, "cuda">
  %z = tensor.exp %y : tensor<?xf32, "cuda">
  func.return %z : tensor<?xf32, "cuda">
}
