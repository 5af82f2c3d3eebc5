// RUN: irc-opt %s -p fuse-matvec --split-input-file | filecheck %s

// The logistic-regression step after fuse-elementwise: z = X·w, one fused_reduce over the rows
// (the prediction, g, sum(g)), Xᵀ·g + y2. One fused_matvec takes all three; the b update, which
// stood between the group and the second product and reads sum(g), moves after it; the
// transposed view of X goes.
// CHECK-LABEL: func.func @lr
// CHECK-NOT:     tensor.gemv
// CHECK-NOT:     tensor.fused_reduce
// CHECK:         %[[Y2:.*]] = tensor.fused(%{{.*}} = %w)
// CHECK:         %[[F:.*]]:3 = tensor.fused_matvec %x, %w, %[[Y2]] (%[[Z:.*]], %[[B:.*]] = %[[BV:.*]], %[[T:.*]] = %y, %[[N:.*]] = %[[NV:.*]]) {alpha = 0.1, beta = 0.1, kind = "sum"} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<1xf32>, tensor<?xf32>, tensor<1xf32>) -> (tensor<?xi1>, tensor<f32>, tensor<?xf32>) {
// CHECK-NEXT:      %[[S:.*]] = scalar.add %[[Z]], %[[B]] : f32
// CHECK-NEXT:      %[[P:.*]] = scalar.sigmoid %[[S]] : f32
// CHECK-NEXT:      %[[H:.*]] = scalar.constant {value = 0.5 : f32} : f32
// CHECK-NEXT:      %[[GT:.*]] = scalar.gt %[[P]], %[[H]] : (f32, f32) -> i1
// CHECK-NEXT:      %[[D:.*]] = scalar.sub %[[P]], %[[T]] : f32
// CHECK-NEXT:      %[[G:.*]] = scalar.mul %[[D]], %[[N]] : f32
// CHECK-NEXT:      scalar.yield %[[GT]], %[[G]], %[[G]] : i1, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[BU:.*]] = tensor.fused(%{{.*}} = %[[F]]#1, %{{.*}} = %b)
// CHECK:         %[[WU:.*]] = tensor.sub %w, %[[F]]#2 : tensor<?xf32>
// CHECK-NEXT:    func.return %[[F]]#0, %[[WU]], %[[BU]]
func.func @lr(%x: tensor<?x?xf32>, %y: tensor<?xf32>, %w: tensor<?xf32>, %b: tensor<f32>) -> (tensor<?xi1>, tensor<?xf32>, tensor<f32>) {
  %0 = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %1 = tensor.dimshuffle %b {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %2 = tensor.fused(%a = %w) : (tensor<?xf32>) -> tensor<?xf32> {
    %c = scalar.constant {value = 0.02 : f32} : f32
    %m = scalar.mul %c, %a : f32
    scalar.yield %m : f32
  }
  %3 = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %n = tensor.constant {value = dense<0.0025> : tensor<1xf32>} : tensor<1xf32>
  %7:3 = tensor.fused_reduce(%z = %0, %bb = %1, %t = %y, %inv = %n) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>, tensor<1xf32>, tensor<?xf32>, tensor<1xf32>) -> (tensor<?xi1>, tensor<?xf32>, tensor<f32>) {
    %s = scalar.add %z, %bb : f32
    %p = scalar.sigmoid %s : f32
    %h = scalar.constant {value = 0.5 : f32} : f32
    %gt = scalar.gt %p, %h : (f32, f32) -> i1
    %d = scalar.sub %p, %t : f32
    %g = scalar.mul %d, %inv : f32
    scalar.yield %gt, %g, %g : i1, f32, f32
  }
  %10 = tensor.fused(%s = %7#2, %bv = %b) : (tensor<f32>, tensor<f32>) -> tensor<f32> {
    %c = scalar.constant {value = 0.1 : f32} : f32
    %m = scalar.mul %c, %s : f32
    %r = scalar.sub %bv, %m : f32
    scalar.yield %r : f32
  }
  %8 = tensor.gemv %3, %7#1, %2 {alpha = 0.1, beta = 0.1} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %9 = tensor.sub %w, %8 : tensor<?xf32>
  func.return %7#0, %9, %10 : tensor<?xi1>, tensor<?xf32>, tensor<f32>
}

// -----

// Least squares, Xᵀ(X·w - y): the group is one elementwise op; no accumulator, no reduction.
// CHECK-LABEL: func.func @least_squares
// CHECK-NEXT:    %[[F:.*]] = tensor.fused_matvec %x, %w (%[[Z:.*]], %[[T:.*]] = %y) {alpha = 1.0, beta = 0.0} : (tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64> {
// CHECK-NEXT:      %[[D:.*]] = scalar.sub %[[Z]], %[[T]] : f64
// CHECK-NEXT:      scalar.yield %[[D]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[F]] : tensor<?xf64>
func.func @least_squares(%x: tensor<?x?xf64>, %y: tensor<?xf64>, %w: tensor<?xf64>) -> tensor<?xf64> {
  %z = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf64>, tensor<?xf64>) -> tensor<?xf64>
  %r = tensor.sub %z, %y : tensor<?xf64>
  %xt = tensor.transpose %x {permutation = array<i64: 1, 0>} : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %g = tensor.gemv %xt, %r {alpha = 1.0, beta = 0.0} : (tensor<?x?xf64>, tensor<?xf64>) -> tensor<?xf64>
  func.return %g : tensor<?xf64>
}

// -----

// z read elsewhere too, and g returned: both become results (z first). The first product's
// alpha and accumulator go into the body: z = 2·(A·x) + 3·y1, y1 a row operand.
// CHECK-LABEL: func.func @values_kept
// CHECK-NEXT:    %[[F:.*]]:3 = tensor.fused_matvec %a, %x (%[[D:.*]], %[[T:.*]] = %y, %[[Y1:.*]] = %y1) {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
// CHECK-NEXT:      %[[C2:.*]] = scalar.constant {value = 2.0 : f32} : f32
// CHECK-NEXT:      %[[M:.*]] = scalar.mul %[[D]], %[[C2]] : f32
// CHECK-NEXT:      %[[C3:.*]] = scalar.constant {value = 3.0 : f32} : f32
// CHECK-NEXT:      %[[M3:.*]] = scalar.mul %[[Y1]], %[[C3]] : f32
// CHECK-NEXT:      %[[Z:.*]] = scalar.add %[[M]], %[[M3]] : f32
// CHECK-NEXT:      %[[G:.*]] = scalar.mul %[[Z]], %[[T]] : f32
// CHECK-NEXT:      scalar.yield %[[Z]], %[[G]], %[[G]] : f32, f32, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E:.*]] = tensor.exp %[[F]]#0 : tensor<?xf32>
// CHECK-NEXT:    func.return %[[E]], %[[F]]#1, %[[F]]#2
func.func @values_kept(%a: tensor<?x?xf32>, %x: tensor<?xf32>, %y: tensor<?xf32>, %y1: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %z = tensor.gemv %a, %x, %y1 {alpha = 2.0, beta = 3.0} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %e = tensor.exp %z : tensor<?xf32>
  %g = tensor.mul %z, %y : tensor<?xf32>
  %at = tensor.dimshuffle %a {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %o = tensor.gemv %at, %g {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %e, %g, %o : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// Negative: the second product is with another matrix.
// CHECK-LABEL: func.func @other_matrix
// CHECK-NOT:     tensor.fused_matvec
// CHECK:         tensor.gemv %x, %w
// CHECK:         tensor.gemv %{{.*}}, %{{.*}} {alpha = 1.0, beta = 0.0}
func.func @other_matrix(%x: tensor<?x?xf32>, %v: tensor<?x?xf32>, %w: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %g = tensor.sub %z, %y : tensor<?xf32>
  %vt = tensor.dimshuffle %v {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %o = tensor.gemv %vt, %g {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %o : tensor<?xf32>
}

// -----

// Negative: the accumulator is made from the group's sum (it would be an operand computed
// from the fused op's own result: a cycle).
// CHECK-LABEL: func.func @cycle_through_accumulator
// CHECK-NOT:     tensor.fused_matvec
// CHECK:         tensor.fused_reduce
// CHECK:         tensor.gemv %{{.*}}, %{{.*}}, %{{.*}} {alpha = 1.0, beta = 1.0}
func.func @cycle_through_accumulator(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %r:2 = tensor.fused_reduce(%a = %z, %b = %y) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
    %d = scalar.sub %a, %b : f32
    scalar.yield %d, %d : f32, f32
  }
  %s = tensor.dimshuffle %r#1 {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %acc = tensor.mul %w, %s : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %xt = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %o = tensor.gemv %xt, %r#0, %acc {alpha = 1.0, beta = 1.0} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %o : tensor<?xf32>
}

// -----

// Negative: the group reads z at another row (reversed through a slice): the slice reads the
// fused op's z and feeds the group, a cycle.
// CHECK-LABEL: func.func @z_at_another_row
// CHECK-NOT:     tensor.fused_matvec
// CHECK:         tensor.slice
func.func @z_at_another_row(%x: tensor<?x?xf32>, %w: tensor<?xf32>) -> tensor<?xf32> {
  %z = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %rev = tensor.slice %z {starts = array<i64: -9223372036854775808>, stops = array<i64: -9223372036854775808>, steps = array<i64: -1>} : (tensor<?xf32>) -> tensor<?xf32>
  %g = tensor.mul %z, %rev : tensor<?xf32>
  %xt = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %o = tensor.gemv %xt, %g {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %o : tensor<?xf32>
}

// -----

// Negative: z has one (static) row, read at every row of a longer group.
// CHECK-LABEL: func.func @z_broadcast
// CHECK-NOT:     tensor.fused_matvec
// CHECK:         tensor.gemv %x, %w
func.func @z_broadcast(%x: tensor<1x?xf32>, %w: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<1x?xf32>, tensor<?xf32>) -> tensor<1xf32>
  %g = tensor.sub %z, %y : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %xt = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : (tensor<1x?xf32>) -> tensor<?x1xf32>
  %o = tensor.gemv %xt, %g {alpha = 1.0, beta = 0.0} : (tensor<?x1xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %o : tensor<?xf32>
}

// -----

// Negative: A is itself a transposed view (its rows are strided): the unfused kernels suit it.
// CHECK-LABEL: func.func @transposed_matrix
// CHECK-NOT:     tensor.fused_matvec
// CHECK:         tensor.gemv
// CHECK:         tensor.gemv
func.func @transposed_matrix(%m: tensor<?x?xf32>, %w: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %a = tensor.dimshuffle %m {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %z = tensor.gemv %a, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %g = tensor.sub %z, %y : tensor<?xf32>
  %at = tensor.dimshuffle %a {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %o = tensor.gemv %at, %g {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %o : tensor<?xf32>
}

// -----

// Negative: the vector of the second product is not computed row by row from z (a reduction
// over the columns of another matrix).
// CHECK-LABEL: func.func @not_row_wise
// CHECK-NOT:     tensor.fused_matvec
func.func @not_row_wise(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %m: tensor<?x?xf32>) -> tensor<?xf32> {
  %z = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %s = tensor.reduce %m {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %xt = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %o = tensor.gemv %xt, %s, %z {alpha = 1.0, beta = 1.0} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %o : tensor<?xf32>
}

// -----

// Negative: `inplace` already marked an op in between (here the group itself): the pass runs
// before `inplace`, whose marks it cannot re-check.
// CHECK-LABEL: func.func @after_inplace
// CHECK-NOT:     tensor.fused_matvec
func.func @after_inplace(%x: tensor<?x?xf32>, %w: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %z = tensor.gemv %x, %w {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %g = tensor.sub %z, %y {inplace = array<i64: 0>} : tensor<?xf32>
  %xt = tensor.dimshuffle %x {pattern = array<i64: 1, 0>} : tensor<?x?xf32>
  %o = tensor.gemv %xt, %g {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %o : tensor<?xf32>
}
