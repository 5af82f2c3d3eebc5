// RUN: irc-opt %s -p lower-to-loops --split-input-file | filecheck %s

// A running sum: parallel over the other axes, a sequential loop.for along the axis whose
// accumulator is stored at every step.
// CHECK-LABEL: func.func @cumsum_rows
// CHECK:         loop.parallel (%i)
// CHECK-NEXT:      %[[Z:.*]] = scalar.constant {value = 0.0 : f32} : f32
// CHECK-NEXT:      %{{.*}} = loop.for %k = %{{.*}} iter_args(%acc = %[[Z]]) -> (f32) {
// CHECK-NEXT:        %[[V:.*]] = loop.load %x[%i, %k]
// CHECK-NEXT:        %[[S:.*]] = scalar.add %acc, %[[V]] : f32
// CHECK-NEXT:        loop.store %[[S]], %{{.*}}[%i, %k]
// CHECK-NEXT:        loop.yield %[[S]] : f32
func.func @cumsum_rows(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tensor.cumulative %x {axis = 1, kind = "sum"} : tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}

// -----

// The sort: a copy of the row, then merge passes of doubling width (the carried %acc) into a
// second buffer, each merge a loop carrying its two cursors, the side taken a select (NaNs after
// numbers), and the copy back.
// CHECK-LABEL: func.func @sort_vector
// CHECK:         %[[KEYS:.*]] = loop.alloc
// CHECK:         %[[SPARE:.*]] = loop.alloc
// CHECK:         loop.for %k = %{{.*}} iter_args(%acc = %{{.*}}) -> (index) {
// CHECK:           %[[W2:.*]] = loop.mul %acc, %{{.*}} : index
// CHECK-NEXT:      loop.for %k_1 = %{{.*}} to %{{.*}} step %[[W2]] {
// CHECK:             loop.for %k_2 = %k_1 to %{{.*}} iter_args(%acc_1 = %k_1, %acc_2 = %{{.*}}) -> (index, index) {
// CHECK:               scalar.gt
// CHECK:               scalar.ne
// CHECK:               %[[V:.*]] = scalar.select
// CHECK-NEXT:          loop.store %[[V]], %[[SPARE]][%k_2]
// CHECK:           loop.for %k_3 =
// CHECK-NEXT:        %[[B:.*]] = loop.load %[[SPARE]][%k_3]
// CHECK-NEXT:        loop.store %[[B]], %[[KEYS]][%k_3]
func.func @sort_vector(%x: tensor<?xf64>) -> tensor<?xf64> {
  %0 = tensor.sort %x {axis = 0, kind = "values"} : tensor<?xf64>
  func.return %0 : tensor<?xf64>
}

// -----

// Sizes computed from the arguments' sizes become index arithmetic before the allocation
// (so the runtime knows the result's shape before the call); iota stores its index.
// CHECK-LABEL: func.func @iota_of_size
// CHECK:         %[[N:.*]] = loop.dim %x {axis = 0}
// CHECK:         %[[M:.*]] = loop.add %[[N]], %{{.*}}
// CHECK:         %[[OUT:.*]] = loop.alloc %[[M]]
// CHECK:         loop.parallel (%i) = (%{{.*}}) to (%[[M]])
// CHECK-NEXT:      %[[I:.*]] = scalar.cast %i {to = i64}
// CHECK-NEXT:      loop.store %[[I]], %[[OUT]][%i]
func.func @iota_of_size(%x: tensor<?xf32>) -> tensor<?xi64> {
  %n = tensor.dim %x {axis = 0} : (tensor<?xf32>) -> tensor<i64>
  %one = tensor.constant {value = dense<1> : tensor<i64>} : tensor<i64>
  %m = tensor.add %n, %one : tensor<i64>
  %0 = tensor.iota %m : (tensor<i64>) -> tensor<?xi64>
  func.return %0 : tensor<?xi64>
}

// -----

// alloc is a broadcast view of its value (the copy is the returned result's).
// CHECK-LABEL: func.func @alloc_rows
// CHECK:         %[[N:.*]] = loop.dim %x {axis = 0}
// CHECK:         loop.broadcast %{{.*}}, %{{.*}}, %[[N]]
func.func @alloc_rows(%x: tensor<?xf32>, %v: tensor<1x1xf32>) -> tensor<?x?xf32> {
  %n = tensor.dim %x {axis = 0} : (tensor<?xf32>) -> tensor<i64>
  %three = tensor.constant {value = dense<3> : tensor<i64>} : tensor<i64>
  %0 = tensor.alloc %v, %three, %n : (tensor<1x1xf32>, tensor<i64>, tensor<i64>) -> tensor<?x?xf32>
  func.return %0 : tensor<?x?xf32>
}

// -----

// x.shape: the sizes stored into a two-element vector.
// CHECK-LABEL: func.func @shape_vector
// CHECK:         %[[V:.*]] = loop.alloc
// CHECK:         loop.store %{{.*}}, %[[V]][%{{.*}}]
// CHECK:         loop.store %{{.*}}, %[[V]][%{{.*}}]
func.func @shape_vector(%x: tensor<?x?xf32>) -> tensor<2xi64> {
  %a = tensor.dim %x {axis = 0} : (tensor<?x?xf32>) -> tensor<i64>
  %b = tensor.dim %x {axis = 1} : (tensor<?x?xf32>) -> tensor<i64>
  %0 = tensor.from_elements %a, %b : (tensor<i64>, tensor<i64>) -> tensor<2xi64>
  func.return %0 : tensor<2xi64>
}
