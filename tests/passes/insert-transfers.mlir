// RUN: irc-opt %s -p insert-transfers --split-input-file | filecheck %s
// RUN: irc-opt %s -p insert-transfers,insert-transfers --split-input-file | filecheck %s
// RUN: irc-opt %s -p 'insert-transfers{device=cuda1}' --split-input-file | filecheck %s --check-prefix=DEV
// RUN: not irc-opt %s -p 'insert-transfers{device=cpu}' --split-input-file 2>&1 | filecheck %s --check-prefix=HOST
// HOST: insert-transfers: option device='cpu' must name a device (e.g. cuda); the host needs no placement

// The tutorial's exp of a shared variable on the device: the frontend's host copy of the
// argument cancels, exp runs on the device, its result comes back to the host.
// CHECK-LABEL: func.func @exp(%x: tensor<?xf32, "cuda"> {irc.shared = "x"}) -> tensor<?xf32>
// CHECK-NEXT:    %e = tensor.exp %x : tensor<?xf32, "cuda">
// CHECK-NEXT:    %[[H:.*]] = tensor.to_host %e : (tensor<?xf32, "cuda">) -> tensor<?xf32>
// CHECK-NEXT:    func.return %[[H]] : tensor<?xf32>
func.func @exp(%x: tensor<?xf32, "cuda"> {irc.shared = "x"}) -> tensor<?xf32> {
  %h = tensor.to_host %x : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  %e = tensor.exp %h : tensor<?xf32>
  func.return %e : tensor<?xf32>
}

// -----

// `gpu_from_host` on an output (irc.device): the result stays on the device, no copy.
// CHECK-LABEL: func.func @resident
// CHECK-SAME:    -> (tensor<?xf32, "cuda"> {irc.device = "cuda"})
// CHECK-NEXT:    %e = tensor.exp %x : tensor<?xf32, "cuda">
// CHECK-NEXT:    func.return %e : tensor<?xf32, "cuda">
func.func @resident(%x: tensor<?xf32, "cuda"> {irc.shared = "x"}) -> (tensor<?xf32> {irc.device = "cuda"}) {
  %h = tensor.to_host %x : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  %e = tensor.exp %h : tensor<?xf32>
  func.return %e : tensor<?xf32>
}

// -----

// A user input arrives on the host: one copy to the device, read by both device ops; a
// value read on both sides is copied once, before its first host reader. A result asked on
// the device that is a host input is copied there.
// CHECK-LABEL: func.func @one_copy_per_value
// CHECK-SAME:    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32, "cuda"> {irc.device = "cuda"})
// CHECK-NEXT:    %[[XD:.*]] = tensor.to_device %x {device = "cuda"} : (tensor<?xf32>) -> tensor<?xf32, "cuda">
// CHECK-NEXT:    %a = tensor.exp %[[XD]] : tensor<?xf32, "cuda">
// CHECK-NEXT:    %b = tensor.mul %a, %[[XD]] : tensor<?xf32, "cuda">
// CHECK-NEXT:    %[[BH:.*]] = tensor.to_host %b
// CHECK-NEXT:    %s = tensor.cumulative %[[BH]]
// CHECK-SAME:      : tensor<?xf32>
// CHECK-NEXT:    %t = tensor.cumulative %[[BH]] {axis = 0, kind = "prod"}
// CHECK-NEXT:    func.return %[[BH]], %s, %[[XD]]
// CHECK-NOT:     tensor.to_
func.func @one_copy_per_value(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32> {irc.device = "cuda"}) {
  %a = tensor.exp %x : tensor<?xf32>
  %b = tensor.mul %a, %x : tensor<?xf32>
  %s = tensor.cumulative %b {axis = 0, kind = "sum"} : tensor<?xf32>
  %t = tensor.cumulative %b {axis = 0, kind = "prod"} : tensor<?xf32>
  func.return %b, %s, %x : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// A constant read on both sides: made on the device for the device reader (no transfer),
// kept on the host for the host one.
// CHECK-LABEL: func.func @constants
// CHECK-NEXT:    %c = tensor.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
// CHECK-NEXT:    %[[XD:.*]] = tensor.to_device %x
// CHECK-NEXT:    %[[CD:.*]] = tensor.constant {value = dense<[1.0, 2.0]> : tensor<2xf32, "cuda">} : tensor<2xf32, "cuda">
// CHECK-NEXT:    %a = tensor.add %[[XD]], %[[CD]] : tensor<2xf32, "cuda">
// CHECK-NEXT:    %s = tensor.sort %c {axis = 0, kind = "values"} : tensor<2xf32>
func.func @constants(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c = tensor.constant {value = dense<[1.0, 2.0]> : tensor<2xf32>} : tensor<2xf32>
  %a = tensor.add %x, %c : tensor<2xf32>
  %s = tensor.sort %c {axis = 0, kind = "values"} : tensor<2xf32>
  func.return %a, %s : tensor<2xf32>, tensor<2xf32>
}

// -----

// Views and sizes follow their data: a dimshuffle of a device-resident shared variable runs
// on the device, one of a host input feeding a host op stays on the host. The update of a
// shared variable on the device is returned on the device. The host op reads the host copy
// of the shared variable that the input already had.
// CHECK-LABEL: func.func @views
// CHECK-SAME:    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<1x?xf32>, tensor<?xf32, "cuda"> {irc.update = 2
// CHECK-NEXT:    %wh = tensor.to_host %w
// CHECK-NEXT:    %wr = tensor.dimshuffle %w {pattern = array<i64: -1, 0>} : (tensor<?xf32, "cuda">) -> tensor<1x?xf32, "cuda">
// CHECK-NEXT:    %t = tensor.transpose %A {permutation = array<i64: 1, 0>} : tensor<?x?xf32>
// CHECK-NEXT:    %n = tensor.dim %w {axis = 0} : (tensor<?xf32, "cuda">) -> tensor<i64, "cuda">
// CHECK-NEXT:    %g = tensor.cumulative %t
// CHECK-SAME:      : tensor<?x?xf32>
// CHECK-NEXT:    %h = tensor.cumulative %wh
// CHECK-SAME:      : tensor<?xf32>
// CHECK-NEXT:    %nf = tensor.cast %n {to = f32} : (tensor<i64, "cuda">) -> tensor<f32, "cuda">
// CHECK-NEXT:    %nr = tensor.dimshuffle %nf {pattern = array<i64: -1>} : (tensor<f32, "cuda">) -> tensor<1xf32, "cuda">
// CHECK-NEXT:    %u = tensor.div %w, %nr : (tensor<?xf32, "cuda">, tensor<1xf32, "cuda">) -> tensor<?xf32, "cuda">
// CHECK-NEXT:    %[[WRH:.*]] = tensor.to_host %wr
// CHECK-NEXT:    func.return %g, %h, %[[WRH]], %u
func.func @views(%A: tensor<?x?xf32>, %unused: tensor<?xf32>, %w: tensor<?xf32, "cuda"> {irc.shared = "w"})
    -> (tensor<?x?xf32>, tensor<?xf32>, tensor<1x?xf32>, tensor<?xf32> {irc.update = 2 : i64}) {
  %wh = tensor.to_host %w : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  %wr = tensor.dimshuffle %wh {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
  %t = tensor.transpose %A {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %n = tensor.dim %wh {axis = 0} : (tensor<?xf32>) -> tensor<i64>
  %g = tensor.cumulative %t {axis = 0, kind = "sum"} : tensor<?x?xf32>
  %h = tensor.cumulative %wh {axis = 0, kind = "sum"} : tensor<?xf32>
  %nf = tensor.cast %n {to = f32} : (tensor<i64>) -> tensor<f32>
  %nr = tensor.dimshuffle %nf {pattern = array<i64: -1>} : (tensor<f32>) -> tensor<1xf32>
  %u = tensor.div %wh, %nr : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>
  func.return %g, %h, %wr, %u : tensor<?x?xf32>, tensor<?xf32>, tensor<1x?xf32>, tensor<?xf32>
}

// -----

// A view of a host input whose readers all run on the device (through another view here) runs
// there too: the input crosses once, whole.
// CHECK-LABEL: func.func @views_for_the_device
// CHECK-NEXT:    %[[XD:.*]] = tensor.to_device %x
// CHECK-NEXT:    %r = tensor.dimshuffle %[[XD]] {pattern = array<i64: -1, 0>} : (tensor<?xf32, "cuda">) -> tensor<1x?xf32, "cuda">
// CHECK-NEXT:    %t = tensor.transpose %r {permutation = array<i64: 1, 0>} : (tensor<1x?xf32, "cuda">) -> tensor<?x1xf32, "cuda">
// CHECK-NEXT:    %e = tensor.exp %t : tensor<?x1xf32, "cuda">
func.func @views_for_the_device(%x: tensor<?xf32>) -> tensor<?x1xf32> {
  %r = tensor.dimshuffle %x {pattern = array<i64: -1, 0>} : (tensor<?xf32>) -> tensor<1x?xf32>
  %t = tensor.transpose %r {permutation = array<i64: 1, 0>} : (tensor<1x?xf32>) -> tensor<?x1xf32>
  %e = tensor.exp %t : tensor<?x1xf32>
  func.return %e : tensor<?x1xf32>
}

// -----

// A fused group and a fused reduction run on the device; their results come back to the host.
// CHECK-LABEL: func.func @fused
// CHECK-NEXT:    %[[XD:.*]] = tensor.to_device %x
// CHECK-NEXT:    %f = tensor.fused(%{{.*}} = %[[XD]]) : (tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda">
// CHECK:         %r:2 = tensor.fused_reduce(%{{.*}} = %f)
// CHECK-SAME:      -> (tensor<?xf32, "cuda">, tensor<f32, "cuda">)
// CHECK:         tensor.to_host %r#0
// CHECK:         tensor.to_host %r#1
func.func @fused(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
  %f = tensor.fused(%a = %x) : (tensor<?xf32>) -> tensor<?xf32> {
    %e = scalar.exp %a : f32
    scalar.yield %e : f32
  }
  %r:2 = tensor.fused_reduce(%b = %f) {kind = "sum", axes = array<i64: 0>} : (tensor<?xf32>) -> (tensor<?xf32>, tensor<f32>) {
    %n = scalar.neg %b : f32
    scalar.yield %n, %n : f32, f32
  }
  func.return %r#0, %r#1 : tensor<?xf32>, tensor<f32>
}

// -----

// The device option names the placement.
// DEV-LABEL: func.func @exp
// DEV:         %e = tensor.exp %{{.*}} : tensor<?xf32, "cuda1">
// DEV:         func.return %{{.*}} : tensor<?xf32>
func.func @exp(%x: tensor<?xf32>) -> tensor<?xf32> {
  %e = tensor.exp %x : tensor<?xf32>
  func.return %e : tensor<?xf32>
}
