"""The pool's workers ask the scheduler for a short time slice (`worker_slice.py`), where the
kernel takes the request (Linux 6.12+, EEVDF); a thread someone else gave another policy is
left alone."""
from __future__ import annotations

import os
import threading

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime import threads
from irc.runtime.worker_slice import WORKER_SLICE_NS, current_slice, request_slice


def kernel_takes_slices() -> bool:
    me = threading.get_native_id()
    before = current_slice(me)
    if before is None or not request_slice(me, WORKER_SLICE_NS):
        return False
    taken = current_slice(me) == WORKER_SLICE_NS
    request_slice(me, 0)
    return taken


needs_slices = pytest.mark.skipif(not kernel_takes_slices(), reason="this kernel keeps no per-thread slice (EEVDF, Linux 6.12+)")


@needs_slices
def test_workers_run_with_the_short_slice_and_tune_changes_it():
    f = irc.function([], T.exp(irc.shared(np.ones(50_000, "float32"))))
    before = threads.num_threads()
    threads.set_num_threads(2)
    try:
        f()
        workers = [t.native_id for t in threads.ensure_pool().threads]
        assert workers and all(current_slice(w) == WORKER_SLICE_NS for w in workers)
        threads.tune(slice_ns=0)
        assert all(current_slice(w) != WORKER_SLICE_NS for w in workers), "0: back to the scheduler's default"
    finally:
        threads.tune(slice_ns=WORKER_SLICE_NS)
        threads.set_num_threads(before)


@needs_slices
def test_a_thread_under_another_policy_is_left_alone():
    seen = {}

    def run() -> None:
        tid = threading.get_native_id()
        os.sched_setscheduler(tid, os.SCHED_BATCH, os.sched_param(0))
        seen["took"] = request_slice(tid, WORKER_SLICE_NS)
        seen["policy"] = os.sched_getscheduler(tid)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    assert seen == {"took": False, "policy": os.SCHED_BATCH}
