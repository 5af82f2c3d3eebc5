"""Probe: the GPU MLP step's time under variants of the compiler (lowering constants, passes),
built in one process and timed interleaved (round after round, each variant's samples beside
the others'), since the step's time moves by a few µs between processes.

    IRC_FLAGS=device=cuda,floatX=float32 python3 tools/probe_mlp_variants.py main \
        no-reuse old-reuse irc.conversion.tensor_to_loop.device_reduce.MIN_PER_THREAD=8

A variant is a comma-separated list of changes: `no-reuse` (plan_buffers reuses no dead
buffer), `old-reuse` (plan_buffers gives any dead buffer of the type and size, on a device
too), `no-row-reader` (the cross-entropy's row sums a kernel of their own, not the softmax's:
softmax_row_reader.py), `module.NAME=int`;
`main` is none. Each variant compiles into a folder of its own (the warm start's key covers
irc's sources, not a changed constant).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import random
import statistics
import sys
import tempfile
import time

import irc

sys.path.insert(0, "tools")
from bench_gpu import irc_sync  # noqa: E402
from bench_gpu_steps import mlp_irc  # noqa: E402


@contextlib.contextmanager
def patched(obj, name: str, value):
    old = getattr(obj, name)
    setattr(obj, name, value)
    try:
        yield
    finally:
        setattr(obj, name, old)


def changes(spec: str) -> contextlib.ExitStack:
    stack = contextlib.ExitStack()
    for change in filter(None, spec.split(",")):
        if change == "main":
            continue
        if change == "no-reuse":
            from irc.passes import plan_buffers
            stack.enter_context(patched(plan_buffers.plan_buffers, "__defaults__", (False, True)))
        elif change == "old-reuse":
            from irc.passes import plan_buffers
            stack.enter_context(patched(plan_buffers, "_reusable", lambda free, new, deps: free[-1] if free else None))
        elif change == "no-row-reader":
            from irc.conversion.tensor_to_loop import device_softmax
            stack.enter_context(patched(device_softmax, "row_reader", lambda ctx, op: None))
        else:
            target, value = change.split("=")
            module, name = target.rsplit(".", 1)
            stack.enter_context(patched(importlib.import_module(module), name, int(value)))
    return stack


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("variants", nargs="+")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--inner", type=int, default=100)
    args = ap.parse_args()
    steps = {}
    for spec in args.variants:
        for tf32 in (False, True):
            with changes(spec), irc.config.change_flags(compiledir=tempfile.mkdtemp(prefix="probe-")):
                steps[spec, tf32] = f = mlp_irc(tf32)
                f()  # (the launch plan is made by the first call, under the variant's changes)
    samples = {key: [] for key in steps}
    for f in steps.values():
        for _ in range(20):
            f()
    irc_sync()
    rng = random.Random(0)
    keys = list(steps)
    for _ in range(args.rounds):
        rng.shuffle(keys)  # (no variant always first after the others)
        for key in keys:
            f = steps[key]
            t0 = time.perf_counter()
            for _ in range(args.inner):
                f()
            irc_sync()
            samples[key].append((time.perf_counter() - t0) / args.inner * 1e6)
    for spec in dict.fromkeys(args.variants):
        text = []
        for t in (False, True):
            q = statistics.quantiles(samples[spec, t], n=4)
            text.append(f"{'tf32' if t else 'fp32'} {q[1]:.2f} µs (quartiles {q[0]:.2f}–{q[2]:.2f})")
        print(f"VARIANT {spec}: " + ", ".join(text), flush=True)


if __name__ == "__main__":
    main()
