// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

// CHECK: [[# @LINE + 2]]:3: error: 'tensor.if' op condition must be a 0-d tensor<i1>, got tensor<?xi1>
func.func @vector_condition(%c: tensor<?xi1>, %x: tensor<f32>) -> tensor<f32> {
  %r = "tensor.if"(%c) ({
    "tensor.yield"(%x) : (tensor<f32>) -> ()
  }, {
    "tensor.yield"(%x) : (tensor<f32>) -> ()
  }) : (tensor<?xi1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// CHECK: [[# @LINE + 2]]:3: error: 'tensor.if' op the else region yields tensor<f64> as result #0, which must be tensor<f32>
func.func @branch_types_differ(%c: tensor<i1>, %x: tensor<f32>, %y: tensor<f64>) -> tensor<f32> {
  %r = "tensor.if"(%c) ({
    "tensor.yield"(%x) : (tensor<f32>) -> ()
  }, {
    "tensor.yield"(%y) : (tensor<f64>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// CHECK: error: 'tensor.if' op the then region yields 0 value(s) but the op has 1 result(s)
func.func @count(%c: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = "tensor.if"(%c) ({
    "tensor.yield"() : () -> ()
  }, {
    "tensor.yield"(%x) : (tensor<f32>) -> ()
  }) : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// CHECK: error: 'tensor.if' op the else region must end with 'tensor.yield'
func.func @no_yield(%c: tensor<i1>, %x: tensor<f32>) -> tensor<f32> {
  %r = "tensor.if"(%c) ({
    "tensor.yield"(%x) : (tensor<f32>) -> ()
  }, {
    func.return %x : tensor<f32>
  }) : (tensor<i1>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

// CHECK: error: 'tensor.yield' op must end a region of 'tensor.if'
func.func @stray_yield(%x: tensor<f32>) -> tensor<f32> {
  "tensor.yield"(%x) : (tensor<f32>) -> ()
}
