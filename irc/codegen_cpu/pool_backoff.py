"""How the thread pool's threads wait (`thread_pool.py`): spin until the budget is spent or
the spin finds that it lost its core for a while, then give up (so the thread can sleep on
a futex).

A spinning thread is only worth its core while nothing else wants it. On a quiet machine the
pool's threads spin: a worker woken from a futex takes 11-16 µs to arrive in this VM. But
when another thread is runnable on the same core — another process, or another pool in the
same process (torch's OpenMP threads spin ~7 ms after each parallel region, numpy's OpenBLAS
threads ~0.1 s) — the scheduler shares the core, and a spinning worker is then, half the
time, runnable but not running: a job published meanwhile waits for it a whole scheduler
slice, and its caller does the loop alone. A sleeping worker is woken by the job and, having
slept, preempts the other thread at once. So the spin reads the cycle counter each round,
and a round that took over `contended_cycles` means the thread was descheduled: the core is
contested. The spin then gives up, and the pool remembers it until `contended_until`
(`contended_hold` cycles on): until then idle workers sleep right after each job instead of
spinning. (A `sched_yield` every few µs, the earlier probe, hands the core to a spinner that
does not yield back for a whole slice: that is the state to avoid.)
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from llvmlite import ir

if TYPE_CHECKING:
    from .thread_pool import PoolModule

I64 = ir.IntType(64)

# futex(2) operations the pool's sleeps use (on a process-private word)
FUTEX_WAIT_PRIVATE = 128
FUTEX_WAKE_PRIVATE = 129


def emit_spin(pool: PoolModule, b: ir.IRBuilder, ready: Callable[[ir.IRBuilder], ir.Value],
              budget: ir.Value, ready_bb: ir.Block, give_up_bb: ir.Block) -> None:
    """From the current block, spin until `ready(b)` (an i1, emitted once per round) holds —
    then branch to `ready_bb` — or until `budget` cycles have passed or a round took over
    `contended_cycles` (the thread was descheduled: `contended_until` is then moved on) —
    then branch to `give_up_bb`. `pool` is the `PoolModule` (its globals and intrinsics)."""
    fn = b.function
    entry = b.block
    spin = fn.append_basic_block("spin")
    check = fn.append_basic_block("spin.check")
    on_time = fn.append_basic_block("spin.on_time")
    contested = fn.append_basic_block("spin.contested")
    start = pool.cycles(b)
    b.branch(spin)

    b.position_at_end(spin)
    last = b.phi(I64, "last_round")
    last.add_incoming(start, entry)
    b.cbranch(ready(b), ready_bb, check)

    b.position_at_end(check)
    pool.pause(b)
    now = pool.cycles(b)
    over = b.icmp_unsigned(">", b.sub(now, start), budget)
    late = b.icmp_unsigned(">", b.sub(now, last), pool.load(b, "contended_cycles", "monotonic"))
    b.cbranch(late, contested, on_time)

    b.position_at_end(on_time)
    last.add_incoming(now, on_time)
    b.cbranch(over, give_up_bb, spin)

    b.position_at_end(contested)
    until = b.add(now, pool.load(b, "contended_hold", "monotonic"))
    b.store_atomic(until, pool.g["contended_until"], "monotonic", 8)
    b.branch(give_up_bb)


def spin_budget(pool: PoolModule, b: ir.IRBuilder, budget: ir.Value) -> ir.Value:
    """`budget`, or 0 while the pool remembers a contested core (`contended_until`)."""
    calm = b.icmp_unsigned(">=", pool.cycles(b), pool.load(b, "contended_until", "monotonic"))
    return b.select(calm, budget, ir.Constant(I64, 0))
