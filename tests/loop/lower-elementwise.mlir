// RUN: irc-opt %s -p lower-to-loops --split-input-file | filecheck %s

// An elementwise op is one loop.parallel nest over a new buffer; arguments are strided
// memrefs, the result a contiguous buffer the function returns.
// CHECK-LABEL: func.func @exp(%x: memref<?x?xf32, strided<[?, ?], offset: ?>>) -> memref<?x?xf32>
// CHECK-DAG:     %[[D0:.*]] = loop.dim %x {axis = 0}
// CHECK-DAG:     %[[D1:.*]] = loop.dim %x {axis = 1}
// CHECK:         %[[R:.*]] = loop.alloc %[[D0]], %[[D1]] : (index, index) -> memref<?x?xf32>
// CHECK-NEXT:    loop.parallel (%i, %j) = (%{{.*}}, %{{.*}}) to (%[[D0]], %[[D1]]) step
// CHECK-NEXT:      %[[V:.*]] = loop.load %x[%i, %j]
// CHECK-NEXT:      %[[E:.*]] = scalar.exp %[[V]] : f32
// CHECK-NEXT:      loop.store %[[E]], %[[R]][%i, %j] : memref<?x?xf32>
// CHECK-NEXT:      loop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : memref<?x?xf32>
func.func @exp(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = tensor.exp %x : tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// -----

// A static-1 dim broadcasts: it is read at index 0. Two dynamic sizes that must agree are
// checked once, before the loops.
// CHECK-LABEL: func.func @bias
// CHECK-DAG:     %[[ZERO:.*]] = loop.constant {value = 0 : index}
// CHECK:         loop.assert_eq %{{.*}}, %{{.*}} {msg = "'tensor.add': operands differ in size in dim 1
// CHECK:         loop.parallel (%i, %j)
// CHECK-NEXT:      loop.load %x[%i, %j]
// CHECK-NEXT:      loop.load %b[%[[ZERO]], %j]
// CHECK-NEXT:      scalar.add
func.func @bias(%x: tensor<?x?xf32>, %b: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %r = tensor.add %x, %b : (tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// -----

// A fused region is inlined into the loop body; each result gets its own buffer.
// CHECK-LABEL: func.func @fused
// CHECK:         loop.parallel (%i)
// CHECK-NEXT:      %[[A:.*]] = loop.load %a[%i]
// CHECK-NEXT:      %[[B:.*]] = loop.load %b[%i]
// CHECK-NEXT:      %[[S:.*]] = scalar.mul %[[A]], %[[B]] : f64
// CHECK-NEXT:      %[[T:.*]] = scalar.tanh %[[S]] : f64
// CHECK-NEXT:      loop.store %[[S]], %{{.*}}[%i]
// CHECK-NEXT:      loop.store %[[T]], %{{.*}}[%i]
func.func @fused(%a: tensor<?xf64>, %b: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %r:2 = "tensor.fused"(%a, %b) ({
  ^bb0(%x: f64, %y: f64):
    %s = scalar.mul %x, %y : f64
    %t = scalar.tanh %s : f64
    scalar.yield %s, %t : f64, f64
  }) : (tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
  func.return %r#0, %r#1 : tensor<?xf64>, tensor<?xf64>
}

// -----

// Temporaries are freed after their last use, and a dead buffer is reused.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[A:.*]] = loop.alloc
// CHECK:         %[[B:.*]] = loop.alloc
// CHECK-NOT:     loop.alloc
// CHECK:         loop.store %{{.*}}, %[[A]]
// CHECK:         loop.dealloc %[[B]]
// CHECK:         %[[D:.*]] = loop.alloc
// CHECK:         loop.dealloc %[[A]]
// CHECK:         func.return %[[D]]
func.func @chain(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = tensor.exp %x : tensor<?xf32>
  %b = tensor.neg %a : tensor<?xf32>
  %c = tensor.exp %b : tensor<?xf32>
  %d = tensor.neg %c : tensor<?xf32>
  func.return %d : tensor<?xf32>
}
