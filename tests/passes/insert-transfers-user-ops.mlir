// RUN: irc-opt %s -p insert-transfers --split-input-file | filecheck %s
// RUN: irc-opt %s -p canonicalize,fuse-elementwise,inplace --split-input-file | filecheck %s --check-prefix=ALONE

// A user op with only `perform` (no `device`) runs on the host between device ops: one copy
// to the host before it, one back to the device after it.
// CHECK-LABEL: func.func @cpu_op
// CHECK:         %[[E:.*]] = tensor.exp %{{.*}} : tensor<?xf32, "cuda">
// CHECK-NEXT:    %[[H:.*]] = tensor.to_host %[[E]]
// CHECK-NEXT:    %[[C:.*]] = tensor.custom %[[H]] {op = "m.Double"} : tensor<?xf32>
// CHECK-NEXT:    %[[D:.*]] = tensor.to_device %[[C]]
// CHECK-NEXT:    tensor.exp %[[D]] : tensor<?xf32, "cuda">
// ALONE-LABEL: func.func @cpu_op
// ALONE:         tensor.custom %{{.*}} {op = "m.Double"} : tensor<?xf32>
// (no `inplace` mark: the braces hold only `op`)
func.func @cpu_op(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.exp %x : tensor<?xf32>
  %1 = tensor.custom %0 {op = "m.Double"} : tensor<?xf32>
  %2 = tensor.exp %1 : tensor<?xf32>
  func.return %2 : tensor<?xf32>
}

// -----

// A GPU user op (`device`) runs on the device; its `host_operands` (a launch's sizes) stay on
// the host.
// CHECK-LABEL: func.func @gpu_op
// CHECK:         %[[E:.*]] = tensor.exp %{{.*}} : tensor<?xf32, "cuda">
// CHECK-NEXT:    %[[C:.*]] = tensor.custom %[[E]], %n {device = "cuda", host_operands = array<i64: 1>, op = "m.G"} : (tensor<?xf32, "cuda">, tensor<i64>) -> tensor<?xf32, "cuda">
// CHECK-NEXT:    tensor.exp %[[C]] : tensor<?xf32, "cuda">
func.func @gpu_op(%x: tensor<?xf32>, %n: tensor<i64>) -> tensor<?xf32> {
  %0 = tensor.exp %x : tensor<?xf32>
  %1 = tensor.custom %0, %n {op = "m.G", device = "cuda", host_operands = array<i64: 1>} : (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>
  %2 = tensor.exp %1 : tensor<?xf32>
  func.return %2 : tensor<?xf32>
}

// -----

// Equal user ops on the same operands merge (CSE), as equal `__props__` promise.
// ALONE-LABEL: func.func @merge
// ALONE:         %[[A:.*]] = tensor.custom %x {op = "m.Scale{factor=2.0}"}
// ALONE-NOT:     tensor.custom
// ALONE:         tensor.add %[[A]], %[[A]]
func.func @merge(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.custom %x {op = "m.Scale{factor=2.0}"} : tensor<?xf32>
  %1 = tensor.custom %x {op = "m.Scale{factor=2.0}"} : tensor<?xf32>
  %2 = tensor.add %0, %1 : tensor<?xf32>
  func.return %2 : tensor<?xf32>
}
