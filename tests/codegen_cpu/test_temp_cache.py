"""`irc_temp_alloc`/`irc_temp_free` (`codegen_cpu/temp_cache.py`): a freed large block comes
back for the next allocation it fits, small ones and ill-fitting ones do not, the data is
aligned and the header keeps the capacity; and compiled functions whose temporaries come
from it give numpy's results on every call (several threads calling at once included)."""
from __future__ import annotations

import ctypes
import threading

import llvmlite.binding as llvm
import numpy as np

import irc
import irc.tensor as T
from irc.codegen_cpu.temp_cache import CACHED_MIN, HEADER, TEMP_ALLOC, TEMP_FREE
from irc.runtime.threads import ensure_pool


def _functions():
    ensure_pool()
    alloc = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64)(llvm.address_of_symbol(TEMP_ALLOC))
    free = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(llvm.address_of_symbol(TEMP_FREE))
    return alloc, free


def _capacity(p: int) -> int:
    return ctypes.c_int64.from_address(p - HEADER).value


def test_a_freed_large_block_is_handed_to_the_next_allocation_it_fits():
    alloc, free = _functions()
    n = CACHED_MIN * 180  # 45 MiB: no other test leaves a block that this one's requests fit
    p = alloc(n)
    assert p % HEADER == 0 and _capacity(p) == n
    ctypes.memset(p, 7, n)  # the whole block is ours to write
    free(p)
    q = alloc(n - HEADER)  # fits (capacity within twice the size)
    assert q == p and _capacity(q) == n
    free(q)
    big = alloc(n * 2)  # does not fit the cached block
    assert big != p and _capacity(big) == n * 2
    small = alloc(n // 3)  # the cached block is more than twice its size: a fresh one
    assert small not in (p, big)
    for x in (big, small):
        free(x)
    free(None)  # freeing null does nothing


def test_small_requests_do_not_take_cached_blocks():
    alloc, free = _functions()
    a = alloc(256)
    assert a and a % HEADER == 0 and _capacity(a) == 256
    free(a)
    cached = alloc(CACHED_MIN + 4 * HEADER)
    free(cached)
    small = alloc(CACHED_MIN - HEADER)  # the cached block would fit it, but it is below CACHED_MIN
    assert small != cached and _capacity(small) == CACHED_MIN - HEADER
    free(small)


def test_functions_with_large_temporaries_agree_with_numpy_on_every_call_and_thread():
    x = T.matrix("x")
    f = irc.function([x], T.dot(T.tanh(x), T.exp(x).T))  # two temporaries of ~1 MB
    data = [np.random.RandomState(s).rand(300 + 7 * s, 400) for s in range(4)]
    want = [np.tanh(d) @ np.exp(d).T for d in data]
    for d, w in zip(data, want):
        np.testing.assert_allclose(f(d), w, rtol=1e-12)
    errors = []

    def run(i: int) -> None:
        for _ in range(5):
            if not np.allclose(f(data[i]), want[i], rtol=1e-12):
                errors.append(i)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
