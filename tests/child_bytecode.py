"""Python bytecode for the test run's child processes, compiled once for the whole run.

With `PYTHONDONTWRITEBYTECODE=1` (the user keeps `__pycache__` out of the tree), every fresh
interpreter a test starts (the examples, the cache-fault and pickle tests, irc-opt's server)
compiles irc's ~400 modules from source again: about 0.25 s of CPU each. Here the
children write and read their bytecode in a folder of the run instead
(`PYTHONPYCACHEPREFIX`), which is removed at the end; the user's tree is untouched. The
pytest processes themselves keep reading the installed `__pycache__` files (a prefix would
make them compile the standard library and site-packages again), so only the environment
their children inherit changes. Where bytecode may be written (the variable unset) or a
prefix is already chosen, nothing changes.
"""
from __future__ import annotations

import os
import shutil
import tempfile

FOLDER_VARIABLE = "IRC_TEST_CHILD_BYTECODE"  # the run's folder, from the controller to its workers
NO_WRITE = "PYTHONDONTWRITEBYTECODE"
PREFIX = "PYTHONPYCACHEPREFIX"


def wanted() -> bool:
    """Whether children would otherwise compile every module they import from source."""
    return bool(os.environ.get(NO_WRITE)) and not os.environ.get(PREFIX)


def make_folder() -> str:
    """The run's bytecode folder (in the controller, or a run without pytest-xdist), named in
    the environment so that the workers started after this find it."""
    folder = tempfile.mkdtemp(prefix="irc-test-bytecode-")
    os.environ[FOLDER_VARIABLE] = folder
    return folder


def use_in_children() -> dict[str, str | None]:
    """Point the children this process starts at the run's folder; the variables' old values
    (to restore) are returned. This process's own imports are not affected (Python reads the
    variables at start-up)."""
    saved = {name: os.environ.get(name) for name in (NO_WRITE, PREFIX)}
    os.environ.pop(NO_WRITE, None)
    os.environ[PREFIX] = os.environ[FOLDER_VARIABLE]
    return saved


def remove_folder(folder: str) -> None:
    os.environ.pop(FOLDER_VARIABLE, None)
    shutil.rmtree(folder, ignore_errors=True)
