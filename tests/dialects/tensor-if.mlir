// RUN: irc-opt %s --split-input-file | irc-opt --split-input-file | filecheck %s --check-prefix=ROUND
// RUN: irc-opt %s -p canonicalize --split-input-file | filecheck %s

// The generic form prints and parses back; the regions read %x and %y from above.
// ROUND-LABEL: func.func @two_results
// ROUND:         %r:2 = "tensor.if"(%c) ({
// ROUND-NEXT:      %a = tensor.exp %x : tensor<?xf32>
// ROUND-NEXT:      "tensor.yield"(%a, %y) : (tensor<?xf32>, tensor<f32>) -> ()
// ROUND-NEXT:    }, {
// ROUND-NEXT:      "tensor.yield"(%x, %y) : (tensor<?xf32>, tensor<f32>) -> ()
// ROUND-NEXT:    }) : (tensor<i1>) -> (tensor<?xf32>, tensor<f32>)
// A condition known only at run time keeps both regions.
// CHECK-LABEL: func.func @two_results
// CHECK:         "tensor.if"(%c)
// CHECK:         tensor.exp
func.func @two_results(%c: tensor<i1>, %x: tensor<?xf32>, %y: tensor<f32>) -> (tensor<?xf32>, tensor<f32>) {
  %r:2 = "tensor.if"(%c) ({
    %a = tensor.exp %x : tensor<?xf32>
    "tensor.yield"(%a, %y) : (tensor<?xf32>, tensor<f32>) -> ()
  }, {
    "tensor.yield"(%x, %y) : (tensor<?xf32>, tensor<f32>) -> ()
  }) : (tensor<i1>) -> (tensor<?xf32>, tensor<f32>)
  func.return %r#0, %r#1 : tensor<?xf32>, tensor<f32>
}

// -----

// A constant condition inlines the taken branch; the other one goes away.
// ROUND-LABEL: func.func @constant_true
// CHECK-LABEL: func.func @constant_true
// CHECK-NEXT:    %[[E:.*]] = tensor.exp %x : tensor<?xf32>
// CHECK-NEXT:    func.return %[[E]] : tensor<?xf32>
func.func @constant_true(%x: tensor<?xf32>) -> tensor<?xf32> {
  %t = tensor.constant {value = dense<true> : tensor<i1>} : tensor<i1>
  %r = "tensor.if"(%t) ({
    %a = tensor.exp %x : tensor<?xf32>
    "tensor.yield"(%a) : (tensor<?xf32>) -> ()
  }, {
    %b = tensor.log %x : tensor<?xf32>
    "tensor.yield"(%b) : (tensor<?xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}

// -----

// ROUND-LABEL: func.func @constant_false
// CHECK-LABEL: func.func @constant_false
// CHECK-NEXT:    func.return %x : tensor<?xf32>
func.func @constant_false(%x: tensor<?xf32>) -> tensor<?xf32> {
  %t = tensor.constant {value = dense<false> : tensor<i1>} : tensor<i1>
  %r = "tensor.if"(%t) ({
    %a = tensor.exp %x : tensor<?xf32>
    "tensor.yield"(%a) : (tensor<?xf32>) -> ()
  }, {
    "tensor.yield"(%x) : (tensor<?xf32>) -> ()
  }) : (tensor<i1>) -> tensor<?xf32>
  func.return %r : tensor<?xf32>
}
