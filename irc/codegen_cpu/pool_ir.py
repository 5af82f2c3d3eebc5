"""IR helpers the thread pool's modules share (`thread_pool.py`, `pool_placement.py`): its
sizes, opaque pointers and a counted loop."""
from __future__ import annotations

from llvmlite import ir

I64 = ir.IntType(64)
PTR = ir.PointerType()

from .pool_abi import MAX_THREADS  # noqa: F401  (re-exported)
LINE = 8    # i64 per cache line: each cursor, each worker's lane on its own line


def arch_of(triple: str) -> str:
    return triple.split("-", 1)[0]


def c64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def opaque(v: ir.Value) -> ir.Value:
    """`v` typed as an opaque `ptr`: llvmlite still gives allocas, globals and geps on them
    typed pointers, whose stores it checks against the pointee type."""
    v.type = PTR
    return v


class counted_loop:
    """`with counted_loop(b, n) as i:` emits `for (i = 0; i < n; i++)`."""

    def __init__(self, b: ir.IRBuilder, n: ir.Value):
        self.b, self.n = b, n

    def __enter__(self) -> ir.Value:
        b = self.b
        self.pre = b.block
        self.header = b.append_basic_block("for.header")
        self.body = b.append_basic_block("for.body")
        self.exit = b.append_basic_block("for.exit")
        b.branch(self.header)
        b.position_at_end(self.header)
        self.i = b.phi(I64, "i")
        self.i.add_incoming(c64(0), self.pre)
        b.cbranch(b.icmp_signed("<", self.i, self.n), self.body, self.exit)
        b.position_at_end(self.body)
        return self.i

    def __exit__(self, *exc) -> None:
        b = self.b
        self.i.add_incoming(b.add(self.i, c64(1)), b.block)
        b.branch(self.header)
        b.position_at_end(self.exit)
