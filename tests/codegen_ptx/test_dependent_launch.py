"""Programmatic dependent launch (`codegen_ptx/dependent_launch.py`): on sm_90 every kernel
entry, and nothing else, begins with `launch_dependents` and `wait` before its first
instruction; sm_80 PTX has neither; both assemble. The launch structures match the sizes of
CUDA's `CUlaunchAttribute` and `CUlaunchConfig`."""
from __future__ import annotations

import ctypes
import re

import pytest

from irc.codegen_ptx import dependent_launch
from irc.codegen_ptx.convert_to_nvvm import convert_to_nvvm
from irc.codegen_ptx.target import emit_ptx
from irc.runtime.cuda.launch import LaunchAttribute, LaunchConfig

from gpu_helpers import ARCHS, assemble, gpu_module, needs_ptxas

# a row reduction (shared memory, shuffles) and an elementwise erfinv (an outlined `.func`)
TEXT = """
func.func @f(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x?xf32>) {
  %r = tensor.reduce %x {kind = "max", axes = array<i64: 1>} : (tensor<?x?xf32>) -> tensor<?xf32>
  %e = "tensor.erfinv"(%x) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  func.return %r, %e : tensor<?xf32>, tensor<?x?xf32>
}"""


@pytest.fixture(scope="module")
def ptx() -> dict[str, str]:
    nvvm = convert_to_nvvm(gpu_module(TEXT))
    return {arch: emit_ptx(nvvm, arch) for arch in ARCHS}


def bodies(ptx: str, kind: str) -> list[list[str]]:
    """The instruction lines of every `.entry` or `.func` body, in order."""
    out, body, depth, header = [], None, 0, False
    for line in ptx.splitlines():
        s = line.strip()
        if body is None and re.match(rf"(\.visible |\.internal |\.weak )?{re.escape(kind)} ", s):
            header = True
        if header and s.endswith(";"):  # a prototype, no body
            header = False
        if header and s == "{":  # the body starts after the parameter list
            body, depth, header = [], 0, False
        if body is None:
            continue
        depth += s.count("{") - s.count("}")
        if s not in ("{", "}", "") and not s.startswith((".", "//")):
            body.append(s)
        if depth == 0 and s == "}":
            out.append(body)
            body = None
    return out


def test_every_entry_waits_first_on_sm90(ptx):
    entries = bodies(ptx["sm_90"], ".entry")
    assert len(entries) >= 2
    for body in entries:
        assert body[:2] == ["griddepcontrol.launch_dependents;", "griddepcontrol.wait;"], body[:4]
        assert sum(i.startswith("griddepcontrol") for i in body) == 2
    funcs = bodies(ptx["sm_90"], ".func")
    assert funcs and not any(i.startswith("griddepcontrol") for body in funcs for i in body)
    assert dependent_launch.has_wait(ptx["sm_90"])


def test_sm80_has_no_dependent_launch(ptx):
    assert not dependent_launch.has_wait(ptx["sm_80"]) and "griddepcontrol" not in ptx["sm_80"]
    assert [dependent_launch.supports(a) for a in ("sm_80", "sm_86", "sm_90", "sm_90a", "sm_100")] == \
        [False, False, True, True, True]


@needs_ptxas
@pytest.mark.parametrize("arch", ARCHS)
def test_ptx_assembles(ptx, arch):
    assemble(ptx[arch], arch)


def test_launch_structures_have_cudas_layout():
    assert ctypes.sizeof(LaunchAttribute) == 72  # id, padding to 8, a 64-byte value union
    assert ctypes.sizeof(LaunchConfig) == 56
    assert LaunchConfig.stream.offset == 32 and LaunchConfig.attrs.offset == 40 and LaunchConfig.n_attrs.offset == 48
