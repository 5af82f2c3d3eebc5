"""Where the pool's threads spend an MLP step with one core busy: per thread, the time it ran
and the time it waited in the kernel's run queue (/proc/<pid>/task/<tid>/schedstat), and the
cores the caller and the worker were on, with the pool's placement off and on (interleaved).

    python3 tools/probe_pool_sched.py [--rounds N] [--quiet]

The experiment behind `codegen_cpu/pool_placement.py`: with placement off, on a 2-core machine
with another process spinning on one core, the worker often shares the caller's core and waits
in the run queue for most of each call (it then runs only when the caller does not). Linux only.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import bench_busy  # noqa: E402  (beside this file)
import bench_dense  # noqa: E402  (beside this file)

SETTINGS = {"placement off": dict(placement=False, rescue=False, give_way=False),
            "placement on": dict(placement=True, rescue=True, give_way=True)}
CALLS = 10  # calls per sample


def run_and_wait_us(path: str) -> tuple[float, float]:
    """(ran, waited in the run queue) in µs so far, from a schedstat file."""
    ran, waited, _ = (int(x) for x in Path(path).read_text().split())
    return ran / 1e3, waited / 1e3


def core_of(path: str) -> int:
    """The core a thread last ran on (field 39 of its stat file)."""
    return int(Path(path).read_text().rsplit(")", 1)[1].split()[36])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--quiet", action="store_true", help="no competing process")
    args = ap.parse_args()
    import irc
    from irc.runtime import threads
    irc.config.floatX = "float32"
    X, Y, params = bench_dense.mlp_data()
    f = bench_dense.mlp_irc(params)
    threads.set_num_threads(2)
    f(X, Y)
    pool = threads.ensure_pool()
    if not pool.threads:
        sys.exit("no workers on this platform")
    caller, worker = threading.get_native_id(), pool.threads[0].native_id
    competitor = bench_busy.Competitor()
    if not args.quiet:
        competitor.resume()
    paths = {"caller": f"/proc/self/task/{caller}/schedstat", "worker": f"/proc/self/task/{worker}/schedstat"}
    found: dict[str, dict[str, list]] = {name: {} for name in SETTINGS}
    try:
        for r in range(args.rounds):
            for name in (SETTINGS if r % 2 == 0 else list(SETTINGS)[::-1]):
                threads.tune(**SETTINGS[name])
                f(X, Y)
                before = {k: run_and_wait_us(p) for k, p in paths.items()}
                t0 = time.perf_counter()
                for _ in range(CALLS):
                    f(X, Y)
                wall = (time.perf_counter() - t0) / CALLS * 1e6
                after = {k: run_and_wait_us(p) for k, p in paths.items()}
                row = found[name]
                row.setdefault("call", []).append(wall)
                for k in paths:
                    row.setdefault(f"{k} ran", []).append((after[k][0] - before[k][0]) / CALLS)
                    row.setdefault(f"{k} queued", []).append((after[k][1] - before[k][1]) / CALLS)
                row.setdefault("same core", []).append(
                    core_of(f"/proc/self/task/{caller}/stat") == core_of(f"/proc/self/task/{worker}/stat"))
    finally:
        competitor.close()
        threads.tune(**SETTINGS["placement on"])
    print(f"MLP step on 2 threads, {'quiet' if args.quiet else 'one core busy'}; medians over {args.rounds} "
          f"rounds of {CALLS} calls, µs per call; load average {os.getloadavg()[0]:.2f}")
    for name, row in found.items():
        same = sum(row.pop("same core"))
        cells = ", ".join(f"{k} {statistics.median(v):.0f}" for k, v in row.items())
        print(f"  {name}: {cells}; caller and worker last on the same core in {same} of {args.rounds} rounds")


if __name__ == "__main__":
    main()
