"""Mutation fuzzing of irc-opt over the project's `.mlir` files (see `irc/cli/fuzz.py`).

    python tools/fuzz_opt.py [--count 10000] [--seed 1] [--timeout 60] [--show 5]

Prints the counts of mutants by outcome — exit 0, exit 1 (a located error), and the bad ones:
exit 2 (internal error), "unlocated" (exit 1 without a file:line:col), "raised", "timeout" —
and the first failures with their mutations, so they can be reproduced and fixed. Exits 1
when any mutant had a bad outcome.
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from irc.cli.fuzz import fuzz  # noqa: E402

MEMORY_LIMIT = 8 << 30  # a mutant that asks for a huge buffer fails instead of swapping the machine


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=10_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=int, default=60, help="seconds per mutant")
    p.add_argument("--show", type=int, default=5, help="failures to print in full")
    args = p.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    t0 = time.perf_counter()

    def progress(done: int, tally) -> None:
        if done % 500 == 0:
            print(f"{done} mutants, {time.perf_counter() - t0:.0f} s: {tally.counts}", flush=True)

    tally = fuzz(ROOT / "tests", args.count, args.seed, args.timeout, progress)
    c = tally.counts
    bad = {k: v for k, v in c.items() if k not in (0, 1)}
    print(f"mutants: {args.count}  exit 0: {c.get(0, 0)}  exit 1: {c.get(1, 0)}  "
          f"exit 2: {c.get(2, 0)}  other bad: {bad or 'none'}  ({time.perf_counter() - t0:.0f} s)")
    for mutant, outcome in tally.failures[:args.show]:
        print(f"\n--- {outcome.status}: {mutant.source} {mutant.mutations} irc-opt {' '.join(mutant.args)}")
        print(outcome.stderr.strip()[-1500:])
        print("--- input:\n" + mutant.text)
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
