"""Shared fixtures: a small logistic-regression training function (the tutorial's)."""
import numpy as np
import pytest

import irc
import irc.tensor as T


@pytest.fixture
def logreg():
    """(build(**function_kwargs) -> train function, (x, y) data), float32 like the tutorial."""
    rng = np.random.RandomState(0)
    n, feats = 40, 16
    data = (rng.randn(n, feats).astype("float32"), rng.randint(0, 2, n).astype("float32"))

    def build(**kw):
        x, y = T.fmatrix("x"), T.fvector("y")
        w = irc.shared(rng.randn(feats).astype("float32"), name="w")
        b = irc.shared(np.asarray(0.0, dtype="float32"), name="b")
        p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
        xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
        cost = xent.mean() + np.float32(0.01) * (w ** 2).sum()
        gw, gb = T.grad(cost, [w, b])
        lr = np.float32(0.01)
        return irc.function([x, y], [p_1 > 0.5, xent], updates={w: w - lr * gw, b: b - lr * gb},
                            name=kw.pop("name", "train"), **kw)

    return build, data
