// RUN: irc-opt %s --split-input-file -p test-erase-unused | filecheck %s

// Each chunk is parsed and run on its own; the outputs are joined by `// -----`.
// CHECK:      func.func @first
// CHECK:      // -----
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @second
func.func @first(%a: f32) -> f32 {
  func.return %a : f32
}

// -----

func.func @second(%a: i64) -> i64 {
  %c = scalar.constant {value = 2 : i64} : i64
  func.return %a : i64
}
