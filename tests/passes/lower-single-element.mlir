// RUN: irc-opt %s -p lower-to-loops --split-input-file | filecheck %s

// 1/n from a size, a shared scalar read through a dimshuffle, the sum of a fused reduction and
// the update computed from it: numbers, not buffers. The loops use 1/n and b as they are;
// the only one-element buffer is the returned update (a sum large enough to be reduced in
// parts has a buffer of partials, one per part).
// CHECK-LABEL: func.func @one_over_n
// CHECK-NOT:     loop.alloc : memref<i64>
// CHECK:         %[[N:.*]] = loop.dim %y {axis = 0}
// CHECK-NEXT:    %[[I:.*]] = scalar.cast %[[N]] {to = i64} : (index) -> i64
// CHECK-NEXT:    %[[F:.*]] = scalar.cast %[[I]] {to = f32} : (i64) -> f32
// CHECK-NEXT:    %[[ONE:.*]] = scalar.constant {value = 1.0 : f32}
// CHECK-NEXT:    %[[Q:.*]] = scalar.div %[[ONE]], %[[F]] : f32
// CHECK-NEXT:    %[[B:.*]] = loop.load %b[]
// CHECK-NEXT:    %[[G:.*]] = loop.alloc %[[N]] : (index) -> memref<?xf32>
// CHECK-NOT:     loop.alloc : memref
// CHECK:         %[[S:.*]] = "loop.if"
// CHECK:           loop.for %k
// CHECK-NEXT:        %[[Y:.*]] = loop.load %y[%k]
// CHECK-NEXT:        %[[M:.*]] = scalar.mul %[[Y]], %[[Q]] : f32
// CHECK-NEXT:        scalar.sub %[[M]], %[[B]] : f32
// CHECK:           } {reduction}
// CHECK:         }) : (i1) -> f32
// CHECK-NEXT:    %[[B2:.*]] = loop.load %b[]
// CHECK-NEXT:    %[[LR:.*]] = scalar.constant {value = 0.1 : f32}
// CHECK-NEXT:    %[[T:.*]] = scalar.mul %[[LR]], %[[S]] : f32
// CHECK-NEXT:    %[[V:.*]] = scalar.sub %[[B2]], %[[T]] : f32
// CHECK-NEXT:    %[[U:.*]] = loop.alloc : memref<f32>
// CHECK-NEXT:    loop.store %[[V]], %[[U]][]
// CHECK-NEXT:    func.return %[[G]], %[[U]]
func.func @one_over_n(%y: tensor<?xf32>, %b: tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  %n = tensor.dim %y {axis = 0} : (tensor<?xf32>) -> tensor<i64>
  %inv = tensor.fused(%a = %n) : (tensor<i64>) -> tensor<f32> {
    %f = scalar.cast %a {to = f32} : (i64) -> f32
    %one = scalar.constant {value = 1.0 : f32} : f32
    %q = scalar.div %one, %f : f32
    scalar.yield %q : f32
  }
  %d = tensor.dimshuffle %inv {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %bd = tensor.dimshuffle %b {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %g:2 = tensor.fused_reduce(%p = %y, %q = %d, %r = %bd) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<?xf32>, tensor<f32>) {
    %m = scalar.mul %p, %q : f32
    %s = scalar.sub %m, %r : f32
    scalar.yield %s, %s : f32, f32
  }
  %u = tensor.fused(%s = %g#1, %c = %b) : (tensor<f32>, tensor<f32>) -> tensor<f32> {
    %lr = scalar.constant {value = 0.1 : f32} : f32
    %t = scalar.mul %lr, %s : f32
    %v = scalar.sub %c, %t : f32
    scalar.yield %v : f32
  }
  func.return %g#0, %u : tensor<?xf32>, tensor<f32>
}

// -----

// A full reduction, a one-element constant and an elementwise op on one element: scalars;
// the row-sized reduction and the subtraction still have their buffers.
// CHECK-LABEL: func.func @single_reduce
// CHECK:         %[[MX:.*]] = "loop.if"
// CHECK:           loop.for %k
// CHECK:         }) : (i1) -> f32
// CHECK-NEXT:    %[[TWO:.*]] = scalar.constant {value = 2.0 : f32}
// CHECK-NEXT:    %[[H:.*]] = scalar.mul %[[MX]], %[[TWO]] : f32
// CHECK-NEXT:    %[[K:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf32>
// CHECK:         loop.parallel
// CHECK:           scalar.sub %{{.*}}, %[[H]] : f32
// CHECK-NOT:     loop.global
func.func @single_reduce(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %s = tensor.reduce %x {axes = array<i64: 0, 1>, kind = "max"} : (tensor<?x?xf32>) -> tensor<f32>
  %d = tensor.dimshuffle %s {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %c = tensor.constant {value = dense<[2.0]> : tensor<1xf32>} : tensor<1xf32>
  %h = tensor.mul %d, %c : tensor<1xf32>
  %k = tensor.reduce %x {axes = array<i64: 0>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %r = tensor.sub %k, %h : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
