import os, sys
sys.path.insert(0, "tools")
os.environ.setdefault("IRC_FLAGS", "device=cuda,floatX=float32")
import numpy as np, irc
import bench_gpu_steps as steps
from irc.runtime.cuda.driver import device
dev = device()
for name, make in (("mlp", steps.mlp_irc),):
    with irc.config.change_flags(profile=True):
        f = make()
    for _ in range(10):
        f()
    dev.synchronize()
    timing = f.maker.native.timing
    timing.collect()
    for _ in range(200):
        f()
    dev.synchronize()
    rows = timing.collect()
    total = sum(s for s, c in rows.values())
    print(name, "sum of kernel times per call (us):", total / 200 * 1e6)
    for key, (s, c) in sorted(rows.items(), key=lambda kv: -kv[1][0]):
        print(f"  {key:30s} {s / c * 1e6:8.2f} us x {c // 200}")
    host = f.maker.native.host_func
    from irc.ir.instrumentation import render_ir
    kernels = f.maker.native.kernels
    for k in ("mlp_step_kernel3","mlp_step_kernel7","mlp_step_kernel8","mlp_step_kernel16","mlp_step_kernel19","mlp_step_kernel24","mlp_step_kernel25","mlp_step_kernel26","mlp_step_kernel29","mlp_step_kernel30","mlp_step_kernel34","mlp_step_kernel35"):
        op = kernels.get(k)
        print(k, "|", str(op.location) if op is not None else "")
