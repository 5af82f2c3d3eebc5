// RUN: irc-opt %s -p fuse-elementwise --split-input-file | filecheck %s
// RUN: irc-opt %s -p 'fuse-elementwise{max-outputs=2}' --split-input-file | filecheck %s --check-prefix=OUT2

// A value returned and summed, and another result of the same group: one loop nest yields
// the kept values first, then the reduced one (read and written once).
// CHECK-LABEL: func.func @kept_and_summed
// CHECK-NEXT:    %[[F:.*]]:3 = tensor.fused_reduce(%[[X:.*]] = %x, %[[Y:.*]] = %y) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi1>, tensor<f32>) {
// CHECK-NEXT:      %[[E:.*]] = scalar.exp %[[X]] : f32
// CHECK-NEXT:      %[[D:.*]] = scalar.sub %[[E]], %[[Y]] : f32
// CHECK-NEXT:      %[[C:.*]] = scalar.gt %[[D]], %[[X]] : (f32, f32) -> i1
// CHECK-NEXT:      scalar.yield %[[D]], %[[C]], %[[D]] : f32, i1, f32
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[F]]#0, %[[F]]#1, %[[F]]#2
func.func @kept_and_summed(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xi1>, tensor<f32>) {
  %e = tensor.exp %x : tensor<?xf32>
  %d = tensor.sub %e, %y : tensor<?xf32>
  %c = tensor.gt %d, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xi1>
  %s = tensor.reduce %d {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
  func.return %d, %c, %s : tensor<?xf32>, tensor<?xi1>, tensor<f32>
}

// -----

// Two sums over the same axes of one group: two reduced results, nothing kept.
// CHECK-LABEL: func.func @two_sums
// CHECK-NEXT:    %[[F:.*]]:2 = tensor.fused_reduce(%{{.*}} = %x, %{{.*}} = %y) {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf64>, tensor<?x?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
// CHECK:           scalar.yield %{{.*}}, %{{.*}} : f64, f64
// CHECK-NOT:     tensor.reduce
// CHECK:         func.return %[[F]]#0, %[[F]]#1
func.func @two_sums(%x: tensor<?x?xf64>, %y: tensor<?x?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %p = tensor.mul %x, %y : tensor<?x?xf64>
  %q = tensor.mul %x, %x : tensor<?x?xf64>
  %a = tensor.reduce %p {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf64>) -> tensor<?xf64>
  %b = tensor.reduce %q {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf64>) -> tensor<?xf64>
  func.return %a, %b : tensor<?xf64>, tensor<?xf64>
}

// -----

// One loop nest computes one kind of reduction: the sum (first in the block) joins, the max
// reads the kept value.
// CHECK-LABEL: func.func @different_kinds
// CHECK-NEXT:    %[[F:.*]]:2 = tensor.fused_reduce(%{{.*}} = %x) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>)
// CHECK:         %[[M:.*]] = tensor.reduce %[[F]]#0 {axes = array<i64: 0>, kind = "max"}
// CHECK-NEXT:    func.return %[[F]]#1, %[[M]]
func.func @different_kinds(%x: tensor<?xf32>) -> (tensor<f32>, tensor<f32>) {
  %e = tensor.exp %x : tensor<?xf32>
  %s = tensor.reduce %e {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
  %m = tensor.reduce %e {axes = array<i64: 0>, kind = "max"} : (tensor<?xf32>) -> tensor<f32>
  func.return %s, %m : tensor<f32>, tensor<f32>
}

// -----

// Groups reduced in different ways are not merged although they read the same %x: each keeps
// its reduction (merged, one of them would have to store a full matrix).
// CHECK-LABEL: func.func @reduced_differently
// CHECK-NEXT:    %[[R:.*]] = tensor.fused_reduce(%{{.*}} = %x, %{{.*}} = %y) {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?xf32>
// CHECK:         %[[C:.*]] = tensor.fused_reduce(%{{.*}} = %x) {axes = array<i64: 0>, kind = "max"} : (tensor<?x?xf32>) -> tensor<?xf32>
// CHECK-NOT:     tensor.reduce
// CHECK:         func.return %[[R]], %[[C]]
func.func @reduced_differently(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.exp %x : tensor<?x?xf32>
  %m = tensor.mul %e, %y : tensor<?x?xf32>
  %r = tensor.reduce %m {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %t = tensor.tanh %x : tensor<?x?xf32>
  %c = tensor.reduce %t {axes = array<i64: 0>, kind = "max"} : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %r, %c : tensor<?xf32>, tensor<?xf32>
}

// -----

// Softmax: the reduced sum feeds back into the division, which reads %e too; the division
// stays outside the group (in it, the op would read its own result). %e and its sum share a
// loop nest; the max over the argument has no producer to take in.
// CHECK-LABEL: func.func @softmax
// CHECK-NEXT:    %[[M:.*]] = tensor.reduce %x {axes = array<i64: 1>, kind = "max"}
// CHECK-NEXT:    %[[MD:.*]] = tensor.dimshuffle %[[M]]
// CHECK-NEXT:    %[[F:.*]]:2 = tensor.fused_reduce(%{{.*}} = %x, %{{.*}} = %[[MD]]) {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>, tensor<?x1xf32>) -> (tensor<?x?xf32>, tensor<?xf32>)
// CHECK:           scalar.sub
// CHECK-NEXT:      %[[E:.*]] = scalar.exp
// CHECK-NEXT:      scalar.yield %[[E]], %[[E]] : f32, f32
// CHECK:         %[[SD:.*]] = tensor.dimshuffle %[[F]]#1
// CHECK-NEXT:    %[[O:.*]] = tensor.div %[[F]]#0, %[[SD]]
// CHECK-NEXT:    func.return %[[O]]
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = tensor.reduce %x {axes = array<i64: 1>, kind = "max"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %md = tensor.dimshuffle %m {pattern = array<i64: 0, -1>} : (tensor<?xf32>) -> tensor<?x1xf32>
  %z = tensor.sub %x, %md : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %e = tensor.exp %z : tensor<?x?xf32>
  %s = tensor.reduce %e {axes = array<i64: 1>, kind = "sum"} : (tensor<?x?xf32>) -> tensor<?xf32>
  %sd = tensor.dimshuffle %s {pattern = array<i64: 0, -1>} : (tensor<?xf32>) -> tensor<?x1xf32>
  %o = tensor.div %e, %sd : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  func.return %o : tensor<?x?xf32>
}

// -----

// A cycle through two groups: {exp x, x - max(exp t)} and {exp t, t - max(exp x)} each read
// the other's reduction. Horizontally (%x's readers, %t's readers) each pair would merge, and
// the two fused ops would then wait for each other. One pair merges, the other stays apart.
// CHECK-LABEL: func.func @cycle_between_groups
// CHECK:         %[[P:.*]]:2 = tensor.fused_reduce(%{{.*}} = %t) {axes = array<i64: 0>, kind = "max"}
// CHECK:         %[[D2:.*]] = tensor.dimshuffle %[[P]]#1
// CHECK:         %[[Q:.*]]:3 = tensor.fused_reduce(%{{.*}} = %x, %{{.*}} = %[[D2]]) {axes = array<i64: 0>, kind = "max"}
// CHECK:         %[[D1:.*]] = tensor.dimshuffle %[[Q]]#2
// CHECK:         %[[B1:.*]] = tensor.sub %t, %[[D1]]
// CHECK:         func.return %[[B1]], %[[Q]]#1, %[[Q]]#0, %[[P]]#0
func.func @cycle_between_groups(%x: tensor<?xf32>, %t: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %a1 = tensor.exp %x : tensor<?xf32>
  %r1 = tensor.reduce %a1 {axes = array<i64: 0>, kind = "max"} : (tensor<?xf32>) -> tensor<f32>
  %d1 = tensor.dimshuffle %r1 {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %b2 = tensor.exp %t : tensor<?xf32>
  %r2 = tensor.reduce %b2 {axes = array<i64: 0>, kind = "max"} : (tensor<?xf32>) -> tensor<f32>
  %d2 = tensor.dimshuffle %r2 {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %b1 = tensor.sub %t, %d1 : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  %a2 = tensor.sub %x, %d2 : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  func.return %b1, %a2, %a1, %b2 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// max-outputs counts the reduced results: with 2, the group's two returned values fill it
// and the sum stays a tensor.reduce.
// CHECK-LABEL: func.func @limits
// CHECK-NEXT:    %[[F:.*]]:3 = tensor.fused_reduce(%{{.*}} = %x, %{{.*}} = %y) {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<f32>)
// OUT2-LABEL: func.func @limits
// OUT2-NEXT:    %[[F:.*]]:2 = tensor.fused(%{{.*}} = %x, %{{.*}} = %y) : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
// OUT2:         %[[S:.*]] = tensor.reduce %[[F]]#1 {axes = array<i64: 0>, kind = "sum"}
// OUT2-NEXT:    func.return %[[F]]#0, %[[F]]#1, %[[S]]
func.func @limits(%x: tensor<?xf32>, %y: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<f32>) {
  %a = tensor.mul %x, %y : tensor<?xf32>
  %e = tensor.exp %a : tensor<?xf32>
  %s = tensor.reduce %e {axes = array<i64: 0>, kind = "sum"} : (tensor<?xf32>) -> tensor<f32>
  func.return %a, %e, %s : tensor<?xf32>, tensor<?xf32>, tensor<f32>
}
