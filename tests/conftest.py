"""pytest plugin: every `tests/**/*.mlir` file with `// RUN:` lines is a test, as under lit.

Each RUN line (a trailing `\\` continues it on the next RUN line) runs through
`bash -o pipefail -c`, with `%s` the file, `%S` its folder, `%t` a scratch path, `%T` a
scratch folder and `%%` a percent sign, and with lit's `not` (succeeds when its command fails).
`irc-opt` is this checkout's and `filecheck` this interpreter's, each one a process forked
from a server that imported irc and filecheck once (irc_opt_forkserver.py). Files under
`Inputs/` are data, not tests.
"""
from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import child_bytecode
import final_collection
import forked_python
import irc_opt_forkserver
from irc.base.config import TIERS_VARIABLE, config as irc_config  # the standard library only

ROOT = Path(__file__).resolve().parent.parent
PRELUDE = 'not() { ! "$@"; }\n'
_RUN = re.compile(r"^\s*//\s*RUN:\s?(.*?)\s*$")
_SUBST = re.compile(r"%[%sStT]")
_COMPILEDIR = pytest.StashKey[tuple]()
_SPEED_LEVEL = pytest.StashKey[str | None]()
# The numerics tests' LLVM level (IRC_LLVM_SPEED_LEVEL, unless the caller set one): O1 runs the
# same IR, passes and machine-code path as the default O2, with about a sixth less LLVM time.
# The code generator's tests (tests/codegen_cpu) and irc-opt's RUN lines keep the default.
TEST_SPEED_LEVEL = "1"
SPEED_LEVEL_VARIABLE = "IRC_LLVM_SPEED_LEVEL"  # irc.codegen_cpu.target's (importing it loads llvmlite)
# irc.codegen_cpu.compile_processes's: under pytest-xdist a worker compiles its kernels itself
PROCESSES_VARIABLE = "IRC_COMPILE_PROCESSES"
_PROCESSES = pytest.StashKey[str | None]()
_TIERS = pytest.StashKey[str | None]()
_BYTECODE = pytest.StashKey[tuple]()  # (the run's folder or None, the variables it replaced)


def run_lines(text: str) -> list[str]:
    """The commands of the RUN lines, with continuations joined."""
    commands: list[str] = []
    pending = ""
    for line in text.splitlines():
        m = _RUN.match(line)
        if not m:
            continue
        part = m.group(1)
        if part.endswith("\\"):
            pending += part[:-1] + " "
            continue
        commands.append((pending + part).strip())
        pending = ""
    if pending.strip():
        commands.append(pending.strip())
    return commands


_shim_dir: str | None = None
_server: subprocess.Popen | None = None


def tool_env() -> dict[str, str]:
    """The environment for RUN lines: `irc-opt` and `filecheck` on PATH, the fork server's
    clients (see irc_opt_forkserver.py; where the server cannot start, a shim running
    `python -m irc.cli.opt`, and filecheck's own script), then this interpreter's own scripts
    ahead of version-manager shims, which cost a shell and a lookup per command; LLVM at its
    default level."""
    global _shim_dir
    env = dict(os.environ)
    env.pop(SPEED_LEVEL_VARIABLE, None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    if _shim_dir is None:
        _shim_dir = tempfile.mkdtemp(prefix="irc-tools-")
        shim = Path(_shim_dir, "irc-opt")
        socket_path = os.path.join(_shim_dir, "server")
        if _start_server(socket_path, env):
            shim.write_text(irc_opt_forkserver.client_script(socket_path))
            if irc_opt_forkserver.serves_filecheck():
                _executable(Path(_shim_dir, "filecheck")).write_text(
                    irc_opt_forkserver.client_script(socket_path, "filecheck"))
        else:
            shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m irc.cli.opt "$@"\n')
        _executable(shim)
    scripts = os.path.dirname(sys.executable)
    env["PATH"] = os.pathsep.join([_shim_dir, scripts, env.get("PATH", "")])
    return env


def _executable(path: Path) -> Path:
    """`path`, created if missing and made executable."""
    path.touch()
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _start_server(socket_path: str, env: dict[str, str]) -> bool:
    """Start the fork server and wait for its "ready"; False if it could not start."""
    global _server
    try:
        _server = subprocess.Popen([sys.executable, irc_opt_forkserver.__file__, socket_path], env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        if _server.stdout.readline().strip() == "ready":
            return True
    except OSError:
        pass
    _stop_server()
    return False


def _stop_server() -> None:
    global _server
    if _server is not None:
        _server.kill()
        _server.wait()
        _server.stdout.close()
        _server = None


class RunFailure(Exception):
    def __init__(self, command: str, proc: subprocess.CompletedProcess):
        super().__init__(command)
        self.command, self.proc = command, proc


def pytest_collect_file(parent: pytest.Collector, file_path: Path):
    if file_path.suffix == ".mlir" and "Inputs" not in file_path.parts:
        if run_lines(file_path.read_text(encoding="utf-8", errors="replace")):
            return MlirFile.from_parent(parent, path=file_path)
    return None


class MlirFile(pytest.File):
    def collect(self):
        yield MlirTest.from_parent(self, name=self.path.name)


class MlirTest(pytest.Item):
    """One .mlir file: passes when every RUN line exits 0."""

    def runtest(self) -> None:
        commands = run_lines(self.path.read_text(encoding="utf-8"))
        if any(re.search(r"\bfilecheck\b", c) for c in commands) and shutil.which("filecheck") is None:
            pytest.skip("filecheck is not installed (pip install filecheck)")
        env = tool_env()
        scratch = tempfile.mkdtemp(prefix="irc-mlir-test-")
        subs = {"%%": "%", "%s": str(self.path), "%S": str(self.path.parent),
                "%t": os.path.join(scratch, self.path.stem + ".tmp"), "%T": scratch}
        try:
            for command in commands:
                expanded = _SUBST.sub(lambda m: subs[m.group()], command)
                proc = subprocess.run(["bash", "-o", "pipefail", "-c", PRELUDE + expanded],
                                      capture_output=True, text=True, env=env, cwd=str(self.path.parent),
                                      timeout=300)
                if proc.returncode != 0:
                    raise RunFailure(expanded, proc)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, RunFailure):
            e = excinfo.value
            return (f"RUN line failed (exit {e.proc.returncode}):\n  $ {e.command}\n"
                    f"--- stdout ---\n{e.proc.stdout}--- stderr ---\n{e.proc.stderr}")
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"mlir test: {self.name}"


def pytest_configure(config: pytest.Config) -> None:
    """One compile cache for the whole run, never the user's: the controller (or a run without
    pytest-xdist) makes the folder and names it in `IRC_COMPILEDIR` before any worker starts, so
    every worker inherits it and a graph compiled by one worker is a cache hit for the others
    (entries are written atomically: concurrent writers are safe). Removed at the end.

    Every process of the run (each xdist worker, each subprocess a test starts, through
    `IRC_COMPILE_TIERS=0`) compiles optimized code directly (`config.compile_tiers` off):
    tiered compilation would compile each new function a second time, quickly, and leave a
    background process compiling beside the tests on cores the workers already fill, and a
    function's results could change by a rounding between its tier-0 and its optimized calls.
    tests/codegen_cpu/test_compile_tiers.py turns it on where it is tested. The children the
    tests start share their Python bytecode too (child_bytecode.py)."""
    irc_config.compile_tiers = False
    if hasattr(config, "workerinput"):  # an xdist worker: the controller's folders are in the env
        if os.environ.get(child_bytecode.FOLDER_VARIABLE):
            config.stash[_BYTECODE] = (None, child_bytecode.use_in_children())
        return
    if child_bytecode.wanted():
        bytecode = child_bytecode.make_folder()
        in_children = {} if config.getoption("numprocesses", None) else child_bytecode.use_in_children()
        config.stash[_BYTECODE] = (bytecode, in_children)
    folder = tempfile.mkdtemp(prefix="irc-test-compiledir-")
    config.stash[_COMPILEDIR] = (folder, os.environ.get("IRC_COMPILEDIR"))
    os.environ["IRC_COMPILEDIR"] = folder
    config.stash[_SPEED_LEVEL] = os.environ.get(SPEED_LEVEL_VARIABLE)
    os.environ.setdefault(SPEED_LEVEL_VARIABLE, TEST_SPEED_LEVEL)
    config.stash[_PROCESSES] = os.environ.get(PROCESSES_VARIABLE)
    config.stash[_TIERS] = os.environ.get(TIERS_VARIABLE)
    os.environ[TIERS_VARIABLE] = "0"
    if config.getoption("numprocesses", None):  # the workers already fill the cores
        os.environ.setdefault(PROCESSES_VARIABLE, "1")


def pytest_unconfigure(config: pytest.Config) -> None:
    _stop_server()
    forked_python.stop_server()
    if _shim_dir is not None:
        shutil.rmtree(_shim_dir, ignore_errors=True)
    bytecode, replaced = config.stash.get(_BYTECODE, (None, {}))
    for name, value in replaced.items():
        _restore(name, value)
    if bytecode is not None:
        child_bytecode.remove_folder(bytecode)
    saved = config.stash.get(_COMPILEDIR, None)
    if saved is not None:
        folder, old = saved
        _restore("IRC_COMPILEDIR", old)
        _restore(SPEED_LEVEL_VARIABLE, config.stash.get(_SPEED_LEVEL, None))
        _restore(PROCESSES_VARIABLE, config.stash.get(_PROCESSES, None))
        _restore(TIERS_VARIABLE, config.stash.get(_TIERS, None))
        shutil.rmtree(folder, ignore_errors=True)
    final_collection.collect_then_freeze()  # before pytest's five collections (final_collection.py)


def _restore(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@pytest.fixture
def pool():
    """Three threads with every parallel loop split (min_work 0) and sleeping workers woken
    for every loop (wake_work 0), whatever the machine; the count and the thresholds are
    restored after."""
    from irc.codegen_cpu.thread_pool import STATE
    from irc.runtime import threads
    threads.ensure_pool()
    before = threads.num_threads()
    threads.set_num_threads(3)
    threads.tune(min_work=0, wake_work=0)
    yield threads
    threads.tune(min_work=STATE["min_work"][1], wake_work=STATE["wake_work"][1])
    threads.set_num_threads(before)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Profiles made with ProfileMode or `config.profile` print at exit, as Theano's did; the
    tests that make them check their reports themselves, so the run's last line stays pytest's
    summary."""
    profile = sys.modules.get("irc.runtime.profile")
    if profile is not None:
        profile._AT_EXIT.clear()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`-n` runs hand out work by stealing (`--dist worksteal`) instead of xdist's default
    `load`: a worker that runs out takes half of the other's queue, so the run does not end
    with one worker alone on a few long tests. Any other `--dist` is xdist's own."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import WorkStealingScheduling  # only under pytest-xdist
    return WorkStealingScheduling(config, log)
