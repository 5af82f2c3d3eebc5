// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

func.func @state_type(%s: tensor<?xi32>) -> tensor<f32> {
  // CHECK: error: 'tensor.random' op state must be an i64 vector of 3 ([key0, key1, draw]), got tensor<?xi32>
  %0 = tensor.random %s {distribution = "uniform", dtype = f32} : (tensor<?xi32>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @distribution(%s: tensor<3xi64>) -> tensor<f32> {
  // CHECK: error: 'tensor.random' op distribution must be one of uniform, normal, got 'gamma'
  %0 = tensor.random %s {distribution = "gamma", dtype = f32} : (tensor<3xi64>) -> tensor<f32>
  func.return %0 : tensor<f32>
}

// -----

func.func @dtype(%s: tensor<3xi64>) -> tensor<i32> {
  // CHECK: error: 'tensor.random' op dtype must be f32 or f64, got i32
  %0 = tensor.random %s {distribution = "uniform", dtype = i32} : (tensor<3xi64>) -> tensor<i32>
  func.return %0 : tensor<i32>
}

// -----

func.func @size(%s: tensor<3xi64>, %n: tensor<?xi64>) -> tensor<?xf32> {
  // CHECK: error: 'tensor.random' op size 0 must be a 0-d i64 tensor, got tensor<?xi64>
  %0 = tensor.random %s, %n {distribution = "uniform", dtype = f32} : (tensor<3xi64>, tensor<?xi64>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
