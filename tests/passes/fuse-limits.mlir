// RUN: irc-opt %s -p 'fuse-elementwise{max-inputs=2}' | filecheck %s --check-prefix=IN
// RUN: irc-opt %s -p 'fuse-elementwise{max-outputs=1}' | filecheck %s --check-prefix=OUT

// Three inputs do not fit in a group of two: the last add stays apart.
// IN-LABEL: func.func @limits
// IN:         %[[F:.*]]:2 = tensor.fused(%{{.*}} = %x, %{{.*}} = %y)
// IN:         tensor.add %[[F]]#1, %z
// Two results do not fit in a group of one: x*y (returned) stays apart.
// OUT-LABEL: func.func @limits
// OUT:         %[[A:.*]] = tensor.mul %x, %y
// OUT:         %[[F:.*]] = tensor.fused(%{{.*}} = %[[A]], %{{.*}} = %z)
// OUT:         func.return %[[A]], %[[F]]
func.func @limits(%x: tensor<?xf32>, %y: tensor<?xf32>, %z: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %a = tensor.mul %x, %y : tensor<?xf32>
  %b = tensor.exp %a : tensor<?xf32>
  %c = tensor.add %b, %z : tensor<?xf32>
  func.return %a, %c : tensor<?xf32>, tensor<?xf32>
}
