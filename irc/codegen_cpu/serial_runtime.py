"""The runtime a tier-0 function runs against before the process has its thread pool
(`config.compile_tiers`, `runtime/threads.py`): `irc_rt_parallel_for` as the pool's serial path
(the whole range on the calling thread: the pool's results are the bits of one thread anyway)
and the runtime-library functions (`libcalls.py`). It is a few hundred lines, compiled at tier 0
in milliseconds, where building and optimizing the pool's module took 0.19 s of the tutorial's
LR step's 0.29 s first compile on an empty cache; the pool itself is compiled beside the
optimized code by the background process and loaded at the switch."""
from __future__ import annotations

from llvmlite import ir

from .libcalls import add_libcalls
from .pool_ir import c64
from .thread_pool import BODY_TYPE, PARALLEL_FOR, PARALLEL_FOR_TYPE, IndirectCallee


def build_serial_runtime_module(triple: str) -> ir.Module:
    """`irc_rt_parallel_for(body, ctx, n, work)` = `body(ctx, 0, n)` when n > 0, and `LIBCALLS`."""
    module = ir.Module(name="irc.serial_runtime")
    module.triple = triple
    fn = ir.Function(module, PARALLEL_FOR_TYPE, name=PARALLEL_FOR)
    body, ctx, n, _work = fn.args
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    with b.if_then(b.icmp_signed(">", n, c64(0))):
        b.call(IndirectCallee(body, BODY_TYPE), [ctx, c64(0), n])
    b.ret_void()
    add_libcalls(module)
    return module
