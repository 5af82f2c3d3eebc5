// RUN: irc-opt %s -p device-edges | filecheck %s

// The upload of a user input and the download of a result become the runtime's: the function
// is all on the device, its signature says what the caller moves.
// CHECK-LABEL: func.func @edges
// CHECK-SAME:    %x: tensor<?xf32, "cuda"> {irc.transfer = "upload"}
// CHECK-SAME:    %w: tensor<?xf32, "cuda"> {irc.shared = "w"}
// CHECK-SAME:    -> (tensor<?xf32, "cuda"> {irc.transfer = "download"}, tensor<?xf32, "cuda"> {irc.device = "cuda"})
// CHECK-NOT:     tensor.to_
// CHECK:         %[[E:.*]] = tensor.exp %x
// CHECK:         %[[A:.*]] = tensor.add %[[E]], %w
// CHECK:         func.return %[[A]], %[[E]]
func.func @edges(%x: tensor<?xf32>, %w: tensor<?xf32, "cuda"> {irc.shared = "w"}) -> (tensor<?xf32>, tensor<?xf32, "cuda"> {irc.device = "cuda"}) {
  %0 = tensor.to_device %x {device = "cuda"} : (tensor<?xf32>) -> tensor<?xf32, "cuda">
  %1 = tensor.exp %0 : tensor<?xf32, "cuda">
  %2 = tensor.add %1, %w : tensor<?xf32, "cuda">
  %3 = tensor.to_host %2 : (tensor<?xf32, "cuda">) -> tensor<?xf32>
  func.return %3, %1 : tensor<?xf32>, tensor<?xf32, "cuda">
}
