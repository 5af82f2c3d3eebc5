"""Runs one reST document's tests the way Sphinx's doctest builder does; writes a JSON report.

    python3 run_document.py DOC.txt OUT.json [--perturb-random]

Run in a subprocess whose path holds the throw-away `theano` package. Per group (in order of
first appearance): a fresh namespace, the group's `testsetup` code (if it fails, the group's
tests fail with "testsetup failed"), then its doctest blocks and testcode blocks in document
order in that namespace, then its `testcleanup`. One record per `>>>` example and per testcode
block: passed, failed (with the reason) or skipped (`+SKIP`), and the output it printed.

`--perturb-random` seeds every random source differently (numpy's global generator, numpy's
`RandomState`/`default_rng` seeds, irc's stream seeds), so that the caller can tell outputs that
depend on random draws from the others.
"""
from __future__ import annotations

import builtins
import contextlib
import doctest
import io
import json
import os
import sys
import time
import traceback

import numpy as np

from rst_blocks import Block, read_blocks

# Sphinx's doctest_default_flags (Theano's doc/conf.py does not change them)
DEFAULT_FLAGS = doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL | doctest.DONT_ACCEPT_TRUE_FOR_1
SEED_SHIFT = 7919


@contextlib.contextmanager
def compiling_as(mode: str):
    """doctest compiles each example as 'single'; Sphinx compiles testcode blocks as 'exec'
    (it replaces doctest's `compile` the same way, for the run only)."""
    doctest.compile = lambda source, filename, _mode, *args: builtins.compile(source, filename, mode, *args)
    try:
        yield
    finally:
        del doctest.compile


def reason_of(exc_info: tuple) -> str:
    """The first line of the exception's own message line (`ValueError: ...`)."""
    lines = traceback.format_exception_only(exc_info[0], exc_info[1])
    return (lines[-1] if lines else repr(exc_info[1])).strip().splitlines()[0][:200]


def _exception_name(text: str) -> str:
    """The class name on a traceback's exception line (the first line after the stack)."""
    match = doctest.DocTestParser._EXCEPTION_RE.match(text)
    if not match or not match.group("msg").strip():
        return "(nothing)"
    return match.group("msg").strip().splitlines()[0].split(":", 1)[0].rsplit(".", 1)[-1]


def _difference(example, got: str) -> str:
    """"output differs", or which exception came where the document expects another."""
    if example.exc_msg is not None:
        wanted = _exception_name(example.want)
        if not got.startswith("Traceback"):
            return f"no exception where the document expects {wanted}"
        return f"raised {_exception_name(got)} where the document expects {wanted}"
    return "output differs"


class RecordingRunner(doctest.DocTestRunner):
    """Keeps one record per example instead of printing a report."""

    def __init__(self, records: list[dict], tag: str, **kwargs):
        super().__init__(verbose=False, optionflags=DEFAULT_FLAGS, **kwargs)
        self.records, self.tag = records, tag

    def _record(self, example, outcome, reason="", got=""):
        self.records.append({"id": f"{self.tag}:{example.lineno}", "kind": self.kind, "outcome": outcome,
                             "reason": reason, "got": got, "source": example.source[:300],
                             "want": example.want[:300]})

    def report_start(self, out, test, example):
        pass

    def report_success(self, out, test, example, got):
        self._record(example, "passed", got=got)

    def report_failure(self, out, test, example, got):
        self._record(example, "failed", _difference(example, got), got)

    def report_unexpected_exception(self, out, test, example, exc_info):
        self._record(example, "failed", reason_of(exc_info))


def _option_flags(text: str) -> dict[int, bool]:
    flags = {}
    for item in text.replace(",", " ").split():
        name = item[1:]
        if item[0] in "+-" and name in doctest.OPTIONFLAGS_BY_NAME:
            flags[doctest.OPTIONFLAGS_BY_NAME[name]] = item[0] == "+"
    return flags


def _run_doctest_block(block: Block, ns: dict, records: list, path: str) -> None:
    test = doctest.DocTestParser().get_doctest(block.text, ns, os.path.basename(path), path, block.lineno - 1)
    test.globs = ns
    directive_flags = _option_flags(block.options.get("options", ""))
    for example in test.examples:
        example.options = {**directive_flags, **example.options}
        example.lineno += block.lineno
    runner = RecordingRunner(records, f"{os.path.basename(path)}:{block.groups[0]}")
    runner.kind = "example"
    for example in test.examples:
        if example.options.get(doctest.SKIP):
            records.append({"id": f"{runner.tag}:{example.lineno}", "kind": "example", "outcome": "skipped",
                            "reason": "+SKIP", "got": "", "source": example.source[:300], "want": ""})
    with compiling_as("single"):
        runner.run(test, clear_globs=False)


def _run_testcode(code: Block, output: Block | None, ns: dict, records: list, path: str, group: str) -> None:
    tag = f"{os.path.basename(path)}:{group}"
    if output is None:   # no testoutput: passes when it runs without an exception
        captured = io.StringIO()
        record = {"id": f"{tag}:{code.lineno}", "kind": "testcode", "outcome": "passed", "reason": "",
                  "got": "", "source": code.text[:300], "want": ""}
        try:
            with contextlib.redirect_stdout(captured):
                exec(builtins.compile(code.text, path, "exec"), ns)
        except BaseException:   # noqa: BLE001  (a document's code may raise anything, SystemExit included)
            record.update(outcome="failed", reason=reason_of(sys.exc_info()))
        record["got"] = captured.getvalue()[:2000]
        records.append(record)
        return
    options = {**_option_flags(output.options.get("options", "")), doctest.DONT_ACCEPT_BLANKLINE: True}
    match = doctest.DocTestParser._EXCEPTION_RE.match(output.text)
    example = doctest.Example(code.text + "\n", output.text + "\n", exc_msg=match.group("msg") if match else None,
                              lineno=code.lineno, options=options)
    test = doctest.DocTest([example], ns, tag, path, 0, None)
    test.globs = ns
    runner = RecordingRunner(records, tag)
    runner.kind = "testcode"
    if example.options.get(doctest.SKIP):
        records.append({"id": f"{tag}:{code.lineno}", "kind": "testcode", "outcome": "skipped", "reason": "+SKIP",
                        "got": "", "source": code.text[:300], "want": ""})
    with compiling_as("exec"):
        runner.run(test, clear_globs=False)


def _run_setup(blocks: list[Block], ns: dict) -> str | None:
    """The group's set-up code; the first line of its exception, if any."""
    for block in blocks:
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(builtins.compile(block.text, "testsetup", "exec"), ns)
        except BaseException:   # noqa: BLE001
            return reason_of(sys.exc_info())
    return None


def run_document(path: str) -> list[dict]:
    """One record per `>>>` example and per testcode block of the document at `path`."""
    blocks = read_blocks(open(path).read())
    groups: dict[str, dict] = {}
    for block in blocks:
        for name in block.groups:
            if name != "*":
                groups.setdefault(name, {"setup": [], "cleanup": [], "tests": []})
    for block in blocks:
        targets = groups if "*" in block.groups else {g: groups[g] for g in block.groups}
        for group in targets.values():
            if block.kind == "testsetup":
                group["setup"].append(block)
            elif block.kind == "testcleanup":
                group["cleanup"].append(block)
            elif block.kind == "testoutput":
                if group["tests"] and group["tests"][-1][0].kind == "testcode":
                    group["tests"][-1][1] = block
            else:
                group["tests"].append([block, None])
    records: list[dict] = []
    for name, group in groups.items():
        ns: dict = {"__name__": "__main__"}
        failed_setup = _run_setup(group["setup"], ns)
        for block, output in group["tests"]:
            if failed_setup:
                count = len(doctest.DocTestParser().get_examples(block.text)) if block.kind != "testcode" else 1
                for k in range(count):
                    records.append({"id": f"{os.path.basename(path)}:{name}:{block.lineno}+{k}",
                                    "kind": "testcode" if block.kind == "testcode" else "example",
                                    "outcome": "failed", "reason": f"testsetup failed: {failed_setup}",
                                    "got": "", "source": block.text[:300], "want": ""})
            elif block.kind == "testcode":
                _run_testcode(block, output, ns, records, path, name)
            else:
                _run_doctest_block(block, ns, records, path)
        _run_setup(group["cleanup"], ns)
    return records


def perturb_random_sources() -> None:
    """Every seed a document can give, shifted: numpy's global generator and RandomState/
    default_rng seeds, and irc's stream seeds (its `state_for_seed`)."""
    np.random.seed(SEED_SHIFT)
    original_seed, original_state, original_rng = np.random.seed, np.random.RandomState, np.random.default_rng

    class ShiftedRandomState(original_state):
        def __init__(self, seed=None):
            super().__init__(None if seed is None else np.asarray(seed) + SEED_SHIFT)

    np.random.seed = lambda seed=None: original_seed(None if seed is None else np.asarray(seed) + SEED_SHIFT)
    np.random.RandomState = ShiftedRandomState
    np.random.default_rng = lambda seed=None: original_rng(None if seed is None else np.asarray(seed) + SEED_SHIFT)
    import irc.frontend.random_state as random_state   # noqa: PLC0415  (only when perturbing)
    original = random_state.state_for_seed

    def shifted(seed, *args, **kwargs):
        return original(int(seed) + SEED_SHIFT, *args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("irc") and getattr(module, "state_for_seed", None) is original:
            module.state_for_seed = shifted


def main() -> int:
    path, out = sys.argv[1], sys.argv[2]
    np.set_printoptions(legacy="1.13")   # numpy's printing when the tutorial was written: not irc's business
    if not hasattr(time, "clock"):   # removed in Python 3.8: the tutorial times with it
        time.clock = time.perf_counter
    import theano  # noqa: F401, PLC0415  (the facade: after the path set-up of the caller)
    if "--perturb-random" in sys.argv:
        perturb_random_sources()
    else:
        np.random.seed(0)
    records = run_document(path)
    with open(out, "w") as stream:
        json.dump(records, stream)
    return 0


if __name__ == "__main__":
    sys.exit(main())
