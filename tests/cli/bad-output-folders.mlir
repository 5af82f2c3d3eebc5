// RUN: not irc-opt %s --view-graph %t.missing/graph.dot 2>&1 | filecheck %s --check-prefix=VIEW
// RUN: not irc-opt %s -p test-fail --crash-reproducer %t.missing/repro.mlir 2>&1 | filecheck %s --check-prefix=REPRO

// VIEW:  irc-opt: error: --view-graph: cannot write '{{.*}}.missing/graph.dot': the folder '{{.*}}.missing' does not exist
// REPRO: irc-opt: error: --crash-reproducer: cannot write '{{.*}}.missing/repro.mlir': the folder '{{.*}}.missing' does not exist
func.func @f(%a: f32) -> f32 {
  func.return %a : f32
}
