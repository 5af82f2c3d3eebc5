// RUN: not irc-opt %s -p test-options,test-fail --print-ir-after-failure 2>&1 | filecheck %s -DFILE=%s
// RUN: not irc-opt %s -p test-options,test-break-ir 2>&1 | filecheck %s -DFILE=%s --check-prefix=BROKEN
// RUN: irc-opt %s -p test-break-ir --no-verify-each | filecheck %s --check-prefix=NOVERIFY

// A failing pass: the IR it left (header ends in `Failed`), then its located error.
// CHECK:      // -----// IR Dump After TestFail (test-fail) Failed //----- //
// CHECK:      [[FILE]]:16:1: error: test-fail: failing as requested

// A pass that breaks the IR is named by the verifier run after it.
// BROKEN:      [[FILE]]:16:1: error: 'func.func' op entry block arguments do not match the function type
// BROKEN:      <pipeline>:1:14: note: IR failed to verify after pass 'test-break-ir' (TestBreakIR)
// BROKEN-NEXT: test-options,test-break-ir

// Without verification the broken IR is printed as it is.
// NOVERIFY: function_type = (f32, i1) -> f32
func.func @f(%a: f32) -> f32 {
  func.return %a : f32
}
