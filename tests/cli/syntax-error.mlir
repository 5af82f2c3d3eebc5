// RUN: not irc-opt %s 2>&1 | filecheck %s -DFILE=%s

// A syntax error is reported at its line and column, with the line and a caret.
// CHECK:      [[FILE]]:9:27: error: expected {{.*}}
// CHECK-NEXT: func.func @broken(%a: f32 -> f32 {
// CHECK-NEXT: {{^ {26}\^$}}
// CHECK-NOT:  Traceback

func.func @broken(%a: f32 -> f32 {
  func.return %a : f32
}
