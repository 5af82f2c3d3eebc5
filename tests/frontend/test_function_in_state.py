"""`irc.function`'s Theano keywords about inputs: `accept_inplace`, and `In(update=, value=,
mutable=, borrow=, implicit=)` — inputs whose value the function keeps and updates."""
import numpy as np
import pytest

import irc
import irc.tensor as T


@pytest.mark.parametrize("accept", [True, False])
def test_accept_inplace_compiles_alike_and_leaves_the_inputs_alone(accept):
    x = T.dvector("x")
    f = irc.function([x], T.exp(x) * 2 + x, accept_inplace=accept)
    value = np.array([0.0, 1.0, -2.0])
    kept = value.copy()
    np.testing.assert_allclose(f(value), np.exp(kept) * 2 + kept, rtol=1e-12)
    np.testing.assert_array_equal(value, kept)
