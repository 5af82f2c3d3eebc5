"""Cost of `insert-transfers` at compile time, and how it grows with the graph.

    python3 tools/bench_placement.py [--sizes 1000,2000,4000,8000] [--repeat 5]

The graph: a chain of elementwise ops over a user input and a device-resident shared
variable, where every 8th value is also summed (a host op: one copy to the host each) and the
sum fed back into the chain (one copy to the device each). Rows: ops in the function, the
pass's time (median of `repeat` runs on fresh parses) with Python's cyclic garbage collector
on (as a compile runs) and off (the pass's own work: a collection walks the whole heap, the
IR included, and is charged to whatever runs when it triggers), the time per op with it off,
and the transfers inserted. Linear growth shows as a flat time per op.
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from irc.dialects import load_all  # noqa: E402
from irc.ir.parser import parse_module  # noqa: E402
from irc.ir.pass_manager import PassManager  # noqa: E402


def chain_text(n: int) -> str:
    """A function of `n` elementwise steps (every 8th also summed and fed back)."""
    lines = ['func.func @chain(%x: tensor<?xf32>, %w: tensor<?xf32, "cuda"> {irc.shared = "w"}) -> tensor<?xf32> {',
             '  %v0 = tensor.to_host %w : (tensor<?xf32, "cuda">) -> tensor<?xf32>']
    prev = "%v0"
    for i in range(1, n + 1):
        op = ("add", "mul", "sub", "maximum")[i % 4]
        lines.append(f"  %v{i} = tensor.{op} {prev}, %x : tensor<?xf32>")
        prev = f"%v{i}"
        if i % 8 == 0:
            lines.append(f"  %s{i} = tensor.reduce {prev} {{kind = \"sum\", axes = array<i64: 0>}} "
                         f": (tensor<?xf32>) -> tensor<f32>")
            lines.append(f"  %r{i} = tensor.dimshuffle %s{i} {{pattern = array<i64: -1>}} "
                         f": (tensor<f32>) -> tensor<1xf32>")
            lines.append(f"  %b{i} = tensor.add {prev}, %r{i} : (tensor<?xf32>, tensor<1xf32>) -> tensor<?xf32>")
            prev = f"%b{i}"
    lines += [f"  func.return {prev} : tensor<?xf32>", "}"]
    return "\n".join(lines)


def measure(n: int, repeat: int, collect: bool) -> tuple[int, float, int]:
    text = chain_text(n)
    times, transfers, ops = [], 0, 0
    for _ in range(repeat):
        module = parse_module(text, "<chain>")
        pm = PassManager.parse("insert-transfers", verify_each=False)
        gc.collect()
        if not collect:
            gc.disable()
        t0 = time.perf_counter()
        pm.run(module)
        times.append(time.perf_counter() - t0)
        gc.enable()
        body = module.body.ops[0].regions[0].blocks[0].ops
        ops = len(body)
        transfers = sum(op.op_name in ("tensor.to_device", "tensor.to_host") for op in body)
    return ops, statistics.median(times), transfers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,2000,4000,8000")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    load_all()
    print(f"{'ops':>8} {'ms (gc on)':>11} {'ms (gc off)':>12} {'us/op (off)':>12} {'transfers':>10}")
    for n in (int(s) for s in args.sizes.split(",")):
        _, with_gc, _ = measure(n, args.repeat, collect=True)
        ops, seconds, transfers = measure(n, args.repeat, collect=False)
        print(f"{ops:>8} {with_gc * 1e3:>11.2f} {seconds * 1e3:>12.2f} {seconds * 1e6 / ops:>12.2f} {transfers:>10}")


if __name__ == "__main__":
    main()
