"""Graph generators shared by the fusion tests and tools/bench_fusion.py."""
from __future__ import annotations

import random

UNARY = ("exp", "neg", "tanh", "sigmoid", "abs")
BINARY = ("add", "sub", "mul", "maximum")


def big_graph_text(n_ops: int, seed: int = 0) -> str:
    """A tensor-level function of about `n_ops` ops: elementwise ops over recent values, with
    a reduction fed back through a broadcast every 25 ops (fusion barriers, cycle candidates)
    and a function output every 100 ops (multi-output groups)."""
    rng = random.Random(seed)
    t = "tensor<?xf32>"
    lines = [f"func.func @big(%x: {t}, %y: {t}) -> ({', '.join([t] * (n_ops // 100 + 1))}) {{"]
    vals = ["%x", "%y"]
    outs: list[str] = []
    k = 0
    while k < n_ops:
        recent = vals[-8:]
        name = f"%v{k}"
        if k % 25 == 24:
            src = rng.choice(recent)
            lines.append(f"  %r{k} = tensor.reduce {src} {{axes = array<i64: 0>, kind = \"max\"}} "
                         f": ({t}) -> tensor<f32>")
            lines.append(f"  %d{k} = tensor.dimshuffle %r{k} {{pattern = array<i64: -1>}} "
                         f": (tensor<f32>) -> tensor<1xf32>")
            other = rng.choice(recent)
            lines.append(f"  {name} = tensor.sub {other}, %d{k} : ({t}, tensor<1xf32>) -> {t}")
            k += 3
        elif rng.random() < 0.4:
            lines.append(f"  {name} = tensor.{rng.choice(UNARY)} {rng.choice(recent)} : {t}")
            k += 1
        else:
            a, b = rng.choice(recent), rng.choice(recent)
            lines.append(f"  {name} = tensor.{rng.choice(BINARY)} {a}, {b} : {t}")
            k += 1
        vals.append(name)
        if k % 100 == 0:
            outs.append(name)
    outs.append(vals[-1])
    outs = outs[: n_ops // 100 + 1]
    while len(outs) < n_ops // 100 + 1:
        outs.append(vals[-1])
    lines.append(f"  func.return {', '.join(outs)} : {', '.join([t] * len(outs))}")
    lines.append("}")
    return "\n".join(lines) + "\n"
