// RUN: irc-opt %s -p test-erase-unused,test-options --print-ir-after-all 2>&1 >/dev/null | filecheck %s
// RUN: irc-opt %s -p test-erase-unused,test-options --mlir-print-ir-before-all 2>&1 >/dev/null \
// RUN:   | filecheck %s --check-prefix=BEFORE
// RUN: irc-opt %s -p test-erase-unused,test-options --print-ir-after=test-options 2>&1 >/dev/null \
// RUN:   | filecheck %s --check-prefix=ONE
// RUN: irc-opt %s -p test-options,test-erase-unused,test-options --print-ir-after-change 2>&1 >/dev/null \
// RUN:   | filecheck %s --check-prefix=CHANGE

// CHECK:      // -----// IR Dump After TestEraseUnused (test-erase-unused) //----- //
// CHECK-NEXT: module {
// CHECK-NEXT:   func.func @f(%a: f32) -> f32 {
// CHECK-NEXT:     func.return %a : f32
// CHECK:      // -----// IR Dump After TestOptions (test-options) //----- //
// CHECK-NEXT: module {

// BEFORE:     // -----// IR Dump Before TestEraseUnused (test-erase-unused) //----- //
// BEFORE:     scalar.constant
// BEFORE:     // -----// IR Dump Before TestOptions (test-options) //----- //
// BEFORE-NOT: scalar.constant

// ONE-NOT: IR Dump After TestEraseUnused
// ONE:     // -----// IR Dump After TestOptions (test-options) //----- //

// CHANGE-NOT: IR Dump After TestOptions
// CHANGE:     // -----// IR Dump After TestEraseUnused (test-erase-unused) //----- //
// CHANGE-NOT: IR Dump After TestOptions
func.func @f(%a: f32) -> f32 {
  %c = scalar.constant {value = 1.0 : f32} : f32
  func.return %a : f32
}
