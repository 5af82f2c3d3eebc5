"""`T.Rop` of an output no tangent reaches raises as Theano's does (`disconnected_outputs=
"raise"`, a ValueError), or gives zeros, None or `disconnected_type()` when asked."""
from __future__ import annotations

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.gradient import DisconnectedInputError, DisconnectedType


class BreakRop(T.Op):
    """Passes its input through; not differentiable in forward mode (`R_op` gives None)."""
    __props__ = ()

    def make_node(self, x):
        return irc.Apply(self, [x], [x.type()])

    def perform(self, node, inputs, outputs):
        outputs[0][0] = inputs[0]

    def R_op(self, inputs, eval_points):
        return [None]


def test_a_non_differentiable_output_raises_a_value_error():
    m, v = T.dmatrix("m"), T.dmatrix("v")
    x, u = T.dvector("x"), T.dvector("u")
    for out, wrt, point in [(T.argmax(m, axis=1), m, v), (x.shape[0], x, u), (BreakRop()(m).sum(axis=1), m, v),
                            (T.dvector("y") * 2, x, u)]:
        with pytest.raises(ValueError, match="does not change with the variables"):
            T.Rop(out, wrt, point)
        with pytest.raises(DisconnectedInputError):
            T.Rop(out, wrt, point)


def test_the_other_policies_give_zeros_none_or_disconnected():
    m, v = T.dmatrix("m"), T.dmatrix("v")
    out = T.argmax(m, axis=1)
    zeros = T.Rop(out, m, v, disconnected_outputs="ignore")
    got = irc.function([m], zeros)(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(got, [0, 0])
    assert T.Rop(out, m, v, disconnected_outputs="ignore", return_disconnected="None") is None
    assert isinstance(T.Rop(out, m, v, disconnected_outputs="ignore", return_disconnected="Disconnected").type,
                      DisconnectedType)
    with pytest.warns(UserWarning, match="output #0"):
        T.Rop(out, m, v, disconnected_outputs="warn")
    with pytest.raises(ValueError, match="disconnected_inputs must be"):
        T.Rop(out, m, v, disconnected_outputs="sometimes")


def test_a_connected_output_is_unchanged():
    x, u = T.dvectors("x", "u")
    f = irc.function([x, u], T.Rop((x ** 2).sum(), x, u))
    np.testing.assert_allclose(f(np.array([1.0, 2.0]), np.array([3.0, -1.0])), 2 * (3.0 - 2.0), rtol=1e-15)
