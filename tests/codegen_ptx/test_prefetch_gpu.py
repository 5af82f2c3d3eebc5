"""`loop.prefetch` inside a kernel: the NVPTX target drops the hint (the PTX still assembles)
and the kernel emulator runs the kernel around it."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from irc.ir.parser import parse_module
from irc.ir.pass_manager import PassManager
from irc.runtime.kernel_emulator import run_function

from gpu_helpers import check_ptx, needs_ptxas

# the same nest as the FileCheck test beside the other GPU .mlir files
SOURCE = Path(__file__).parents[1] / "gpu" / "prefetch-dropped.mlir"


def kernel_module():
    module = parse_module(SOURCE.read_text(), str(SOURCE))
    PassManager.parse("outline-kernels").run(module)
    return module


def test_emulator_runs_a_kernel_with_a_prefetch():
    x = np.linspace(-3, 3, 37, dtype=np.float32)
    got, = run_function(kernel_module(), [x])
    np.testing.assert_array_equal(got, x)


@needs_ptxas
def test_ptx_of_a_kernel_with_a_prefetch_assembles():
    ptx = check_ptx(kernel_module())
    assert all("prefetch" not in text for text in ptx.values())
