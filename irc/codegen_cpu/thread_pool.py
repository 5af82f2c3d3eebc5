"""The native thread pool that runs outlined `loop.parallel` bodies, as one small LLVM module.

Compiled code calls one function:

    void irc_rt_parallel_for(ptr body, ptr ctx, i64 n, i64 work)

`body(ctx, lo, hi)` runs iterations [lo, hi) of an outlined loop. [0, n) is split into equal
contiguous ranges, one per thread (the caller's thread has range 0), and each range into
BLOCKS blocks. A thread runs the blocks of its own range first, in order, then takes blocks
left in the other ranges. So when every thread is running, the split depends only on n and
the thread count — consecutive loops over the same rows touch the same rows on the same core,
whose caches stay warm — and when a worker is slow to wake or descheduled (a loaded machine),
the others do its share instead of waiting for it. Small loops (`work`, the caller's cost
estimate, below `min_work`), one configured thread, or a dispatch already in flight (two Python
threads calling compiled code) run the whole range on the calling thread.

Claiming a block is a compare-and-swap on its range's cursor: the job's generation in the high
32 bits (a worker that wakes late, even during a later job, can never claim a block of a job it
did not read), then the next block from the front (taken by the range's owner) and the end of
the blocks left (thieves take from the back, so a slightly late owner loses only its last
blocks, the same ones each time, and the data stays where it was). The caller re-stamps the
cursors before it writes the job fields and publishes the job by incrementing the generation.
It returns when all blocks are done: it spins for about two of its own blocks' time, then
sleeps on the `done` futex (a worker still busy after that was most likely descheduled, and
the caller's core, once idle, can take it), and the worker that adds the last blocks wakes it.
Idle workers spin for `spin_cycles` of the cycle counter, then sleep on the `gen` futex
(Linux), so an idle process costs no CPU. Both spins stop once they find they lost their core
for a while (`pool_backoff.py`): another process, or torch's or numpy's pool threads spinning
in this one, want it; for some ms after that idle workers sleep right after each job, so the
next job's wake-up gives them the core at once.
Workers run off their caller's core and are pulled onto it when the caller would sleep for
their blocks (`pool_placement.py`). A worker out of blocks while another thread still holds
one (most likely preempted) sleeps soon (`give_way`), freeing its core for that thread. A
dispatch whose caller slept longer than its own blocks took sends the next loops to the
caller alone for a while (`pool_caller.py`).
Workers join one at a time and count themselves (`joined`), so the indices of joined workers
are always 1..joined.
"""
from __future__ import annotations

from llvmlite import ir

from .pool_abi import PARALLEL_FOR, SETTABLE, STATS  # noqa: F401  (re-exported)
from .pool_backoff import FUTEX_WAIT_PRIVATE, FUTEX_WAKE_PRIVATE, emit_spin, spin_budget
from .pool_caller import after_wait, wait_budget, wait_for_blocks, wake_sleepers
from .pool_ir import LINE, MAX_THREADS, arch_of, c64, counted_loop, opaque
from .pool_placement import GETTID_SYSCALL, MASK_WORDS, Placement

I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()

BODY_TYPE = ir.FunctionType(VOID, [PTR, I64, I64])
PARALLEL_FOR_TYPE = ir.FunctionType(VOID, [PTR, PTR, I64, I64])

BLOCKS = 8  # blocks per thread's range: the unit of stealing
GIVE_WAY_FLOOR = 1 << 18  # ~0.1 ms: the least a worker waits for another's last block before it sleeps

# futex(2) on the architectures where we know the syscall number
FUTEX_SYSCALL = {"x86_64": 202, "aarch64": 98}

# globals: name -> (type, initial value); each aligned to a cache line
STATE = {
    "sleepers": (I32, 0),   # workers asleep on the futex
    "busy": (I32, 0),       # a dispatch is in flight
    "done": (I32, 0),       # blocks of the current job finished; the caller's futex word
    "waiting": (I32, 0),    # the caller is asleep on `done`
    "joined": (I64, 0),     # workers started and waiting
    "want": (I64, 1),       # threads to use, the caller's included
    "min_work": (I64, 300_000),  # ~3 µs of work: below, a dispatch (~1 µs here) does not pay
    "wake_work": (I64, 4_000_000),  # ~40 µs: below, sleeping workers are woken only now and then
    "last_wake": (I64, 0),  # cycle counter at the last wake-up
    # statistics, written by the caller only (it holds `busy`): `threads.stats()`
    "dispatches": (I64, 0),     # loops handed to the pool
    "blocks": (I64, 0),         # their blocks ...
    "helped": (I64, 0),         # ... of which workers ran
    "wakes": (I64, 0),          # futex wake-ups of sleeping workers
    "caller_sleeps": (I64, 0),  # dispatches whose caller slept waiting for a worker's block
    "solo": (I64, 0),           # loops run on the caller alone after such a wait (below)
    # after a dispatch whose caller had to sleep for a worker's block, loops run on the caller
    # alone until `solo_until`, for `solo_cycles`: doubled by each such dispatch, halved by each
    # clean one
    "solo_until": (I64, 0),
    "solo_cycles": (I64, 0),
    # ~1.7 ms at 2.5 GHz: a worker that sleeps between the parallel loops of one call (a
    # gemm's serial packing) is woken onto its caller's core by the scheduler and then adds
    # nothing (2-thread gemm ran at 1-thread speed with 100k cycles, never with 2^22)
    "spin_cycles": (I64, 1 << 22),
    # a spinning thread stops when one round of its spin took over ~25 µs: it was
    # descheduled, someone else wants this core (`pool_backoff.py`) ...
    "contended_cycles": (I64, 1 << 16),
    # ... and for the next ~0.8 ms idle workers sleep after each job instead of spinning (a
    # spinner still there is found again; 2^24, ~6.5 ms, as long as torch's OpenMP threads
    # spin after each parallel region, helped beside torch a little but, re-armed by the odd
    # gap on a quiet machine, took the LR step on 2 threads from 0.64 to 0.87 of 1 thread's time)
    "contended_hold": (I64, 1 << 21),
    "contended_until": (I64, 0),
    # where workers run (`pool_placement.py`): off their caller's core, and pulled onto it
    # when the caller would sleep for their blocks; 0 turns either off
    "placement": (I64, 1),
    "rescue": (I64, 1),
    # a worker out of blocks while another thread still holds one (most likely preempted)
    # sleeps after four of its own blocks' time (at least ~0.1 ms), so that the kernel may
    # move that thread onto the core this frees; 0: it spins its `spin_cycles` as between jobs
    "give_way": (I64, 1),
    "moves": (I64, 0),   # statistics: workers that left their caller's core ...
    "pulls": (I64, 0),   # ... and that the caller pulled onto its core, mid-block
    "slept_cycles": (I64, 0),  # cycle-counter ticks callers slept waiting for blocks ...
    "waited_cycles": (I64, 0),  # ... and waited in all (spinning too), their own blocks done
    "own_cycles": (I64, 0),     # ... and ran their own blocks
}
# the job: one cache line (8-byte slots), so a waking worker gets it with the generation
JOB = {
    "gen": (I32, 0),          # job generation; the futex word
    "job_fn": (PTR, 1),
    "job_ctx": (PTR, 2),
    "job_n": (I64, 3),
    "job_threads": (I64, 4),
    "job_cpu": (I64, 5),      # the caller's core (-1: unknown), for `pool_placement`
}
# irc_rt_set / irc_rt_get selectors


class IndirectCallee:
    """A pointer value that `IRBuilder.call` accepts as a callee of type `fnty`: with opaque
    pointers an indirect call takes its function type from the call site, which llvmlite
    only reads from `callee.function_type`."""

    def __init__(self, value: ir.Value, fnty: ir.FunctionType):
        self.value, self.function_type, self.type = value, fnty, value.type

    def get_reference(self) -> str:
        return self.value.get_reference()

    def __getattr__(self, name: str):
        return getattr(self.value, name)


class PoolModule:
    """Builds the pool's functions into a fresh module."""

    def __init__(self, triple: str):
        self.m = ir.Module(name="irc_runtime")
        self.m.triple = triple
        self.futex = FUTEX_SYSCALL.get(arch_of(triple)) if "linux" in triple else None
        self.g: dict[str, ir.GlobalVariable] = {}
        for name, (ty, init) in STATE.items():
            self.g[name] = self._global(name, ty, ir.Constant(ty, init))
        self.g["job"] = self._global("job", ir.ArrayType(I64, LINE), ir.Constant(ir.ArrayType(I64, LINE), [0] * LINE))
        cursors_ty = ir.ArrayType(I64, MAX_THREADS * LINE)
        self.g["cursors"] = self._global("cursors", cursors_ty, ir.Constant(cursors_ty, [0] * MAX_THREADS * LINE))
        # where workers can sleep they are placed too (sched_getcpu, sched_setaffinity: Linux)
        self.place = Placement(self) if self.futex is not None and arch_of(triple) in GETTID_SYSCALL else None

    def _global(self, name: str, ty: ir.Type, init: ir.Constant) -> ir.GlobalVariable:
        g = ir.GlobalVariable(self.m, ty, name=f"irc_rt.{name}")
        g.linkage = "internal"
        g.align = 64
        g.initializer = init
        return g

    # -- helpers
    def fn(self, name: str, ret: ir.Type, params: list[ir.Type], var_arg: bool = False) -> ir.Function:
        fn = self.m.globals.get(name)
        if fn is None:
            fn = ir.Function(self.m, ir.FunctionType(ret, params, var_arg=var_arg), name=name)
        return fn

    def pause(self, b: ir.IRBuilder) -> None:
        """A spin-wait hint where the target has one (x86 `pause`)."""
        if arch_of(self.m.triple) in ("x86_64", "i686"):
            b.call(self.fn("llvm.x86.sse2.pause", VOID, []), [])

    def cycles(self, b: ir.IRBuilder) -> ir.Value:
        return b.call(self.fn("llvm.readcyclecounter", I64, []), [])

    def _addr(self, b: ir.IRBuilder, name: str) -> ir.Value:
        if name in JOB:
            return opaque(b.gep(self.g["job"], [c64(JOB[name][1])], inbounds=True, source_etype=I64))
        return self.g[name]

    def _type(self, name: str) -> ir.Type:
        return JOB[name][0] if name in JOB else STATE[name][0]

    def load(self, b: ir.IRBuilder, name: str, order: str = "acquire") -> ir.Value:
        ty = self._type(name)
        return b.load_atomic(self._addr(b, name), order, 4 if ty == I32 else 8, typ=ty)

    def _get(self, b: ir.IRBuilder, name: str) -> ir.Value:
        return b.load(self._addr(b, name), typ=self._type(name))

    def futex_op(self, b: ir.IRBuilder, word: str, op: int, val: ir.Value) -> None:
        """futex(2) on the global `word` (an i32: `gen` or `done`)."""
        syscall = self.fn("syscall", I64, [I64], var_arg=True)
        null = ir.Constant(PTR, None)
        b.call(syscall, [c64(self.futex), self._addr(b, word), c64(op), val, null, null, c64(0)])

    def _cursor(self, b: ir.IRBuilder, t: ir.Value) -> ir.Value:
        return opaque(b.gep(self.g["cursors"], [b.mul(t, c64(LINE))], inbounds=True, source_etype=I64))

    @staticmethod
    def _part(b: ir.IRBuilder, lo: ir.Value, hi: ir.Value, k: ir.Value, parts: ir.Value) -> ir.Value:
        """The start of part k of [lo, hi) cut into `parts` equal parts."""
        return b.add(lo, b.sdiv(b.mul(b.sub(hi, lo), k), parts))

    # -- functions
    def build(self) -> ir.Module:
        self.run_blocks()
        self.parallel_for()
        self.accessors()
        self.set_mask()
        if self.futex is not None:
            self.worker()
        return self.m

    def accessors(self) -> None:
        """`irc_rt_set(i64 which, i64 value)` / `irc_rt_get(i64 which)` (which: index in
        SETTABLE + STATS). Setting `joined` (to 0, in a forked child) also clears the dispatch state."""
        for kind in ("set", "get"):
            params = [I64, I64] if kind == "set" else [I64]
            fn = ir.Function(self.m, ir.FunctionType(VOID if kind == "set" else I64, params), name=f"irc_rt_{kind}")
            b = ir.IRBuilder(fn.append_basic_block("entry"))
            default = fn.append_basic_block("default")
            sw = b.switch(fn.args[0], default)
            for k, name in enumerate(SETTABLE + STATS):
                bb = fn.append_basic_block(name)
                sw.add_case(c64(k), bb)
                b.position_at_end(bb)
                if kind == "get":
                    b.ret(self.load(b, name, "seq_cst"))
                    continue
                b.store_atomic(fn.args[1], self.g[name], "seq_cst", 8)
                if name == "joined":
                    for other in ("busy", "sleepers", "waiting"):
                        b.store_atomic(ir.Constant(I32, 0), self.g[other], "seq_cst", 4)
                b.ret_void()
            b.position_at_end(default)
            if kind == "get":
                b.ret(c64(-1))
            else:
                b.ret_void()

    def set_mask(self) -> None:
        """`irc_rt_set_mask(i64 word, i64 bits)`: word `word` of the cores the process may
        run on (`pool_placement.allowed`; a no-op where workers are not placed)."""
        fn = ir.Function(self.m, ir.FunctionType(VOID, [I64, I64]), name="irc_rt_set_mask")
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        if self.place is not None:
            word, bits = fn.args
            inside = b.and_(b.icmp_signed(">=", word, c64(0)), b.icmp_signed("<", word, c64(MASK_WORDS)))
            with b.if_then(inside):
                b.store(bits, opaque(b.gep(self.place.allowed, [word], inbounds=True, source_etype=I64)))
        b.ret_void()

    def run_blocks(self) -> None:
        """`i64 irc_rt.run_blocks(i64 self, i64 stamp)`: claim and run blocks of job `stamp`
        (its generation << 32), own range first, then the others'; then add the number run
        to `done` once (one contended atomic per thread and job, not per block), waking the
        caller if that finished the job while it slept. Returns the number run."""
        fn = ir.Function(self.m, ir.FunctionType(I64, [I64, I64]), name="irc_rt.run_blocks")
        fn.linkage = "internal"
        me, stamp = fn.args
        entry = fn.append_basic_block("entry")
        next_range = fn.append_basic_block("next_range")
        claim = fn.append_basic_block("claim")
        try_cas = fn.append_basic_block("try_cas")
        moved = fn.append_basic_block("moved")
        run = fn.append_basic_block("run")
        range_done = fn.append_basic_block("range_done")
        exit_ = fn.append_basic_block("exit")
        b = ir.IRBuilder(entry)
        ran = b.alloca(I64, name="ran")
        b.store(c64(0), ran)
        threads = self._get(b, "job_threads")
        n = self._get(b, "job_n")
        body = IndirectCallee(self._get(b, "job_fn"), BODY_TYPE)
        ctx = self._get(b, "job_ctx")
        valid = b.and_(b.icmp_signed(">", threads, c64(0)), b.icmp_signed("<=", threads, c64(MAX_THREADS)))
        b.cbranch(valid, next_range, exit_)

        # step s: range (me + s) mod threads
        b.position_at_end(next_range)
        s = b.phi(I64, "s")
        s.add_incoming(c64(0), entry)
        b.cbranch(b.icmp_signed("<", s, threads), claim, exit_)

        b.position_at_end(claim)
        t = b.srem(b.add(me, s), threads)
        cursor = self._cursor(b, t)
        seen = b.load_atomic(cursor, "acquire", 8, typ=I64)
        b.branch(try_cas)

        b.position_at_end(try_cas)
        cur = b.phi(I64, "cur")
        cur.add_incoming(seen, claim)
        same_job = b.icmp_unsigned("==", b.and_(cur, c64(-(1 << 32))), stamp)
        front = b.and_(cur, c64(0xFFFF))
        back = b.and_(b.lshr(cur, c64(16)), c64(0xFFFF))
        left = b.and_(same_job, b.icmp_signed("<", front, back))
        b.cbranch(left, moved, range_done)
        b.position_at_end(moved)
        own = b.icmp_signed("==", s, c64(0))
        k = b.select(own, front, b.sub(back, c64(1)))
        taken = b.select(own, b.add(cur, c64(1)), b.sub(cur, c64(1 << 16)))
        pair = b.cmpxchg(cursor, cur, taken, "seq_cst", "acquire")
        cur.add_incoming(b.extract_value(pair, 0), moved)
        b.cbranch(b.extract_value(pair, 1), run, try_cas)

        b.position_at_end(run)
        lo_t = self._part(b, c64(0), n, t, threads)
        hi_t = self._part(b, c64(0), n, b.add(t, c64(1)), threads)
        lo = self._part(b, lo_t, hi_t, k, c64(BLOCKS))
        hi = self._part(b, lo_t, hi_t, b.add(k, c64(1)), c64(BLOCKS))
        with b.if_then(b.icmp_signed("<", lo, hi)):
            b.call(body, [ctx, lo, hi])
        b.store(b.add(b.load(ran, typ=I64), c64(1)), ran)
        again = b.load_atomic(cursor, "acquire", 8, typ=I64)
        cur.add_incoming(again, b.block)
        b.branch(try_cas)

        b.position_at_end(range_done)
        s.add_incoming(b.add(s, c64(1)), range_done)
        b.branch(next_range)

        b.position_at_end(exit_)
        count = b.load(ran, typ=I64)
        with b.if_then(b.icmp_signed(">", count, c64(0))):
            count32 = b.trunc(count, I32)
            before = b.atomic_rmw("add", self.g["done"], count32, "seq_cst")
            if self.futex is not None:  # the last blocks: wake the caller if it sleeps
                last = b.icmp_signed("==", b.zext(b.add(before, count32), I64), b.mul(threads, c64(BLOCKS)))
                asleep = b.icmp_signed("!=", self.load(b, "waiting", "seq_cst"), ir.Constant(I32, 0))
                with b.if_then(b.and_(last, asleep), likely=False):
                    self.futex_op(b, "done", FUTEX_WAKE_PRIVATE, c64(1))
        b.ret(count)

    def parallel_for(self) -> None:
        fn = ir.Function(self.m, PARALLEL_FOR_TYPE, name=PARALLEL_FOR)
        body, ctx, n, work = fn.args
        b = ir.IRBuilder(fn.append_basic_block("entry"))
        serial = fn.append_basic_block("serial")
        try_pool = fn.append_basic_block("try_pool")
        dispatch = fn.append_basic_block("dispatch")
        done = fn.append_basic_block("done")

        threads = b.add(self.load(b, "joined", "monotonic"), c64(1))
        want = self.load(b, "want", "monotonic")
        threads = b.select(b.icmp_signed("<", want, threads), want, threads)
        threads = b.select(b.icmp_signed("<", n, threads), n, threads)
        small = b.icmp_signed("<", work, self.load(b, "min_work", "monotonic"))
        b.cbranch(b.or_(small, b.icmp_signed("<=", threads, c64(1))), serial, try_pool)

        b.position_at_end(serial)
        with b.if_then(b.icmp_signed(">", n, c64(0))):
            b.call(IndirectCallee(body, BODY_TYPE), [ctx, c64(0), n])
        b.ret_void()

        b.position_at_end(try_pool)
        pair = b.cmpxchg(self.g["busy"], ir.Constant(I32, 0), ir.Constant(I32, 1), "acquire", "monotonic")
        b.cbranch(b.extract_value(pair, 1), dispatch, serial)

        # alone for a while after a stall (`_after_wait`)
        b.position_at_end(dispatch)
        solo = b.icmp_signed(">", b.sub(self.load(b, "solo_until", "monotonic"), self.cycles(b)), c64(0))
        go = fn.append_basic_block("go")
        alone = fn.append_basic_block("alone")
        b.cbranch(solo, alone, go)
        b.position_at_end(alone)
        self.count(b, "solo", c64(1))
        b.store_atomic(ir.Constant(I32, 0), self.g["busy"], "release", 4)
        b.branch(serial)

        # re-stamp the cursors first (a late worker's claim then fails), then write the job
        b.position_at_end(go)
        gen = b.add(self.load(b, "gen", "monotonic"), ir.Constant(I32, 1))
        stamp = b.shl(b.zext(gen, I64), c64(32))
        fresh = b.or_(stamp, c64(BLOCKS << 16))  # front 0, back BLOCKS
        with counted_loop(b, threads) as t:
            b.atomic_rmw("xchg", self._cursor(b, t), fresh, "seq_cst")  # (store_atomic needs a typed pointer)
        b.fence("seq_cst")
        core = self.place.getcpu(b) if self.place is not None else c64(-1)
        for name, value in (("job_fn", body), ("job_ctx", ctx), ("job_n", n), ("job_threads", threads),
                            ("job_cpu", core)):
            b.store(value, self._addr(b, name))
        b.store_atomic(ir.Constant(I32, 0), self.g["done"], "monotonic", 4)
        b.atomic_rmw("xchg", self._addr(b, "gen"), gen, "seq_cst")
        if self.futex is not None:
            wake_sleepers(self, b, work)
        started = self.cycles(b)
        mine = b.call(self.m.globals["irc_rt.run_blocks"], [c64(0), stamp])
        total = b.trunc(b.mul(threads, c64(BLOCKS)), I32)
        self.count(b, "dispatches", c64(1))
        self.count(b, "blocks", b.mul(threads, c64(BLOCKS)))
        self.count(b, "helped", b.sub(b.mul(threads, c64(BLOCKS)), mine))
        stalled = fn.append_basic_block("stalled")
        clean = fn.append_basic_block("clean")
        waiting_from = self.cycles(b)
        spent = b.sub(waiting_from, started)
        self.count(b, "own_cycles", spent)
        wait_for_blocks(self, b, total, threads, spent, wait_budget(self, b, spent, mine), clean, stalled)
        after_wait(self, b, clean, stalled, done)

        b.position_at_end(done)
        self.count(b, "waited_cycles", b.sub(self.cycles(b), waiting_from))
        b.store_atomic(ir.Constant(I32, 0), self.g["busy"], "release", 4)
        b.ret_void()

    def count(self, b: ir.IRBuilder, name: str, value: ir.Value) -> None:
        """Add to a statistic (plain, not atomic: only the caller holding `busy` writes)."""
        g = self.g[name]
        b.store_atomic(b.add(b.load_atomic(g, "monotonic", 8, typ=I64), value), g, "monotonic", 8)

    def worker(self) -> None:
        """`irc_rt_worker(i64 index)`: wait for a job, help with it, forever."""
        fn = ir.Function(self.m, ir.FunctionType(VOID, [I64]), name="irc_rt_worker")
        index = fn.args[0]
        entry = fn.append_basic_block("entry")
        wait = fn.append_basic_block("wait")
        sleep = fn.append_basic_block("sleep")
        run = fn.append_basic_block("run")
        b = ir.IRBuilder(entry)
        place = self.place
        if place is not None:
            b.atomic_rmw("xchg", place.lane(b, index, "tid"), place.gettid(b), "seq_cst")
        first = self.load(b, "gen", "acquire")
        b.atomic_rmw("add", self.g["joined"], c64(1), "seq_cst")
        b.branch(wait)

        # `local`: the last generation seen; spin until it moves, the budget is used up or
        # the core is wanted by someone else (`pool_backoff`)
        b.position_at_end(wait)
        local = b.phi(I32, "local")
        local.add_incoming(first, entry)
        budget = b.phi(I64, "budget")
        budget.add_incoming(self.load_in(entry, "spin_cycles"), entry)
        seen: list[ir.Value] = []

        def new_job(b: ir.IRBuilder) -> ir.Value:
            seen.append(self.load(b, "gen", "acquire"))
            return b.icmp_unsigned("!=", seen[0], local)

        emit_spin(self, b, new_job, spin_budget(self, b, budget), run, sleep)
        gen = seen[0]

        b.position_at_end(sleep)
        b.atomic_rmw("add", self.g["sleepers"], ir.Constant(I32, 1), "seq_cst")
        again = self.load(b, "gen", "seq_cst")
        with b.if_then(b.icmp_unsigned("==", again, local)):
            self.futex_op(b, "gen", FUTEX_WAIT_PRIVATE, b.zext(local, I64))
        b.atomic_rmw("sub", self.g["sleepers"], ir.Constant(I32, 1), "seq_cst")
        local.add_incoming(local, b.block)
        budget.add_incoming(self.load(b, "spin_cycles", "monotonic"), b.block)
        b.branch(wait)

        b.position_at_end(run)  # workers beyond the job's thread count sit it out
        full = self.load(b, "spin_cycles", "monotonic")
        threads = self._get(b, "job_threads")
        help_ = fn.append_basic_block("help")
        after = fn.append_basic_block("after")
        from_run = b.block
        b.cbranch(b.icmp_signed("<", index, threads), help_, after)
        b.position_at_end(help_)
        if place is not None:
            place.off_callers_core(b, index, self._get(b, "job_cpu"))
            place.back_from_pull(b, index)
            b.atomic_rmw("xchg", place.lane(b, index, "holding"), c64(1), "seq_cst")
        started = self.cycles(b)
        ran = b.call(self.m.globals["irc_rt.run_blocks"], [index, b.shl(b.zext(gen, I64), c64(32))])
        spent = b.sub(self.cycles(b), started)
        if place is not None:
            b.atomic_rmw("xchg", place.lane(b, index, "holding"), c64(0), "seq_cst")
            place.back_from_pull(b, index)
        short = self.give_way_budget(b, gen, threads, spent, ran, full)
        from_help = b.block
        b.branch(after)
        b.position_at_end(after)
        next_budget = b.phi(I64, "next_budget")
        next_budget.add_incoming(full, from_run)
        next_budget.add_incoming(short, from_help)
        local.add_incoming(gen, b.block)
        budget.add_incoming(next_budget, b.block)
        b.branch(wait)

    def load_in(self, block: ir.Block, name: str) -> ir.Value:
        """A monotonic load of setting `name` emitted at the end of `block` (before its branch)."""
        b = ir.IRBuilder(block)
        b.position_before(block.terminator)
        return self.load(b, name, "monotonic")

    def give_way_budget(self, b: ir.IRBuilder, gen: ir.Value, threads: ir.Value, spent: ir.Value, ran: ir.Value,
                        full: ir.Value) -> ir.Value:
        """How long a worker that ran `ran` blocks in `spent` cycles spins for the next job:
        `full` (`spin_cycles`), but where another thread still holds a block of this job
        and `give_way` is on, four of its own blocks' time and at least GIVE_WAY_FLOOR: that
        thread was most likely preempted, and the core this worker then frees by sleeping is
        where the kernel can move it (no sooner than ~0.5 ms after it last ran: the kernel's
        cache-hot time, so there is no hurry; a holder only slow, on a quiet machine, is
        seldom that late)."""
        unfinished = b.and_(
            b.icmp_unsigned("<", b.zext(self.load(b, "done", "acquire"), I64), b.mul(threads, c64(BLOCKS))),
            b.icmp_unsigned("==", self.load(b, "gen", "acquire"), gen))
        on = b.icmp_signed("!=", self.load(b, "give_way", "monotonic"), c64(0))
        per_block = b.udiv(spent, b.select(b.icmp_signed(">", ran, c64(0)), ran, c64(1)))
        short = b.mul(per_block, c64(4))
        short = b.select(b.icmp_unsigned("<", short, c64(GIVE_WAY_FLOOR)), c64(GIVE_WAY_FLOOR), short)
        short = b.select(b.icmp_unsigned(">", short, full), full, short)
        return b.select(b.and_(on, unfinished), short, full)


def build_pool_module(triple: str) -> ir.Module:
    return PoolModule(triple).build()
