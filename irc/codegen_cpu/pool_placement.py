"""Where the thread pool's workers run (`thread_pool.py`): never on the core their caller is
on, and, when the caller would sleep waiting for a worker stuck in a block, on the caller's.

Three runnable threads on two cores (the caller, a worker and a process spinning on one core,
or numpy's OpenBLAS thread, which spins ~0.1 s after each call without yielding) leave one
core shared. The scheduler balances by thread counts, so the shared core is as often the
caller's: the worker then runs only when the caller does not, and 2 threads took 1.0–1.05×
one thread's time (measured: the worker waited in the run queue for 90% of each MLP step).
So a worker that finds itself, at the start of a job, on the core the caller published with
the job (`sched_getcpu`), excludes that core from its affinity mask — the cores the process
may use (`allowed`, set once from Python) less that one — and the kernel moves it at once. It
then shares the other core, with its leftover share.

There it is preempted now and then in the middle of a block, and the caller, its blocks
done, would wait a scheduler tick (4 ms at HZ=250) for it: worth more than the whole loop.
So before the caller sleeps, it pulls every worker that is still in a block onto its own
core (an affinity mask of that core alone: the kernel migrates a waiting thread at once), and
the worker, its block done, excludes that core again.

A worker only manages a mask that is `allowed` or the one it set itself: a thread pinned by
the user (or a test) keeps its pinning, and is never pulled.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from .pool_abi import MASK_WORDS
from .pool_ir import LINE, MAX_THREADS, arch_of, c64, counted_loop, opaque

if TYPE_CHECKING:
    from .thread_pool import PoolModule

I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()

MASK_BYTES = MASK_WORDS * 8
# gettid(2), where the pool runs workers (the architectures of FUTEX_SYSCALL)
GETTID_SYSCALL = {"x86_64": 186, "aarch64": 178}
# a worker's lane (`lanes`, one cache line each): its thread id, whether it is inside a
# job's blocks now, whether the caller pulled it onto its core, and the core its own mask
# leaves out (plus 1; 0: its mask is not one it set)
LANE = {"tid": 0, "holding": 1, "pulled": 2, "excluded": 3}


class Placement:
    """Emits the placement code into `pool`'s functions."""

    def __init__(self, pool: PoolModule):
        self.pool = pool
        words = ir.ArrayType(I64, MASK_WORDS)
        self.allowed = pool._global("allowed", words, ir.Constant(words, [0] * MASK_WORDS))
        scratch = ir.ArrayType(I64, (MAX_THREADS + 1) * MASK_WORDS)  # one per thread, + the caller's
        self.scratch = pool._global("masks", scratch, ir.Constant(scratch, [0] * ((MAX_THREADS + 1) * MASK_WORDS)))
        lanes = ir.ArrayType(I64, MAX_THREADS * LINE)
        self.lanes = pool._global("lanes", lanes, ir.Constant(lanes, [0] * (MAX_THREADS * LINE)))

    # -- addresses
    def lane(self, b: ir.IRBuilder, t: ir.Value, field: str) -> ir.Value:
        k = b.add(b.mul(t, c64(LINE)), c64(LANE[field]))
        return opaque(b.gep(self.lanes, [k], inbounds=True, source_etype=I64))

    def _word(self, b: ir.IRBuilder, base: ir.GlobalVariable, slot: ir.Value, w: ir.Value) -> ir.Value:
        return opaque(b.gep(base, [b.add(b.mul(slot, c64(MASK_WORDS)), w)], inbounds=True, source_etype=I64))

    def mask_ptr(self, b: ir.IRBuilder, slot: ir.Value) -> ir.Value:
        return self._word(b, self.scratch, slot, c64(0))

    # -- libc
    def getcpu(self, b: ir.IRBuilder) -> ir.Value:
        """The core this thread runs on now (i64; -1 where unknown)."""
        return b.sext(b.call(self.pool.fn("sched_getcpu", I32, []), []), I64)

    def gettid(self, b: ir.IRBuilder) -> ir.Value:
        number = GETTID_SYSCALL.get(arch_of(self.pool.m.triple))
        if number is None:
            return c64(0)
        return b.call(self.pool.fn("syscall", I64, [I64], var_arg=True), [c64(number)])

    def _affinity(self, b: ir.IRBuilder, name: str, tid: ir.Value, slot: ir.Value) -> ir.Value:
        fn = self.pool.fn(name, I32, [I32, I64, PTR])
        return b.call(fn, [b.trunc(tid, I32), c64(MASK_BYTES), self.mask_ptr(b, slot)])

    # -- masks in a thread's scratch slot
    def fill(self, b: ir.IRBuilder, slot: ir.Value, without: ir.Value | None = None,
             only: ir.Value | None = None) -> ir.Value:
        """Scratch `slot` := `allowed` less core `without`, or core `only` alone (no allocas:
        a worker's loop never returns). Returns whether the mask has any core."""
        nonzero: ir.Value = ir.Constant(ir.IntType(1), 0)
        for w in range(MASK_WORDS):
            if only is not None:
                word = self._bit(b, only, w)
            else:
                word = b.and_(b.load(self._word(b, self.allowed, c64(0), c64(w)), typ=I64),
                              b.xor(self._bit(b, without, w), c64(-1)))
            b.store(word, self._word(b, self.scratch, slot, c64(w)))
            nonzero = b.or_(nonzero, b.icmp_signed("!=", word, c64(0)))
        return nonzero

    @staticmethod
    def _bit(b: ir.IRBuilder, core: ir.Value, w: int) -> ir.Value:
        """Core `core`'s bit in word `w` of a mask (0 when it is in another word or < 0)."""
        hit = b.icmp_signed("==", b.ashr(core, c64(6)), c64(w))
        return b.select(hit, b.shl(c64(1), b.and_(core, c64(63))), c64(0))

    def managed(self, b: ir.IRBuilder, slot: ir.Value, excluded: ir.Value) -> ir.Value:
        """Whether the mask read into scratch `slot` is `allowed`, or `allowed` less core
        `excluded` (the one this worker set; -1: none): a mask the pool may change."""
        whole: ir.Value = ir.Constant(ir.IntType(1), 1)
        ours: ir.Value = b.icmp_signed(">=", excluded, c64(0))
        for w in range(MASK_WORDS):
            a = b.load(self._word(b, self.allowed, c64(0), c64(w)), typ=I64)
            m = b.load(self._word(b, self.scratch, slot, c64(w)), typ=I64)
            whole = b.and_(whole, b.icmp_signed("==", m, a))
            ours = b.and_(ours, b.icmp_signed("==", m, b.and_(a, b.xor(self._bit(b, excluded, w), c64(-1)))))
        return b.or_(whole, ours)

    # -- what the threads do
    def leave_core(self, b: ir.IRBuilder, index: ir.Value, core: ir.Value) -> None:
        """Worker `index`: run anywhere allowed but on `core` (and remember that core)."""
        with b.if_then(self.fill(b, index, without=core)):
            done = self._affinity(b, "sched_setaffinity", c64(0), index)
            with b.if_then(b.icmp_signed("==", done, ir.Constant(I32, 0))):  # (a sandbox may refuse)
                b.atomic_rmw("xchg", self.lane(b, index, "excluded"), b.add(core, c64(1)), "seq_cst")
                b.atomic_rmw("add", self.pool.g["moves"], c64(1), "monotonic")

    def off_callers_core(self, b: ir.IRBuilder, index: ir.Value, caller_core: ir.Value) -> None:
        """At a job's start: a worker on its caller's core (`caller_core`, published with the
        job) leaves it, if its mask is one the pool manages."""
        on = self.pool.load(b, "placement", "monotonic")
        cpu = self.getcpu(b)
        shared = b.and_(b.icmp_signed("!=", on, c64(0)),
                        b.and_(b.icmp_signed(">=", caller_core, c64(0)), b.icmp_signed("==", cpu, caller_core)))
        with b.if_then(shared, likely=False):
            self._affinity(b, "sched_getaffinity", c64(0), index)
            excluded = b.sub(b.load_atomic(self.lane(b, index, "excluded"), "monotonic", 8, typ=I64), c64(1))
            with b.if_then(self.managed(b, index, excluded)):
                self.leave_core(b, index, cpu)

    def back_from_pull(self, b: ir.IRBuilder, index: ir.Value) -> None:
        """A worker the caller pulled onto its core (`pull_holders`) leaves that core again."""
        pulled = b.atomic_rmw("xchg", self.lane(b, index, "pulled"), c64(0), "seq_cst")
        with b.if_then(b.icmp_signed("!=", pulled, c64(0)), likely=False):
            self.leave_core(b, index, self.getcpu(b))

    def pull_holders(self, b: ir.IRBuilder, threads: ir.Value) -> None:
        """The caller, about to sleep for blocks still running: every worker still in a block
        whose mask the pool manages (read with `sched_getaffinity`: a pull is rare) gets the
        caller's core alone as its mask (the kernel moves a preempted thread at once), then
        is told (`pulled`) to leave that core again after its block."""
        on = self.pool.load(b, "rescue", "monotonic")
        with b.if_then(b.icmp_signed("!=", on, c64(0))):
            core = self.getcpu(b)
            with b.if_then(b.icmp_signed(">=", core, c64(0))):
                mine = c64(MAX_THREADS)
                with counted_loop(b, b.sub(threads, c64(1))) as k:
                    t = b.add(k, c64(1))
                    holding = b.load_atomic(self.lane(b, t, "holding"), "seq_cst", 8, typ=I64)
                    with b.if_then(b.icmp_signed("!=", holding, c64(0))):
                        tid = b.load_atomic(self.lane(b, t, "tid"), "monotonic", 8, typ=I64)
                        self._affinity(b, "sched_getaffinity", tid, mine)
                        excluded = b.sub(b.load_atomic(self.lane(b, t, "excluded"), "monotonic", 8, typ=I64), c64(1))
                        with b.if_then(self.managed(b, mine, excluded)):
                            self.fill(b, mine, only=core)
                            done = self._affinity(b, "sched_setaffinity", tid, mine)
                            with b.if_then(b.icmp_signed("==", done, ir.Constant(I32, 0))):
                                b.atomic_rmw("xchg", self.lane(b, t, "pulled"), c64(1), "seq_cst")
                                self.pool.count(b, "pulls", c64(1))
