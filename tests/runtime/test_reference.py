"""The reference executor: numpy semantics through tensor_eval, gc, constants, errors."""
from __future__ import annotations

import numpy as np
import pytest

from irc.dialects import load_all
from irc.dialects.builtin import DenseAttr, ModuleOp, TensorType
from irc.dialects.func import FuncOp, ReturnOp
from irc.ir.builder import Builder, InsertionPoint
from irc.ir.location import FileLineColLoc
from irc.ir.types import f32
from irc.runtime.errors import ExecutionError
from irc.runtime.reference import ReferenceExecutor

load_all()
VEC = TensorType((None,), f32)
LOC = FileLineColLoc("model.py", 7, 5)


def _func(with_constant: bool = False) -> FuncOp:
    """f(a, b) = (exp(a) + b) * c (c = 2 when with_constant, else b)."""
    func = FuncOp.create("f", [VEC, VEC], [])
    a, b = func.args
    bld = Builder(InsertionPoint.at_end(func.body), LOC)
    e = bld.create("tensor.exp", [a]).result
    s = bld.create("tensor.add", [e, b]).result
    other = b
    if with_constant:
        c = DenseAttr.from_array(np.array([2.0], dtype="float32"))
        other = bld.create("tensor.constant", [], {"value": c}, [c.type]).result
    m = bld.create("tensor.mul", [s, other]).result
    func.body.append(ReturnOp([m, s]))
    func.update_function_type()
    ModuleOp.create([func])
    return func


def test_matches_numpy():
    a = np.linspace(-1, 1, 5).astype("float32")
    b = np.arange(5, dtype="float32")
    m, s = ReferenceExecutor(_func()).run([a, b])
    np.testing.assert_allclose(s, np.exp(a) + b, rtol=1e-6)
    np.testing.assert_allclose(m, (np.exp(a) + b) * b, rtol=1e-6)
    assert m.dtype == np.float32


def test_constants_are_evaluated_once():
    ex = ReferenceExecutor(_func(with_constant=True))
    assert len(ex.constants) == 1 and all(st.op.op_name != "tensor.constant" for st in ex.steps)
    a = np.zeros(3, dtype="float32")
    m, _ = ex.run([a, a])
    np.testing.assert_allclose(m, 2.0)


def test_gc_frees_dead_values_only():
    with_gc = ReferenceExecutor(_func(), allow_gc=True)
    freed = {s for st in with_gc.steps for s in st.free}
    assert freed  # exp's result dies after the add
    assert not freed & set(with_gc.result_slots)
    assert not freed & set(range(with_gc.num_args))
    no_gc = ReferenceExecutor(_func(), allow_gc=False)
    assert all(not st.free for st in no_gc.steps)
    a = np.ones(4, dtype="float32")
    for x, y in zip(with_gc.run([a, a]), no_gc.run([a, a])):
        np.testing.assert_array_equal(x, y)


def test_shape_error_names_op_line_and_shapes():
    ex = ReferenceExecutor(_func())
    with pytest.raises(ExecutionError) as info:
        ex.run([np.ones(3, dtype="float32"), np.ones(4, dtype="float32")])
    msg = str(info.value)
    assert "tensor.add" in msg and "model.py:7" in msg
    assert "(3,)" in msg and "(4,)" in msg
    assert info.value.shapes == [(3,), (4,)]


def test_hook_sees_every_op():
    ex = ReferenceExecutor(_func())
    seen = []
    ex.run([np.ones(2, dtype="float32")] * 2, hook=lambda op, t: seen.append(op.op_name))
    assert seen == ["tensor.exp", "tensor.add", "tensor.mul"]


def test_wrong_argument_count():
    with pytest.raises(TypeError, match="expected 2 arguments"):
        ReferenceExecutor(_func()).run([np.ones(2, dtype="float32")])
