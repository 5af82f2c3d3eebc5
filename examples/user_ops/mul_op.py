"""The tutorial's exercise "multiply two matrices: x * y", as a CPU op (an op of two inputs).

Run: python examples/user_ops/mul_op.py"""
import numpy

import irc
import irc.tensor as T


class MulOp(irc.Op):
    """Elementwise x * y of two float32 matrices of the same shape."""

    __props__ = ()

    def make_node(self, x, y):
        x = T.as_tensor_variable(x)
        y = T.as_tensor_variable(y)
        assert x.dtype == y.dtype == "float32"
        return irc.Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        if x.shape != y.shape:
            raise ValueError(f"MulOp needs equal shapes, got {x.shape} and {y.shape}")
        output_storage[0][0] = x * y

    def grad(self, inputs, output_grads):
        x, y = inputs
        return [output_grads[0] * y, output_grads[0] * x]


if __name__ == "__main__":
    x = T.fmatrix("x")
    y = T.fmatrix("y")
    f = irc.function([x, y], MulOp()(x, y))
    rng = numpy.random.RandomState(2)
    xv = rng.rand(20, 10).astype("float32")
    yv = rng.rand(20, 10).astype("float32")
    assert numpy.allclose(f(xv, yv), xv * yv)
    print(numpy.asarray(f(xv, yv))[0, :4])
