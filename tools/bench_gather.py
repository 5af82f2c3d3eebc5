"""Advanced indexing: irc's compiled gather (`x[ivec]`), scatter-add (`inc_subtensor(x[ivec], y)`)
embedding gradient (`T.grad` of a gather: a scatter-add into zeros) and a shared table's
`inc_subtensor` update against numpy's `x[idx]`, `np.add.at` (on a copy, on zeros, in place);
and the DLT's NLL
`-mean(log(softmax(a))[arange(n), y])` with its gradient.

Run: PYTHONPATH=. python tools/bench_gather.py [rows]. float32; `rows` rows of 64 gathered
from a table of 50,000 x 64, indices uniformly random (repeats included)."""
from __future__ import annotations

import sys

import numpy as np

import irc
import irc.tensor as T

from bench_common import Table, median_us


def main(rows: int = 20000) -> None:
    table, repeat, inner = Table(), 7, 5
    rng = np.random.default_rng(0)
    tv = rng.standard_normal((50000, 64)).astype("float32")
    iv = rng.integers(0, tv.shape[0], rows)
    yv = rng.standard_normal((rows, 64)).astype("float32")
    w, i, y = T.fmatrix(), T.lvector(), T.fmatrix()

    gather = irc.function([w, i], w[i])
    mine = table.add("irc gather x[ivec]", median_us(lambda: gather(tv, iv), repeat, inner), f"{rows}x64 f32")
    base = table.add("numpy x[idx]", median_us(lambda: tv[iv], repeat, inner))
    table.ratio("gather irc / numpy", mine, base, "the time")

    inc = irc.function([w, i, y], T.inc_subtensor(w[i], y))
    mine = table.add("irc inc_subtensor(x[ivec], y)", median_us(lambda: inc(tv, iv, yv), repeat, inner))

    def numpy_inc():
        out = tv.copy()
        np.add.at(out, iv, yv)
        return out
    base = table.add("numpy copy + np.add.at", median_us(numpy_inc, repeat, inner))
    table.ratio("scatter-add irc / numpy", mine, base, "the time")

    grad = irc.function([w, i, y], T.grad(T.sum(w[i] * y), w))

    def numpy_grad():
        out = np.zeros_like(tv)
        np.add.at(out, iv, yv)
        return out
    mine = table.add("irc grad of sum(x[ivec] * y)", median_us(lambda: grad(tv, iv, yv), repeat, inner))
    base = table.add("numpy zeros + np.add.at", median_us(numpy_grad, repeat, inner))
    table.ratio("embedding gradient irc / numpy", mine, base, "the time")

    shared = irc.shared(tv.copy(), name="table")
    update = irc.function([i, y], [], updates=[(shared, T.inc_subtensor(shared[i], y))])
    mine = table.add("irc update W <- inc_subtensor(W[ivec], y)", median_us(lambda: update(iv, yv), repeat, inner),
                     "in place (a self-copy of W, then the rows)")
    in_place = tv.copy()
    base = table.add("numpy np.add.at(W, idx, y)", median_us(lambda: np.add.at(in_place, iv, yv), repeat, inner))
    table.ratio("shared update irc / numpy", mine, base, "the time")

    a, labels = T.fmatrix(), T.ivector()
    nll = -T.mean(T.log(T.nnet.softmax(a))[T.arange(labels.shape[0]), labels])
    f = irc.function([a, labels], [nll, T.grad(nll, a)])
    av = rng.standard_normal((rows, 10)).astype("float32")
    lv = rng.integers(0, 10, rows).astype("int32")

    def numpy_nll():
        s = av - av.max(1, keepdims=True)
        logp = s - np.log(np.exp(s).sum(1, keepdims=True))
        g = np.exp(logp)
        g[np.arange(rows), lv] -= 1
        return -logp[np.arange(rows), lv].mean(), g / rows
    mine = table.add("irc NLL + gradient (DLT form)", median_us(lambda: f(av, lv), repeat, inner), f"{rows}x10 f32")
    base = table.add("numpy NLL + gradient", median_us(numpy_nll, repeat, inner))
    table.ratio("NLL irc / numpy", mine, base, "the time")
    table.print()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20000)
