// RUN: irc-opt %s -p 'lower-to-loops{simd=64x32}' --split-input-file | filecheck %s

// gemv of a row-major A: the parallel loop is outermost, over the full blocks of 4 rows; each
// block walks its 4 rows in one reduction loop (4 accumulators share each load of x); alpha
// and beta·y are applied once per row. The rows left (m mod 4) follow, one per iteration.
// CHECK-LABEL: func.func @gemv
// CHECK:         %[[OUT:.*]] = loop.alloc
// CHECK-NEXT:    %[[BLOCKS:.*]] = loop.floordiv %{{.*}}, %[[FOUR:.*]] : index
// CHECK-NEXT:    loop.parallel (%blk) = (%{{.*}}) to (%[[BLOCKS]])
// CHECK-NEXT:      %[[I:.*]] = loop.mul %blk, %[[FOUR]]
// CHECK-COUNT-4:   loop.subview %A
// CHECK:           loop.for %q = {{.*}} iter_args(%acc = %{{.*}}, %acc_1 = %{{.*}}, %acc_2 = %{{.*}}, %acc_3 = %{{.*}}) -> (f32, f32, f32, f32) {
// CHECK-NEXT:        %[[XQ:.*]] = loop.load %x[%q]
// CHECK-NEXT:        loop.load %{{.*}}[%{{.*}}, %q]
// CHECK-NEXT:        scalar.mul %{{.*}}, %[[XQ]]
// CHECK-NEXT:        scalar.add %acc,
// CHECK:             loop.yield {{.*}} : f32, f32, f32, f32
// CHECK-NEXT:      } {reduction}
// CHECK-NEXT:      loop.load %y[%[[I]]]
// CHECK:           loop.store %{{.*}}, %[[OUT]][%[[I]]]
// CHECK-COUNT-3:   loop.store %{{.*}}, %[[OUT]][
// CHECK-NEXT:      loop.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[DONE:.*]] = loop.mul %[[BLOCKS]], %[[FOUR]]
// CHECK-NEXT:    %[[REST:.*]] = loop.sub %{{.*}}, %[[DONE]]
// CHECK-NEXT:    loop.parallel (%t) = (%{{.*}}) to (%[[REST]])
// CHECK:           loop.for %q_1 = {{.*}} iter_args(%acc_4 = %{{.*}}) -> (f32) {
// CHECK:           } {reduction}
// CHECK:         func.return %[[OUT]]
func.func @gemv(%A: tensor<?x?xf32>, %x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %out = tensor.gemv %A, %x, %y {alpha = 2.0, beta = 0.5} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %out : tensor<?xf32>
}

// -----

// gemv of a transposed view (Xᵀ·d, the gradient of X·w): 8 chunks of X's rows in parallel,
// each summed into its own row of an 8×n buffer of partials, 4 rows of X per pass over it
// (then the rows left in the chunk one by one); one parallel pass adds the 8 partials.
// CHECK-LABEL: func.func @gemvt
// CHECK:         %[[XT:.*]] = loop.broadcast %X
// CHECK:         %[[OUT:.*]] = loop.alloc
// CHECK-NEXT:    %[[PART:.*]] = loop.alloc %{{.*}} : (index) -> memref<8x?xf64>
// CHECK:         loop.parallel (%c) = (%{{.*}}) to (%[[EIGHT:.*]]) step
// CHECK:           loop.for %j = {{.*}} {
// CHECK-NEXT:        scalar.constant {value = 0.0} : f64
// CHECK-NEXT:        loop.store %{{.*}}, %[[PART]][%c, %j]
// CHECK:           loop.for %r = %{{.*}} to %[[STEPPED:.*]] step %[[FOUR:.*]] {
// CHECK-COUNT-4:     loop.load %d[
// CHECK-COUNT-4:     loop.subview %[[XT]]
// CHECK-NEXT:        loop.for %j_1 = {{.*}} {
// CHECK-COUNT-4:       scalar.mul
// CHECK-COUNT-3:       scalar.add
// CHECK-NEXT:          %[[P:.*]] = loop.load %[[PART]][%c, %j_1]
// CHECK-NEXT:          %[[S:.*]] = scalar.add %[[P]]
// CHECK-NEXT:          loop.store %[[S]], %[[PART]][%c, %j_1]
// CHECK:           loop.for %r_1 = %[[STEPPED]] to
// CHECK:         loop.parallel (%j_3) =
// CHECK-COUNT-8:   loop.load %[[PART]][
// CHECK:           loop.load %y[%j_3]
// CHECK:           loop.store %{{.*}}, %[[OUT]][%j_3]
// CHECK:         loop.dealloc %[[PART]]
// CHECK-NEXT:    func.return %[[OUT]]
func.func @gemvt(%X: tensor<?x?xf64>, %d: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %Xt = tensor.dimshuffle %X {pattern = array<i64: 1, 0>} : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %out = tensor.gemv %Xt, %d, %y {alpha = 0.5, beta = 2.0} : (tensor<?x?xf64>, tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  func.return %out : tensor<?xf64>
}

// -----

// A transpose of a transpose is row-major again: dot products of rows, no partials.
// CHECK-LABEL: func.func @gemv_twice_transposed
// CHECK-NOT:     memref<8x?xf32>
// CHECK:         loop.parallel (%blk)
// CHECK:           iter_args(%acc = %{{.*}}, %acc_1 = %{{.*}}, %acc_2 = %{{.*}}, %acc_3 = %{{.*}})
func.func @gemv_twice_transposed(%A: tensor<?x?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %t = tensor.dimshuffle %A {pattern = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %tt = tensor.transpose %t {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %out = tensor.dot %tt, %x : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %out : tensor<?xf32>
}

// -----

// gemm of Aᵀ (the gradient's Xᵀ·δ): B is packed into panels of 32 columns (parallel over
// panels, zero past n), Aᵀ into tiles of 12 rows, each step copying a run of A's row (zero
// past m; none when one panel covers n; a row-major A is read in place); then ONE parallel loop over
// output blocks; per slice of k, per panel, per tile: the 12×32 register tile, one
// `loop.gemm_tile` in an `irc.kernel` loop (before it, on the first slice only, the lines of
// C's tile are prefetched: 12 rows × 3), summed over the slice into a scratch tile; on the
// first slice a loop folds beta·C into the tile (so that no loop reads C while it writes out:
// C may be out's own storage), then a loop with run-time bounds writes the valid rows and
// columns: that tile first, out + alpha·tile after (a select).
// CHECK-LABEL: func.func @gemm
// CHECK:         %[[OUT:.*]] = loop.alloc
// CHECK:         %[[PANELS:.*]] = loop.alloc %[[NP:.*]], %{{.*}} : (index, index) -> memref<?x?x32xf32>
// CHECK-NEXT:    loop.parallel (%g) = (%{{.*}}) to (%[[NP]])
// CHECK:           loop.for %q = {{.*}} {
// CHECK-NEXT:        loop.for %w = {{.*}} {
// CHECK:               %[[B:.*]] = loop.load %B[%q,
// CHECK-NEXT:          loop.store %[[B]], %[[PANELS]][%g, %q, %w]
// CHECK:           loop.for %q_1 = {{.*}} {
// CHECK-NEXT:        loop.for %w_1 = {{.*}} {
// CHECK-NEXT:          scalar.constant {value = 0.0 : f32}
// CHECK-NEXT:          loop.store %{{.*}}, %[[PANELS]][%g, %q_1, %w_1]
// CHECK:         %[[TILES:.*]] = loop.alloc {{.*}} -> memref<?x?x12xf32>
// CHECK-NEXT:    loop.parallel (%g_1)
// CHECK:           loop.for %q_2 = {{.*}} {
// CHECK-NEXT:        loop.for %w_2 = {{.*}} {
// CHECK:               %[[A:.*]] = loop.load %At[%{{.*}}, %q_2]
// CHECK-NEXT:          loop.store %[[A]], %[[TILES]][%g_1, %q_2, %w_2]
// CHECK:         %[[TILE:.*]] = loop.alloc %{{.*}} : (index) -> memref<?x12x32xf32>
// CHECK:         loop.parallel (%blk) =
// CHECK-NOT:       loop.parallel
// CHECK:           loop.for %kb = {{.*}} {
// CHECK:             %[[LATER:.*]] = scalar.gt %kb,
// CHECK:             %[[FIRST:.*]] = loop.max %{{.*}}, %{{.*}} : index
// CHECK-NEXT:        loop.for %p = {{.*}} {
// CHECK:               loop.for %s = {{.*}} {
// CHECK:                 loop.for %{{.*}} = %{{.*}} to %[[FIRST]] step
// CHECK-COUNT-36:          loop.prefetch %C[{{.*}}] {locality = 3}
// CHECK:                 loop.for
// CHECK-NEXT:              loop.gemm_tile %[[TILES]], %s, %{{.*}}, %[[PANELS]], %p, %{{.*}}, %{{.*}}, %[[TILE]], %blk {axis = 1, mr = 12, nr = 32}
// CHECK-NEXT:              loop.yield
// CHECK-NEXT:            } {irc.kernel = "gemm tile 12x32"}
// CHECK:                 %[[ROWS:.*]] = loop.mul %{{.*}}, %[[FIRST]] : index
// CHECK-NEXT:            loop.for %r = %{{.*}} to %[[ROWS]] step
// CHECK-NEXT:              loop.for %t = {{.*}} {
// CHECK:                     loop.load %C[
// CHECK:                     loop.load %[[TILE]][%blk, %r, %t]
// CHECK:                     loop.store %{{.*}}, %[[TILE]][%blk, %r, %t]
// CHECK:                 loop.for %r_1 = {{.*}} {
// CHECK-NEXT:              loop.for %t_1 = {{.*}} {
// CHECK-NEXT:                loop.add
// CHECK-NEXT:                loop.add
// CHECK-NEXT:                loop.load %[[TILE]][%blk, %r_1, %t_1]
// CHECK-NEXT:                loop.load %[[OUT]][
// CHECK:                     scalar.select %[[LATER]],
// CHECK-NEXT:                loop.store %{{.*}}, %[[OUT]][
// CHECK:               loop.for %s_1 = {{.*}} {
// CHECK:                 loop.gemm_tile %At, {{.*}} {axis = 1, mr = 12, nr = 32}
// CHECK:         loop.dealloc %[[TILE]]
func.func @gemm(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>, %C: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %At = tensor.transpose %A {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %out = tensor.gemm %At, %B, %C {alpha = 2.0, beta = 0.5} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %out : tensor<?x?xf32>
}

// -----

// A·Wᵀ (f64: panels of 16): the same kernel; only the packing reads 16 of W's rows side by
// side (the last valid one again past n, then 0), so each step stores one contiguous run.
// CHECK-LABEL: func.func @gemm_bt
// CHECK:         %[[WT:.*]] = loop.transpose %W
// CHECK:         %[[PANELS:.*]] = loop.alloc {{.*}} -> memref<?x?x16xf64>
// CHECK-NEXT:    loop.parallel (%g)
// CHECK-COUNT-16:  scalar.lt
// CHECK:           loop.for %q = {{.*}} {
// CHECK-COUNT-16:    loop.load %[[WT]][%q,
// CHECK-NEXT:        scalar.select
// CHECK-NEXT:        loop.store %{{.*}}, %[[PANELS]][%g, %q,
// CHECK:         loop.parallel (%blk)
// CHECK:           loop.gemm_tile %A, {{.*}} {axis = 1, mr = 12, nr = 16}
func.func @gemm_bt(%A: tensor<?x?xf64>, %W: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %Wt = tensor.transpose %W {permutation = array<i64: 1, 0>} : (tensor<?x?xf64>) -> tensor<?x?xf64>
  %out = tensor.dot %A, %Wt : (tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  func.return %out : tensor<?x?xf64>
}

// -----

// x·B: a combination of B's rows (the same partial-sum kernel as Xᵀ·d).
// CHECK-LABEL: func.func @vecmat
// CHECK:         loop.alloc %{{.*}} : (index) -> memref<8x?xf32>
// CHECK:         loop.parallel (%c)
// CHECK:         loop.parallel (%j
func.func @vecmat(%x: tensor<?xf32>, %B: tensor<?x?xf32>) -> tensor<?xf32> {
  %out = tensor.dot %x, %B : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?xf32>
  func.return %out : tensor<?xf32>
}

// -----

// An epilogue (tanh of a hidden layer) is applied as the tile is written on the last slice of
// k: the write is two loops, the first for the other slices, the second (its trip count times
// 1 on the last slice only) with the function; no pass over the block after it.
// A bias row, broadcast over the rows, is not prefetched (it stays in L1).
// CHECK-LABEL: func.func @gemm_tanh
// CHECK:         loop.parallel (%blk)
// CHECK-NOT:       loop.prefetch
// CHECK:           scalar.select
// CHECK-NEXT:      loop.store %{{.*}}, %out[
// CHECK:           scalar.select
// CHECK-NEXT:      scalar.tanh
// CHECK-NEXT:      loop.store %{{.*}}, %out[
// CHECK-NOT:       scalar.tanh
// CHECK:         loop.parallel (%g_1)
func.func @gemm_tanh(%A: tensor<?x?xf32>, %B: tensor<?x?xf32>, %b: tensor<1x?xf32>) -> tensor<?x?xf32> {
  %out = tensor.gemm %A, %B, %b {alpha = 1.0, beta = 1.0, epilogue = "tanh"} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<1x?xf32>) -> tensor<?x?xf32>
  func.return %out : tensor<?x?xf32>
}
