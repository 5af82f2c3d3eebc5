"""Theano's module paths import and give the frontend's objects: `irc.tensor` is a package
(`basic`, `nnet`, `extra_ops`, `shared_randomstreams`, `signal`), and `irc.ifelse`,
`irc.scan_module`, `irc.gradient`, `irc.printing`, `irc.compile`, `irc.sandbox` re-export."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

import irc
import irc.tensor as T
from irc.frontend import (creation, grad, ifelse as ifelse_builder, modes, mrg_random_streams, nnet, order,
                          order_ops, random_state, random_streams, scan, softmax_ops, transfers)
from irc.inspect import printing as inspect_printing


def test_tensor_submodules_give_the_frontends_objects():
    from irc.tensor.extra_ops import CumOp, cumsum
    from irc.tensor.nnet import Softmax, sigmoid
    from irc.tensor.shared_randomstreams import RandomStateSharedVariable, RandomStreams
    assert sigmoid is nnet.sigmoid is T.sigmoid is T.nnet.sigmoid
    assert Softmax is softmax_ops.Softmax
    assert cumsum is order.cumsum is T.cumsum is T.extra_ops.cumsum and issubclass(CumOp, order_ops.CumOp)
    assert T.extra_ops.arange is creation.arange
    assert RandomStreams is random_streams.RandomStreams is T.shared_randomstreams.RandomStreams
    assert RandomStateSharedVariable is random_state.RandomStateSharedVariable


def test_tensor_basic_holds_theanos_basic_names_and_the_same_objects():
    import irc.tensor.basic as basic
    for name in basic.__all__:
        assert getattr(basic, name) is getattr(T, name), name
    for name in ("matrix", "fvector", "dot", "exp", "sum", "TensorType", "Elemwise", "as_tensor_variable"):
        assert name in basic.__all__
    assert "sigmoid" not in basic.__all__ and "grad" not in basic.__all__  # Theano's nnet, gradient


def test_tensor_is_a_package_without_hand_made_submodules():
    assert hasattr(T, "__path__")
    for name in ("extra_ops", "shared_randomstreams", "basic"):
        module = sys.modules[f"irc.tensor.{name}"]
        assert module.__file__.endswith(f"irc/tensor/{name}.py")
    assert sys.modules["irc.tensor.nnet"].__file__.endswith("irc/tensor/nnet/__init__.py")
    assert importlib.import_module("irc.tensor.signal").__name__ == "irc.tensor.signal"


def test_convolution_and_pooling_keep_theanos_module_paths():
    from irc.tensor.nnet import conv, conv2d
    from irc.tensor.nnet.abstract_conv import conv2d as abstract_conv2d
    from irc.tensor.signal import pool
    assert conv.conv2d is conv2d is abstract_conv2d is T.nnet.conv2d
    assert pool.pool_2d.__module__ == "irc.frontend.pool"


def test_top_level_modules_re_export():
    from irc.compile.mode import FAST_COMPILE, FAST_RUN, Mode
    from irc.ifelse import IfElse, ifelse
    from irc.printing import debugprint, pp, pprint, pydotprint
    from irc.sandbox.rng_mrg import MRG_RandomStreams
    from irc.scan_module import scan as scan_fn
    assert ifelse is ifelse_builder.ifelse and IfElse.__module__ == "irc.frontend.ifelse_op"
    assert scan_fn is scan.scan is irc.scan
    assert (debugprint, pp, pprint, pydotprint) == (inspect_printing.debugprint, inspect_printing.pp,
                                                    inspect_printing.pp, inspect_printing.pydotprint)
    assert irc.pp is pp and irc.debugprint is debugprint
    assert Mode is modes.Mode is irc.Mode is irc.compile.mode.Mode and irc.compile.Mode is Mode
    assert (FAST_RUN, FAST_COMPILE) == ("FAST_RUN", "FAST_COMPILE")
    assert MRG_RandomStreams is mrg_random_streams.MRG_RandomStreams
    assert irc.gradient.grad is grad.grad is T.grad
    assert irc.sandbox.cuda.basic_ops.gpu_from_host is transfers.gpu_from_host


def test_names_theano_never_had_are_gone_from_the_top():
    top = Path(irc.__file__).parent
    assert not (top / "extra_ops.py").exists() and not (top / "printing_dot.py").exists()
