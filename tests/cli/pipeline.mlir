// RUN: irc-opt %s -p test-erase-unused | filecheck %s
// RUN: irc-opt %s -p 'builtin.module(test-options{count=2 flag=true},test-erase-unused)' | filecheck %s
// RUN: irc-opt %s | filecheck %s --check-prefix=NOPASS

// The dead pure ops go; the live ones and the terminator stay.
// CHECK-LABEL: func.func @dead(%a: f32) -> f32 {
// CHECK-NEXT:    %live = scalar.add %a, %a : f32
// CHECK-NEXT:    func.return %live : f32
// CHECK-NEXT:  }
// NOPASS: scalar.constant
// NOPASS: scalar.mul
func.func @dead(%a: f32) -> f32 {
  %c = scalar.constant {value = 1.0 : f32} : f32
  %d = scalar.mul %a, %c : f32
  %live = scalar.add %a, %a : f32
  func.return %live : f32
}
