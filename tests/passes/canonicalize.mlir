// RUN: irc-opt %s -p canonicalize --split-input-file | filecheck %s

// The identities x*1, 1*x, 0+x, x-0, x/1 and neg(neg(x)), through broadcasting constants.
// CHECK-LABEL: func.func @identities
// CHECK-NEXT:    func.return %x : tensor<?xf32>
func.func @identities(%x: tensor<?xf32>) -> tensor<?xf32> {
  %one = tensor.constant {value = dense<1.0> : tensor<1xf32>} : tensor<1xf32>
  %zero = tensor.constant {value = dense<0.0> : tensor<1xf32>} : tensor<1xf32>
  %a = tensor.mul %x, %one : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %a2 = tensor.mul %one, %a : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %b = tensor.add %zero, %a2 : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %c = tensor.sub %b, %zero : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %d = tensor.div %c, %one : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %n = tensor.neg %d : tensor<?xf32>
  %nn = tensor.neg %n : tensor<?xf32>
  func.return %nn : tensor<?xf32>
}

// -----

// A multiplication by ones that broadcasts is not an identity; nor is 1/x or 0 - x.
// CHECK-LABEL: func.func @broadcast_is_kept
// CHECK:         tensor.mul %b, %ones
// CHECK:         tensor.div %one, %x
// CHECK:         tensor.sub %zero, %x
func.func @broadcast_is_kept(%b: tensor<1xf32>, %x: tensor<?xf32>) -> (tensor<3xf32>, tensor<?xf32>, tensor<?xf32>) {
  %ones = tensor.constant {value = dense<1.0> : tensor<3xf32>} : tensor<3xf32>
  %one = tensor.constant {value = dense<1.0> : tensor<1xf32>} : tensor<1xf32>
  %zero = tensor.constant {value = dense<0.0> : tensor<1xf32>} : tensor<1xf32>
  %m = tensor.mul %b, %ones : (tensor<1xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = tensor.div %one, %x : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  %s = tensor.sub %zero, %x : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %m, %r, %s : tensor<3xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// x - x and x * 0 become zeros for integers (and are merged by CSE), never for floats.
// CHECK-LABEL: func.func @zeros
// CHECK-DAG:     %[[Z:.*]] = tensor.constant {value = dense<0> : tensor<3xi32>}
// CHECK-DAG:     %[[F:.*]] = tensor.sub %f, %f
// CHECK-DAG:     %[[G:.*]] = tensor.mul %f, %fz
// CHECK:         %[[D:.*]] = tensor.broadcast %{{.*}}, %d : (tensor<1xi64>, tensor<?xi64>) -> tensor<?xi64>
// CHECK:         func.return %[[Z]], %[[Z]], %[[F]], %[[G]], %[[D]]
func.func @zeros(%i: tensor<3xi32>, %f: tensor<?xf32>, %d: tensor<?xi64>)
    -> (tensor<3xi32>, tensor<3xi32>, tensor<?xf32>, tensor<?xf32>, tensor<?xi64>) {
  %s = tensor.sub %i, %i : tensor<3xi32>
  %iz = tensor.constant {value = dense<0> : tensor<1xi32>} : tensor<1xi32>
  %m = tensor.mul %i, %iz : (tensor<3xi32>, tensor<1xi32>) -> tensor<3xi32>
  %fz = tensor.constant {value = dense<0.0> : tensor<1xf32>} : tensor<1xf32>
  %fs = tensor.sub %f, %f : tensor<?xf32>
  %fm = tensor.mul %f, %fz : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %ds = tensor.sub %d, %d : tensor<?xi64>
  func.return %s, %m, %fs, %fm, %ds : tensor<3xi32>, tensor<3xi32>, tensor<?xf32>, tensor<?xf32>, tensor<?xi64>
}

// -----

// Casts: to the same type disappears; a widening cast followed by another collapses; a
// narrowing one does not.
// CHECK-LABEL: func.func @casts
// (The collapsed f32 -> f16 cast equals %narrow, so CSE keeps one of them.)
// CHECK-NEXT:    %[[H:.*]] = tensor.cast %x {to = f16} : (tensor<?xf32>) -> tensor<?xf16>
// CHECK-NEXT:    %[[I:.*]] = tensor.cast %i {to = f32} : (tensor<2xi32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[B:.*]] = tensor.cast %[[H]] {to = i32}
// CHECK-NEXT:    func.return %x, %[[H]], %h, %[[I]], %[[B]]
func.func @casts(%x: tensor<?xf32>, %h: tensor<4xf16>, %i: tensor<2xi32>)
    -> (tensor<?xf32>, tensor<?xf16>, tensor<4xf16>, tensor<2xf32>, tensor<?xi32>) {
  %same = tensor.cast %x {to = f32} : (tensor<?xf32>) -> tensor<?xf32>
  %w = tensor.cast %x {to = f64} : (tensor<?xf32>) -> tensor<?xf64>
  %n = tensor.cast %w {to = f16} : (tensor<?xf64>) -> tensor<?xf16>
  %hw = tensor.cast %h {to = f32} : (tensor<4xf16>) -> tensor<4xf32>
  %hb = tensor.cast %hw {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
  %if = tensor.cast %i {to = f64} : (tensor<2xi32>) -> tensor<2xf64>
  %ff = tensor.cast %if {to = f32} : (tensor<2xf64>) -> tensor<2xf32>
  %narrow = tensor.cast %x {to = f16} : (tensor<?xf32>) -> tensor<?xf16>
  %back = tensor.cast %narrow {to = i32} : (tensor<?xf16>) -> tensor<?xi32>
  func.return %same, %n, %hb, %ff, %back : tensor<?xf32>, tensor<?xf16>, tensor<4xf16>, tensor<2xf32>, tensor<?xi32>
}

// -----

// Constant folding, then CSE of the equal subexpressions, then DCE.
// CHECK-LABEL: func.func @fold_cse
// CHECK-NEXT:    %[[C:.*]] = tensor.constant {value = dense<[5.0, 7.0]> : tensor<2xf32>}
// CHECK-NEXT:    %[[E:.*]] = tensor.exp %x
// CHECK-NEXT:    %[[S:.*]] = tensor.add %[[E]], %[[E]]
// CHECK-NEXT:    func.return %[[C]], %[[S]]
func.func @fold_cse(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %a = tensor.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %b = tensor.constant {value = dense<[4.0, 5.0]> : tensor<2xf32>} : tensor<2xf32>
  %c = tensor.add %a, %b : tensor<2xf32>
  %e1 = tensor.exp %x : tensor<2xf32>
  %e2 = tensor.exp %x : tensor<2xf32>
  %unused = tensor.log %x : tensor<2xf32>
  %s = tensor.add %e1, %e2 : tensor<2xf32>
  func.return %c, %s : tensor<2xf32>, tensor<2xf32>
}

// -----

// A size read after elementwise ops is the size of an operand: of %y here (an argument is
// preferred), past the broadcast row; the dim no longer waits for the elementwise values.
// CHECK-LABEL: func.func @dim_of_elementwise
// CHECK-NEXT:    %[[N:.*]] = tensor.dim %y {axis = 0}
// CHECK-NEXT:    %[[M:.*]] = tensor.dim %x {axis = 1}
// CHECK-NEXT:    func.return %[[N]], %[[M]]
func.func @dim_of_elementwise(%x: tensor<?x?xf32>, %y: tensor<?x1xf32>) -> (tensor<i64>, tensor<i64>) {
  %e = tensor.exp %x : tensor<?x?xf32>
  %a = tensor.add %y, %e : (tensor<?x1xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %n = tensor.neg %a : tensor<?x?xf32>
  %d0 = tensor.dim %n {axis = 0} : (tensor<?x?xf32>) -> tensor<i64>
  %d1 = tensor.dim %n {axis = 1} : (tensor<?x?xf32>) -> tensor<i64>
  func.return %d0, %d1 : tensor<i64>, tensor<i64>
}

// -----

// The size of a non-elementwise result stays (a gemv's rows are its own business).
// CHECK-LABEL: func.func @dim_of_gemv
// CHECK:         %[[G:.*]] = tensor.gemv
// CHECK-NEXT:    tensor.dim %[[G]] {axis = 0}
func.func @dim_of_gemv(%a: tensor<?x?xf32>, %v: tensor<?xf32>) -> tensor<i64> {
  %g = tensor.gemv %a, %v {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %e = tensor.exp %g : tensor<?xf32>
  %d = tensor.dim %e {axis = 0} : (tensor<?xf32>) -> tensor<i64>
  func.return %d : tensor<i64>
}

// -----

// Dimshuffles compose; the [-1] then [] of a sum's gradient is no dimshuffle at all.
// CHECK-LABEL: func.func @dimshuffles
// CHECK-NEXT:    %[[T:.*]] = tensor.dimshuffle %m {pattern = array<i64: -1, 1, 0>} : (tensor<?x?xf32>) -> tensor<1x?x?xf32>
// CHECK-NEXT:    func.return %s, %[[T]]
func.func @dimshuffles(%s: tensor<f32>, %m: tensor<?x?xf32>) -> (tensor<f32>, tensor<1x?x?xf32>) {
  %a = tensor.dimshuffle %s {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %b = tensor.dimshuffle %a {pattern = array<i64>} : (tensor<1xf32>) -> tensor<f32>
  %t = tensor.dimshuffle %m {pattern = array<i64: 1, -1, 0>} : (tensor<?x?xf32>) -> tensor<?x1x?xf32>
  %u = tensor.dimshuffle %t {pattern = array<i64: 1, 0, 2>} : (tensor<?x1x?xf32>) -> tensor<1x?x?xf32>
  func.return %b, %u : tensor<f32>, tensor<1x?x?xf32>
}
