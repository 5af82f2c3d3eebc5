"""A fork server for the `.mlir` tests' `irc-opt`: one process imports irc once, and each
`irc-opt` of a RUN line is a child forked from it, so a RUN line costs a fork instead of an
interpreter start and irc's imports (about 0.3 s of CPU each, 146 of them in the suite).

Each child is still a fresh process for the command: its own stdin, stdout, stderr (the
caller's file descriptors, passed over a Unix socket), working folder, environment and argv,
and its exit status; a crash kills only the child. `irc-opt` on the RUN lines' PATH is
`client_script`'s small program, which hands its arguments and descriptors to the server and
exits with the child's status. Run as `python irc_opt_forkserver.py SOCKET` (the conftest
starts it with the checkout on PYTHONPATH)."""
from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys
import traceback

HEADER = struct.Struct("!I")  # the length of the JSON request that follows
CRASHED = 70  # the client's status when the child died without reporting one

CLIENT = '''\
import json, os, socket, struct, sys
request = json.dumps({{"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}}).encode()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect({socket_path!r})
socket.send_fds(s, [struct.pack("!I", len(request)) + request], [0, 1, 2])
reply = b""
while chunk := s.recv(64):
    reply += chunk
if not reply:
    sys.stderr.write("irc-opt: the forked process died without an exit status\\n")
sys.exit(int(reply) if reply else {crashed})
'''


def client_script(socket_path: str) -> str:
    """The `irc-opt` program for the RUN lines (`python -I -S`: no site, no PYTHONPATH: starts
    in milliseconds)."""
    return f"#!{sys.executable} -IS\n" + CLIENT.format(socket_path=socket_path, crashed=CRASHED)


def preload() -> None:
    """What every `irc-opt` run imports: the driver, the passes, the targets."""
    from irc.cli import opt, opt_session  # noqa: F401
    from irc.ir.pass_base import load_passes
    from irc.runtime import targets  # noqa: F401
    load_passes()


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < HEADER.size or len(data) < HEADER.size + HEADER.unpack_from(data)[0]:
        chunk = conn.recv(1 << 16)
        if not chunk:
            raise EOFError("the client hung up mid-request")
        data += chunk
    return json.loads(data[HEADER.size:]), fds


def _run_child(conn: socket.socket, request: dict, fds: list[int]) -> None:
    """In the forked child: become `irc-opt argv` in the caller's place, report the status."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["irc-opt", *request["argv"]]
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    from irc.cli.opt import main
    try:
        status = main(request["argv"])
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
            _run_child(conn, request, fds)
        for fd in fds:
            os.close(fd)
        conn.close()


if __name__ == "__main__":
    serve(sys.argv[1])
