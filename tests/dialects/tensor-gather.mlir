// RUN: irc-opt %s | irc-opt | filecheck %s
// RUN: irc-opt %s --mlir-print-op-generic | irc-opt | filecheck %s
// RUN: irc-opt %s -p canonicalize | filecheck %s --check-prefix=FOLD
// RUN: irc-opt %s -p lower-to-loops | filecheck %s --check-prefix=LOOP

// Advanced indexing: index arrays on the leading axes broadcast together, then the other axes.
// CHECK-LABEL: func.func @gather
// CHECK:       %rows = tensor.gather %m, %i : (tensor<?x3xf32>, tensor<?xi32>) -> tensor<?x3xf32>
// CHECK:       %pick = tensor.gather %m, %i, %j : (tensor<?x3xf32>, tensor<?xi32>, tensor<1xi64>) -> tensor<?xf32>
// CHECK:       %acc = tensor.scatter %m, %rows, %i {mode = "add"} : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xi32>) -> tensor<?x3xf32>
// CHECK:       %put = tensor.scatter %m, %pick, %i, %j {mode = "set"}
// The indices are checked in a sequential nest, then gathered by a parallel one that wraps
// negative indices.
// LOOP-LABEL:  func.func @gather
// LOOP:        loop.for %[[K:.*]] = %{{.*}} to %[[N:.*]] step
// LOOP-NEXT:     %[[I:.*]] = loop.load %i[%[[K]]]
// LOOP-NEXT:     %[[II:.*]] = scalar.cast %[[I]] {to = index} : (i32) -> index
// LOOP-NEXT:     loop.check_index %[[II]], %{{.*}} {msg = "'tensor.gather': index out of range for axis 0"}
// LOOP:        %rows = loop.alloc %[[N]] : (index) -> memref<?x3xf32>
// LOOP:        loop.parallel (%[[P:.*]], %[[R:.*]]) =
// LOOP:          %[[RAW:.*]] = scalar.cast %{{.*}} {to = i64} : (i32) -> i64
// LOOP:          %[[NEG:.*]] = scalar.lt %[[RAW]]
// LOOP:          %[[W:.*]] = scalar.select %[[NEG]]
// LOOP:          %[[AT:.*]] = scalar.cast %[[W]] {to = index}
// LOOP:          %[[V:.*]] = loop.load %m[%[[AT]], %[[R]]]
// LOOP:          loop.store %[[V]], %rows[%[[P]], %[[R]]]
// The second index array is a static 1: it broadcasts (read at 0).
// LOOP:        loop.check_index {{.*}} {msg = "'tensor.gather': index out of range for axis 1"}
// Scatter-add: a copy of dest, then sequential loops (repeated indices accumulate); src is
// the size of the index array by construction here, so no size check is left.
// LOOP:        loop.check_index {{.*}} {msg = "'tensor.scatter': index out of range for axis 0"}
// LOOP:        %acc = loop.alloc
// LOOP:        loop.parallel
// LOOP:        loop.for
// LOOP-NEXT:     loop.for
// LOOP:            %[[OLD:.*]] = loop.load %acc[
// LOOP-NEXT:       %[[SUM:.*]] = scalar.add %[[OLD]], %{{.*}} : f32
// LOOP-NEXT:       loop.store %[[SUM]], %acc[
// Scatter-set stores without reading dest.
// LOOP:        %put = loop.alloc
// LOOP:        loop.for
// LOOP-NOT:      scalar.add {{.*}} : f32
// LOOP:          loop.store %{{.*}}, %put[
func.func @gather(%m: tensor<?x3xf32>, %i: tensor<?xi32>, %j: tensor<1xi64>) -> (tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %rows = tensor.gather %m, %i : (tensor<?x3xf32>, tensor<?xi32>) -> tensor<?x3xf32>
  %pick = tensor.gather %m, %i, %j : (tensor<?x3xf32>, tensor<?xi32>, tensor<1xi64>) -> tensor<?xf32>
  %acc = tensor.scatter %m, %rows, %i {mode = "add"} : (tensor<?x3xf32>, tensor<?x3xf32>, tensor<?xi32>) -> tensor<?x3xf32>
  %put = tensor.scatter %m, %pick, %i, %j {mode = "set"} : (tensor<?x3xf32>, tensor<?xf32>, tensor<?xi32>, tensor<1xi64>) -> tensor<?x3xf32>
  func.return %rows, %pick, %acc, %put : tensor<?x3xf32>, tensor<?xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}

// Constant operands fold with numpy's semantics (np.add.at for "add"); an index out of range
// stays for run time.
// FOLD-LABEL: func.func @fold
// FOLD-DAG:   tensor.constant {value = dense<[3.0, 1.0, 3.0]> : tensor<3xf32>}
// FOLD-DAG:   tensor.constant {value = dense<[1.0, 2.0, 9.0]> : tensor<3xf32>}
// FOLD-DAG:   %[[BAD:.*]] = tensor.gather %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<1xi64>) -> tensor<1xf32>
// FOLD:       func.return %{{.*}}, %{{.*}}, %[[BAD]]
func.func @fold() -> (tensor<3xf32>, tensor<3xf32>, tensor<1xf32>) {
  %v = tensor.constant {value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>} : tensor<3xf32>
  %i = tensor.constant {value = dense<[-1, 0, 2]> : tensor<3xi64>} : tensor<3xi64>
  %d = tensor.constant {value = dense<[2, 2, 2]> : tensor<3xi64>} : tensor<3xi64>
  %big = tensor.constant {value = dense<[3]> : tensor<1xi64>} : tensor<1xi64>
  %g = tensor.gather %v, %i : (tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  %s = tensor.scatter %v, %v, %d {mode = "add"} : (tensor<3xf32>, tensor<3xf32>, tensor<3xi64>) -> tensor<3xf32>
  %b = tensor.gather %v, %big : (tensor<3xf32>, tensor<1xi64>) -> tensor<1xf32>
  func.return %g, %s, %b : tensor<3xf32>, tensor<3xf32>, tensor<1xf32>
}

// A size of a gather, scatter or dimshuffle is read from what they index (the gather is then
// dead: a size never keeps one alive; equal sizes are then one value).
// FOLD-LABEL: func.func @sizes
// FOLD-NEXT:  %[[A:.*]] = tensor.dim %i {axis = 0}
// FOLD-NEXT:  %[[B:.*]] = tensor.dim %m {axis = 1}
// FOLD-NEXT:  %[[C:.*]] = tensor.dim %m {axis = 0}
// FOLD-NEXT:  func.return %[[A]], %[[B]], %[[C]], %[[C]]
func.func @sizes(%m: tensor<?x?xf32>, %i: tensor<?xi64>, %j: tensor<1xi64>) -> (tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>) {
  %g = tensor.gather %m, %j, %i : (tensor<?x?xf32>, tensor<1xi64>, tensor<?xi64>) -> tensor<?xf32>
  %rows = tensor.gather %m, %i : (tensor<?x?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  %s = tensor.scatter %m, %rows, %i {mode = "set"} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  %t = tensor.dimshuffle %m {pattern = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %a = tensor.dim %g {axis = 0} : (tensor<?xf32>) -> tensor<i64>
  %b = tensor.dim %rows {axis = 1} : (tensor<?x?xf32>) -> tensor<i64>
  %c = tensor.dim %s {axis = 0} : (tensor<?x?xf32>) -> tensor<i64>
  %d = tensor.dim %t {axis = 1} : (tensor<?x?xf32>) -> tensor<i64>
  func.return %a, %b, %c, %d : tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>
}
