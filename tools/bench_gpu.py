"""GPU benchmarks of `irc.function` with device=cuda, side by side with torch and cupy (and
torch.compile, jax.jit), in one run on the GPU machine; the training steps' rows are
`bench_gpu_steps.py`'s.

    IRC_FLAGS=device=cuda,floatX=float32 python3 tools/bench_gpu.py [--repeat N] [--quick] [--cases exp,chain,...]

Every time is the median over `repeat` samples, each the mean of several back-to-back calls
followed by one synchronization (so asynchronous launches are counted until done); a ratio
compares two rows of this same run (irc / peer: below 1 is faster). Peers missing from the
machine are skipped with a note.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("IRC_FLAGS", "device=cuda,floatX=float32")
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # jax beside torch and irc

from bench_common import Table, median_us  # noqa: E402  (tools/ is on the path: this script's folder)
import bench_gpu_scan as recurrent  # noqa: E402
import bench_gpu_steps as steps  # noqa: E402
import irc  # noqa: E402
import irc.tensor as T  # noqa: E402
from irc.sandbox.cuda.basic_ops import gpu_from_host  # noqa: E402


def device_us(fn: Callable[[], object], sync: Callable[[], object], repeat: int, inner: int) -> float:
    """`median_us` with a device synchronization ending the warm-up and every sample."""
    return median_us(fn, repeat, inner, sync=sync, warmup=5)


def _peers() -> tuple:
    try:
        import torch
        torch.cuda.init()
    except Exception:
        torch = None
    try:
        import cupy
    except Exception:
        cupy = None
    try:
        import jax
        jax.devices("gpu")
    except Exception:
        jax = None
    return torch, cupy, jax


def irc_sync() -> None:
    from irc.runtime.cuda.driver import device
    device().synchronize()


def bench_exp(t: Table, repeat: int, torch, cupy) -> None:
    """The tutorial's three exp programs (230,400 float32) and each peer's counterpart."""
    host = np.random.RandomState(22).rand(230400).astype("float32")
    x = irc.shared(host, name="x")
    f_host = irc.function([], T.exp(x))
    f_dev = irc.function([], gpu_from_host(T.exp(x)))
    f_borrow = irc.function([], irc.Out(gpu_from_host(T.exp(x)), borrow=True))
    ref = np.exp(host.astype("float64"))
    for f in (f_host, f_dev, f_borrow):
        err = float(np.max(np.abs(np.asarray(f()) - ref) / ref))
        assert err < 1e-6, err
    cases = [("exp to host", f_host), ("exp on device", f_dev), ("exp borrow=True", f_borrow)]
    mine = {name: t.add(f"{name}: irc", device_us(f, irc_sync, repeat, 200), f"max rel err {err:.1e}")
            for name, f in cases}
    if torch is not None:
        xt = torch.as_tensor(host, device="cuda")
        out = torch.empty_like(xt)
        ts = torch.cuda.synchronize
        base = {"exp to host": t.add("exp to host: torch .cpu()", device_us(lambda: torch.exp(xt).cpu(), ts, repeat, 200)),
                "exp on device": t.add("exp on device: torch", device_us(lambda: torch.exp(xt), ts, repeat, 200)),
                "exp borrow=True": t.add("exp into a buffer: torch out=", device_us(lambda: torch.exp(xt, out=out), ts, repeat, 200))}
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            torch.exp(xt, out=out)
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            torch.exp(xt, out=out)
        t.add("exp into a buffer: torch CUDA graph replay", device_us(g.replay, ts, repeat, 200))
        for name in mine:
            t.ratio(f"  {name} ratio", mine[name], base[name], "of torch's time")
    if cupy is not None:
        xc = cupy.asarray(host)
        oc = cupy.empty_like(xc)
        cs = cupy.cuda.Device().synchronize
        t.add("exp to host: cupy .get()", device_us(lambda: cupy.exp(xc).get(), cs, repeat, 200))
        t.add("exp on device: cupy", device_us(lambda: cupy.exp(xc), cs, repeat, 200))
        t.add("exp into a buffer: cupy out=", device_us(lambda: cupy.exp(xc, out=oc), cs, repeat, 200))


def chain(m, v):
    return m.tanh(m.exp(-(v * 0.5 + 1.0) ** 2) * 3.0 - v) + m.sqrt(m.abs(v) + 1.0)


def bench_chain(t: Table, repeat: int, n: int, torch, label: str) -> None:
    """The 10-op elementwise chain over `n` float32 on the device (result kept there)."""
    host = np.random.RandomState(1).randn(n).astype("float32")
    x = irc.shared(host, name="x")
    f = irc.function([], irc.Out(gpu_from_host(chain(T, x)), borrow=True))

    class NpMath:
        tanh, exp, sqrt, abs = np.tanh, np.exp, np.sqrt, np.abs

    np.testing.assert_allclose(np.asarray(f()), chain(NpMath, host), rtol=2e-5, atol=2e-6)
    inner = 20 if n > 10 ** 7 else 200
    mine = t.add(f"10-op chain {label} f32: irc", device_us(f, irc_sync, repeat, inner))
    gbs = 2 * 4 * n / (mine * 1e-6) / 1e9
    t.rows[-1] = (t.rows[-1][0], mine, f"{gbs:.0f} GB/s (read + write)")
    if torch is None:
        return
    xt = torch.as_tensor(host, device="cuda")
    ts = torch.cuda.synchronize
    try:
        compiled = torch.compile(lambda v: chain(torch, v))
        compiled(xt)
        base = t.add(f"10-op chain {label} f32: torch.compile", device_us(lambda: compiled(xt), ts, repeat, inner))
        t.ratio(f"  chain {label} ratio", mine, base, "of torch.compile's time")
    except Exception as e:  # no Triton / compiler on the machine
        t.add(f"10-op chain {label} f32: torch.compile", None, f"skipped: {type(e).__name__}: {e}"[:80])
    t.add(f"10-op chain {label} f32: torch eager", device_us(lambda: chain(torch, xt), ts, repeat, inner))
    if n > 10 ** 7:
        dst = torch.empty_like(xt)
        copy = t.add(f"device copy of {label} f32: torch", device_us(lambda: dst.copy_(xt), ts, repeat, inner))
        t.ratio("  chain vs copy", mine, copy, "of a device copy's time (1.0 = copy bandwidth)")


def bench_sums(t: Table, repeat: int, torch) -> None:
    """Sums of a 4096² float32 matrix on the device over axis 0, axis 1 and whole (results kept
    on the device), against torch's."""
    host = np.random.RandomState(3).rand(4096, 4096).astype("float32")
    x = irc.shared(host, name="x")
    nbytes = host.nbytes
    for axis, label in ((0, "axis 0"), (1, "axis 1"), (None, "all")):
        f = irc.function([], irc.Out(gpu_from_host(x.sum(axis=axis)), borrow=True))
        np.testing.assert_allclose(np.asarray(f()), host.sum(axis=axis, dtype="float64"), rtol=1e-5)
        us = device_us(f, irc_sync, repeat, 50)
        mine = t.add(f"sum of 4096² over {label}: irc", us, f"{nbytes / (us * 1e-6) / 1e9:.0f} GB/s read")
        if torch is None:
            continue
        xt = torch.as_tensor(host, device="cuda")
        run = (lambda: xt.sum()) if axis is None else (lambda a=axis: xt.sum(a))
        base = t.add(f"sum of 4096² over {label}: torch", device_us(run, torch.cuda.synchronize, repeat, 50))
        t.ratio(f"  sum {label} ratio", mine, base, "of torch's time")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--quick", action="store_true", help="fewer samples")
    ap.add_argument("--cases", default="exp,chain,sums,lr,gemm,mlp,tutorial,rnn,until,ifelse",
                    help="comma-separated: exp, chain, sums, lr, gemm, mlp, tutorial, rnn, until, ifelse")
    args = ap.parse_args()
    cases = set(args.cases.split(","))
    repeat = 5 if args.quick else args.repeat
    torch, cupy, jax = _peers()
    from irc.runtime.cuda.driver import device
    dev = device()
    t = Table()
    print(f"machine: {dev.name} ({dev.arch}, {dev.sm_count} SMs); torch "
          f"{getattr(torch, '__version__', 'absent')}, cupy {getattr(cupy, '__version__', 'absent')}")
    if "exp" in cases:
        bench_exp(t, repeat, torch, cupy)
    if "chain" in cases:
        bench_chain(t, repeat, 10 ** 6, torch, "1e6")
        bench_chain(t, repeat, 2 ** 26, torch, "2^26")
    if "sums" in cases:
        bench_sums(t, repeat, torch)
    if "lr" in cases:
        steps.bench_lr(t, repeat, torch, jax, device_us, irc_sync)
    if "gemm" in cases:
        steps.bench_gemm(t, repeat, torch, device_us, irc_sync)
    if "mlp" in cases:
        steps.bench_mlp(t, repeat, torch, jax, device_us, irc_sync)
    if "tutorial" in cases:
        steps.bench_tutorial(t)
    if "rnn" in cases:
        recurrent.bench_rnn(t, repeat, torch, jax, device_us, irc_sync)
    if "until" in cases:
        recurrent.bench_until(t, repeat, device_us, irc_sync)
    if "ifelse" in cases:
        recurrent.bench_ifelse(t, repeat, device_us, irc_sync)
    t.print()


if __name__ == "__main__":
    main()
