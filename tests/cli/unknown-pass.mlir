// RUN: not irc-opt %s -p test-erase-unused,test-erase-unsed 2>&1 | filecheck %s
// RUN: not irc-opt %s -p 'test-options{cont=2}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not irc-opt %s -p 'test-options{count=two}' 2>&1 | filecheck %s --check-prefix=VALUE

// CHECK:      <pipeline>:1:19: error: unknown pass 'test-erase-unsed' (did you mean 'test-erase-unused'?)
// CHECK-NEXT: test-erase-unused,test-erase-unsed
// CHECK-NEXT: {{^ {18}\^$}}

// OPTION:      <pipeline>:1:14: error: unknown option 'cont' for pass 'test-options' (did you mean 'count'?)
// OPTION-SAME: (valid options: count, ratio, flag, label)

// VALUE:      <pipeline>:1:20: error: invalid value 'two' for option 'count' of pass 'test-options':
// VALUE-SAME: expected an integer
func.func @f(%a: f32) -> f32 {
  func.return %a : f32
}
