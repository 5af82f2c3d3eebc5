// RUN: irc-opt %s -p lower-to-loops | filecheck %s

// One pass over A's rows: 8 chunks in parallel, each with a private row of partial sums and a
// max accumulator. Whole blocks of 4 rows: the first block's 4 dot products (4 accumulators
// sharing each load of x) and its bodies (a loop); then each next block's dot products and the
// previous block's sum into part[c, :] in ONE loop over the columns, and its 4 bodies written
// out; the last block's sum; the rows left one at a time. Then out = 2·Σ_c part[c, :] + 0.5·y2, and the max over the 8 chunks.
// CHECK-LABEL: func.func @least_squares_max
// CHECK-DAG:     %[[ZERO:.*]] = loop.constant {value = 0 : index}
// CHECK-DAG:     %[[ONE:.*]] = loop.constant {value = 1 : index}
// CHECK-DAG:     %[[FOUR:.*]] = loop.constant {value = 4 : index}
// CHECK-DAG:     %[[EIGHT:.*]] = loop.constant {value = 8 : index}
// CHECK:         %[[M:.*]] = loop.dim %a {axis = 0}
// CHECK:         %[[K:.*]] = loop.dim %a {axis = 1}
// CHECK:         loop.assert_eq %[[M]], %{{.*}} {msg = "'tensor.fused_matvec': row operand #0 differs from A's rows"}
// CHECK:         %[[OUT:.*]] = loop.alloc %[[K]] : (index) -> memref<?xf32>
// CHECK-NEXT:    %zg = loop.alloc %[[M]] : (index) -> memref<?xf32>
// CHECK-NEXT:    %part = loop.alloc %[[K]] : (index) -> memref<8x?xf32>
// CHECK-NEXT:    %[[RED:.*]] = loop.alloc : memref<8xf32>
// CHECK:         loop.parallel (%c) = (%[[ZERO]]) to (%[[EIGHT]]) step (%[[ONE]]) {
// CHECK:           loop.for %j = %[[ZERO]] to %[[K]] step %[[ONE]] {
// CHECK:             loop.store %{{.*}}, %part[%c, %j]
// CHECK:           %[[NEG:.*]] = scalar.constant {value = -inf : f32}
// CHECK:           %[[FIRST:.*]] = loop.for %blk = %{{.*}} step %[[FOUR]] iter_args(%acc = %[[NEG]]) -> (f32) {
// CHECK:             loop.for %q = %[[ZERO]] to %[[K]] step %[[ONE]] iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK:               loop.load %x[%q]
// CHECK-COUNT-4:       scalar.add %acc_{{[0-9]}}
// CHECK:             } {reduction}
// CHECK-COUNT-4:     loop.store %{{.*}}, %zg[
// CHECK:             %[[B1:.*]] = loop.for %r = %blk to %{{.*}} step %[[ONE]] iter_args(%{{.*}} = %acc) -> (f32) {
// CHECK:               scalar.maximum
// CHECK:             } {reduction}
// CHECK-NEXT:        loop.yield %[[B1]] : f32
// CHECK:           %[[NEXT:.*]] = loop.for %blk_1 = %{{.*}} step %[[FOUR]] iter_args(%{{.*}} = %[[FIRST]]) -> (f32) {
// CHECK:             %[[PREV:.*]] = loop.sub %blk_1, %[[FOUR]]
// CHECK:             loop.for %j_1 = %[[ZERO]] to %[[K]] step %[[ONE]] iter_args({{.*}}) -> (f32, f32, f32, f32) {
// CHECK-COUNT-8:       scalar.mul
// CHECK:               loop.store %{{.*}}, %part[%c, %j_1]
// CHECK-NEXT:          loop.yield %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32
// CHECK-NEXT:        } {reduction}
// CHECK-COUNT-4:     scalar.maximum
// CHECK:           loop.for %blk_2 = %{{.*}} step %[[FOUR]] {
// CHECK:             loop.store %{{.*}}, %part[%c, %j_2]
// CHECK:           loop.for %r_1 = %{{.*}} step %[[ONE]] {
// CHECK:             loop.store %{{.*}}, %zg[%r_1]
// CHECK:           %[[TAIL:.*]] = loop.for %r_2 = %{{.*}} step %[[ONE]] iter_args(%{{.*}} = %[[NEXT]]) -> (f32) {
// CHECK:           } {reduction}
// CHECK:           loop.for %r_3 = %{{.*}} step %[[ONE]] {
// CHECK:             loop.store %{{.*}}, %part[%c, %j_3]
// CHECK:           loop.store %[[TAIL]], %[[RED]][%c] : memref<8xf32>
// CHECK:         loop.dealloc %zg
// CHECK:         loop.parallel (%j_4) = (%[[ZERO]]) to (%[[K]]) step (%[[ONE]]) {
// CHECK-COUNT-8:   loop.load %part[
// CHECK:           %[[Y:.*]] = loop.load %y2[%j_4]
// CHECK:           scalar.constant {value = 2.0 : f32}
// CHECK:           scalar.constant {value = 0.5 : f32}
// CHECK:           loop.store %{{.*}}, %[[OUT]][%j_4]
// CHECK-COUNT-8: loop.load %[[RED]][
// CHECK:         func.return %{{.*}}, %[[OUT]] : memref<f32>, memref<?xf32>
func.func @least_squares_max(%a: tensor<?x?xf32>, %x: tensor<?xf32>, %y2: tensor<?xf32>, %t: tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
  %0:2 = tensor.fused_matvec %a, %x, %y2 (%z, %u = %t) {alpha = 2.0, beta = 0.5, kind = "max"} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) -> (tensor<f32>, tensor<?xf32>) {
    %g = scalar.sub %z, %u : f32
    scalar.yield %g, %g : f32, f32
  }
  func.return %0#0, %0#1 : tensor<f32>, tensor<?xf32>
}
