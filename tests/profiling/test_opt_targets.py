"""irc-opt: -t llvm / -t asm from tensor-level input, --emit-stage=loop, --view-graph."""
import shutil

import pytest

from irc.cli.opt import main as irc_opt

TENSOR = """
func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = tensor.exp %x : tensor<?xf32>
  func.return %r : tensor<?xf32>
}
"""


@pytest.fixture
def src(tmp_path):
    p = tmp_path / "in.mlir"
    p.write_text(TENSOR)
    return str(p)


def _run(args, capsys):
    capsys.readouterr()
    rc = irc_opt(args)
    out = capsys.readouterr()
    assert rc == 0, out.err
    return out


def test_llvm_target_lowers_tensor_input(src, capsys):
    out = _run([src, "-t", "llvm"], capsys).out
    assert 'define' in out and "@\"irc.f\"" in out or "@irc.f" in out


def test_asm_target(src, capsys):
    out = _run([src, "-t", "asm"], capsys).out
    assert "irc.f" in out and (".text" in out or ".section" in out)


def test_emit_stage_loop_stops_early(src, capsys):
    out = _run([src, "-p", "canonicalize", "-t", "llvm", "--emit-stage=loop"], capsys).out
    assert "loop.parallel" in out and "define" not in out


def test_targets_are_an_open_registry(src, capsys, monkeypatch):
    from irc.runtime.targets import TARGETS, stages
    from irc.runtime.targets.base import Stage
    monkeypatch.setitem(TARGETS["cpu"].stages, "count-ops",
                        Stage("count-ops", "test target", lambda m: f"{sum(1 for _ in m.walk())}\n"))
    assert _run([src, "-t", "count-ops"], capsys).out.strip().isdigit()
    assert {"mlir", "llvm", "asm", "ptx"} <= set(stages())


def test_view_graph_dot_on_stderr(src, capsys):
    err = _run([src, "--view-graph"], capsys).err
    assert err.startswith('digraph "f"')


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's `dot` is not installed")
def test_view_graph_png(src, tmp_path, capsys):
    out = tmp_path / "g.png"
    _run([src, f"--view-graph={out}"], capsys)
    assert out.read_bytes()[:4] == b"\x89PNG"
