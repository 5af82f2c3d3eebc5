"""irc's first call against jax.jit's, side by side: issue 23's targets in one run.

    python3 tools/cold_vs_jax.py [--rounds N] [--baseline OTHER_IRC_TREE]

Every sample is a fresh process (the first call of a user's program: graph building, the
gradient, compilation, one call; the import timed apart, numpy.random's with it on both sides:
`import jax` loads it, `import irc` does not, and the programs draw their data with it). A round takes, one after the other
on the same machine so that the load is shared: the tutorial's logistic-regression step and
the MLP step of `examples/dlt_programs.py` on irc with an empty compile cache, the same two
on jax.jit (jax's own persistent cache off), then an MLP of another width and other
hyperparameters on irc with a cache that holds the LR and the first MLP (only kernels can be
reused: its loop IR differs), then the MLP and the LR again: warm, a hit before the passes
(for a baseline tree without that cache, a hit of its function-level object cache). Prints
every sample, the medians and the load average.
irc's first call on an empty cache runs tier-0 code (`config.compile_tiers`, as a user's does);
each irc process waits at its exit for the background compile of the optimized code, so the
next sample finds a complete cache and no child of the previous one still running.

The children may write Python's bytecode cache (`PYTHONDONTWRITEBYTECODE` is dropped), and a
first round that is not counted writes it: an installed irc has its `.pyc` files, as jax has;
without them every process compiles irc's sources again (0.2 s of `import irc`, 0.15 s of
the first compile's imports).
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

_IRC = r"""
import json, sys, time
t0 = time.perf_counter()
import irc, irc.tensor as T
import numpy as np
import numpy.random  # (the programs' own; `import jax` loads it, so jax's first call never pays it)
t_import = time.perf_counter() - t0
program, width, lr, l1, l2 = sys.argv[1], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
t1 = time.perf_counter()
sys.path.insert(0, sys.argv[7])
from cold_programs import build
f, args = build(program, sys.argv[2], width, lr, l1, l2)
f(*args)
print(json.dumps({"import": t_import, "first call": time.perf_counter() - t1}))
"""

_JAX = r"""
import json, sys, time
t0 = time.perf_counter()
import jax, jax.numpy as jnp
import numpy as np
t_import = time.perf_counter() - t0
program = sys.argv[1]
t1 = time.perf_counter()
if program == "lr":
    rng = np.random.RandomState(0)
    w, b = jnp.asarray(rng.randn(784).astype(np.float32)), jnp.float32(0.0)

    def cost_of(w, b, x, y):
        p_1 = 1 / (1 + jnp.exp(-x @ w - b))
        xent = -y * jnp.log(p_1) - (1 - y) * jnp.log(1 - p_1)
        return xent.mean() + 0.01 * (w ** 2).sum(), (p_1, xent)

    @jax.jit
    def train(w, b, x, y):
        (_, (p_1, xent)), (gw, gb) = jax.value_and_grad(cost_of, argnums=(0, 1), has_aux=True)(w, b, x, y)
        return p_1 > 0.5, xent, w - 0.01 * gw, b - 0.01 * gb

    x, y = rng.randn(400, 784).astype(np.float32), rng.randint(0, 2, 400).astype(np.float32)
    out = train(w, b, x, y)
else:  # examples/dlt_programs.py's mlp: 12 -> 16 tanh -> 3 softmax, L1 and L2 terms, SGD
    rng = np.random.RandomState(0)
    labels = rng.randint(3, size=240)
    centres = rng.randn(3, 12) * 0.6
    data_x = jnp.asarray((1 / (1 + np.exp(-(centres[labels] + rng.randn(240, 12))))).astype(np.float32))
    data_y = jnp.asarray(labels.astype(np.int32))
    bound = np.sqrt(6.0 / 28)
    params = [jnp.asarray(np.random.RandomState(1234).uniform(-bound, bound, (12, 16)).astype(np.float32)),
              jnp.zeros(16, jnp.float32), jnp.zeros((16, 3), jnp.float32), jnp.zeros(3, jnp.float32)]

    def cost_of(params, x, y):
        w1, b1, w2, b2 = params
        p = jax.nn.softmax(jnp.tanh(x @ w1 + b1) @ w2 + b2)
        nll = -jnp.mean(jnp.log(p)[jnp.arange(y.shape[0]), y])
        return nll + 0.001 * (jnp.abs(w1).sum() + jnp.abs(w2).sum()) + 0.0001 * ((w1 ** 2).sum() + (w2 ** 2).sum())

    @jax.jit
    def train(params, index):
        x = jax.lax.dynamic_slice_in_dim(data_x, index * 20, 20)
        y = jax.lax.dynamic_slice_in_dim(data_y, index * 20, 20)
        cost, grads = jax.value_and_grad(cost_of)(params, x, y)
        return cost, [p - 0.01 * g for p, g in zip(params, grads)]

    out = train(params, 0)
jax.block_until_ready(out)
print(json.dumps({"import": t_import, "first call": time.perf_counter() - t1}))
"""

MLP = ("16", "0.01", "0.001", "0.0001")
OTHER_MLP = ("64", "0.05", "0.0005", "0.0002")


def sample(code: str, program: str, cache: str, root: Path = ROOT, mlp: tuple[str, ...] = MLP) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(IRC_COMPILEDIR=cache, IRC_FLAGS="floatX=float32", JAX_PLATFORMS="cpu",
               JAX_ENABLE_COMPILATION_CACHE="false",
               PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    out = subprocess.run([sys.executable, "-c", code, program, str(ROOT / "examples" / "dlt_programs.py"), *mlp,
                          str(ROOT / "tools")],
                         capture_output=True, text=True, env=env, check=True, cwd=root)  # `-c` puts the cwd first
    return json.loads(out.stdout.strip().splitlines()[-1])


def irc_samples(root: Path, label: str) -> dict[str, float]:
    got: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="irc-cold-") as cache, \
            tempfile.TemporaryDirectory(prefix="irc-cold-mlp-") as mlp_cache:
        lr = sample(_IRC, "lr", cache, root)
        got[f"{label}LR, empty cache"] = lr["first call"]
        got[f"{label}import irc"] = lr["import"]
        got[f"{label}MLP, empty cache"] = sample(_IRC, "mlp", mlp_cache, root)["first call"]
        sample(_IRC, "mlp", cache, root)  # the cache now holds the LR's and the MLP's kernels
        got[f"{label}other MLP, cache holding LR + MLP"] = sample(_IRC, "mlp", cache, root, OTHER_MLP)["first call"]
        got[f"{label}MLP again (warm: a hit before the passes)"] = sample(_IRC, "mlp", cache, root)["first call"]
        got[f"{label}LR again (warm: a hit before the passes)"] = sample(_IRC, "lr", cache, root)["first call"]
    return got


def one_round(baseline: Path | None) -> dict[str, float]:
    got = irc_samples(ROOT, "irc ")
    with tempfile.TemporaryDirectory(prefix="irc-cold-jax-") as cache:
        got["jax LR"] = sample(_JAX, "lr", cache)["first call"]
        jax_mlp = sample(_JAX, "mlp", cache)
    got["jax MLP"] = jax_mlp["first call"]
    got["import jax"] = jax_mlp["import"]
    if baseline is not None:
        got.update(irc_samples(baseline, "baseline "))
    got["load average"] = os.getloadavg()[0]
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", type=Path, help="another irc tree (e.g. main's) measured in the same rounds")
    args = parser.parse_args()
    one_round(args.baseline)  # writes the bytecode caches (not counted)
    rounds = []
    for k in range(args.rounds):
        rounds.append(one_round(args.baseline))
        print(f"round {k + 1}: " + ", ".join(f"{name} {v:.3f}" for name, v in rounds[-1].items()), flush=True)
    print("\n| first call (s) | median | samples |\n|---|---|---|")
    for name in rounds[0]:
        values = [r[name] for r in rounds]
        print(f"| {name} | {statistics.median(values):.3f} | {', '.join(f'{v:.3f}' for v in values)} |")


if __name__ == "__main__":
    main()
