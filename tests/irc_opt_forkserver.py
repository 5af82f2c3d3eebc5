"""A fork server for the `.mlir` tests' `irc-opt` and `filecheck`: one process imports irc
(and filecheck) once, and each `irc-opt` or `filecheck` of a RUN line is a child forked from
it, so a RUN line costs a fork instead of an interpreter start and its imports (about 0.3 s of
CPU for irc-opt, 146 of them in the suite; 0.04 s for filecheck, 138 of them).

Each child is still a fresh process for the command: its own stdin, stdout, stderr (the
caller's file descriptors, passed over a Unix socket), working folder, environment and argv,
and its exit status; a crash kills only the child. `irc-opt` and `filecheck` on the RUN lines'
PATH are `client_script`'s small program, which hands its program, arguments and descriptors
to the server and exits with the child's status. Run as `python irc_opt_forkserver.py SOCKET`
(the conftest starts it with the checkout on PYTHONPATH)."""
from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import struct
import sys
import traceback
from typing import Any, Callable

HEADER = struct.Struct("!I")  # the length of the JSON request that follows
CRASHED = 70  # the client's status when the child died without reporting one

CLIENT = '''\
import json, os, socket, struct, sys
request = json.dumps({{"program": {program!r}, "argv": sys.argv[1:], "cwd": os.getcwd(),
                      "env": dict(os.environ)}}).encode()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect({socket_path!r})
socket.send_fds(s, [struct.pack("!I", len(request)) + request], [0, 1, 2])
reply = b""
while chunk := s.recv(64):
    reply += chunk
if not reply:
    sys.stderr.write({program!r} ": the forked process died without an exit status\\n")
sys.exit(int(reply) if reply else {crashed})
'''


def client_script(socket_path: str, program: str = "irc-opt") -> str:
    """The `irc-opt` (or `filecheck`) program for the RUN lines (`python -I -S`: no site, no
    PYTHONPATH: starts in milliseconds)."""
    return f"#!{sys.executable} -IS\n" + CLIENT.format(socket_path=socket_path, crashed=CRASHED,
                                                       program=program)


def serves_filecheck() -> bool:
    """Whether `filecheck` (the Python package) is installed, so the server can run it."""
    return importlib.util.find_spec("filecheck") is not None


def preload() -> None:
    """What every `irc-opt` run imports: the driver, the passes, the targets; and filecheck."""
    from irc.cli import opt, opt_session  # noqa: F401
    from irc.ir.pass_base import load_passes
    from irc.runtime import targets  # noqa: F401
    load_passes()
    if serves_filecheck():
        import filecheck.main  # noqa: F401


def _program_main(program: str) -> Callable[[list[str]], int | None]:
    """The `main(argv)` of the program a request names (argv without the program's name)."""
    if program == "filecheck":
        from filecheck.main import main as filecheck_main
        return lambda argv: filecheck_main(["filecheck", *argv])
    from irc.cli.opt import main
    return main


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < HEADER.size or len(data) < HEADER.size + HEADER.unpack_from(data)[0]:
        chunk = conn.recv(1 << 16)
        if not chunk:
            raise EOFError("the client hung up mid-request")
        data += chunk
    return json.loads(data[HEADER.size:]), fds


def _fresh_standard_streams() -> None:
    """sys.stdin, stdout and stderr made anew over descriptors 0-2, as a new interpreter makes
    them (the server's own know its pipe: filecheck's `reconfigure` would seek on them)."""
    sys.stdin = open(0, "r", encoding=sys.stdin.encoding, errors=sys.stdin.errors, closefd=False)
    sys.stdout = open(1, "w", encoding=sys.stdout.encoding, errors=sys.stdout.errors, closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding=sys.stderr.encoding, errors="backslashreplace",
                      closefd=False)


def _run_child(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child: become `irc-opt argv` (or `filecheck argv`) in the caller's place,
    report the status."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    _fresh_standard_streams()
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    program = request.get("program", "irc-opt")
    sys.argv = [program, *request["argv"]]
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    main = _program_main(program)
    try:
        status = main(request["argv"])
        status = 0 if status is None else status  # filecheck's --help returns None
    except SystemExit as e:  # argparse's --help and usage errors
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            sys.stderr.write(f"{e.code}\n")
    except BaseException:
        traceback.print_exc()
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        pass
    conn.sendall(str(status).encode())
    os._exit(status)


def serve(socket_path: str) -> None:
    """Serve until killed, or until the pytest process that started it is gone."""
    preload()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel

    def child(conn: socket.socket, request, fds: list[int]) -> None:
        try:
            _run_child(conn, request, fds)
        finally:  # never return into the server's loop
            os._exit(CRASHED)
    fork_per_request(socket_path, child)


def fork_per_request(socket_path: str, child: Callable[[socket.socket, Any, list[int]], None],
                     parent_gone: Callable[[], None] = lambda: None) -> None:
    """Listen on `socket_path`, print "ready", and fork for each request received: the child
    (listener closed) runs `child(conn, request, fds)`, which must not return; the server closes
    its copies. Returns, after `parent_gone()`, once the process that started it is gone."""
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    listener.settimeout(5.0)
    print("ready", flush=True)
    while True:
        try:
            conn, _ = listener.accept()
        except socket.timeout:
            if os.getppid() != parent:
                parent_gone()
                return
            continue
        conn.settimeout(None)
        try:
            request, fds = _receive(conn)
        except (EOFError, OSError, ValueError):
            conn.close()
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            listener.close()
            child(conn, request, fds)
        for fd in fds:
            os.close(fd)
        conn.close()

if __name__ == "__main__":
    serve(sys.argv[1])
