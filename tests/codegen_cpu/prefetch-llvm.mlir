// RUN: irc-opt %s -t llvm-raw | filecheck %s
// RUN: irc-opt %s -t llvm | filecheck %s --check-prefix=OPT

// `loop.prefetch` becomes LLVM's prefetch intrinsic at the element's address: read (0) or
// write (1), the locality, data cache (1); the optimizer keeps it (it has a side effect).
// CHECK: define i32 @"irc.f"(
// CHECK:   call void @"llvm.prefetch.p0"(ptr %{{.*}}, i32 0, i32 3, i32 1)
// CHECK:   call void @"llvm.prefetch.p0"(ptr %{{.*}}, i32 1, i32 2, i32 1)
// CHECK: declare void @"llvm.prefetch.p0"(ptr
// OPT-COUNT-2: call void @llvm.prefetch.p0(ptr
func.func @f(%b: memref<?xf32>) -> memref<?xf32> {
  %c0 = loop.constant {value = 0 : index} : index
  %c1 = loop.constant {value = 1 : index} : index
  %n = loop.dim %b {axis = 0} : (memref<?xf32>) -> index
  %out = loop.alloc %n : (index) -> memref<?xf32>
  loop.prefetch %b[%c1] {locality = 3} : memref<?xf32>
  loop.prefetch %out[%c0] {locality = 2, write} : memref<?xf32>
  func.return %out : memref<?xf32>
}
