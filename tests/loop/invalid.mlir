// RUN: not irc-opt %s --split-input-file 2>&1 | filecheck %s

func.func @load_rank(%b: memref<?x?xf32>, %i: index) -> f32 {
  // CHECK: error: 'loop.load' op needs 2 indices
  %x = loop.load %b[%i] : memref<?x?xf32>
  func.return %x : f32
}

// -----

func.func @alloc_sizes(%n: index) {
  // CHECK: error: 'loop.alloc' op needs one size operand per dynamic dimension
  %t = loop.alloc : () -> memref<?xf32>
  func.return
}

// -----

func.func @yield_types(%n: index, %z: f32) {
  // CHECK: error: 'loop.for' op body must end with a 'loop.yield' of the iter_args' types
  %s = loop.for %k = %n to %n step %n iter_args(%acc = %z) -> (f32) {
    loop.yield
  }
  func.return
}

// -----

func.func @bad_transpose(%b: memref<?x?xf32>) {
  // CHECK: error: 'loop.transpose' op 'perm' must be a permutation of the source axes
  %t = loop.transpose %b {perm = array<i64: 0, 0>} : (memref<?x?xf32>) -> memref<?x?xf32, strided<[?, ?], offset: ?>>
  func.return
}

// -----

func.func @workspace(%n: index) -> () {
  // CHECK: error: 'loop.alloc' op 'irc.workspace' must be a slot number (an integer >= 0), got "a"
  %0 = loop.alloc %n {irc.workspace = "a"} : (index) -> memref<?xf32>
  func.return
}

// -----

func.func @global_mismatch() {
  // CHECK: error: 'loop.global' op value of type tensor<2xf32> does not match the result memref<4xf32>
  %0 = loop.global {value = dense<[1.0, 2.0]> : tensor<2xf32>} : memref<4xf32>
  func.return
}

// -----

func.func @prefetch_locality(%b: memref<?xf32>, %i: index) {
  // CHECK: error: 'loop.prefetch' op 'locality' must be an integer 0..3, got 4
  loop.prefetch %b[%i] {locality = 4} : memref<?xf32>
  func.return
}

// -----

func.func @prefetch_rank(%b: memref<?x?xf32>, %i: index) {
  // CHECK: error: 'loop.prefetch' op needs a buffer and 2 indices, and has no result
  loop.prefetch %b[%i] : memref<?x?xf32>
  func.return
}

// -----

func.func @align_gap_bytes(%b: memref<?xf32>, %i: index) -> index {
  // CHECK: error: 'loop.align_gap' op 'bytes' must be a power of two, got 48
  %g = loop.align_gap %b[%i] {bytes = 48} : memref<?xf32>
  func.return %g : index
}
