// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

func.func @float_index(%x: tensor<?xf32>, %i: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.gather' op index #0 must be an integer tensor, got tensor<?xf32>
  %0 = tensor.gather %x, %i : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @bool_index(%x: tensor<?xf32>, %i: tensor<?xi1>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.gather' op index #0 must be an integer tensor, got tensor<?xi1>
  %0 = tensor.gather %x, %i : (tensor<?xf32>, tensor<?xi1>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @too_many(%x: tensor<?xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.gather' op has 2 index arrays for the 1 axes of tensor<?xf32>
  %0 = tensor.gather %x, %i, %i : (tensor<?xf32>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @ranks_differ(%x: tensor<?x?xf32>, %i: tensor<?xi64>, %j: tensor<?x?xi64>) -> tensor<?x?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.gather' op operands must have the same rank
  %0 = tensor.gather %x, %i, %j : (tensor<?x?xf32>, tensor<?xi64>, tensor<?x?xi64>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}

// -----

func.func @shapes_differ(%x: tensor<?x?xf32>, %i: tensor<3xi64>, %j: tensor<4xi64>) -> tensor<3xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.gather' op operands have incompatible shapes tensor<3xi64> and tensor<4xi64>
  %0 = tensor.gather %x, %i, %j : (tensor<?x?xf32>, tensor<3xi64>, tensor<4xi64>) -> tensor<3xf32>
  func.return %0 : tensor<3xf32>
}

// -----

func.func @wrong_result(%x: tensor<?x3xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.gather' op result #0 has type tensor<?xf32>, but the operands give tensor<?x3xf32>
  %0 = tensor.gather %x, %i : (tensor<?x3xf32>, tensor<?xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @no_index(%x: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.gather' op expects the source and at least one index array
  %0 = tensor.gather %x : (tensor<?xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @bad_mode(%x: tensor<?xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.scatter' op mode must be one of add, set, got 'mul'
  %0 = tensor.scatter %x, %x, %i {mode = "mul"} : (tensor<?xf32>, tensor<?xf32>, tensor<?xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @no_mode(%x: tensor<?xf32>, %i: tensor<?xi64>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.scatter' op requires a string 'mode' attribute
  %0 = tensor.scatter %x, %x, %i : (tensor<?xf32>, tensor<?xf32>, tensor<?xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @src_misfit(%x: tensor<?x3xf32>, %y: tensor<?x4xf32>, %i: tensor<?xi64>) -> tensor<?x3xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.scatter' op src tensor<?x4xf32> does not fit tensor<?x3xf32>, the places the indices select in dest tensor<?x3xf32>
  %0 = tensor.scatter %x, %y, %i {mode = "add"} : (tensor<?x3xf32>, tensor<?x4xf32>, tensor<?xi64>) -> tensor<?x3xf32>
  func.return %0 : tensor<?x3xf32>
}

// -----

func.func @src_dtype(%x: tensor<?xf32>, %y: tensor<?xf64>, %i: tensor<?xi64>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.scatter' op src tensor<?xf64> does not fit
  %0 = tensor.scatter %x, %y, %i {mode = "set"} : (tensor<?xf32>, tensor<?xf64>, tensor<?xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
