// RUN: irc-opt %s -p canonicalize --split-input-file | filecheck %s

// A copy back to where a value came from is the value itself.
// CHECK-LABEL: func.func @host_device_host
// CHECK-NEXT:    %e = tensor.exp %x : tensor<?xf32>
// CHECK-NEXT:    func.return %e
func.func @host_device_host(%x: tensor<?xf32>) -> tensor<?xf32> {
  %d = tensor.to_device %x {device = "cuda"} : (tensor<?xf32>) -> tensor<?xf32, "cuda">
  %h = tensor.to_host %d : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  %e = tensor.exp %h : tensor<?xf32>
  func.return %e : tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @device_host_device
// CHECK-NEXT:    %e = tensor.exp %w : tensor<?xf32, "cuda">
func.func @device_host_device(%w: tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda"> {
  %h = tensor.to_host %w : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  %d = tensor.to_device %h {device = "cuda"} : (tensor<?xf32>) -> tensor<?xf32, "cuda">
  %e = tensor.exp %d : tensor<?xf32, "cuda">
  func.return %e : tensor<?xf32, "cuda">
}

// -----

// To another device it is a real copy (through the host): kept.
// CHECK-LABEL: func.func @device_to_other_device
// CHECK-NEXT:    %h = tensor.to_host %w
// CHECK-NEXT:    %d = tensor.to_device %h {device = "cuda1"}
func.func @device_to_other_device(%w: tensor<?xf32, "cuda">) -> tensor<?xf32, "cuda1"> {
  %h = tensor.to_host %w : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  %d = tensor.to_device %h {device = "cuda1"} : (tensor<?xf32>) -> tensor<?xf32, "cuda1">
  func.return %d : tensor<?xf32, "cuda1">
}
