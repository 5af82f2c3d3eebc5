"""The tutorial's exercise "return two outputs: x + y and x - y", as a CPU op, next to what
irc's multi-output fusion makes of the plain expressions (one fused loop computing both).

Run: python examples/user_ops/add_sub_op.py"""
import numpy

import irc
import irc.tensor as T


class AddSubOp(irc.Op):
    """(x + y, x - y) of two float32 matrices: one op, two outputs."""

    __props__ = ()

    def make_node(self, x, y):
        x = T.as_tensor_variable(x)
        y = T.as_tensor_variable(y)
        return irc.Apply(self, [x, y], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        output_storage[0][0] = x + y
        output_storage[1][0] = x - y

    def grad(self, inputs, output_grads):
        g_sum, g_diff = output_grads
        return [g_sum + g_diff, g_sum - g_diff]


if __name__ == "__main__":
    x = T.fmatrix("x")
    y = T.fmatrix("y")
    s, d = AddSubOp()(x, y)
    f = irc.function([x, y], [s, d])
    rng = numpy.random.RandomState(3)
    xv = rng.rand(20, 10).astype("float32")
    yv = rng.rand(20, 10).astype("float32")
    got_s, got_d = f(xv, yv)
    assert numpy.allclose(got_s, xv + yv) and numpy.allclose(got_d, xv - yv)
    print("user op:", f.maker.fgraph.toposort())

    fused = irc.function([x, y], [x + y, x - y])
    print("plain x + y, x - y:", fused.maker.fgraph.toposort())
    nodes = fused.maker.fgraph.toposort()
    print("fused into one loop with two outputs:", len(nodes) == 1 and len(nodes[0].outputs) == 2)

    g = irc.function([x, y], T.grad(T.sum(s * d), x))  # d/dx sum((x+y)(x-y)) = 2x
    assert numpy.allclose(g(xv, yv), 2 * xv, rtol=1e-5)
