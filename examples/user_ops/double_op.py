"""A CPU op written by the user: `perform` in numpy and a `grad`, used inside `T.grad` and
`irc.scan` (the tutorial's DoubleOp, CPU form: "Extending Theano", "Writing your own op").

Run: python examples/user_ops/double_op.py"""
import numpy

import irc
import irc.tensor as T


class DoubleOp(irc.Op):
    """y = 2 * x, for a tensor of any rank and float dtype."""

    __props__ = ()

    def make_node(self, x):
        x = T.as_tensor_variable(x)
        return irc.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        output_storage[0][0] = x * 2

    def infer_shape(self, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0])]


double = DoubleOp()

if __name__ == "__main__":
    x = T.dmatrix("x")
    f = irc.function([x], double(x))
    xv = numpy.random.RandomState(0).rand(5, 4)
    assert numpy.allclose(f(xv), xv * 2)
    print("f:", f.maker.fgraph.toposort())

    # inside T.grad: d/dx sum(double(x)**2) = 8 x
    cost = T.sum(double(x) ** 2)
    g = irc.function([x], T.grad(cost, x))
    assert numpy.allclose(g(xv), 8 * xv)
    print("grad of sum(double(x)**2) == 8x: True")

    # inside irc.scan: h_t = double(h_{t-1}) + x_t, and the gradient through the loop
    xs = T.dmatrix("xs")
    h0 = T.dvector("h0")
    hs, _ = irc.scan(lambda x_t, h: double(h) + x_t, sequences=xs, outputs_info=h0)
    step = irc.function([xs, h0], hs[-1])
    seq, start = xv, numpy.ones(4)
    expected = start
    for row in seq:
        expected = 2 * expected + row
    assert numpy.allclose(step(seq, start), expected)
    dh0 = irc.function([xs, h0], T.grad(T.sum(hs[-1]), h0))
    assert numpy.allclose(dh0(seq, start), 2.0 ** len(seq))
    print("scan with DoubleOp:", step(seq, start))
