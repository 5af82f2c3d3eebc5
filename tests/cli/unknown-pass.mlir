// RUN: not irc-opt %s -p test-erase-unused,test-erase-unsed 2>&1 | filecheck %s
// RUN: not irc-opt %s -p 'test-options{cont=2}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not irc-opt %s -p 'test-options{count=two}' 2>&1 | filecheck %s --check-prefix=VALUE
// RUN: not irc-opt %s -p 'canonicalize{max-iterations=-1}' 2>&1 | filecheck %s --check-prefix=MINIMUM
// RUN: not irc-opt %s -p 'fuse-elementwise{max-inputs=0}' 2>&1 | filecheck %s --check-prefix=INPUTS

// CHECK:      <pipeline>:1:19: error: unknown pass 'test-erase-unsed' (did you mean 'test-erase-unused'?)
// CHECK-NEXT: test-erase-unused,test-erase-unsed
// CHECK-NEXT: {{^ {18}\^$}}

// OPTION:      <pipeline>:1:14: error: unknown option 'cont' for pass 'test-options' (did you mean 'count'?)
// OPTION-SAME: (valid options: count, ratio, flag, label)

// VALUE:      <pipeline>:1:20: error: invalid value 'two' for option 'count' of pass 'test-options':
// VALUE-SAME: expected an integer

// MINIMUM: <pipeline>:1:1: error: invalid options for pass 'canonicalize': option 'max-iterations' must be at least 1, got -1
// INPUTS:  <pipeline>:1:1: error: invalid options for pass 'fuse-elementwise': option 'max-inputs' must be at least 1, got 0
func.func @f(%a: f32) -> f32 {
  func.return %a : f32
}
