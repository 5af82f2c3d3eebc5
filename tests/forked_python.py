"""`python -c CODE ARGS` for the tests' child processes, forked from a server that imported
numpy and irc once, instead of a fresh interpreter that imports them again (about 0.3 s of
CPU a child; the cache-fault tests alone start 26).

A forked child is still its own process, as the tests need (a crash in it must not kill
pytest; it starts with nothing compiled in memory, only what is on disk): its own argv,
environment, working folder, stdout and stderr, and its exit status. The server imports and
nothing more (no compile, no thread), and the child ends as an interpreter does: threads
joined, `atexit` handlers run, streams flushed. What the server has already read at import
(`IRC_FLAGS`, `~/.ircrc`, `PYTHONPATH`, ...) the child cannot read again, so a request whose
environment differs from the server's in anything but `READ_WHEN_USED` runs in a fresh
interpreter instead, as does every request where the server cannot start.

`run_python` is the client; the pytest process that uses it starts the server on first use
(`python forked_python.py SOCKET`, with that process's environment) and `stop_server` ends it.
"""
from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import traceback
import types
from pathlib import Path

import irc_opt_forkserver

ROOT = Path(__file__).resolve().parent.parent
# Variables irc reads when it uses them, not at import: a request may set these differently.
READ_WHEN_USED = frozenset({"IRC_COMPILEDIR", "IRC_LLVM_SPEED_LEVEL"})
# Variables no import reads: pytest's note of the running test.
IGNORED = frozenset({"PYTEST_CURRENT_TEST"})

_server: subprocess.Popen | None = None
_server_env: dict[str, str] | None = None
_socket_path: str | None = None


class _ChildExit(Exception):
    """Raised in a forked child to leave the server's loop and exit as an interpreter does."""

    def __init__(self, status: int):
        super().__init__(status)
        self.status = status


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment with the checkout first on PYTHONPATH, and `extra`."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    env.update(extra or {})
    return env


def run_python(code: str, *args: str, env: dict[str, str] | None = None,
               timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -c code args` with `child_env(env)` and return what `subprocess.run(...,
    capture_output=True, text=True)` would: forked from the server where it can be, else a
    fresh interpreter."""
    full = child_env(env)
    if _can_fork(full):
        done = _run_forked(code, args, full, timeout)
        if done is not None:
            return done
    return subprocess.run([sys.executable, "-c", code, *args], env=full, capture_output=True,
                          text=True, timeout=timeout)


def _can_fork(env: dict[str, str]) -> bool:
    """Whether the server runs and read at its start what a fresh interpreter would read. A
    server started before this process's own environment changed (a test's `monkeypatch.setenv`
    around the first request) is replaced by one started with the environment as it is now."""
    current = child_env()
    if _server_env is not None and not _read_alike(current, _server_env):
        stop_server()
    return _start_server(current) and _read_alike(env, _server_env)


def _read_alike(env: dict[str, str], other: dict[str, str]) -> bool:
    """Whether an interpreter started with `env` reads at import what one with `other` reads."""
    keys = (set(env) | set(other)) - READ_WHEN_USED - IGNORED
    return all(env.get(k) == other.get(k) for k in keys)


def _start_server(env: dict[str, str]) -> bool:
    """Start the server with `env` (once) and wait for its "ready"; False if it is not up."""
    global _server, _server_env, _socket_path
    if _server is not None:
        return _server.poll() is None
    _socket_path = os.path.join(tempfile.mkdtemp(prefix="irc-forked-python-"), "server")
    try:
        _server = subprocess.Popen([sys.executable, __file__, _socket_path], env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        ready = _server.stdout.readline().strip() == "ready"
    except OSError:
        ready = False
    _server_env = env
    if not ready and _server is not None:
        _server.kill()
        _server.wait()
    return ready


def stop_server() -> None:
    """End the server (the pytest process's end); a later `run_python` starts a new one."""
    global _server, _server_env, _socket_path
    if _server is not None:
        _server.terminate()
        try:
            _server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _server.kill()
            _server.wait()
        _server.stdout.close()
        shutil.rmtree(os.path.dirname(_socket_path), ignore_errors=True)
    _server = _server_env = _socket_path = None


def _run_forked(code: str, args: tuple[str, ...], env: dict[str, str],
                timeout: float) -> subprocess.CompletedProcess | None:
    """The child's result, or None where the server did not take the request."""
    request = json.dumps({"program": "python", "argv": ["-c", code, *args], "cwd": os.getcwd(),
                          "env": env}).encode()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(os.devnull, "rb") as stdin, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        reply = b""
        try:
            s.connect(_socket_path)
            socket.send_fds(s, [irc_opt_forkserver.HEADER.pack(len(request)) + request],
                            [stdin.fileno(), out.fileno(), err.fileno()])
            s.settimeout(timeout)
            while chunk := s.recv(64):
                reply += chunk
        except socket.timeout:
            _kill(reply)
            raise subprocess.TimeoutExpired([sys.executable, "-c", code, *args], timeout) from None
        except OSError:
            if b"\n" not in reply:  # the child never started: the caller runs a fresh one
                return None
        pid, _, status = reply.decode().partition("\n")
        if not pid:
            return None
        out.seek(0)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        if not status:
            stderr += f"\nforked_python: the child {pid} died without an exit status (a signal?)\n"
        return subprocess.CompletedProcess([sys.executable, "-c", code, *args],
                                           int(status) if status else irc_opt_forkserver.CRASHED,
                                           out.read().decode(errors="replace"), stderr)


def _kill(reply: bytes) -> None:
    """Kill the child whose pid opens `reply` (a timed-out request), if it told it."""
    pid = reply.decode().partition("\n")[0]
    if pid.isdigit():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except ProcessLookupError:
            pass


def preload() -> None:
    """What the tests' children import; nothing is compiled and no thread is started."""
    import numpy  # noqa: F401
    import irc.tensor  # noqa: F401


def _become_python(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child: become `python -c code args` in the caller's place. Leaves by
    `_ChildExit` (the interpreter's own exit then joins threads and runs `atexit`, whose last
    handler, `_report_at_exit`, reports the status)."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    irc_opt_forkserver._fresh_standard_streams()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    conn.sendall(f"{os.getpid()}\n".encode())
    code, args = request["argv"][1], request["argv"][2:]
    sys.argv = ["-c", *args]
    sys.path[0] = ""  # python -c: the working folder first, not this file's
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    status = _EXIT_REPORT["status"] = [1]
    _EXIT_REPORT["conn"] = conn
    try:
        exec(compile(code, "<string>", "exec"), main.__dict__)
        status[0] = 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            status[0] = e.code or 0
        else:
            sys.stderr.write(f"{e.code}\n")
            status[0] = 1
    except BaseException:
        kind, error, trace = sys.exc_info()
        traceback.print_exception(kind, error, trace.tb_next)  # from the code's frame, as python -c
        status[0] = 1
    raise _ChildExit(status[0])


_EXIT_REPORT: dict = {}  # a forked child's connection and status, for `_report_at_exit`


def _report_at_exit() -> None:
    """A forked child's last `atexit` handler (the server registers it before importing
    anything): flush the streams and send the exit status."""
    if "conn" not in _EXIT_REPORT:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    _EXIT_REPORT["conn"].sendall(str(_EXIT_REPORT["status"][0]).encode())


def _reap(block: bool) -> None:
    """Wait for the finished children (`block`: for all of them)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(socket_path: str) -> None:
    """Serve until killed, or until the process that started it is gone."""
    atexit.register(_report_at_exit)
    preload()
    # Children are reaped here (not left to the kernel), so their CPU time counts as the
    # server's children's, and the server's `wait` in the pytest process counts it in turn.
    signal.signal(signal.SIGCHLD, lambda *_: _reap(block=False))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))

    def child(conn: socket.socket, request, fds: list[int]) -> None:
        try:
            _become_python(conn, request, fds)
        except _ChildExit:
            raise  # out of the server's loop: the interpreter's own exit follows
        except BaseException:
            pass
        os._exit(irc_opt_forkserver.CRASHED)  # never return into the server's loop
    irc_opt_forkserver.fork_per_request(socket_path, child, parent_gone=lambda: _reap(block=True))


if __name__ == "__main__":
    try:
        serve(sys.argv[1])
    except _ChildExit as done:
        sys.exit(done.status)
    except SystemExit:  # SIGTERM: the children still running are waited for
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _reap(block=True)
        raise
