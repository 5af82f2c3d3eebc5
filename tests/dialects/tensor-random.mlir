// RUN: irc-opt %s --split-input-file | filecheck %s
// RUN: irc-opt %s --split-input-file -p lower-to-loops | filecheck %s --check-prefix=LOOP

// The op prints and parses back; lowered, it is one parallel nest whose body computes a Philox
// block per element from the state's key and draw and the element's flat index (no loop-carried
// value), then the 24-bit uniform transform.
// CHECK-LABEL: func.func @uniform
// CHECK: tensor.random %s, %n, %m {distribution = "uniform", dtype = f32} : (tensor<?xi64>, tensor<i64>, tensor<i64>) -> tensor<?x?xf32>
// LOOP-LABEL: func.func @uniform
// LOOP:         loop.assert_eq %{{.*}}, %{{.*}} {msg = "'tensor.random': the generator state must hold 3 values [key0, key1, draw]"}
// LOOP:         %[[OUT:.*]] = loop.alloc %{{.*}}, %{{.*}} : (index, index) -> memref<?x?xf32>
// LOOP:         loop.parallel (%i, %j)
// LOOP:           %[[K0:.*]] = loop.load %s[
// LOOP:           scalar.constant {value = 3528531795} : i64
// LOOP:           scalar.constant {value = 3449720151} : i64
// LOOP-COUNT-10:  scalar.mul %{{.*}}, %{{.*}} : i64
// LOOP:           scalar.constant {value = 256} : i64
// LOOP:           scalar.cast %{{.*}} {to = f32} : (i64) -> f32
// LOOP:           scalar.constant {value = 5.960464477539063e-08 : f32}
// LOOP:           loop.store %{{.*}}, %[[OUT]][%i, %j]
// LOOP-NOT:     loop.for
func.func @uniform(%s: tensor<?xi64>, %x: tensor<?x3xf32>) -> tensor<?x?xf32> {
  %n = tensor.dim %x {axis = 0} : (tensor<?x3xf32>) -> tensor<i64>
  %m = tensor.dim %x {axis = 1} : (tensor<?x3xf32>) -> tensor<i64>
  %u = tensor.random %s, %n, %m {distribution = "uniform", dtype = f32} : (tensor<?xi64>, tensor<i64>, tensor<i64>) -> tensor<?x?xf32>
  func.return %u : tensor<?x?xf32>
}

// -----

// Normal: Box-Muller over two uniforms of the same block.
// CHECK-LABEL: func.func @normal
// LOOP-LABEL: func.func @normal
// LOOP:         loop.parallel (%i)
// LOOP:           scalar.log %{{.*}} : f64
// LOOP:           scalar.sqrt
// LOOP:           scalar.cos
func.func @normal(%s: tensor<3xi64>, %x: tensor<?xf64>) -> tensor<?xf64> {
  %n = tensor.dim %x {axis = 0} : (tensor<?xf64>) -> tensor<i64>
  %z = tensor.random %s, %n {distribution = "normal", dtype = f64} : (tensor<3xi64>, tensor<i64>) -> tensor<?xf64>
  func.return %z : tensor<?xf64>
}
