// RUN: irc-opt %s -t llvm-raw | filecheck %s
// RUN: irc-opt %s -t llvm | filecheck %s --check-prefix=OPT

// Each top-level loop.parallel is outlined for the thread pool: the captured values go into
// a context of 8-byte slots, the pool gets the outer trip count and a work estimate (here
// static: 1000 iterations x (load + exp + store = 12)); the body keeps `noalias`.
// CHECK-LABEL: define i32 @"irc.f"(
// CHECK: %"irc.f.par0.ctx" = alloca [4 x i64]
// CHECK: store ptr %".1", ptr
// CHECK: call void @"irc_rt_parallel_for"(ptr @"irc.f.par0", ptr %"irc.f.par0.ctx", i64 1000, i64 12000)
// CHECK: call void @"irc_rt_parallel_for"(ptr @"irc.f.par1", ptr %"irc.f.par1.ctx", i64 %{{.*}}, i64 %{{.*}})
// CHECK: define internal void @"irc.f.par0.body"(ptr noalias %{{.*}}, i64 %{{.*}}, i64 %{{.*}}, ptr noalias %{{.*}}, i64 %{{.*}}, i64 %{{.*}}) alwaysinline
// CHECK: define internal void @"irc.f.par0"(ptr %".1", i64 %".2", i64 %".3")
// CHECK: declare void @"irc_rt_parallel_for"(ptr
// After O2 the body is inlined into its wrapper, with alias scopes, and vectorized.
// OPT: define internal void @irc.f.par0(
// OPT: load <{{[0-9]+}} x float>{{.*}}!alias.scope
func.func @f(%x: tensor<1000xf32>, %y: tensor<?xf32>) -> (tensor<1000xf32>, tensor<?xf32>) {
  %r = tensor.exp %x : tensor<1000xf32>
  %s = tensor.add %y, %y : tensor<?xf32>
  func.return %r, %s : tensor<1000xf32>, tensor<?xf32>
}

//
// A 2-d nest is split along its outer dimension only; the inner trip count enters the work
// (30 x 20 x (load + neg + store)).
// CHECK-LABEL: define i32 @"irc.g"(
// CHECK: call void @"irc_rt_parallel_for"(ptr @"irc.g.par0", ptr %"irc.g.par0.ctx", i64 30, i64 1800)
func.func @g(%x: tensor<30x20xf32>) -> tensor<30x20xf32> {
  %r = tensor.neg %x : tensor<30x20xf32>
  func.return %r : tensor<30x20xf32>
}

//
// A kernel that computes its loops' bounds from the iteration (here `sum(axis=0)`: 16 chunks of
// 125 rows, each summed into a row of partials) is estimated at its first iteration, whose trip
// counts stand for every one: 16 x 125 rows x 2000 columns, about 10^7 (counting those inner
// loops as 16 iterations each gave 29064, and the sum ran on one thread). The split of each
// row's columns at a 64-byte address (`loop.align_gap`) counts as no split.
// CHECK-LABEL: define i32 @"irc.colsum"(
// CHECK: call void @"irc_rt_parallel_for"(ptr @"irc.colsum.par0", ptr %"irc.colsum.par0.ctx", i64 16, i64 {{1[0-9][0-9][0-9][0-9][0-9][0-9][0-9]}})
func.func @colsum(%m: tensor<2000x2000xf32>) -> tensor<2000xf32> {
  %s = tensor.reduce %m {kind = "sum", axes = array<i64: 0>} : (tensor<2000x2000xf32>) -> tensor<2000xf32>
  func.return %s : tensor<2000xf32>
}

//
// A gemm's micro-kernel loop runs over a k slice whose bounds come from an inner loop's counter:
// taken at its lower bound, the slice counts its real length (not 16 steps), and the register
// tile's fmas count one op per 8 (they vectorize and dual-issue). So the softmax layer's skinny
// product (256x512 by 512x10, about 33 µs) is worth two threads, above min_work (300000), while
// a recurrent step's 32x128x128 (about 3 µs) stays on one. (With n static, only the kernel for that n
// is emitted: the narrow one for n = 10, after the packing of B.)
// CHECK-LABEL: define i32 @"irc.skinny"(
// CHECK: call void @"irc_rt_parallel_for"(ptr @"irc.skinny.par1", ptr %"irc.skinny.par1.ctx", i64 8, i64 {{[3-9][0-9][0-9][0-9][0-9][0-9]}})
// CHECK-LABEL: define i32 @"irc.step"(
// CHECK: call void @"irc_rt_parallel_for"(ptr @"irc.step.par1", ptr %"irc.step.par1.ctx", i64 3, i64 {{[0-2]?[0-9]?[0-9][0-9][0-9][0-9]}})
func.func @skinny(%a: tensor<256x512xf32>, %b: tensor<512x10xf32>) -> tensor<256x10xf32> {
  %r = tensor.dot %a, %b : (tensor<256x512xf32>, tensor<512x10xf32>) -> tensor<256x10xf32>
  func.return %r : tensor<256x10xf32>
}

func.func @step(%a: tensor<32x128xf32>, %b: tensor<128x128xf32>) -> tensor<32x128xf32> {
  %r = tensor.dot %a, %b : (tensor<32x128xf32>, tensor<128x128xf32>) -> tensor<32x128xf32>
  func.return %r : tensor<32x128xf32>
}
