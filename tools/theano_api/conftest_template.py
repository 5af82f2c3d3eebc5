"""pytest set-up of the harness's run directory (copied there as conftest.py).

Runs Theano's nose-era tests under pytest 9 and numpy 2 without touching them: numpy's removed
aliases (`np.float`, ...) are put back, nose's generator tests run each yielded check in one
test, every test gets a time limit, the tests the rule puts out are deselected, and each event
goes as a JSON line to $THEANO_API_RESULTS (a "start" before each test, so that the harness can
name the test that crashed the interpreter).
"""
from __future__ import annotations

import functools
import inspect
import json
import os
import signal
import sys
import types
import unittest

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "shims"), os.path.join(HERE, "deps")]

import theano_api_rule  # noqa: E402  (after the path set-up)

for _name, _value in {"float": float, "int": int, "bool": bool, "complex": complex, "object": object,
                      "str": str, "long": int, "unicode": str}.items():
    if not hasattr(np, _name):   # numpy 2 removed these; np.bool came back as np.bool_
        setattr(np, _name, _value)
if not hasattr(np, "find_common_type"):   # removed in numpy 2; Theano's test helpers call it
    np.find_common_type = lambda array_types, scalar_types: np.result_type(*array_types, *scalar_types)
if not hasattr(np, "cast"):   # np.cast[dtype](x), removed in numpy 2
    np.cast = type("Cast", (), {"__getitem__": lambda self, dtype: lambda x: np.asarray(x, dtype=dtype)})()
if not hasattr(np, "asscalar"):
    np.asscalar = lambda a: np.asarray(a).item()
if not hasattr(np.testing, "dec"):   # numpy's nose decorators, gone in numpy 2: only skipif is used
    np.testing.dec = types.SimpleNamespace(skipif=lambda condition, msg="": pytest.mark.skipif(
        bool(condition), reason=msg or "skipped by the test"))

TEST_ROOTS = (os.path.join(HERE, "theano"),)
TIME_LIMIT_S = float(os.environ.get("THEANO_API_TIME_LIMIT", "120"))
_results = open(os.environ.get("THEANO_API_RESULTS", os.devnull), "a", buffering=1)


def _record(**event) -> None:
    _results.write(json.dumps(event) + "\n")


class RanPastTimeLimit(Exception):
    """A test ran past the harness's time limit."""


def _run_yielded(generator_function):
    @functools.wraps(generator_function)
    def run_all(*args, **kwargs):
        for case in generator_function(*args, **kwargs):
            case[0](*case[1:])
    run_all._theano_original = generator_function
    return run_all


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector, name, obj):
    if not (collector.funcnamefilter(name) and inspect.isgeneratorfunction(obj)):
        return None
    runner = _run_yielded(obj)
    if isinstance(collector, pytest.Class):
        runner = types.MethodType(runner, collector.newinstance())
    return pytest.Function.from_parent(collector, name=name, callobj=runner)


def _test_code(item):
    function = getattr(item, "obj", None)
    function = getattr(function, "__func__", function)
    return getattr(function, "_theano_original", function), getattr(item, "cls", None)


def pytest_collection_modifyitems(session, config, items):
    kept, dropped = [], []
    for item in items:
        function, cls = _test_code(item)
        if cls is not None and issubclass(cls, unittest.TestCase) and inspect.isgeneratorfunction(function):
            setattr(cls, item.name, _run_yielded(function))
        kind = theano_api_rule.classify(function, cls, TEST_ROOTS)
        _record(event="selection", nodeid=item.nodeid, internal=kind)
        (dropped if kind else kept).append(item)
    items[:] = kept
    config.hook.pytest_deselected(items=dropped)


def pytest_collectreport(report):
    if report.failed:
        _record(event="collect_error", nodeid=report.nodeid, message=_message(report))


def pytest_runtest_logstart(nodeid, location):
    _record(event="start", nodeid=nodeid)


def _message(report) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    return str(report.longrepr).strip().splitlines()[-1] if report.longrepr else ""


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        _record(event="report", nodeid=report.nodeid, when=report.when, outcome=report.outcome,
                message="" if report.passed else _message(report))


def _time_out(signum, frame):
    raise RanPastTimeLimit(f"ran past {TIME_LIMIT_S:g} s")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    previous = signal.signal(signal.SIGALRM, _time_out)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def pytest_sessionfinish(session, exitstatus):
    _record(event="finish", exitstatus=int(exitstatus))
