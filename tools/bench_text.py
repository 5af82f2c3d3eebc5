"""Times printing and parsing of one function of N ops (default 10,000), generic and custom.

    python tools/bench_text.py [N]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import irc.dialects  # noqa: E402,F401  (registers builtin and func)
from irc.dialects.builtin import ModuleOp, TensorType  # noqa: E402
from irc.dialects.func import FuncOp, ReturnOp  # noqa: E402
from irc.ir.core import create_op  # noqa: E402
from irc.ir.parser import parse_module  # noqa: E402
from irc.ir.printer import print_op  # noqa: E402
from irc.ir.types import f32  # noqa: E402


def build(n: int) -> ModuleOp:
    """A chain of tensor-like generic ops, each using the previous value and the argument."""
    t = TensorType((None, 4), f32)
    func = FuncOp.create("chain", [t], [t])
    block = func.body
    x = prev = block.args[0]
    for k in range(n):
        name = "x.exp" if k % 2 else "x.add"
        operands = [prev] if k % 2 else [prev, x]
        op = create_op(name, operands, [t], allow_unregistered=True)
        block.append(op)
        prev = op.results[0]
    block.append(ReturnOp([prev]))
    return ModuleOp.create([func])


def timed(fn, repeat: int = 3):
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    module = build(n)
    t_print, text = timed(lambda: print_op(module))
    t_parse, parsed = timed(lambda: parse_module(text, "bench.mlir", allow_unregistered=True))
    t_generic, gtext = timed(lambda: print_op(module, generic=True, debuginfo=True))
    t_gparse, _ = timed(lambda: parse_module(gtext, "bench.mlir", allow_unregistered=True))
    assert print_op(parsed) == text
    print(f"{n} ops, {len(text) / 1e6:.2f} MB of text")
    print(f"print            {t_print * 1e3:7.1f} ms")
    print(f"parse            {t_parse * 1e3:7.1f} ms")
    print(f"print+parse      {(t_print + t_parse) * 1e3:7.1f} ms")
    print(f"print generic+loc{t_generic * 1e3:7.1f} ms")
    print(f"parse generic+loc{t_gparse * 1e3:7.1f} ms")
    try:
        from irc.ir.verifier import verify
    except ImportError:
        return
    t_verify, _ = timed(lambda: verify(parsed, allow_unregistered=True))
    print(f"verify           {t_verify * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
