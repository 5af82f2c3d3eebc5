"""A LeNet training step (the Deep Learning Tutorials' convolutional_mlp, examples/lenet.py:
batch 500, 1×28×28 → 20 5×5 filters → max pool 2 → 50 5×5 filters → max pool 2 → 500 tanh →
10 softmax, one SGD step on float32) in irc, PyTensor and torch (eager, 2 threads).

    python3 tools/bench_lenet.py [--rounds N] [--batch B] [--libs irc,torch] [--pytensor-python PATH]

Each library runs in a worker process of its own that builds the model once and then, per
round, times one sample (the mean of `--calls` steps after a warm-up step); the rounds go
round-robin over the workers (the others sleep meanwhile) so that a noisy machine slows them
alike, and each figure is the median over the rounds. PyTensor's `conv2d` and `pool_2d` are
the ones of its `nnet`/`signal.pool` modules (PyTensor 2.8; 3.x has neither): give the
interpreter of an environment that has it with `--pytensor-python` (default: this one).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
THREADS = 2


# ---------------------------------------------------------------------------- the workers
def _synthetic(batch: int, seed: int = 0):
    import numpy as np
    rng = np.random.RandomState(seed)
    x = rng.rand(2 * batch, 784).astype("float32")
    y = rng.randint(10, size=2 * batch)
    return x, y


def _irc_step(batch: int):
    sys.path[:0] = [str(ROOT), str(ROOT / "examples")]
    import irc
    irc.config.floatX = "float32"
    import lenet
    train_x, train_y = lenet.make_images(n=2 * batch)
    _, train, _ = lenet.lenet(train_x, train_y, batch_size=batch)
    return lambda i: train(i % 2)


def _theano_like_step(batch: int, lib, T, conv2d, pool_2d):
    """The tutorial's program written against a Theano-like library (PyTensor)."""
    import numpy as np
    x_data, y_data = _synthetic(batch)
    rng = np.random.RandomState(23455)
    train_x = lib.shared(x_data)
    train_y = T.cast(lib.shared(y_data.astype("float32")), "int32")
    index, x, y = T.lscalar(), T.matrix(), T.ivector()

    def layer(inp, filter_shape, image_shape):
        fan_in = np.prod(filter_shape[1:])
        fan_out = filter_shape[0] * np.prod(filter_shape[2:]) // 4
        bound = np.sqrt(6.0 / (fan_in + fan_out))
        W = lib.shared(rng.uniform(-bound, bound, filter_shape).astype("float32"))
        b = lib.shared(np.zeros(filter_shape[0], dtype="float32"))
        out = pool_2d(conv2d(inp, W, filter_shape=filter_shape, input_shape=image_shape), ws=(2, 2), ignore_border=True)
        return T.tanh(out + b.dimshuffle("x", 0, "x", "x")), [W, b]

    h0, p0 = layer(x.reshape((batch, 1, 28, 28)), (20, 1, 5, 5), (batch, 1, 28, 28))
    h1, p1 = layer(h0, (50, 20, 5, 5), (batch, 20, 12, 12))
    bound = np.sqrt(6.0 / (800 + 500))
    W2 = lib.shared(rng.uniform(-bound, bound, (800, 500)).astype("float32"))
    b2 = lib.shared(np.zeros(500, dtype="float32"))
    W3 = lib.shared(np.zeros((500, 10), dtype="float32"))
    b3 = lib.shared(np.zeros(10, dtype="float32"))
    h2 = T.tanh(T.dot(h1.flatten(2), W2) + b2)
    p = T.nnet.softmax(T.dot(h2, W3) + b3) if hasattr(T, "nnet") else T.special.softmax(T.dot(h2, W3) + b3, axis=-1)
    cost = -T.mean(T.log(p)[T.arange(y.shape[0]), y])
    params = [W3, b3, W2, b2] + p1 + p0
    updates = [(q, q - 0.1 * g) for q, g in zip(params, T.grad(cost, params))]
    batch_slice = slice(index * batch, (index + 1) * batch)
    train = lib.function([index], cost, updates=updates, givens={x: train_x[batch_slice], y: train_y[batch_slice]})
    return lambda i: train(i % 2)


def _pytensor_step(batch: int):
    import warnings
    warnings.simplefilter("ignore", DeprecationWarning)  # its nnet and signal modules say they go away
    import pytensor
    import pytensor.tensor as T
    from pytensor.tensor.nnet import conv2d
    from pytensor.tensor.signal.pool import pool_2d
    pytensor.config.floatX = "float32"
    return _theano_like_step(batch, pytensor, T, conv2d, pool_2d)


def _torch_step(batch: int):
    import numpy as np
    import torch
    torch.set_num_threads(THREADS)
    F = torch.nn.functional
    x_data, y_data = _synthetic(batch)
    X, Y = torch.tensor(x_data), torch.tensor(y_data)
    rng = np.random.RandomState(23455)

    def param(shape, bound):
        return torch.tensor(rng.uniform(-bound, bound, shape).astype("float32"), requires_grad=True)
    W0, W1 = param((20, 1, 5, 5), 0.1), param((50, 20, 5, 5), 0.05)
    W2, W3 = param((800, 500), 0.07), torch.zeros(500, 10, requires_grad=True)
    b0, b1, b2, b3 = (torch.zeros(n, requires_grad=True) for n in (20, 50, 500, 10))
    params = [W0, b0, W1, b1, W2, b2, W3, b3]

    def step(i: int) -> float:
        i %= 2
        x, y = X[i * batch:(i + 1) * batch].reshape(batch, 1, 28, 28), Y[i * batch:(i + 1) * batch]
        h = torch.tanh(F.max_pool2d(F.conv2d(x, W0), 2) + b0.view(1, -1, 1, 1))
        h = torch.tanh(F.max_pool2d(F.conv2d(h, W1), 2) + b1.view(1, -1, 1, 1))
        h = torch.tanh(h.flatten(1) @ W2 + b2)
        cost = F.nll_loss(F.log_softmax(h @ W3 + b3, 1), y)
        grads = torch.autograd.grad(cost, params)
        with torch.no_grad():
            for q, g in zip(params, grads):
                q -= 0.1 * g
        return cost.item()
    return step


WORKERS = {"irc": _irc_step, "pytensor": _pytensor_step, "torch": _torch_step}


def worker(name: str, batch: int, calls: int) -> None:
    """Build, report the build time, then answer each line on stdin with one sample (ms)."""
    t0 = time.perf_counter()
    step = WORKERS[name](batch)
    step(0)
    print(json.dumps({"build_s": time.perf_counter() - t0}), flush=True)
    for _ in sys.stdin:
        step(1)  # the warm-up: a pool woken from sleep starts slow
        t = time.perf_counter()
        for i in range(calls):
            step(i)
        print(json.dumps({"ms": (time.perf_counter() - t) / calls * 1e3}), flush=True)


# ---------------------------------------------------------------------------- the driver
def _start(name: str, python: str, batch: int, calls: int):
    env = dict(os.environ, OMP_NUM_THREADS=str(THREADS), PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([python, __file__, "--worker", name, "--batch", str(batch), "--calls", str(calls)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    if not line:
        proc.wait()
        return None, None
    return proc, json.loads(line)["build_s"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2)
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--pytensor-python", default=sys.executable)
    parser.add_argument("--libs", default="irc,pytensor,torch", help="comma-separated, of: irc, pytensor, torch")
    parser.add_argument("--worker", choices=sorted(WORKERS))
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.batch, args.calls)
        return
    procs, builds = {}, {}
    for name in args.libs.split(","):
        python = args.pytensor_python if name == "pytensor" else sys.executable
        proc, build = _start(name, python, args.batch, args.calls)
        if proc is None:
            print(f"{name}: could not run (see its error above)")
            continue
        procs[name], builds[name] = proc, build
    samples: dict[str, list[float]] = {name: [] for name in procs}
    for _ in range(args.rounds):
        for name, proc in procs.items():
            proc.stdin.write("go\n")
            proc.stdin.flush()
            samples[name].append(json.loads(proc.stdout.readline())["ms"])
            time.sleep(0.25)  # let this library's pool threads stop spinning
    for proc in procs.values():
        proc.stdin.close()
        proc.wait()
    median = {name: statistics.median(s) for name, s in samples.items()}
    print(f"LeNet training step, batch {args.batch}, float32, {THREADS} threads; median of {args.rounds} "
          f"interleaved rounds of {args.calls} steps")
    print(f"{'library':10} {'ms/step':>9} {'min':>8} {'max':>8} {'build s':>8}")
    for name, s in samples.items():
        print(f"{name:10} {median[name]:9.1f} {min(s):8.1f} {max(s):8.1f} {builds[name]:8.1f}")
    for other in ("pytensor", "torch"):
        if "irc" in median and other in median:
            print(f"irc / {other}: {median['irc'] / median[other]:.2f}")


if __name__ == "__main__":
    main()
