"""How the thread pool's threads wait (`thread_pool.py`): spin, yield the core now and then,
and give up (so the caller can sleep on a futex) when the budget is spent or a yield shows
that another thread wanted this core.

A spinning thread is only worth its core while nothing else wants it. On a quiet machine the
pool's threads spin (a worker woken from a futex is slow to start and lands on its caller's
core), but when another process, or another pool in the same process (numpy's OpenBLAS
threads spin ~0.15 s after each call, without yielding), is runnable on the same core, the
spin takes that thread's time and the pool's own work waits behind it. So every
`yield_cycles` of the cycle counter the spinner calls `sched_yield()`: alone on its core, the
call returns in about a microsecond; when the scheduler ran someone else instead, it returns
a slice later, and more than `contended_cycles` after the call means the core is contested —
stop spinning and sleep.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from llvmlite import ir

if TYPE_CHECKING:
    from .thread_pool import PoolModule

I32 = ir.IntType(32)
I64 = ir.IntType(64)

# futex(2) operations the pool's sleeps use (on a process-private word)
FUTEX_WAIT_PRIVATE = 128
FUTEX_WAKE_PRIVATE = 129


def emit_spin(pool: PoolModule, b: ir.IRBuilder, ready: Callable[[ir.IRBuilder], ir.Value],
              budget: ir.Value, ready_bb: ir.Block, give_up_bb: ir.Block) -> None:
    """From the current block, spin until `ready(b)` (an i1, emitted once per round) holds —
    then branch to `ready_bb` — or until `budget` cycles have passed or a yield found the core
    contested — then branch to `give_up_bb`. `pool` is the `PoolModule` (its globals and
    intrinsics); where it cannot yield (no Linux), the spin only counts cycles."""
    fn = b.function
    entry = b.block
    spin = fn.append_basic_block("spin")
    check = fn.append_basic_block("spin.check")
    start = pool.cycles(b)
    b.branch(spin)

    b.position_at_end(spin)
    last = b.phi(I64, "last_yield")
    last.add_incoming(start, entry)
    b.cbranch(ready(b), ready_bb, check)

    b.position_at_end(check)
    pool.pause(b)
    now = pool.cycles(b)
    over = b.icmp_unsigned(">", b.sub(now, start), budget)
    if not pool.can_yield:
        last.add_incoming(last, check)
        b.cbranch(over, give_up_bb, spin)
        return
    due_bb = fn.append_basic_block("spin.due")
    yield_bb = fn.append_basic_block("spin.yield")
    b.cbranch(over, give_up_bb, due_bb)

    b.position_at_end(due_bb)
    due = b.icmp_unsigned(">", b.sub(now, last), pool.load(b, "yield_cycles", "monotonic"))
    last.add_incoming(last, due_bb)
    b.cbranch(due, yield_bb, spin)

    b.position_at_end(yield_bb)
    b.call(pool.fn("sched_yield", I32, []), [])
    after = pool.cycles(b)
    contested = b.icmp_unsigned(">", b.sub(after, now), pool.load(b, "contended_cycles", "monotonic"))
    last.add_incoming(after, yield_bb)
    b.cbranch(contested, give_up_bb, spin)
