"""`tensor.custom`: its text round-trips, the verifier's rules, and running an op no process
registered is a located error (irc-opt can print such IR but not run it)."""
from __future__ import annotations

import numpy as np
import pytest

from irc.dialects import load_all
from irc.dialects.tensor_eval import EvalError, evaluate
from irc.ir.diagnostics import VerifyError
from irc.ir.parser import parse_module
from irc.ir.printer import print_op
from irc.ir.verifier import verify

load_all()


def _module(body: str, args: str = "%x: tensor<?xf32>") -> str:
    return f"func.func @f({args}) {{\n{body}\n  func.return\n}}\n"


def test_round_trip_with_several_results():
    text = _module('  %0:2 = tensor.custom %x, %x {op = "m.AddSub"} : (tensor<?xf32>, tensor<?xf32>) '
                   '-> (tensor<?xf32>, tensor<?xf32>)')
    once = print_op(parse_module(text, "t"))
    assert print_op(parse_module(once, "u")) == once
    verify(parse_module(once, "u"))


@pytest.mark.parametrize("body, message", [
    ('  %0 = tensor.custom %x : tensor<?xf32>', "requires a non-empty string 'op' attribute"),
    ('  %0 = tensor.custom %x {op = ""} : tensor<?xf32>', "requires a non-empty string 'op'"),
    ('  %0 = tensor.custom %x {op = "m.G", device = 1} : tensor<?xf32>', "'device' must be a string"),
    ('  %0 = "tensor.custom"(%x) {op = "m.G"} : (tensor<?xf32>) -> tensor<?xf32, "cuda">', "mixes placements"),
    ('  %0 = "tensor.custom"(%x) {op = "m.G", host_operands = array<i64: 3>} : (tensor<?xf32>) -> tensor<?xf32>',
     "'host_operands' entry 3 is not an operand index"),
])
def test_verifier(body, message):
    module = parse_module(_module(body), "t")
    with pytest.raises(VerifyError, match=message):
        verify(module)


def test_a_host_operand_of_a_device_op_must_be_on_the_host():
    body = ('  %0 = "tensor.custom"(%x, %n) {op = "m.G", device = "cuda", host_operands = array<i64: 1>} : '
            '(tensor<?xf32, "cuda">, tensor<i64, "cuda">) -> tensor<?xf32, "cuda">')
    module = parse_module(_module(body, '%x: tensor<?xf32, "cuda">, %n: tensor<i64, "cuda">'), "t")
    with pytest.raises(VerifyError, match=r"operand #1 is listed in 'host_operands' but lives on 'cuda'"):
        verify(module)


def test_running_an_unregistered_op_says_what_to_do():
    module = parse_module(_module('  %0 = tensor.custom %x {op = "nowhere.Unknown{a=1}"} : tensor<?xf32>'), "t")
    op = module.regions[0].blocks[0].ops[0].regions[0].blocks[0].ops[0]
    with pytest.raises(EvalError, match=r"no user op 'nowhere.Unknown\{a=1\}' is known in this process"):
        evaluate(op, [np.ones(2, "float32")])
