"""The kernel a GPU plan copies its small host results with (`runtime/cuda/staging.py`): irc's
own word copy, its PTX assembled and its grid emulated for odd lengths."""
from __future__ import annotations

import numpy as np
import pytest

from irc.runtime.cuda.staging import ALIGN, aligned, copy_module
from irc.runtime.kernel_emulator import run_function

from gpu_helpers import check_ptx, needs_ptxas


@pytest.mark.parametrize("words", [1, 4, 7, 1000, 4099])
def test_copies_every_word(words):
    src = np.random.RandomState(words).randint(-2**31, 2**31 - 1, words).astype("int32")
    (dst,) = run_function(copy_module(), [src, np.zeros(words, "int32")])
    np.testing.assert_array_equal(dst, src)


def test_places_are_aligned():
    assert [aligned(n) for n in (1, 16, 17, 400)] == [16, 16, 32, 400] and ALIGN % 4 == 0


@needs_ptxas
def test_ptx_assembles():
    check_ptx(copy_module())
