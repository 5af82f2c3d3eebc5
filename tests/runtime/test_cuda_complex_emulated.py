"""Complex tensors under device=cuda: no device kernel handles them, so the ops that read or
make them stay on the host (`insert-transfers`) and the function runs there with the usual
warning; results as on the cpu, nothing crashes — also with float work that runs on the device
in the same function and a complex shared variable."""
from __future__ import annotations

import warnings

import numpy as np

import irc
import irc.tensor as T
from irc.dialects.builtin import TensorType
from irc.ir.core import Block, create_op
from irc.ir.types import c64, f32
from irc.passes.insert_transfers import HOST, placement_rule
from test_cuda_path_emulated import cuda_emulated  # noqa: F401  (the fixture)


def test_complex_ops_stay_on_the_host(cuda_emulated):
    x, y = T.fvectors("x", "y")
    s = irc.shared(np.array([1 + 2j, 3 - 1j, 0.5j], "complex64"), name="s")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = irc.function([x, y], [T.exp(x) * y, abs(T.complex(x, y) * s), (s * x).real], updates=[(s, s * 2)])
    a, b = np.float32([0.5, -1, 2]), np.float32([1, 2, -3])
    s0 = s.get_value()
    out = f(a, b)
    np.testing.assert_allclose(out[0], np.exp(a) * b, rtol=1e-6)
    np.testing.assert_allclose(out[1], np.abs((a + 1j * b) * s0), rtol=1e-6)
    np.testing.assert_allclose(out[2], (s0 * a).real, rtol=1e-6)
    np.testing.assert_array_equal(s.get_value(), s0 * 2)
    assert s.get_value().dtype == np.complex64
    assert any("runs on the cpu: no GPU kernel yet for tensor.fused (complex values)" in str(w.message)
               for w in caught), \
        [str(w.message) for w in caught]


def test_the_placement_table_keeps_complex_on_the_host():
    block = Block([TensorType((None,), c64), TensorType((None,), f32)])
    mul = create_op("tensor.mul", [block.args[0], block.args[0]], [TensorType((None,), c64)])
    absolute = create_op("tensor.abs", [block.args[0]], [TensorType((None,), f32)])
    assert placement_rule(mul) == HOST and placement_rule(absolute) == HOST
