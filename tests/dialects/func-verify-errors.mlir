// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s
// The verifier stops malformed functions and the signature attributes passes and the runtime act on.

// CHECK: [[# @LINE + 1]]:1: error: 'func.func' op the body must end with a terminator ('func.return')
func.func @no_terminator(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.exp %a : tensor<?xf32>
}

// -----

func.func @outer(%a: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'func.func' op must be directly inside a 'builtin.module', not inside 'func.func'
  func.func @inner(%b: tensor<?xf32>) -> tensor<?xf32> {
    func.return %b : tensor<?xf32>
  }
  func.return %a : tensor<?xf32>
}

// -----

// CHECK: error: 'func.func' op result #0: 'irc.update' must be the index of an argument (0 to 0), got 5
func.func @update_out_of_range(%a: tensor<?xf32>) -> (tensor<?xf32> {irc.update = 5 : i64}) {
  func.return %a : tensor<?xf32>
}

// -----

// CHECK: error: 'func.func' op result #0: 'irc.update' must be the index of an argument (0 to 1), got -1
func.func @update_negative(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32> {irc.update = -1 : i64}) {
  func.return %a : tensor<?xf32>
}

// -----

// CHECK: error: 'func.func' op result #0 of type tensor<?xf32> cannot replace argument #0 of type tensor<?x?xf32> ('irc.update')
func.func @update_other_type(%a: tensor<?x?xf32>) -> (tensor<?xf32> {irc.update = 0 : i64}) {
  %0 = tensor.reshape %a {shape = array<i64: -1>} : (tensor<?x?xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

// CHECK: error: 'func.func' op argument #0: 'irc.shared' must be a string (the variable's name)
func.func @shared_not_a_name(%a: tensor<?xf32> {irc.shared = 3 : i64}) -> tensor<?xf32> {
  func.return %a : tensor<?xf32>
}

// -----

func.func @inplace_operand(%a: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: [[# @LINE + 1]]:3: error: 'tensor.exp' op 'inplace' entry #0 is 3: expected -1 or an operand index (0 to 0)
  %0 = tensor.exp %a {inplace = array<i64: 3>} : tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @inplace_length(%a: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: error: 'tensor.exp' op 'inplace' must be an array<i64: ...> of one entry per result (1), got array<i64: 0, 0>
  %0 = tensor.exp %a {inplace = array<i64: 0, 0>} : tensor<?xf32>
  func.return %0 : tensor<?xf32>
}

// -----

func.func @inplace_fused(%a: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: error: 'tensor.fused' op 'inplace' entry #0 is -2: expected -1 or an operand index (0 to 0)
  %0 = tensor.fused(%x = %a) {inplace = array<i64: -2>} : (tensor<?xf32>) -> tensor<?xf32> {
    %e = scalar.exp %x : f32
    scalar.yield %e : f32
  }
  func.return %0 : tensor<?xf32>
}
