// RUN: irc-opt %s | filecheck %s
// RUN: irc-opt %s -t llvm-raw | filecheck %s --check-prefix=LLVM

// `loop.align_gap` prints as a load does and gives an index: here the bound of a loop that
// writes the row's elements before its first 64-byte address.
// CHECK-LABEL: func.func @peel
// CHECK:         %g = loop.align_gap %b[%c0, %c0] {bytes = 64} : memref<?x?xf32>
// CHECK-NEXT:    loop.for %j = %c0 to %g step %c1 {

// It becomes (-address & (bytes - 1)) / element size, 0 where the gap is no whole number of
// elements.
// LLVM:      %[[A:.*]] = ptrtoint ptr %{{.*}} to i64
// LLVM-NEXT: %[[N:.*]] = sub i64 0, %[[A]]
// LLVM-NEXT: %[[G:.*]] = and i64 %[[N]], 63
// LLVM-NEXT: %[[R:.*]] = urem i64 %[[G]], 4
// LLVM-NEXT: %[[W:.*]] = icmp eq i64 %[[R]], 0
// LLVM-NEXT: %[[D:.*]] = udiv i64 %[[G]], 4
// LLVM-NEXT: %{{.*}} = select i1 %[[W]], i64 %[[D]], i64 0
func.func @peel(%b: memref<?x?xf32>) {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %one = scalar.constant {value = 1.0 : f32} : f32
  %g = loop.align_gap %b[%c0, %c0] {bytes = 64} : memref<?x?xf32>
  loop.for %j = %c0 to %g step %c1 {
    loop.store %one, %b[%c0, %j] : memref<?x?xf32>
    loop.yield
  }
  func.return
}
