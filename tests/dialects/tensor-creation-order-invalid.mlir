// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

func.func @alloc_rank(%v: tensor<1xf32>, %n: tensor<i64>) -> tensor<?x?xf32> {
  // CHECK: error: 'tensor.alloc' op value tensor<1xf32> has rank 1 but 2 size(s) are given
  %0 = tensor.alloc %v, %n, %n : (tensor<1xf32>, tensor<i64>, tensor<i64>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}

// -----

func.func @iota_length(%n: tensor<f32>) -> tensor<?xi64> {
  // CHECK: error: 'tensor.iota' op length 0 must be a 0-d i64 tensor, got tensor<f32>
  %0 = tensor.iota %n : (tensor<f32>) -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}

// -----

func.func @sort_axis(%x: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: error: 'tensor.sort' op axis 1 is out of range for tensor<?xf32>
  %0 = tensor.sort %x {axis = 1, kind = "values"} : tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @cumulative_kind(%x: tensor<?xi1>) -> tensor<?xi1> {
  // CHECK: error: 'tensor.cumulative' op needs a numeric operand, got tensor<?xi1>
  %0 = tensor.cumulative %x {axis = 0, kind = "sum"} : tensor<?xi1>
  func.return %0 : tensor<?xi1>
}

// -----

func.func @from_elements_mixed(%a: tensor<i64>, %b: tensor<i32>) -> tensor<2xi64> {
  // CHECK: error: 'tensor.from_elements' op element 1 must be a 0-d i64 tensor, got tensor<i32>
  %0 = tensor.from_elements %a, %b : (tensor<i64>, tensor<i32>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}

// -----

func.func @dynamic_slice_axis(%x: tensor<?xf32>, %i: tensor<i64>) -> tensor<?xf32> {
  // CHECK: error: 'tensor.dynamic_slice' op axis 1 is out of range for tensor<?xf32>
  %0 = tensor.dynamic_slice %x, %i, %i {axis = 1} : (tensor<?xf32>, tensor<i64>, tensor<i64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_slice_bound(%x: tensor<?xf32>, %i: tensor<i32>) -> tensor<?xf32> {
  // CHECK: error: 'tensor.dynamic_slice' op start must be a 0-d i64 tensor, got tensor<i32>
  %0 = tensor.dynamic_slice %x, %i, %i {axis = 0} : (tensor<?xf32>, tensor<i32>, tensor<i32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
