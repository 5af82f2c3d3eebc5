"""Kernels compiled side by side in forked processes: LLVM (optimization and machine code) is
most of a new program's cold compile, its kernels are independent modules, and llvmlite runs
every LLVM call of a process behind one lock (threads would take turns). So with more than one
CPU this process and forked children take the modules from one queue, each child sends its
object files back through a pipe and exits.

A child is a fork taken while this thread holds llvmlite's lock (so no other thread of the
user's is inside LLVM at that moment); it runs nothing but LLVM calls on modules already
printed and leaves with `os._exit` (no `atexit` handler, no buffered output of the parent's
runs twice). A child that fails, dies or falls silent for `CHILD_TIMEOUT_S` costs only time:
whatever it did not send is compiled here. `IRC_COMPILE_PROCESSES=N` caps the processes (this
one included; 1: no fork); by default, the CPUs this process may run on, at most
`MAX_PROCESSES`. In a process that has loaded a library warning against forks (jax: its
threads may hold locks), everything is compiled here.
"""
from __future__ import annotations

import contextlib
import os
import select
import struct
import sys
import time
import warnings
from typing import Callable, Iterator

from ..base.compile_stages import LLVM_CHILDREN, timed

PROCESSES_VARIABLE = "IRC_COMPILE_PROCESSES"
MAX_PROCESSES = 4
# below this much LLVM IR (characters) a fork costs more than it saves
MIN_PARALLEL_CHARS = 40_000
CHILD_TIMEOUT_S = 120.0
_HEADER = struct.Struct("<HQ")  # key size, object size (then the key, the object)
_TASK = struct.Struct("<I")     # an entry of the queue: the index of a module
MAX_QUEUE_BYTES = 4096          # within any pipe's buffer: the queue is written before any process reads


def process_count() -> int:
    """How many processes may compile (this one included), from `IRC_COMPILE_PROCESSES` or
    the CPUs this process may use."""
    text = os.environ.get(PROCESSES_VARIABLE, "")
    if text:
        if not text.isdigit():
            raise ValueError(f"{PROCESSES_VARIABLE}={text!r}: expected a number of processes (1: compile in this one only)")
        return max(1, int(text))
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_PROCESSES))


# Libraries in the same process that refuse a fork (they warn of deadlocks at every fork: their
# threads may hold locks a child would need): with one loaded, compile in this process only.
FORK_AVERSE = ("jax",)


def _forking_warned_against() -> bool:
    return any(name in sys.modules for name in FORK_AVERSE)


def can_fork() -> bool:
    """Whether this process may fork compiling children (a fork exists, no library that
    forbids forks is loaded)."""
    return hasattr(os, "fork") and not _forking_warned_against()


def compile_all(texts: dict[str, str], compile_one: Callable[[str, str], bytes],
                processes: int | None = None) -> dict[str, bytes]:
    """`compile_one(key, text)` of every module (LLVM IR text by key), in this process and, when
    it pays, in forked children (`processes` of them in all, this one included; default
    `process_count()`). The modules, largest first, are a queue in a pipe that every process
    takes from (a read of one entry is atomic): none waits while another has a backlog."""
    parts = min(process_count() if processes is None else processes, len(texts))
    if (parts < 2 or sum(len(t) for t in texts.values()) < MIN_PARALLEL_CHARS or not can_fork()
            or len(texts) * _TASK.size > MAX_QUEUE_BYTES):
        return {key: compile_one(key, text) for key, text in texts.items()}
    order = sorted(texts, key=lambda k: -len(texts[k]))
    queue, fill = os.pipe()
    os.write(fill, b"".join(_TASK.pack(i) for i in range(len(order))))
    os.close(fill)
    children: list[tuple[int, int]] = []
    try:
        for _ in range(parts - 1):
            child = _fork(queue, order, texts, compile_one)
            if child is not None:
                children.append(child)
        objects = {order[i]: compile_one(order[i], texts[order[i]]) for i in _take(queue)}
    except BaseException:  # an error here (or an interrupt): no child outlives the compile
        for pid, fd in children:
            _stop(pid, fd)
        raise
    finally:
        os.close(queue)
    with timed(LLVM_CHILDREN):
        for pid, fd in children:
            objects.update(_collect(pid, fd))
    for key, text in texts.items():  # what a child took and did not deliver
        if key not in objects:
            objects[key] = compile_one(key, text)
    return objects


def _take(queue: int) -> Iterator[int]:
    """The queue's entries that this process takes, until it is empty."""
    while True:
        entry = os.read(queue, _TASK.size)
        if len(entry) < _TASK.size:
            return
        yield _TASK.unpack(entry)[0]


def fork_child(run: Callable[[int], None]) -> tuple[int, int] | None:
    """(pid, read end of a pipe) of a child that runs `run(write end)` and exits, with status 0
    when it returned; forked while holding llvmlite's lock (so the child never inherits it
    taken). None when no process or pipe can be made."""
    read_fd, write_fd = os.pipe()
    try:
        with llvm_lock(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork of a threaded process
            pid = os.fork()
    except OSError:
        os.close(read_fd)
        os.close(write_fd)
        return None
    if pid == 0:  # the child
        status = 1
        try:
            os.close(read_fd)
            run(write_fd)
            status = 0
        finally:
            os._exit(status)
    os.close(write_fd)
    return pid, read_fd


def _fork(queue: int, order: list[str], texts: dict[str, str],
          compile_one: Callable[[str, str], bytes]) -> tuple[int, int] | None:
    """A child compiling what it takes from `queue`, writing (key, object) records to a pipe:
    (pid, read end), or None when no process can be made."""
    def run(write_fd: int) -> None:
        with os.fdopen(write_fd, "wb") as out:
            for i in _take(queue):
                key = order[i]
                obj = compile_one(key, texts[key])
                name = key.encode()
                out.write(_HEADER.pack(len(name), len(obj)) + name)
                out.write(obj)
                out.flush()
    return fork_child(run)


def _collect(pid: int, fd: int) -> dict[str, bytes]:
    """The objects a child sent before it ended (or before it fell silent: then it is killed)."""
    chunks = []
    deadline = time.monotonic() + CHILD_TIMEOUT_S
    try:
        while True:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                with contextlib.suppress(OSError):
                    os.kill(pid, 9)
                break
            data = os.read(fd, 1 << 20)
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(fd)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    return _records(b"".join(chunks))


def _stop(pid: int, fd: int) -> None:
    with contextlib.suppress(OSError):
        os.kill(pid, 9)
    os.close(fd)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)


def _records(data: bytes) -> dict[str, bytes]:
    """The whole records of a child's stream (a cut-off last one is dropped)."""
    out = {}
    at = 0
    while at + _HEADER.size <= len(data):
        name, size = _HEADER.unpack_from(data, at)
        at += _HEADER.size
        if at + name + size > len(data):
            break
        out[data[at:at + name].decode()] = data[at + name:at + name + size]
        at += name + size
    return out


@contextlib.contextmanager
def llvm_lock():
    """llvmlite's lock around every LLVM call, held across the fork (a nullcontext if llvmlite
    no longer has it)."""
    import llvmlite.binding as llvm
    lock = getattr(getattr(llvm.ffi, "lib", None), "_lock", None)
    with lock if lock is not None and hasattr(lock, "__enter__") else contextlib.nullcontext():
        yield
