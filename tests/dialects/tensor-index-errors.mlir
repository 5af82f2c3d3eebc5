// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

func.func @float_index(%x: tensor<?xf32>, %i: tensor<f32>) -> tensor<f32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.index' op index #0 must be a 0-d integer tensor, got tensor<f32>
  %0 = tensor.index %x, %i {axes = array<i64: 0>} : (tensor<?xf32>, tensor<f32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @bool_index(%x: tensor<?xf32>, %i: tensor<i1>) -> tensor<f32> {
  // CHECK: error: 'tensor.index' op index #0 must be a 0-d integer tensor, got tensor<i1>
  %0 = tensor.index %x, %i {axes = array<i64: 0>} : (tensor<?xf32>, tensor<i1>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @axis_out_of_range(%x: tensor<?xf32>, %i: tensor<i64>) -> tensor<f32> {
  // CHECK: error: 'tensor.index' op axes [1] must be sorted, distinct and within the rank 1
  %0 = tensor.index %x, %i {axes = array<i64: 1>} : (tensor<?xf32>, tensor<i64>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @count(%x: tensor<?x?xf32>, %i: tensor<i64>) -> tensor<f32> {
  // CHECK: error: 'tensor.index' op has 1 index operand(s) for 2 axes [0, 1]
  %0 = tensor.index %x, %i {axes = array<i64: 0, 1>} : (tensor<?x?xf32>, tensor<i64>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @rank(%x: tensor<?x?xf32>, %i: tensor<i64>) -> tensor<?x?xf32> {
  // CHECK: error: 'tensor.index' op result #0 has type tensor<?x?xf32>, but the operands give tensor<?xf32>
  %0 = tensor.index %x, %i {axes = array<i64: 0>} : (tensor<?x?xf32>, tensor<i64>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}

// -----

func.func @insert_misfit(%x: tensor<?x4xf32>, %s: tensor<3xf32>, %i: tensor<i64>) -> tensor<?x4xf32> {
  // CHECK: error: 'tensor.insert_index' op src tensor<3xf32> does not fit tensor<4xf32>, dest tensor<?x4xf32> at the index (dim 0: 3 vs 4)
  %0 = tensor.insert_index %x, %s, %i {axes = array<i64: 0>} : (tensor<?x4xf32>, tensor<3xf32>, tensor<i64>) -> tensor<?x4xf32>
  func.return %0 : tensor<?x4xf32>
}

// -----

func.func @check_index_types(%i: index, %n: i64) -> () {
  // CHECK: error: 'loop.check_index' op operands and result must be of type index, got i64
  %0 = loop.check_index %i, %n {msg = "m"} : (index, i64) -> index
  func.return
}
