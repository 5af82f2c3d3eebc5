"""Probe: the GPU MLP step's time with lowering constants changed (one variant per process,
each with its own compile folder, since the warm start's key covers irc's sources, not a
changed constant).

    IRC_FLAGS=device=cuda,floatX=float32 python3 tools/probe_mlp_variants.py \
        [--set irc.conversion.tensor_to_loop.device_reduce.MIN_PER_THREAD=4 ...]
"""
from __future__ import annotations

import argparse
import importlib
import sys

sys.path.insert(0, "tools")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", action="append", default=[], help="module.NAME=int")
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    for item in args.set:
        target, value = item.split("=")
        module, name = target.rsplit(".", 1)
        setattr(importlib.import_module(module), name, int(value))
    from bench_gpu import device_us, irc_sync
    from bench_gpu_steps import mlp_irc
    fp32 = device_us(mlp_irc(), irc_sync, args.repeat, 100)
    tf32 = device_us(mlp_irc(True), irc_sync, args.repeat, 100)
    print(f"VARIANT {' '.join(args.set) or 'main'}: fp32 {fp32:.2f} µs, tf32 {tf32:.2f} µs", flush=True)


if __name__ == "__main__":
    main()
