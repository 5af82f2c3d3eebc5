"""Probe: the GPU MLP step's kernels one by one (run under `ncu`), or its per-op profile.

    IRC_FLAGS=device=cuda,floatX=float32 python3 tools/probe_mlp_kernels.py [steps] [--profile]
"""
from __future__ import annotations

import sys

import irc

sys.path.insert(0, "tools")
from bench_gpu_steps import mlp_irc  # noqa: E402


def main() -> None:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 3
    if "--profile" in sys.argv:
        with irc.config.change_flags(profile=True):
            f = mlp_irc()
        for _ in range(200):
            f()
        f.profile.summary()
        return
    f = mlp_irc()
    for _ in range(20):
        f()
    print("steps", steps, flush=True)
    for _ in range(steps):
        f()


if __name__ == "__main__":
    main()
