"""tests/forked_python.py: a forked child behaves as `python -c` would for the tests that use
it — argv, streams, exit status, `atexit`, its own process — and a child whose environment
the server could not honour runs in a fresh interpreter, unless it asks for a server of its
own."""
from __future__ import annotations

import os
import subprocess

import pytest

import forked_python
from forked_python import run_python

WHO = "import os, sys; print(os.getppid(), sys.argv[1:], __name__)"


def test_argv_stdout_stderr_and_status():
    done = run_python("import sys; print(sys.argv[1:]); sys.stderr.write('to stderr\\n'); sys.exit(3)",
                      "a", "b c")
    assert done.returncode == 3
    assert done.stdout == "['a', 'b c']\n" and done.stderr == "to stderr\n"


def test_forked_from_the_server_not_this_process():
    done = run_python(WHO, "x")
    assert done.returncode == 0 and done.stdout.endswith(" ['x'] __main__\n")
    assert int(done.stdout.split()[0]) != os.getpid()  # the server's child, not a fresh one of ours


def test_an_environment_read_at_import_gets_a_fresh_interpreter():
    done = run_python(WHO, "y", env={"IRC_FLAGS": "floatX=float32"})
    assert done.returncode == 0 and int(done.stdout.split()[0]) == os.getpid()


def test_an_own_server_reads_the_request_s_environment_at_import():
    """`own_server`: forked from a server started with the request's variables (one per
    environment, reused), so what irc read at import is the request's, as in a fresh one."""
    code = "import os, sys, irc; print(os.getppid(), irc.config.floatX, 'llvmlite' in sys.modules)"
    first = run_python(code, env={"IRC_FLAGS": "floatX=float16"}, own_server=True)
    second = run_python(code, env={"IRC_FLAGS": "floatX=float16"}, own_server=True)
    other = run_python(code, env={"IRC_FLAGS": "floatX=float32"}, own_server=True)
    parent, floatx, llvmlite = first.stdout.split()
    assert int(parent) != os.getpid() and floatx == "float16" and llvmlite == "False", first.stderr
    assert second.stdout == first.stdout  # the same server's child
    assert other.stdout.split()[1] == "float32" and other.stdout.split()[0] != parent


def test_a_server_that_does_not_come_up_is_not_started_again(monkeypatch):
    """Its requests run in fresh interpreters, without paying for another start each."""
    starts = []
    monkeypatch.setattr(forked_python, "_start_server", lambda env: starts.append(env) and None)
    for _ in range(2):
        done = run_python("import os; print(os.getppid())", env={"IRC_TEST_SERVER": "never up"}, own_server=True)
        assert done.returncode == 0 and int(done.stdout) == os.getpid()
    assert len(starts) == 1


def test_compiledir_alone_still_forks(tmp_path):
    done = run_python("import os; print(os.getppid(), os.environ['IRC_COMPILEDIR'])",
                      env={"IRC_COMPILEDIR": str(tmp_path)})
    parent, folder = done.stdout.split()
    assert int(parent) != os.getpid() and folder == str(tmp_path)


def test_an_exception_is_status_1_with_the_code_s_traceback():
    done = run_python("x = 1\nraise ValueError('boom')")
    assert done.returncode == 1
    assert done.stderr.startswith("Traceback") and 'File "<string>", line 2' in done.stderr
    assert "forked_python" not in done.stderr and done.stderr.endswith("ValueError: boom\n")


def test_atexit_handlers_and_threads_finish_before_the_status():
    code = ("import atexit, threading, time\n"
            "atexit.register(lambda: print('at exit'))\n"
            "threading.Thread(target=lambda: (time.sleep(0.2), print('thread'))).start()\n")
    done = run_python(code)
    assert done.returncode == 0 and done.stdout == "thread\nat exit\n"


def test_a_killed_child_fails_and_says_so():
    done = run_python("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert done.returncode != 0 and "died without an exit status" in done.stderr


def test_a_timeout_kills_the_child():
    with pytest.raises(subprocess.TimeoutExpired):
        run_python("import time; time.sleep(60)", timeout=0.5)
