// RUN: irc-opt %s -p lower-to-loops --split-input-file | filecheck %s

// Every axis reduced: the sum is a number (no buffer until the return needs one), and the
// kept values are stored as the loops go. An input of two parts or more (PART_ELEMENTS each)
// is reduced in parts in parallel and their partials combined in order; a smaller one is one
// loop.for carrying the sum.
// CHECK-LABEL: func.func @full
// CHECK:         %[[D:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf32>
// CHECK:         %[[BIG:.*]] = scalar.gt %[[PARTS:.*]], %{{.*}} : (index, index) -> i1
// CHECK-NEXT:    %[[S:.*]] = "loop.if"(%[[BIG]]) ({
// CHECK:           %partial = loop.alloc %[[PARTS]]
// CHECK-NEXT:      loop.parallel (%part)
// CHECK:             loop.store %d, %[[D]][%k]
// CHECK:             loop.store %{{.*}}, %partial[%part]
// CHECK:           loop.for %k_1 = %{{.*}} to %[[PARTS]]
// CHECK:           loop.dealloc %partial
// CHECK:         }, {
// CHECK-NEXT:      %[[Z:.*]] = scalar.constant {value = 0.0 : f32}
// CHECK-NEXT:      %[[L:.*]] = loop.for %k_2 = {{.*}} iter_args(%acc_2 = %[[Z]]) -> (f32) {
// CHECK-NEXT:        %[[A:.*]] = loop.load %x[%k_2]
// CHECK-NEXT:        %[[B:.*]] = loop.load %y[%k_2]
// CHECK-NEXT:        %[[V:.*]] = scalar.sub %[[A]], %[[B]] : f32
// CHECK-NEXT:        loop.store %[[V]], %[[D]][%k_2]
// CHECK-NEXT:        %[[N:.*]] = scalar.add %acc_2, %[[V]] : f32
// CHECK-NEXT:        loop.yield %[[N]] : f32
// CHECK-NEXT:      } {reduction}
// CHECK-NEXT:      loop.yield %[[L]] : f32
// CHECK-NEXT:    }) : (i1) -> f32
// CHECK-NEXT:    %[[R:.*]] = loop.alloc : memref<f32>
// CHECK-NEXT:    loop.store %[[S]], %[[R]][]
// CHECK-NEXT:    func.return %[[D]], %[[R]]
func.func @full(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %0:2 = tensor.fused_reduce(%a = %x, %b = %y) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
    %d = scalar.sub %a, %b : f32
    scalar.yield %d, %d : f32, f32
  }
  func.return %0#0, %0#1 : tensor<?xf32>, tensor<f32>
}

// -----

// Rows reduced: a parallel loop over rows, two accumulators in the inner loop, the kept
// matrix stored at [i, k] in the same iteration.
// CHECK-LABEL: func.func @rows
// CHECK:         %[[E:.*]] = loop.alloc %{{.*}}, %{{.*}} : (index, index) -> memref<?x?xf64>
// CHECK-NEXT:    %[[R0:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf64>
// CHECK-NEXT:    %[[R1:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf64>
// CHECK-NEXT:    loop.parallel (%i)
// CHECK:           %[[F:.*]]:2 = loop.for %k = {{.*}} iter_args(%acc = %{{.*}}, %acc_1 = %{{.*}}) -> (f64, f64) {
// CHECK-NEXT:        %[[X:.*]] = loop.load %x[%i, %k]
// CHECK-NEXT:        %[[V:.*]] = scalar.exp %[[X]] : f64
// CHECK-NEXT:        loop.store %[[V]], %[[E]][%i, %k]
// CHECK-NEXT:        %[[M0:.*]] = scalar.maximum %acc, %[[V]] : f64
// CHECK-NEXT:        %[[M1:.*]] = scalar.maximum %acc_1, %[[X]] : f64
// CHECK-NEXT:        loop.yield %[[M0]], %[[M1]] : f64, f64
// CHECK-NEXT:      } {reduction}
// CHECK-NEXT:      loop.store %[[F]]#0, %[[R0]][%i]
// CHECK-NEXT:      loop.store %[[F]]#1, %[[R1]][%i]
// CHECK:         func.return %[[E]], %[[R0]], %[[R1]]
func.func @rows(%x: tensor<?x?xf64>) -> (tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>) {
  %0:3 = tensor.fused_reduce(%a = %x) {axes = array<i64: 1>, kind = "max"} : (tensor<?x?xf64>) -> (tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>) {
    %e = scalar.exp %a : f64
    scalar.yield %e, %e, %a : f64, f64, f64
  }
  func.return %0#0, %0#1, %0#2 : tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>
}

// -----

// Columns reduced (a sum over the rows of a matrix): each parallel task sums a chunk of rows
// into its own row of partials, four rows per pass along a row (each row read and written
// through a one-row view made before the loop along it, split where the row reaches a 64-byte
// address); the kept value is stored from the same inner loop; then the chunks' partials are
// added.
// CHECK-LABEL: func.func @cols
// CHECK:         %[[E:.*]] = loop.alloc %{{.*}}, %{{.*}} : (index, index) -> memref<?x?xf32>
// CHECK-NEXT:    %[[S:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf32>
// CHECK:         %part = loop.alloc
// CHECK:         loop.parallel (%task)
// CHECK:           loop.for %r = {{.*}} step %{{.*}} {
// CHECK:             %[[G:.*]] = loop.align_gap %x[%r, %[[J0:.*]]] {bytes = 64}
// CHECK:             %[[SPLIT:.*]] = loop.min
// CHECK-NEXT:        %[[XR:.*]] = loop.subview %x, %r,
// CHECK-NEXT:        %[[ER:.*]] = loop.subview %[[E]], %r,
// CHECK:             loop.for %j_1 = %[[J0]] to %[[SPLIT]] step
// CHECK-NEXT:          %[[X:.*]] = loop.load %[[XR]][%{{.*}}, %j_1]
// CHECK-NEXT:          %[[V:.*]] = scalar.exp %[[X]] : f32
// CHECK-NEXT:          loop.store %[[V]], %[[ER]][%{{.*}}, %j_1]
// CHECK:               %[[P:.*]] = loop.load %part[%{{.*}}, %j_1]
// CHECK-NEXT:          %[[N:.*]] = scalar.add %[[P]], %{{.*}} : f32
// CHECK-NEXT:          loop.store %[[N]], %part[%{{.*}}, %j_1]
// CHECK:             loop.for %j_2 = %[[SPLIT]] to
// CHECK:         loop.parallel (%b)
// CHECK:           loop.store %{{.*}}, %[[S]][%j_6]
func.func @cols(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %0:2 = tensor.fused_reduce(%a = %x) {axes = array<i64: 0>, kind = "sum"} : (tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
    %e = scalar.exp %a : f32
    scalar.yield %e, %e : f32, f32
  }
  func.return %0#0, %0#1 : tensor<?x?xf32>, tensor<?xf32>
}

// -----

// In place: the kept result is written over the dead temporary it is computed from (the
// only other buffer is the sum's partials, when it is reduced in parts).
// CHECK-LABEL: func.func @in_place
// CHECK:         %[[T:.*]] = loop.alloc %{{.*}} : (index) -> memref<?xf32>
// CHECK-NOT:     loop.alloc %{{.*}} : (index) -> memref<?xf32>{{$}}
// CHECK:         %partial = loop.alloc
// CHECK-NOT:     loop.alloc %{{.*}} : (index) -> memref<?xf32>{{$}}
// CHECK:         loop.for %k
// CHECK:           loop.store %{{.*}}, %[[T]][%k]
// CHECK:         func.return %[[T]], %{{.*}}
func.func @in_place(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %t = tensor.exp %x : tensor<?xf32>
  %0:2 = tensor.fused_reduce(%a = %t) {axes = array<i64: 0>, inplace = array<i64: 0, -1>, kind = "sum"} : (tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
    %n = scalar.neg %a : f32
    scalar.yield %n, %n : f32, f32
  }
  func.return %0#0, %0#1 : tensor<?xf32>, tensor<f32>
}
