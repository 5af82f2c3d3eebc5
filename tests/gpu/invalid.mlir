// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

gpu.func @k(%x: memref<?xf32>) {
  gpu.return
}
// CHECK: error: 'gpu.func' op argument 0: memref<?xf32> is in host memory, which a kernel cannot read

// -----

gpu.func @k(%x: memref<?xf32, "cuda">) {
  gpu.return
}
func.func @host(%x: memref<?xf32, "cuda">, %n: index) {
  // CHECK: error: 'gpu.launch' op passes (memref<?xf32, "cuda">, index) but @k takes (memref<?xf32, "cuda">)
  gpu.launch @k(%x, %n) work %n : (memref<?xf32, "cuda">, index)
  func.return
}

// -----

func.func @host(%n: index) {
  // CHECK: error: 'gpu.launch' op no 'gpu.func' named @missing in the module
  gpu.launch @missing() work %n : ()
  func.return
}

// -----

func.func @host() {
  // CHECK: error: 'gpu.thread_id' op can only be used inside a 'gpu.func'
  %t = gpu.thread_id : index
  func.return
}

// -----

gpu.func @k(%x: memref<?xf32, "cuda">, %h: memref<?xf32>) {
  gpu.return
}
// CHECK: error: 'gpu.func' op argument 1: memref<?xf32> is in host memory, which a kernel cannot read

// -----

func.func @host_flag() {
  %f = loop.alloc : memref<2xi32>
  // CHECK: error: 'loop.check_flag' op the flag must be a 1-d i32 device buffer, got memref<2xi32>
  loop.check_flag %f {msg = "x"} : memref<2xi32>
  func.return
}
