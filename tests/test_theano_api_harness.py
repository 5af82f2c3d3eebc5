"""tools/theano_api_tests.py's mapping and rule, offline, on a tiny test file of our own: the
throw-away `theano` package gives irc's objects under Theano's module names, a name irc lacks
fails only where it is used ("irc has no theano.X"), and the rule puts out a test that
inspects the compiled graph while keeping one that only uses the API."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from theano_api_tests import install_harness  # noqa: E402  (the harness is a tool, not a package)

TINY_TEST = '''
import numpy as np
import theano
import theano.tensor as T
from theano.tensor import AdvancedSubtensor1
from theano.tensor.extra_ops import NoSuchOp, cumsum


def test_uses_the_api():
    x = T.dvector("x")
    f = theano.function([x], T.exp(x) + 1)
    assert np.allclose(f(np.zeros(2)), 2.0)
    assert AdvancedSubtensor1 is T.AdvancedSubtensor1 and cumsum is T.cumsum


def test_reads_the_compiled_graph():
    x = T.dvector("x")
    assert theano.function([x], x * 2).maker.fgraph.toposort()


def test_names_a_missing_op():
    NoSuchOp()
'''


def test_the_mapping_and_the_rule_on_a_tiny_file(tmp_path):
    run = tmp_path / "run"
    install_harness(run)
    (run / "theano" / "tests").mkdir()
    (run / "theano_api_modules.txt").write_text("theano\ntheano.tensor\ntheano.tensor.extra_ops\ntheano.tests\n"
                                                "theano.tests.test_tiny\n")
    (run / "theano" / "tests" / "__init__.py").write_text("")
    (run / "theano" / "tests" / "test_tiny.py").write_text(TINY_TEST)
    results = tmp_path / "events.jsonl"
    env = dict(os.environ, THEANO_API_BACKEND="irc", THEANO_API_RESULTS=str(results),
               PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", PYTHONPATH=os.pathsep.join([str(run), str(ROOT)]))
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "theano/tests/test_tiny.py"],
                   cwd=run, env=env, capture_output=True, text=True, timeout=300)
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import theano_api_tests
    finally:
        sys.path.remove(str(ROOT / "tools"))
    row, failures = theano_api_tests.summarize(theano_api_tests._read_events(results))
    assert (row["in"], row["out"], row["passed"], row["failed"]) == (2, 1, 1, 1), row
    assert row["out_by_kind"] == {"compiled graph": 1}
    [(nodeid, message)] = failures
    assert nodeid.endswith("test_names_a_missing_op")
    assert "irc has no theano.tensor.extra_ops.NoSuchOp" in message
