"""Theano's `as_op`: a numpy function made an op in one line.

Run: python examples/user_ops/as_op_example.py"""
import numpy

import irc
import irc.tensor as T
from irc.compile.ops import as_op


@as_op(itypes=[T.dmatrix, T.dmatrix], otypes=[T.dmatrix])
def numpy_dot(a, b):
    return numpy.dot(a, b)


if __name__ == "__main__":
    x = T.dmatrix("x")
    y = T.dmatrix("y")
    f = irc.function([x, y], numpy_dot(x, y) + 1)
    rng = numpy.random.RandomState(1)
    a, b = rng.rand(3, 4), rng.rand(4, 2)
    assert numpy.allclose(f(a, b), a.dot(b) + 1)
    print(f.maker.fgraph.toposort())
    print(f(a, b))
