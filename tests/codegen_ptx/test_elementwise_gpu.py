"""Every elementwise op of the table on every dtype, as GPU kernels: the PTX assembles
(ptxas, sm_80 and sm_90) and the kernels, run by the emulator through the kernel ABI, match
numpy. Tolerances (the emulator computes with the table's numpy references, so they cover
only float reassociation-free differences): exact for integers and bools; float16 rtol 1e-3,
float32 rtol 1e-6, float64 rtol 1e-12."""
from __future__ import annotations

import numpy as np
import pytest

from irc.dialects.elementwise import TABLE_ROWS
from irc.runtime.kernel_emulator import run_function

from gpu_helpers import check_ptx, gpu_module, needs_ptxas

DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "i1": np.bool_}
RTOL = {"f16": 1e-3, "f32": 1e-6, "f64": 1e-12}


def kind(t: str) -> str:
    return "b" if t == "i1" else t[0]


def cases(t: str):
    return [r for r in TABLE_ROWS if kind(t) in r.kinds and r.result != "complex"]  # (complex: host only)


def function(row, t: str) -> str:
    arg_types = ["i1" if (row.name == "select" and i == 0) else t for i in range(row.arity)]
    res = "i1" if row.is_comparison else t
    params = ", ".join(f"%a{i}: tensor<?x?x{a}>" for i, a in enumerate(arg_types))
    operands = ", ".join(f"%a{i}" for i in range(row.arity))
    types = ", ".join(f"tensor<?x?x{a}>" for a in arg_types)
    return (f"func.func @{row.name}_{t}({params}) -> tensor<?x?x{res}> {{\n"
            f"  %r = \"tensor.{row.name}\"({operands}) : ({types}) -> tensor<?x?x{res}>\n"
            f"  func.return %r : tensor<?x?x{res}>\n}}\n")


_MODULES: dict[str, object] = {}


def module_for(t: str):
    if t not in _MODULES:
        _MODULES[t] = gpu_module("".join(function(r, t) for r in cases(t)))
    return _MODULES[t]


def inputs(row, t: str, shape=(5, 37), seed=0):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(row.arity):
        if t == "i1" or (row.name == "select" and i == 0):
            out.append(rng.random(shape) < 0.5)
        elif t[0] == "f":
            out.append(rng.uniform(0.1, 3.0, shape).astype(DTYPES[t]) * np.where(rng.random(shape) < 0.2, -1, 1).astype(DTYPES[t]))
        else:
            out.append(rng.integers(1, 9, shape).astype(DTYPES[t]))
    return out


@needs_ptxas
@pytest.mark.parametrize("t", list(DTYPES))
def test_ptx_of_every_op_assembles(t):
    ptx = check_ptx(module_for(t))
    assert ptx["sm_90"].count(".entry") == len(cases(t))


@pytest.mark.parametrize("t", list(DTYPES))
def test_every_op_matches_numpy_in_emulator(t):
    m = module_for(t)
    for row in cases(t):
        xs = inputs(row, t)
        got, = run_function(m, xs, func=f"{row.name}_{t}")
        with np.errstate(all="ignore"):
            ref = np.asarray(row.reference(*xs))
        if row.is_comparison:
            ref = ref.astype(bool)
        else:
            ref = ref.astype(DTYPES[t])
        assert got.shape == ref.shape and got.dtype == ref.dtype, (row.name, got.dtype, ref.dtype)
        if t in RTOL:
            np.testing.assert_allclose(got, ref, rtol=RTOL[t], atol=0, equal_nan=True, err_msg=row.name)
        else:
            np.testing.assert_array_equal(got, ref, err_msg=row.name)
