// RUN: irc-opt %s -p 'lower-to-loops{simd=32x16}' | filecheck %s --check-prefix=AVX2
// RUN: irc-opt %s -p 'lower-to-loops{simd=64x32}' | filecheck %s --check-prefix=AVX512
// RUN: not irc-opt %s -p 'lower-to-loops{simd=wide}' 2>&1 | filecheck %s --check-prefix=BAD

// The register tile follows the vector registers: two vectors of columns, as many rows as
// leave 4 registers spare. AVX2 (16 ymm): 6×16 f32 (and 6×8 for n ≤ 8); AVX-512 (32 zmm):
// 12×32 (and 12×16). (A is transposed here, so that it is packed into tiles of MR rows.)
// AVX2-LABEL: func.func @gemm
// AVX2:         memref<?x?x16xf32>
// AVX2:         memref<?x?x6xf32>
// AVX2:         loop.gemm_tile {{.*}} {axis = 1, mr = 6, nr = 16}
// AVX2:         memref<?x?x8xf32>
// AVX2:         loop.gemm_tile {{.*}} {axis = 1, mr = 6, nr = 8}
// AVX512-LABEL: func.func @gemm
// AVX512:       memref<?x?x32xf32>
// AVX512:       memref<?x?x12xf32>
// AVX512:       loop.gemm_tile {{.*}} {axis = 1, mr = 12, nr = 32}
// AVX512:       memref<?x?x16xf32>
// AVX512:       loop.gemm_tile {{.*}} {axis = 1, mr = 12, nr = 16}
// BAD: error: simd option 'wide': expected BYTESxCOUNT, e.g. 64x32 (AVX-512) or 32x16 (AVX2)
func.func @gemm(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %At = tensor.transpose %A {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %out = tensor.gemm %At, %B {alpha = 1.0, beta = 0.0} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %out : tensor<?x?xf32>
}
