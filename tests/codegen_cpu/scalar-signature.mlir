// RUN: not irc-opt %s --split-input-file -t llvm 2>&1 | filecheck %s
// RUN: not irc-opt %s --split-input-file -t asm 2>&1 | filecheck %s
// The CPU target takes tensors or memrefs; anything else is refused at the function, cleanly.

// CHECK: [[# @LINE + 1]]:1: error: convert-to-llvm: 'f' has argument #0 of type f32; compiled functions take and return tensors or memrefs only
func.func @f(%a: f32) -> f32 {
  func.return %a : f32
}

// -----

// CHECK: error: lower-to-loops: 'g' has a non-tensor type f32
func.func @g(%a: tensor<?xf32>) -> f32 {
  %c = scalar.constant {value = 1.0 : f32} : f32
  func.return %c : f32
}
