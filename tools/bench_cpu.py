"""CPU benchmarks of the native path, one row per case: median µs per call over repeated runs.

    python tools/bench_cpu.py [--repeat N]

Rows: exp over 230,400 float32 (the tutorial's check1) compiled vs `np.exp`; the per-call
overhead of a tiny function (one input of one element) compiled vs a no-op Python call.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

EXP = """
func.func @check1(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.exp %x : tensor<?xf32>
  func.return %r : tensor<?xf32>
}"""

TINY = """
func.func @tiny(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.neg %x : tensor<?xf32>
  func.return %r : tensor<?xf32>
}"""


def median_us(fn, repeat: int, inner: int) -> float:
    """Median over `repeat` samples of the mean time of `inner` back-to-back calls."""
    fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples) * 1e6


def compile_text(text: str):
    from irc.dialects import load_all
    from irc.ir.parser import parse_module
    from irc.runtime.native import compile_cpu
    load_all()
    t0 = time.perf_counter()
    fn = compile_cpu(parse_module(text))
    return fn, time.perf_counter() - t0


def logistic_regression_row(repeat: int):
    """The tutorial's training step, built with the frontend, run natively (updates not applied
    between calls: the same inputs every call)."""
    import irc
    import irc.tensor as T
    from irc.runtime.native import compile_cpu
    rng = np.random.RandomState(0)
    n, feats = 400, 784
    data = (rng.randn(n, feats).astype("float32"), rng.randint(size=n, low=0, high=2).astype("float32"))
    x, y = T.matrix("x", dtype="float32"), T.vector("y", dtype="float32")
    w = irc.shared(rng.randn(feats).astype("float32"), name="w")
    b = irc.shared(np.asarray(0.0, dtype="float32"), name="b")
    p_1 = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p_1) - (1 - y) * T.log(1 - p_1)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    train = irc.function([x, y], [p_1 > 0.5, xent], updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])
    fn = compile_cpu(train.maker.module)
    args = [data[0], data[1], w.get_value(), b.get_value()]
    return ("logistic regression step 400x784 (irc native)", median_us(lambda: fn(*args), repeat, 20),
            "predictions, xent, new w, new b")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    rows = []

    fn, secs = compile_text(EXP)
    x = np.random.RandomState(22).rand(230400).astype(np.float32)
    got = fn(x)[0]
    ref = np.exp(x)
    err = float(np.max(np.abs(got - ref) / ref))
    rows.append(("exp 230,400 f32 (irc native)", median_us(lambda: fn(x), args.repeat, 5),
                 f"compile {secs * 1e3:.1f} ms ({'cache hit' if fn.stats.cache_hit else 'cold'}), "
                 f"max rel err {err:.1e}"))
    rows.append(("exp 230,400 f32 (np.exp)", median_us(lambda: np.exp(x), args.repeat, 5), ""))

    tiny, _ = compile_text(TINY)
    one = np.ones(1, np.float32)
    rows.append(("tiny function, per call (irc native)", median_us(lambda: tiny(one), args.repeat, 200), ""))
    rows.append(("np.negative on 1 element", median_us(lambda: np.negative(one), args.repeat, 200), ""))

    try:
        rows.append(logistic_regression_row(args.repeat))
    except Exception as e:  # the frontend is optional for this tool
        rows.append(("logistic regression step 400x784 (irc native)", float("nan"), f"skipped: {e}"))

    width = max(len(r[0]) for r in rows)
    print(f"{'case'.ljust(width)}  {'µs/call':>10}  notes")
    for name, us, note in rows:
        print(f"{name.ljust(width)}  {us:10.2f}  {note}")


if __name__ == "__main__":
    main()
