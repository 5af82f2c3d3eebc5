// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

func.func @state_type(%n: tensor<i64>, %h0: tensor<1x?xf32>) -> tensor<?x?xf64> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.scan' op result #0 yields tensor<?xf64> but its initial state is tensor<?xf32>: a recurrent value keeps its dtype and rank
  %r = "tensor.scan"(%n, %h0) ({
  ^bb0(%h: tensor<?xf32>):
    %c = tensor.cast %h {to = f64} : (tensor<?xf32>) -> tensor<?xf64>
    tensor.scan_yield %c : tensor<?xf64>
  }) {sequences = 0 : i64, taps = [array<i64: -1>]} : (tensor<i64>, tensor<1x?xf32>) -> tensor<?x?xf64>
  func.return %r : tensor<?x?xf64>
}

// -----

func.func @tap_count(%n: tensor<i64>, %h0: tensor<2x?xf32>) -> tensor<?x?xf32> {
  // CHECK: error: 'tensor.scan' op body takes 1 argument(s) but the operands give 2
  %r = "tensor.scan"(%n, %h0) ({
  ^bb0(%h: tensor<?xf32>):
    tensor.scan_yield %h : tensor<?xf32>
  }) {sequences = 0 : i64, taps = [array<i64: -2, -1>]} : (tensor<i64>, tensor<2x?xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// -----

func.func @positive_tap(%n: tensor<i64>, %h0: tensor<1x?xf32>) -> tensor<?x?xf32> {
  // CHECK: error: 'tensor.scan' op taps of result #0 must be distinct negative offsets, got array<i64: 1>
  %r = "tensor.scan"(%n, %h0) ({
  ^bb0(%h: tensor<?xf32>):
    tensor.scan_yield %h : tensor<?xf32>
  }) {sequences = 0 : i64, taps = [array<i64: 1>]} : (tensor<i64>, tensor<1x?xf32>) -> tensor<?x?xf32>
  func.return %r : tensor<?x?xf32>
}

// -----

func.func @float_steps(%n: tensor<f32>, %xs: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: error: 'tensor.scan' op the step count must be a 0-d integer tensor, got tensor<f32>
  %r = "tensor.scan"(%n, %xs) ({
  ^bb0(%x: tensor<f32>):
    tensor.scan_yield %x : tensor<f32>
  }) {sequences = 1 : i64, taps = [array<i64>]} : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// -----

func.func @result_not_stacked(%n: tensor<i64>, %xs: tensor<?xf32>) -> tensor<f32> {
  // CHECK: error: 'tensor.scan' op result #0 has type tensor<f32>, but the body yields tensor<f32> (stacked: tensor<?xf32>)
  %r = "tensor.scan"(%n, %xs) ({
  ^bb0(%x: tensor<f32>):
    tensor.scan_yield %x : tensor<f32>
  }) {sequences = 1 : i64, taps = [array<i64>]} : (tensor<i64>, tensor<?xf32>) -> tensor<f32>
  func.return %r : tensor<f32>
}

// -----

func.func @uses_outer_value(%n: tensor<i64>, %xs: tensor<?xf32>, %y: tensor<f32>) -> tensor<?xf32> {
  %r = "tensor.scan"(%n, %xs) ({
  ^bb0(%x: tensor<f32>):
    // (the body is isolated from above: outer values come in as non-sequences)
    // CHECK: [[# @LINE + 1]]:25: error: use of undeclared SSA value name '%y'
    %s = tensor.add %x, %y : tensor<f32>
    tensor.scan_yield %s : tensor<f32>
  }) {sequences = 1 : i64, taps = [array<i64>]} : (tensor<i64>, tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// -----

func.func @no_yield(%n: tensor<i64>, %xs: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: error: 'tensor.scan' op body must end in 'tensor.scan_yield'
  %r = "tensor.scan"(%n, %xs) ({
  ^bb0(%x: tensor<f32>):
    func.return %x : tensor<f32>
  }) {sequences = 1 : i64, taps = [array<i64>]} : (tensor<i64>, tensor<?xf32>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
