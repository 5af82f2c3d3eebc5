"""Where compile time goes: per stage and per pass, cold (empty cache) and warm (a new process,
the same cache), for the tutorial's logistic-regression step and the MLP of
examples/dlt_programs.py.

    python3 tools/compile_time.py [--repeat N]

Each program compiles in a fresh process (so `import irc` and llvmlite's start are paid as a
user pays them), first with an empty compile cache, then again with the cache the first left.
Rows are `f.maker.compile_times` (what `profile=True` and `irc-opt --timing` report: frontend,
each pass, lower-to-loops, LLVM IR, LLVM optimization, machine code, load), then the
process's `import irc` and the whole first call (compile + one call). Seconds, medians of
`repeat` runs (the machine may be shared: the runs of a program alternate cold and warm).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import irc, irc.tensor as T
import numpy as np
t_import = time.perf_counter() - t0
program = sys.argv[1]
t1 = time.perf_counter()
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
    args = (rng.randn(400, 784).astype(irc.config.floatX), rng.randint(0, 2, 400).astype(irc.config.floatX))
else:
    import importlib.util
    spec = importlib.util.spec_from_file_location("dlt", sys.argv[2])
    dlt = importlib.util.module_from_spec(spec); spec.loader.exec_module(dlt)
    train_x, train_y = dlt.make_dataset()
    f = dlt.mlp(train_x, train_y)[1]
    args = (0,)
f(*args)
first_call = time.perf_counter() - t1
rows = dict(f.maker.compile_times)
rows["import irc"] = t_import
rows["first call (compile + call)"] = first_call
print(json.dumps(rows))
"""


def run(program: str, cache: str) -> dict[str, float]:
    env = dict(os.environ, IRC_COMPILEDIR=cache, IRC_FLAGS="floatX=float32",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", _CHILD, program, str(ROOT / "examples" / "dlt_programs.py")],
                         capture_output=True, text=True, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for program, title in (("lr", "logistic-regression step (the tutorial's, float32)"),
                           ("mlp", "MLP step (examples/dlt_programs.py, float32)")):
        samples: dict[str, list[dict]] = {"cold": [], "warm": []}
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory(prefix="irc-compile-time-") as cache:
                samples["cold"].append(run(program, cache))
                samples["warm"].append(run(program, cache))
        names = list(dict.fromkeys(k for kind in ("cold", "warm") for s in samples[kind] for k in s))
        print(f"\n{title}\n| stage | cold (s) | warm (s) |\n|---|---|---|")
        for name in names:
            cells = []
            for kind in ("cold", "warm"):
                values = [s[name] for s in samples[kind] if name in s]
                cells.append(f"{statistics.median(values):.3f}" if values else "—")
            print(f"| {name} | {cells[0]} | {cells[1]} |")


if __name__ == "__main__":
    main()
