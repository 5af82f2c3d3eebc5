"""tools/dlt_tutorials.py, the harness that runs the Deep Learning Tutorials' own files on irc:
on a stand-in tutorial folder written here (the real files are not in the repository), a
program runs cold then warm with `theano` aliased to irc module by module, its MNIST loader
replaced by the synthetic sets, its figure read from what it prints; a program that stops is
reported at its own line with the exception; the user's folder is left as it was."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


dlt = _load("dlt_tutorials", ROOT / "tools" / "dlt_tutorials.py")
synthetic_data = _load("dlt_synthetic_data", ROOT / "tools" / "dlt_shim" / "synthetic_data.py")

PROGRAM = '''\
import numpy
import theano
import theano.tensor as T


def load_data(dataset):
    raise RuntimeError("the harness replaces this loader")


def train(n_epochs=1):
    (x_set, y_set), _, (test_x, test_y) = load_data("mnist.pkl.gz")
    print("ALIAS", theano.tensor.nnet.__name__, theano.function.__module__.split(".")[0])
    x = T.matrix("x")
    W = theano.shared(numpy.zeros((28 * 28, 10), dtype=theano.config.floatX))
    error = T.mean(T.neq(T.argmax(T.nnet.softmax(T.dot(x, W)), axis=1), test_y))
    test = theano.function([], error, givens={x: test_x})
    print("with test performance %f %%" % (100 * test()))


def broken():
    x = T.matrix("x")
    return T.no_such_function(x)
'''
ROWS = [60, 40, 50]


def _folder(tmp_path: Path) -> Path:
    code = tmp_path / "code"
    code.mkdir()
    (code / "logistic_sgd.py").write_text(PROGRAM)
    return code


def test_a_program_runs_cold_then_warm_on_irc_with_the_synthetic_data(tmp_path):
    code, logs = _folder(tmp_path), tmp_path / "logs"
    logs.mkdir()
    program = dlt.Program("logistic_sgd", "train", {"n_epochs": 1}, "test error %", dlt._TEST_ERROR)
    run = dlt.run_program(program, "irc", sys.executable, code, ROWS, timeout=300, log_dir=logs)
    assert run.ran and run.error == ""
    assert len(run.seconds) == 2 and all(s > 0 for s in run.seconds)
    _, _, (_, test_y) = synthetic_data.mnist_sets(*ROWS)
    assert run.metric == np.round(100 * np.mean(test_y != 0), 4)  # zero weights predict class 0
    cold = (logs / "logistic_sgd.irc.cold.log").read_text()
    assert "ALIAS irc.tensor.nnet irc" in cold and "synthetic, MNIST shapes" in cold
    assert sorted(p.name for p in code.iterdir()) == ["logistic_sgd.py"]  # ran in a copy


def test_a_program_that_stops_is_reported_at_its_own_line(tmp_path):
    code = _folder(tmp_path)
    program = dlt.Program("logistic_sgd", "broken", {}, "test error %", dlt._TEST_ERROR)
    run = dlt.run_program(program, "irc", sys.executable, code, ROWS, timeout=300, log_dir=None)
    assert not run.ran and len(run.seconds) == 1  # no warm run after a cold one that stopped
    line = PROGRAM.splitlines().index("    return T.no_such_function(x)") + 1
    assert run.error.startswith(f"logistic_sgd.py:{line} `return T.no_such_function(x)`: AttributeError")
    assert run.metric is None
    table = dlt.table([program], {("logistic_sgd", "irc"): run})
    assert f"| logistic_sgd | no | logistic_sgd.py:{line}" in table
