"""Where compiled functions get their temporaries: `irc_temp_alloc(n)` and `irc_temp_free(p)`
(for `loop.alloc` and `loop.dealloc`), defined in IR in the runtime module beside the thread
pool (`libcalls.py`), around the C library's aligned_alloc and free.

glibc serves blocks above its mmap threshold from fresh pages, and gives the top of its heap
back to the system once more than its trim threshold lies free there; a training step that
allocates and frees the same megabyte-sized buffers on every call then page-faults through all
of them each time (LeNet's step: 114 ms, 87 with the pages kept). So a freed block of at least
CACHED_MIN bytes is kept in one of SLOTS slots (CACHE_LIMIT bytes in all at most) and handed
to the next allocation it fits (at most twice the size asked for). The slots are emptied and
filled with atomic exchanges, so the pool's threads and concurrent calls share them without a
lock. A block starts with a HEADER-byte header that holds its capacity (HEADER is the
alignment of temporaries, so the data stays aligned)."""
from __future__ import annotations

from llvmlite import ir

from .pool_abi import TEMP_ALLOC, TEMP_FREE
SLOTS = 32
CACHED_MIN = 1 << 18       # bytes: smaller blocks go straight back to malloc (no page faults there)
CACHE_LIMIT = 1 << 30      # bytes kept in the slots at most
HEADER = 64

_I8, _I64 = ir.IntType(8), ir.IntType(64)
_PTR = ir.PointerType()
_ORDER = "seq_cst"


def define_temp_cache(module: ir.Module) -> None:
    """Define irc_temp_alloc and irc_temp_free (and their slots) in `module`."""
    slots = ir.GlobalVariable(module, ir.ArrayType(_PTR, SLOTS), "irc.temp_slots")
    slots.initializer = ir.Constant(ir.ArrayType(_PTR, SLOTS), None)
    cached = ir.GlobalVariable(module, _I64, "irc.temp_cached")
    cached.initializer = ir.Constant(_I64, 0)
    for g in (slots, cached):
        g.linkage = "internal"
    aligned_alloc = _declare(module, "aligned_alloc", _PTR, [_I64, _I64])
    free = _declare(module, "free", ir.VoidType(), [_PTR])
    _define_alloc(module, slots, cached, aligned_alloc, free)
    _define_free(module, slots, cached, free)


def _declare(module: ir.Module, name: str, ret: ir.Type, params: list[ir.Type]) -> ir.Function:
    fn = module.globals.get(name)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ret, params), name)
        fn.attributes.add("nounwind")
    return fn


def _c(v: int) -> ir.Constant:
    return ir.Constant(_I64, v)


def _slot(b: ir.IRBuilder, slots: ir.GlobalVariable, i: ir.Value) -> ir.Value:
    p = b.gep(slots, [_c(0), i], inbounds=True)
    p.type = _PTR
    return p


def _data(b: ir.IRBuilder, block: ir.Value) -> ir.Value:
    return b.gep(block, [_c(HEADER)], inbounds=True, source_etype=_I8)


def _scan(b: ir.IRBuilder, fn: ir.Function, name: str):
    """A loop over the slots: returns (i, body block, next block, done block); the caller fills
    the body (branching to `next` to go on) and continues in `done` after the last slot."""
    entry = b.block
    header, body = fn.append_basic_block(f"{name}.header"), fn.append_basic_block(f"{name}.body")
    step, done = fn.append_basic_block(f"{name}.next"), fn.append_basic_block(f"{name}.done")
    b.branch(header)
    b.position_at_end(header)
    i = b.phi(_I64, "i")
    i.add_incoming(_c(0), entry)
    b.cbranch(b.icmp_unsigned("<", i, _c(SLOTS)), body, done)
    b.position_at_end(step)
    i.add_incoming(b.add(i, _c(1)), step)
    b.branch(header)
    b.position_at_end(body)
    return i, step, done


def _define_alloc(module: ir.Module, slots, cached, aligned_alloc, free) -> None:
    """irc_temp_alloc(n): a cached block of capacity in [n, 2n] when n >= CACHED_MIN, else
    (or when none fits) a fresh one from aligned_alloc; the data pointer (null if that fails)."""
    fn = ir.Function(module, ir.FunctionType(_PTR, [_I64]), TEMP_ALLOC)
    fn.attributes.add("nounwind")
    fn.return_value.attributes.add("noalias")
    n = fn.args[0]
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    fresh = fn.append_basic_block("fresh")
    search = fn.append_basic_block("search")
    b.cbranch(b.icmp_unsigned(">=", n, _c(CACHED_MIN)), search, fresh)
    b.position_at_end(search)
    i, step, done = _scan(b, fn, "take")
    slot = _slot(b, slots, i)
    block = b.atomic_rmw("xchg", slot, ir.Constant(_PTR, None), _ORDER)
    check = fn.append_basic_block("check")
    b.cbranch(b.icmp_unsigned("==", block, ir.Constant(_PTR, None)), step, check)
    b.position_at_end(check)
    cap = b.load(block, typ=_I64)
    fits = b.and_(b.icmp_unsigned(">=", cap, n), b.icmp_unsigned("<=", cap, b.add(n, n)))
    hit, put_back = fn.append_basic_block("hit"), fn.append_basic_block("put_back")
    b.cbranch(fits, hit, put_back)
    b.position_at_end(hit)
    b.atomic_rmw("sub", cached, cap, _ORDER)
    b.ret(_data(b, block))
    b.position_at_end(put_back)  # not ours to use: back into its slot, or freed if that filled
    back = b.cmpxchg(slot, ir.Constant(_PTR, None), block, _ORDER, _ORDER)
    drop = fn.append_basic_block("drop")
    b.cbranch(b.extract_value(back, 1), step, drop)
    b.position_at_end(drop)
    b.atomic_rmw("sub", cached, cap, _ORDER)
    b.call(free, [block])
    b.branch(step)
    b.position_at_end(done)
    b.branch(fresh)
    b.position_at_end(fresh)
    block = b.call(aligned_alloc, [_c(HEADER), b.add(n, _c(HEADER))])
    failed, ok = fn.append_basic_block("failed"), fn.append_basic_block("ok")
    b.cbranch(b.icmp_unsigned("==", block, ir.Constant(_PTR, None)), failed, ok)
    b.position_at_end(failed)
    b.ret(ir.Constant(_PTR, None))
    b.position_at_end(ok)
    b.store(n, block)
    b.ret(_data(b, block))


def _define_free(module: ir.Module, slots, cached, free) -> None:
    """irc_temp_free(p): a block of at least CACHED_MIN bytes into an empty slot while the
    slots hold at most CACHE_LIMIT bytes; else back to free."""
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [_PTR]), TEMP_FREE)
    fn.attributes.add("nounwind")
    data = fn.args[0]
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    start, release, leave = (fn.append_basic_block(s) for s in ("start", "release", "leave"))
    b.cbranch(b.icmp_unsigned("==", data, ir.Constant(_PTR, None)), leave, start)
    b.position_at_end(leave)
    b.ret_void()
    b.position_at_end(start)
    block = b.gep(data, [_c(-HEADER)], inbounds=True, source_etype=_I8)
    cap = b.load(block, typ=_I64)
    reserve, search, undo = (fn.append_basic_block(s) for s in ("reserve", "search", "undo"))
    b.cbranch(b.icmp_unsigned(">=", cap, _c(CACHED_MIN)), reserve, release)
    b.position_at_end(reserve)
    before = b.atomic_rmw("add", cached, cap, _ORDER)
    b.cbranch(b.icmp_unsigned(">", b.add(before, cap), _c(CACHE_LIMIT)), undo, search)
    b.position_at_end(search)
    i, step, done = _scan(b, fn, "put")
    put = b.cmpxchg(_slot(b, slots, i), ir.Constant(_PTR, None), block, _ORDER, _ORDER)
    b.cbranch(b.extract_value(put, 1), leave, step)
    b.position_at_end(done)
    b.branch(undo)
    b.position_at_end(undo)
    b.atomic_rmw("sub", cached, cap, _ORDER)
    b.branch(release)
    b.position_at_end(release)
    b.call(free, [block])
    b.ret_void()
