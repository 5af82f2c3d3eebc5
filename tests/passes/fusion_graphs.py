"""Graph generators shared by the fusion tests and tools/bench_fusion.py, and the tutorial's
logistic-regression training function."""
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


def reduce_graph_text(n_ops: int, seed: int = 0, dtype: str = "f32") -> str:
    """A function over `?x?` matrices mixing elementwise ops with reductions of every kind over
    rows, columns or both, fed back through dimshuffles (so groups see several reductions,
    reductions of their own values, and cycle candidates); reduced values and some
    elementwise ones are returned."""
    rng = random.Random(seed)
    m = f"tensor<?x?x{dtype}>"
    lines: list[str] = []
    vals = ["%x", "%y"]
    outs: list[tuple[str, str]] = []
    for k in range(n_ops):
        recent = vals[-6:]
        r = rng.random()
        if r < 0.25:
            src = rng.choice(recent)
            kind = rng.choice(["sum", "max", "min", "sum"])
            axes, kept, back = rng.choice([("0", "?", "-1, 0"), ("1", "?", "0, -1"), ("0, 1", "", "-1, -1")])
            t = f"tensor<{kept}x{dtype}>" if kept else f"tensor<{dtype}>"
            bt = "tensor<1x?x" + dtype + ">" if back == "-1, 0" else (
                "tensor<?x1x" + dtype + ">" if back == "0, -1" else f"tensor<1x1x{dtype}>")
            lines.append(f"  %r{k} = tensor.reduce {src} {{axes = array<i64: {axes}>, kind = \"{kind}\"}} "
                         f": ({m}) -> {t}")
            outs.append((f"%r{k}", t))
            if rng.random() < 0.7:
                lines.append(f"  %d{k} = tensor.dimshuffle %r{k} {{pattern = array<i64: {back}>}} : ({t}) -> {bt}")
                lines.append(f"  %v{k} = tensor.{rng.choice(['sub', 'add', 'mul'])} {rng.choice(recent)}, %d{k} "
                             f": ({m}, {bt}) -> {m}")
                vals.append(f"%v{k}")
        elif r < 0.55:
            op = rng.choice(["neg", "tanh", "abs", "sigmoid"])
            lines.append(f"  %v{k} = tensor.{op} {rng.choice(recent)} : {m}")
            vals.append(f"%v{k}")
        else:
            op = rng.choice(["add", "sub", "mul", "maximum"])
            lines.append(f"  %v{k} = tensor.{op} {rng.choice(recent)}, {rng.choice(recent)} : {m}")
            vals.append(f"%v{k}")
        if rng.random() < 0.1:
            outs.append((vals[-1], m))
    outs.append((vals[-1], m))
    types = ", ".join(t for _, t in outs)
    head = f"func.func @g(%x: {m}, %y: {m}) -> ({types}) {{"
    ret = f"  func.return {', '.join(v for v, _ in outs)} : {types}"
    return "\n".join([head, *lines, ret, "}"]) + "\n"


def lr_training_function(dtype: str, excluding: str, features: int):
    """The tutorial's training step (w starts at 0.01, b at 0), compiled with the rewrites
    tagged `excluding` turned off; returns (f, w, b)."""
    import numpy as np
    import irc
    import irc.tensor as T
    x, y = T.matrix("x", dtype=dtype), T.vector("y", dtype=dtype)
    w = irc.shared(np.full(features, 0.01, dtype), name="w")
    b = irc.shared(np.asarray(0.0, dtype), name="b")
    p = 1 / (1 + T.exp(-T.dot(x, w) - b))
    xent = -y * T.log(p) - (1 - y) * T.log(1 - p)
    cost = xent.mean() + 0.01 * (w ** 2).sum()
    gw, gb = T.grad(cost, [w, b])
    with irc.config.change_flags(optimizer_excluding=excluding):
        f = irc.function([x, y], [p > 0.5, xent], updates=[(w, w - 0.1 * gw), (b, b - 0.1 * gb)])
    return f, w, b
