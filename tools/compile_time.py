"""Where compile time goes: per stage and per pass, cold (empty cache) and warm (a new process,
the same cache), for the tutorial's logistic-regression step and the MLP of
examples/dlt_programs.py; with `--kernels`, each LLVM module of a cold compile (the kernels
and the function's own launch code): its LLVM time and the size of its LLVM IR.

    python3 tools/compile_time.py [--repeat N] [--kernels]

Each program compiles in a fresh process (so `import irc` and llvmlite's start are paid as a
user pays them), first with an empty compile cache, then again with the cache the first left
(a hit before the passes: the first stored that entry at its exit, after its background
compile stored the optimized objects; no pass, lowering or LLVM row).
Rows are `f.maker.compile_times` (what `profile=True` and `irc-opt --timing` report: frontend,
each pass, lower-to-loops, LLVM IR, LLVM optimization, machine code, load), then the
process's `import irc` and the whole first call (compile + one call). Seconds, medians of
`repeat` runs (the machine may be shared: the runs of a program alternate cold and warm).
The children may write Python's bytecode cache (as an installed irc has it), and a first run
that is not counted writes it. `--kernels` compiles in one process (`IRC_COMPILE_PROCESSES=1`)
so that every module is timed where it runs, and optimized before the first call
(`compile_tiers=False`). Otherwise a cold compile is tiered as a user's is (`config.compile_tiers`):
its rows are the tier-0 compile's, and the optimized code comes from a background process
that the child waits for at its exit (not in the rows).
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
kernels = []
if len(sys.argv) > 3:  # --kernels: time each module where native.py compiles it
    import irc.runtime.native as native
    compile_module = native._compile_module

    def timed_module(key, text):
        t = time.perf_counter()
        obj = compile_module(key, text)
        kind = "launch code" if key == native.GLUE else "gemm tile" if "llvm.fma.v" in text else "parallel nest"
        kernels.append({"kind": kind, "seconds": time.perf_counter() - t, "lines": text.count("\n")})
        return obj
    native._compile_module = timed_module
t1 = time.perf_counter()
sys.path.insert(0, "tools")  # (the child runs in the project's root)
from cold_programs import build
f, args = build(program, sys.argv[2])
f(*args)
first_call = time.perf_counter() - t1
rows = dict(f.maker.compile_times)
rows["import irc"] = t_import
rows["first call (compile + call)"] = first_call
if kernels:
    rows["kernels"] = kernels
print(json.dumps(rows))
"""


def run(program: str, cache: str, kernels: bool = False) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(IRC_COMPILEDIR=cache, IRC_FLAGS="floatX=float32",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    if kernels:  # every module optimized in this process (no tiers: their optimized code is a child's)
        env["IRC_COMPILE_PROCESSES"] = "1"
        env["IRC_FLAGS"] = "floatX=float32,compile_tiers=False"
    argv = [sys.executable, "-c", _CHILD, program, str(ROOT / "examples" / "dlt_programs.py")] + (["kernels"] if kernels else [])
    out = subprocess.run(argv, capture_output=True, text=True, env=env, check=True, cwd=ROOT)  # `-c`: the cwd first
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_kernels(program: str, title: str) -> None:
    """One cold compile's LLVM modules, the costliest first, and the totals per kind."""
    with tempfile.TemporaryDirectory(prefix="irc-compile-time-") as cache:
        modules = run(program, cache, kernels=True)["kernels"]
    print(f"\n{title}: {len(modules)} LLVM modules, {sum(m['seconds'] for m in modules):.3f} s\n"
          "| kind | modules | LLVM (s) | LLVM IR lines | largest (lines) |\n|---|---|---|---|---|")
    for kind in dict.fromkeys(m["kind"] for m in modules):
        mine = [m for m in modules if m["kind"] == kind]
        print(f"| {kind} | {len(mine)} | {sum(m['seconds'] for m in mine):.3f} | "
              f"{sum(m['lines'] for m in mine)} | {max(m['lines'] for m in mine)} |")
    print("\ncostliest: " + ", ".join(f"{m['kind']} {m['seconds']:.3f} s / {m['lines']} lines"
                                      for m in sorted(modules, key=lambda m: -m["seconds"])[:6]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--kernels", action="store_true", help="each LLVM module of a cold compile instead")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="irc-compile-time-") as cache:
        run("lr", cache)  # writes the bytecode caches (not counted)
    if args.kernels:
        print_kernels("lr", "logistic-regression step")
        print_kernels("mlp", "MLP step")
        return
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
