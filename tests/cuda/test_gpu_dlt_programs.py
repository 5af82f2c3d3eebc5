"""The four programs of examples/dlt_programs.py (softmax regression and an MLP with the
tutorials' `-mean(log(p)[arange(n), y])`, a denoising autoencoder, an Elman RNN trained by
backpropagation through time; minibatches by `givens`)
on the GPU with `assert_no_cpu_op='raise'`, step by step against the same programs on the CPU
backend. Needs every op on the device, the products included (compiling raises otherwise).
Tolerances: float32, 3 epochs of SGD, costs and parameters to rtol 1e-4 / atol 1e-5 (sums in
other orders; the GPU's exp/log to 2 ulp)."""
from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

import irc

_PATH = pathlib.Path(__file__).parents[2] / "examples" / "dlt_programs.py"
_spec = importlib.util.spec_from_file_location("dlt_programs", _PATH)
dlt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dlt)

EPOCHS, BATCH = 3, 20


def _train(device: str, program: str):
    policy = "raise" if device == "cuda" else "ignore"
    with irc.config.change_flags(device=device, floatX="float32", assert_no_cpu_op=policy):
        train_x, train_y = dlt.make_dataset()
        if program == "softmax_regression":
            model, train, _ = dlt.softmax_regression(train_x, train_y, BATCH)
        elif program == "mlp":
            model, train = dlt.mlp(train_x, train_y, BATCH)
        elif program == "elman_rnn":
            model, train = dlt.elman_rnn(train_x, train_y, BATCH)
        else:
            model, train = dlt.denoising_autoencoder(train_x, BATCH)
        n_batches = train_x.get_value().shape[0] // BATCH
        costs = [float(train(i)) for _ in range(EPOCHS) for i in range(n_batches)]
        return costs, [np.asarray(p.get_value()) for p in model.params], train


@pytest.mark.parametrize("program", ["softmax_regression", "mlp", "denoising_autoencoder", "elman_rnn"])
def test_program_trains_on_the_gpu_as_on_the_cpu(program):
    cpu_costs, cpu_params, _ = _train("cpu", program)
    gpu_costs, gpu_params, train = _train("cuda", program)
    names = {type(n.op).__name__ for n in train.maker.fgraph.toposort()}
    assert not names & {"Elemwise", "CAReduce", "CGemm", "CGemv", "Softmax", "AdvancedSubtensor1"}
    np.testing.assert_allclose(gpu_costs, cpu_costs, rtol=1e-4, atol=1e-5)
    for g, c in zip(gpu_params, cpu_params):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)
