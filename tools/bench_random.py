"""Random draws: irc's compiled Philox4x32-10 (`tensor.random`) against numpy's generators.

Run: PYTHONPATH=. python tools/bench_random.py [n]. Each irc case is one compiled function
drawing n numbers (its default update included), returned to the caller; numpy's cases draw
the same n into a fresh array (Generator(PCG64) and Generator(Philox) with a float32/float64
`random`/`standard_normal`), and `irc.dialects.philox.sample` is the numpy definition."""
from __future__ import annotations

import sys

import numpy as np

import irc
from irc.dialects.philox import sample
from irc.tensor.shared_randomstreams import RandomStreams

from bench_common import Table, median_us


def main(n: int = 1 << 20) -> None:
    table = Table()
    repeat, inner = 7, 5
    for dtype in ("float32", "float64"):
        for distribution, numpy_name in (("uniform", "random"), ("normal", "standard_normal")):
            srng = RandomStreams(seed=1)
            draw = getattr(srng, distribution)((n,), dtype=dtype)
            f = irc.function([], draw)
            mine = table.add(f"irc {distribution} {dtype}", median_us(f, repeat, inner), f"n={n}")
            pcg = np.random.Generator(np.random.PCG64(1))
            base = table.add(f"numpy PCG64 {numpy_name} {dtype}",
                             median_us(lambda: getattr(pcg, numpy_name)(n, dtype=dtype), repeat, inner))
            philox = np.random.Generator(np.random.Philox(1))
            table.add(f"numpy Philox4x64 {numpy_name} {dtype}",
                      median_us(lambda: getattr(philox, numpy_name)(n, dtype=dtype), repeat, inner))
            state = draw.rng.get_value()
            table.add(f"irc's numpy definition {distribution} {dtype}",
                      median_us(lambda: sample(state, (n,), distribution, dtype), 3, 1))
            table.ratio(f"irc / numpy PCG64, {distribution} {dtype}", mine, base, "the time")
    table.print()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20)
