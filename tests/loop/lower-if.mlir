// RUN: irc-opt %s -p lower-to-loops --split-input-file | filecheck %s

// Each branch is lowered inside its loop.if region: the then-branch allocates and fills its
// result buffer and yields it, the else-branch (an argument) yields a copy; the result is
// freed after its last use, which is at the top level.
// CHECK-LABEL: func.func @branches
// CHECK:         %[[C:.*]] = loop.load %c[]
// CHECK:         %[[R:.*]] = "loop.if"(%[[C]]) ({
// CHECK:           %[[A:.*]] = loop.alloc
// CHECK:           scalar.exp
// CHECK:           loop.yield %[[A]] : memref<?xf32>
// CHECK:         }, {
// CHECK:           %[[B:.*]] = loop.alloc
// CHECK:           loop.load %x
// CHECK:           loop.yield %[[B]] : memref<?xf32>
// CHECK:         }) : (i1) -> memref<?xf32>
// CHECK:         scalar.add
// CHECK:         loop.dealloc %[[R]]
// CHECK:         func.return
func.func @branches(%c: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %r = "tensor.if"(%c) ({
    %a = tensor.exp %x : tensor<?xf32>
    "tensor.yield"(%a) : (tensor<?xf32>) -> ()
  }, {
    "tensor.yield"(%x) : (tensor<?xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?xf32>
  %s = tensor.add %r, %x : tensor<?xf32>
  func.return %s : tensor<?xf32>
}

// -----

// One-element results are yielded as scalars; a temporary of a branch is freed in it.
// CHECK-LABEL: func.func @scalars
// CHECK:         "loop.if"
// CHECK:           %[[T:.*]] = loop.alloc
// CHECK:           loop.dealloc %[[T]]
// CHECK:           loop.yield %{{.*}} : f32
// CHECK:         }, {
// CHECK:           loop.yield %{{.*}} : f32
// CHECK:         }) : (i1) -> f32
func.func @scalars(%c: tensor<i1>, %x: tensor<?xf32>, %y: tensor<f32>) -> tensor<f32> {
  %r = "tensor.if"(%c) ({
    %e = tensor.exp %x : tensor<?xf32>
    %s = tensor.reduce %e {axes = array<i64: 0>, kind = "max"} : (tensor<?xf32>) -> tensor<f32>
    "tensor.yield"(%s) : (tensor<f32>) -> ()
  }, {
    "tensor.yield"(%y) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}
