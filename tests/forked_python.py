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
interpreter instead, as does every request where the server cannot start. A caller whose
children share an environment of their own (the warm-start tests' `IRC_FLAGS`) may ask for
a server started with it (`own_server`): their import-time state is then their
environment's, as a fresh interpreter's would be.

`run_python` is the client; the pytest process that uses it starts a server on first use
(`python forked_python.py SOCKET`, with that process's environment, or the request's), keeps
the `MOST_SERVERS` last used, and `stop_server` ends them all.
"""
from __future__ import annotations

import atexit
import dataclasses
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

MOST_SERVERS = 3  # servers kept (the least recently used one stops for a new one)


@dataclasses.dataclass
class _Server:
    process: subprocess.Popen
    socket_path: str


# The running servers by what their interpreters read at import (`_import_key`), the last used last
_servers: dict[tuple, _Server] = {}
_failed: set[tuple] = set()  # the keys whose server did not come up (not tried again)


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


def run_python(code: str, *args: str, env: dict[str, str] | None = None, timeout: float = 300,
               cwd: str | None = None, own_server: bool = False) -> subprocess.CompletedProcess:
    """Run `python -c code args` with `child_env(env)` in `cwd` (this process's folder by
    default) and return what `subprocess.run(..., capture_output=True, text=True)` would:
    forked from the server where it can be, else a fresh interpreter. With `own_server` the
    server is one started with the request's environment (started now if none runs), for
    callers whose children read nothing at import but their environment and installed files;
    without it, the one started with this process's environment, if the request's reads alike."""
    full = child_env(env)
    server_env = full if own_server else child_env()
    if _import_key(full) == _import_key(server_env) and (server := _server_for(server_env)) is not None:
        done = _run_forked(server, code, args, full, cwd or os.getcwd(), timeout)
        if done is not None:
            return done
    return subprocess.run([sys.executable, "-c", code, *args], env=full, capture_output=True,
                          text=True, timeout=timeout, cwd=cwd)


def _import_key(env: dict[str, str]) -> tuple:
    """What an interpreter started with `env` reads at import: the variables, less those read
    when used and those no import reads."""
    return tuple(sorted((k, v) for k, v in env.items() if k not in READ_WHEN_USED | IGNORED))


def _server_for(env: dict[str, str]) -> _Server | None:
    """The running server started with an environment read alike `env`, else one started now
    (stopping the least recently used beyond `MOST_SERVERS`); None if it does not come up."""
    key = _import_key(env)
    if key in _failed:
        return None
    server = _servers.pop(key, None)
    if server is not None and server.process.poll() is not None:
        _stop(server)
        server = None
    if server is None:
        while len(_servers) >= MOST_SERVERS:
            _stop(_servers.pop(next(iter(_servers))))
        server = _start_server(env)
        if server is None:
            _failed.add(key)
            return None
    _servers[key] = server
    return server


def _start_server(env: dict[str, str]) -> _Server | None:
    """A server started with `env`, once it said "ready"; None if it did not."""
    socket_path = os.path.join(tempfile.mkdtemp(prefix="irc-forked-python-"), "server")
    try:
        process = subprocess.Popen([sys.executable, __file__, socket_path], env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    except OSError:
        shutil.rmtree(os.path.dirname(socket_path), ignore_errors=True)
        return None
    server = _Server(process, socket_path)
    if process.stdout.readline().strip() != "ready":
        _stop(server)
        return None
    return server


def stop_server() -> None:
    """End every server (the pytest process's end); a later `run_python` starts a new one."""
    while _servers:
        _stop(_servers.pop(next(iter(_servers))))


def _stop(server: _Server) -> None:
    """End `server` once its running children are done (it waits for them on SIGTERM)."""
    server.process.terminate()
    try:
        server.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.process.kill()
        server.process.wait()
    server.process.stdout.close()
    shutil.rmtree(os.path.dirname(server.socket_path), ignore_errors=True)


def _run_forked(server: _Server, code: str, args: tuple[str, ...], env: dict[str, str], cwd: str,
                timeout: float) -> subprocess.CompletedProcess | None:
    """The child's result, or None where the server did not take the request."""
    request = json.dumps({"program": "python", "argv": ["-c", code, *args], "cwd": cwd,
                          "env": env}).encode()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, \
            open(os.devnull, "rb") as stdin, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        reply = b""
        try:
            s.connect(server.socket_path)
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
