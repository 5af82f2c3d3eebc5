// irc-reproducer: -p 'canonicalize
// RUN: not irc-opt %s --run-reproducer 2>&1 | filecheck %s

// CHECK:      reproducer-unclosed-quote.mlir:1:1: error: malformed reproducer line: No closing quotation
// CHECK-NEXT: // irc-reproducer: -p 'canonicalize
func.func @f(%a: f32) -> f32 {
  func.return %a : f32
}
