"""What the caller of `irc_rt_parallel_for` does around its own share of a loop
(`thread_pool.py`): wake sleeping workers when it pays, wait for their last blocks (spin,
then sleep on the `done` futex), and after a wait that had to sleep run the next loops alone
for a while. Each function emits its part into the caller's function; `pool` is the
`PoolModule` (its globals, loads, cycle counter and futex calls).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from .pool_backoff import FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE, emit_spin

if TYPE_CHECKING:
    from .thread_pool import PoolModule

I32 = ir.IntType(32)
I64 = ir.IntType(64)

# the caller waits for the other threads' last blocks at least this long before it sleeps
WAIT_FLOOR_CYCLES = 1 << 16  # ~25 µs
# how long loops run alone after a stalled dispatch: from ~0.4 ms, doubling up to ~50 ms (a
# stall costs up to a scheduler slice, a few ms: at most a few % of the time at the cap)
SOLO_MIN_CYCLES = 1 << 20
SOLO_MAX_CYCLES = 1 << 27


def c64(v: int) -> ir.Constant:
    return ir.Constant(I64, v)


def wake_sleepers(pool: PoolModule, b: ir.IRBuilder, work: ir.Value) -> None:
    """Wake sleeping workers for a loop of `wake_work` or more, and for a smaller one at
    most once per `spin_cycles`: a woken worker takes tens of µs to arrive (the caller has
    done a small loop alone by then) and costs the caller a system call, which on a busy
    machine, where workers sleep after every job, would be paid on every small loop. Once
    in a while is enough to get a worker spinning again where the machine is quiet."""
    asleep = b.icmp_signed(">", pool.load(b, "sleepers", "seq_cst"), ir.Constant(I32, 0))
    with b.if_then(asleep, likely=False):
        now = pool.cycles(b)
        big = b.icmp_signed(">=", work, pool.load(b, "wake_work", "monotonic"))
        due = b.icmp_unsigned(">", b.sub(now, pool.load(b, "last_wake", "monotonic")),
                              pool.load(b, "spin_cycles", "monotonic"))
        with b.if_then(b.or_(big, due)):
            b.store_atomic(now, pool.g["last_wake"], "monotonic", 8)
            pool.count(b, "wakes", c64(1))
            pool.futex_op(b, "gen", FUTEX_WAKE_PRIVATE, c64(2 ** 31 - 1))


def wait_budget(pool: PoolModule, b: ir.IRBuilder, spent: ir.Value, ran: ir.Value) -> ir.Value:
    """How long the caller spins for the others' last blocks: twice its own mean block
    time (a worker still busy after that was most likely descheduled, and the caller's
    core, once free, can take it), at least WAIT_FLOOR_CYCLES, at most `spin_cycles`."""
    per_block = b.udiv(spent, b.select(b.icmp_signed(">", ran, c64(0)), ran, c64(1)))
    budget = b.mul(per_block, c64(2))
    budget = b.select(b.icmp_unsigned("<", budget, c64(WAIT_FLOOR_CYCLES)), c64(WAIT_FLOOR_CYCLES), budget)
    cap = pool.load(b, "spin_cycles", "monotonic")
    return b.select(b.icmp_unsigned(">", budget, cap), cap, budget)


def after_wait(pool: PoolModule, b: ir.IRBuilder, clean: ir.Block, stalled: ir.Block,
               done: ir.Block) -> None:
    """A dispatch whose caller had to sleep for a worker's block (a worker descheduled in
    the middle of it: the caller then waits a scheduler slice, more than the loop's whole
    time on one thread) sends the next loops to the caller alone for `solo_cycles`,
    doubled each time; a clean dispatch halves it. Where workers keep stalling, the pool
    then runs at nearly one thread's speed, never far below it."""
    b.position_at_end(stalled)
    longer = b.mul(pool.load(b, "solo_cycles", "monotonic"), c64(2))
    longer = b.select(b.icmp_unsigned("<", longer, c64(SOLO_MIN_CYCLES)), c64(SOLO_MIN_CYCLES), longer)
    longer = b.select(b.icmp_unsigned(">", longer, c64(SOLO_MAX_CYCLES)), c64(SOLO_MAX_CYCLES), longer)
    b.store_atomic(longer, pool.g["solo_cycles"], "monotonic", 8)
    b.store_atomic(b.add(pool.cycles(b), longer), pool.g["solo_until"], "monotonic", 8)
    b.branch(done)
    b.position_at_end(clean)
    shorter = b.lshr(pool.load(b, "solo_cycles", "monotonic"), c64(1))
    b.store_atomic(shorter, pool.g["solo_cycles"], "monotonic", 8)
    b.branch(done)


def wait_for_blocks(pool: PoolModule, b: ir.IRBuilder, total: ir.Value, threads: ir.Value, spent: ir.Value,
                    budget: ir.Value, done: ir.Block, stalled: ir.Block) -> None:
    """Spin (`pool_backoff.emit_spin`) until `done` reaches `total`, then pull the workers
    still in a block onto this core (`pool_placement.pull_holders`) and sleep on `done`; the
    worker that adds the last blocks wakes us (`thread_pool.run_blocks`). Goes on to `done`
    when the spin was enough or the sleep short, to `stalled` when the caller slept longer
    than it took for its own blocks (`spent` cycles): the dispatch was then slower than the
    loop on one thread."""
    fn = b.function
    finished = fn.append_basic_block("wait.finished")
    sleep = fn.append_basic_block("wait.sleep")
    asleep = fn.append_basic_block("wait.asleep")
    awake = fn.append_basic_block("wait.awake")

    def all_done(b: ir.IRBuilder) -> ir.Value:
        return b.icmp_unsigned(">=", pool.load(b, "done", "acquire"), total)

    give_up = fn.append_basic_block("wait.give_up")
    emit_spin(pool, b, all_done, budget, finished, give_up)
    b.position_at_end(finished)
    b.branch(done)
    b.position_at_end(give_up)
    pool.count(b, "caller_sleeps", c64(1))
    slept_from = pool.cycles(b)
    if pool.place is not None:
        pool.place.pull_holders(b, threads)
    b.branch(sleep)
    b.position_at_end(sleep)
    if pool.futex is None:  # no futex to sleep on: spin on
        b.cbranch(all_done(b), awake, asleep)
        b.position_at_end(asleep)
        pool.pause(b)
        b.branch(sleep)
        b.position_at_end(awake)
        b.branch(stalled)
        return

    b.store_atomic(ir.Constant(I32, 1), pool.g["waiting"], "seq_cst", 4)
    seen = pool.load(b, "done", "seq_cst")
    b.cbranch(b.icmp_unsigned(">=", seen, total), awake, asleep)
    b.position_at_end(asleep)
    pool.futex_op(b, "done", FUTEX_WAIT_PRIVATE, b.zext(seen, I64))
    b.branch(sleep)
    b.position_at_end(awake)
    b.store_atomic(ir.Constant(I32, 0), pool.g["waiting"], "seq_cst", 4)
    slept = b.sub(pool.cycles(b), slept_from)
    pool.count(b, "slept_cycles", slept)
    b.cbranch(b.icmp_unsigned(">", slept, spent), stalled, done)
