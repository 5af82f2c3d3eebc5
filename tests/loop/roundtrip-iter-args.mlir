// RUN: irc-opt %s | irc-opt | filecheck %s
// RUN: irc-opt %s -p 'lower-to-loops{simd=64x32}' | irc-opt | filecheck %s --check-prefix=PRODUCT

// A loop.for with several iter_args prints and parses back (the products' kernels carry one
// accumulator per row, or a whole register tile).
// CHECK-LABEL: func.func @two_sums
// CHECK:         %s:2 = loop.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %acc2 = %z) -> (f32, f32) {
// CHECK-NEXT:      %x = loop.load %v[%k] : memref<?xf32>
// CHECK-NEXT:      %a = scalar.add %acc, %x : f32
// CHECK-NEXT:      %m = scalar.mul %x, %x : f32
// CHECK-NEXT:      %b = scalar.add %acc2, %m : f32
// CHECK-NEXT:      loop.yield %a, %b : f32, f32
// CHECK-NEXT:    } {reduction}
// CHECK-NEXT:    func.return %s#0, %s#1 : f32, f32
func.func @two_sums(%v: memref<?xf32>) -> (f32, f32) {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %v {axis = 0} : (memref<?xf32>) -> index
  %z = scalar.constant {value = 0.0 : f32} : f32
  %s:2 = loop.for %k = %c0 to %n step %c1 iter_args(%acc = %z, %acc2 = %z) -> (f32, f32) {
    %x = loop.load %v[%k] : memref<?xf32>
    %a = scalar.add %acc, %x : f32
    %m = scalar.mul %x, %x : f32
    %b = scalar.add %acc2, %m : f32
    loop.yield %a, %b : f32, f32
  } {reduction}
  func.return %s#0, %s#1 : f32, f32
}

// The loop IR of a product parses back, its register tile (12×16 sums of f64 or i64) one
// `loop.gemm_tile`.
// PRODUCT-LABEL: func.func @product
// PRODUCT:         loop.gemm_tile %A, {{.*}} {axis = 1, mr = 12, nr = 16} : (memref<?x?xf64
// PRODUCT-LABEL: func.func @integer_product
// PRODUCT:         loop.gemm_tile %A, {{.*}} {axis = 1, mr = 12, nr = 16} : (memref<?x?xi64
func.func @product(%A: tensor<?x?xf64>, %B: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %out = tensor.dot %A, %B : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  func.return %out : tensor<?x?xf64>
}

func.func @integer_product(%A: tensor<?x?xi64>, %B: tensor<?x?xi64>) -> tensor<?x?xi64> {
  %out = tensor.dot %A, %B : (tensor<?x?xi64>, tensor<?x?xi64>) -> tensor<?x?xi64>
  func.return %out : tensor<?x?xi64>
}
