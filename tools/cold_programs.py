"""The programs whose first call `compile_time.py` and `cold_vs_jax.py` time, built in their
child processes (this folder is put on the child's path): the tutorial's logistic-regression
step, and `examples/dlt_programs.py`'s MLP step of a given width and hyperparameters."""
from __future__ import annotations

import importlib.util
from typing import Any, Callable

import numpy as np

import irc
import irc.tensor as T


def build(program: str, dlt_path: str, width: int = 16, lr: float = 0.01, l1: float = 0.001,
          l2: float = 0.0001) -> tuple[Callable[..., Any], tuple]:
    """(the compiled step, its call's arguments) for "lr" or "mlp"."""
    if program == "lr":
        rng = np.random.RandomState(0)
        x, y = T.matrix("x"), T.vector("y")
        w = irc.shared(rng.randn(784).astype(irc.config.floatX), name="w")
        b = irc.shared(np.asarray(0.0, irc.config.floatX), name="b")
        p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
        xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
        cost = xent.mean() + 0.01 * (w ** 2).sum()
        gw, gb = T.grad(cost, [w, b])
        f = irc.function([x, y], [p_1 > 0.5, xent], updates={w: w - 0.01 * gw, b: b - 0.01 * gb}, name="train")
        return f, (rng.randn(400, 784).astype(irc.config.floatX), rng.randint(0, 2, 400).astype(irc.config.floatX))
    spec = importlib.util.spec_from_file_location("dlt", dlt_path)
    dlt = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dlt)
    train_x, train_y = dlt.make_dataset()
    return dlt.mlp(train_x, train_y, learning_rate=lr, L1_reg=l1, L2_reg=l2, n_hidden=width)[1], (0,)
