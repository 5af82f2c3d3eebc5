"""`irc.function` on the cpu runs native code: one foreign call, strided inputs without copies,
fresh outputs, updates swapped in without copies, shape errors naming the user's line, a loud
fallback for ops without a lowering, and the loop/llvm/asm stages."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import irc
import irc.tensor as T
from irc.runtime.errors import ExecutionError


def _spy(f):
    """Record the arrays each native call receives and returns."""
    seen = []
    inner = f.executor.call

    def call(*args):
        outs = inner(*args)
        seen.append((args, outs))
        return outs

    f.executor.call = call
    return seen


def test_runs_native_code():
    x = T.fvector("x")
    f = irc.function([x], T.exp(x) * 2)
    assert type(f.executor).__name__ == "NativeExecutor" and f.maker.native is not None
    a = np.linspace(-3, 3, 101).astype("float32")
    np.testing.assert_allclose(f(a), np.exp(a) * 2, rtol=1e-6)


def test_strided_input_is_not_copied():
    x = T.fmatrix("x")
    f = irc.function([x], x + 1)
    seen = _spy(f)
    big = np.arange(60, dtype="float32").reshape(6, 10)
    view = big[::2, 1::3]
    np.testing.assert_array_equal(f(view), view + 1)
    assert seen[0][0][0] is view


def test_outputs_are_fresh_each_call():
    x = T.fvector("x")
    f = irc.function([x], [x * 2, x * 2])
    a = np.ones(4, "float32")
    r1, r2 = f(a)
    s1, _ = f(a)
    assert r1 is not r2 and r1 is not s1 and not np.shares_memory(r1, s1)
    r1[:] = 7
    np.testing.assert_array_equal(s1, a * 2)


def test_borrowed_output():
    x = T.fvector("x")
    f = irc.function([x], irc.Out(x * 3, borrow=True))
    np.testing.assert_array_equal(f(np.ones(3, "float32")), [3, 3, 3])


def test_updates_after_outputs_and_swapped_without_copy():
    w = irc.shared(np.ones(5, "float32"), name="w")
    x = T.fvector("x")
    f = irc.function([x], [w * 1, x + w], updates=[(w, w + x)])
    seen = _spy(f)
    old, total = f(np.full(5, 2, "float32"))
    np.testing.assert_array_equal(old, np.ones(5))
    np.testing.assert_array_equal(total, np.full(5, 3))
    np.testing.assert_array_equal(w.get_value(), np.full(5, 3))
    new_w = seen[0][1][-1]
    assert w.get_value(borrow=True) is new_w  # the native result became the shared value


def test_shape_error_names_op_line_and_sizes():
    x, y = T.fvector("x"), T.fvector("y")
    z = x * y  # MARK-MUL
    f = irc.function([x, y], z)
    with pytest.raises(ExecutionError) as info:
        f(np.ones(3, "float32"), np.ones(4, "float32"))
    msg = str(info.value)
    assert "tensor.mul" in msg and "MARK-MUL" in msg and "test_native_function.py" in msg
    assert "3" in msg and "4" in msg


def test_input_errors_are_unchanged():
    x = T.fmatrix("x")
    f = irc.function([x], x + 1)
    with pytest.raises(TypeError, match="'x'.*dimensions"):
        f(np.ones(3, "float32"))
    with pytest.raises(TypeError, match="missing required input 'x'"):
        f()


def test_fallback_warns_naming_op_and_line(monkeypatch):
    from irc.conversion.tensor_to_loop import context
    from irc.runtime import native_executor
    monkeypatch.delitem(context.LOWERINGS, "tensor.tanh")
    monkeypatch.setattr(native_executor, "_warned", set())
    x = T.fvector("x")
    with pytest.warns(RuntimeWarning) as record:
        f = irc.function([x], T.tanh(x))  # MARK-TANH
    msg = str(record[0].message)
    assert "tensor.tanh" in msg and "test_native_function.py" in msg and "reference" in msg
    assert f.maker.native is None
    a = np.linspace(-1, 1, 5).astype("float32")
    np.testing.assert_allclose(f(a), np.tanh(a), rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        irc.function([x], T.tanh(x))  # the same op warns once


def test_debugmode_checks_native_against_reference():
    x = T.fvector("x")
    f = irc.function([x], T.log(1 + T.exp(x)), mode="DebugMode")
    assert f.maker.native is not None
    a = np.linspace(-20, 20, 64).astype("float32")
    np.testing.assert_allclose(f(a), np.logaddexp(0, a), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("stage, needle", [("loop", "loop.parallel"), ("llvm", "define"),
                                           ("asm", ".globl")])
def test_ir_stages(stage, needle):
    x = T.fvector("x")
    f = irc.function([x], T.exp(x))
    assert needle in f.ir(stage)


def test_debugmode_flags_a_wrong_native_result():
    from irc.runtime.errors import OutputMismatchError
    x = T.fvector("x")
    f = irc.function([x], x * 2, mode="DebugMode")
    native = f.executor.checked
    inner = native.call
    native.call = lambda *a: [r + 1 for r in inner(*a)]
    with pytest.raises(OutputMismatchError, match="output #0"):
        f(np.ones(3, "float32"))
