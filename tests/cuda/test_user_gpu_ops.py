"""Users' GPU ops (PyCUDA kernels in `make_thunk`) on the GPU machine: the tutorial's programs
in examples/user_ops/ and the GPU blocks of docs/extending.md. Marked `cuda` (skipped here)."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(script: str) -> str:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "IRC_FLAGS": "device=cuda,force_device=True"}
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "user_ops" / script)], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout + r.stderr


def test_multiply_them_on_a_20x10_matrix():
    out = _run("multiply_them.py")
    assert out.count("[") >= 20  # the (20, 10) result printed


def test_pycuda_double_op_and_the_exercises():
    out = _run("pycuda_double_op.py")
    assert "[[2. 2. 2. 2. 2.]" in out
    assert re.search(r"two outputs from one kernel: \[[^\n]*PyCUDAAddSubOp\(", out)
    assert "all PyCUDA ops agree with numpy" in out


def test_gpu_eye_with_float16():
    out = _run("gpu_eye.py")
    assert "float16 [[0.0, 1.0, 0.0, 0.0]" in out
    assert "GpuEye agrees with numpy.eye" in out


def test_the_gpu_blocks_of_the_extending_page():
    text = (ROOT / "docs" / "extending.md").read_text()
    blocks = [m.group(1) for m in re.finditer(r"```python\n(.*?)```", text, re.S)
              if m.group(1).startswith("# needs a GPU")]
    assert blocks
    import irc
    with irc.config.change_flags(device="cuda"):
        namespace: dict = {"__name__": "__main__"}
        for code in blocks:
            exec(compile(code, str(ROOT / "docs" / "extending.md"), "exec"), namespace)


def test_a_failing_thunk_names_the_op():
    import numpy as np
    import irc
    import irc.tensor as T

    class Broken(irc.Op):
        __props__ = ()

        def make_node(self, x):
            return irc.Apply(self, [x], [x.type()])

        def make_thunk(self, node, storage_map, _, _2):
            def thunk():
                storage_map[node.outputs[0]][0] = np.zeros(3, "float32")  # a host array: refused
            return thunk

    x = T.fvector("x")
    with irc.config.change_flags(device="cuda"):
        f = irc.function([x], Broken()(x))
    with pytest.raises(ValueError, match=r"Broken's thunk .*output #0 is a ndarray, expected a device array"):
        f(np.ones(3, "float32"))
