// RUN: irc-opt %s | irc-opt | filecheck %s
// RUN: irc-opt %s --mlir-print-op-generic | irc-opt | filecheck %s

// The loop dialect's custom forms print and parse back.
// CHECK-LABEL: func.func @loops(%b: memref<?x4xf32>, %v: memref<4xf32, strided<[?], offset: ?>>) -> f32
// CHECK-NEXT:    %c0 = loop.constant {value = 0 : index} : index
// CHECK-NEXT:    %c1 = loop.constant {value = 1 : index} : index
// CHECK-NEXT:    %n = loop.dim %b {axis = 0} : (memref<?x4xf32>) -> index
// CHECK-NEXT:    %t = loop.alloc %n : (index) -> memref<?x4xf32>
// CHECK-NEXT:    loop.parallel (%i, %j) = (%c0, %c0) to (%n, %c1) step (%c1, %c1) {
// CHECK-NEXT:      %x = loop.load %b[%i, %j] : memref<?x4xf32>
// CHECK-NEXT:      loop.store %x, %t[%i, %j] : memref<?x4xf32>
// CHECK-NEXT:      loop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %z = scalar.constant {value = 0.0 : f32} : f32
// CHECK-NEXT:    %s = loop.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
// CHECK-NEXT:      %y = loop.load %v[%c0] : memref<4xf32, strided<[?], offset: ?>>
// CHECK-NEXT:      %a = scalar.add %acc, %y : f32
// CHECK-NEXT:      loop.yield %a : f32
// CHECK-NEXT:    } {reduction}
// CHECK-NEXT:    %tt = loop.transpose %t {perm = array<i64: 1, 0>} : (memref<?x4xf32>) -> memref<4x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NEXT:    loop.assert_eq %n, %c1 {msg = "n must be 1"} : index
// CHECK-NEXT:    loop.dealloc %t : memref<?x4xf32>
// CHECK-NEXT:    func.return %s : f32
func.func @loops(%b: memref<?x4xf32>, %v: memref<4xf32, strided<[?], offset: ?>>) -> f32 {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %b {axis = 0} : (memref<?x4xf32>) -> index
  %t = loop.alloc %n : (index) -> memref<?x4xf32>
  loop.parallel (%i, %j) = (%c0, %c0) to (%n, %c1) step (%c1, %c1) {
    %x = loop.load %b[%i, %j] : memref<?x4xf32>
    loop.store %x, %t[%i, %j] : memref<?x4xf32>
    loop.yield
  }
  %z = scalar.constant {value = 0.0 : f32} : f32
  %s = loop.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %y = loop.load %v[%c0] : memref<4xf32, strided<[?], offset: ?>>
    %a = scalar.add %acc, %y : f32
    loop.yield %a : f32
  } {reduction}
  %tt = loop.transpose %t {perm = array<i64: 1, 0>} : (memref<?x4xf32>) -> memref<4x?xf32, strided<[?, ?], offset: ?>>
  loop.assert_eq %n, %c1 {msg = "n must be 1"} : index
  loop.dealloc %t : memref<?x4xf32>
  func.return %s : f32
}

// A prefetch prints as a load does, without a result; `write` and `locality` are attributes.
// CHECK-LABEL: func.func @prefetch
// CHECK-NEXT:    loop.prefetch %b[%i, %i] {locality = 2} : memref<?x4xf32>
// CHECK-NEXT:    loop.prefetch %b[%i, %i] {locality = 3, write} : memref<?x4xf32>
func.func @prefetch(%b: memref<?x4xf32>, %i: index) {
  loop.prefetch %b[%i, %i] {locality = 2} : memref<?x4xf32>
  loop.prefetch %b[%i, %i] {locality = 3, write} : memref<?x4xf32>
  func.return
}
