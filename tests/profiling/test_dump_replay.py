"""IR dumps: one file per pass down to LLVM IR; each .mlir file replays into the next."""
import os
import shlex


import irc
from irc.cli.opt import main as irc_opt
from irc.runtime.ir_dump import REPLAY, strip_comments

# Every pass must depend on its input text alone: this test replays each dumped stage.


def _replay(folder: str, path: str, capsys) -> str:
    cmd = shlex.split(open(path, encoding="utf-8").readline()[len(REPLAY):])
    assert cmd[0] == "irc-opt"
    capsys.readouterr()
    rc = irc_opt([os.path.join(folder, cmd[1])] + cmd[2:])
    out = capsys.readouterr().out
    assert rc == 0
    return out


def test_config_dump_ir_writes_every_stage_and_replays(logreg, tmp_path, capsys):
    build, _ = logreg
    with irc.config.change_flags(dump_ir=str(tmp_path)):
        build(name="dumped")
    (folder,) = [p for p in tmp_path.iterdir() if p.name.endswith("_dumped")]
    names = sorted(os.listdir(folder))
    assert names[0] == "000_input.mlir"
    assert any(n.endswith("_lower-to-loops.mlir") for n in names)
    assert names[-2].endswith("_llvm-raw.ll") and names[-1].endswith("_llvm.ll")
    mlir = [os.path.join(folder, n) for n in names if n.endswith(".mlir")]
    for i, (path, nxt) in enumerate(zip(mlir, mlir[1:])):
        first, header = open(path).read().splitlines()[:2]
        assert first.startswith(REPLAY + f"irc-opt {os.path.basename(path)} -p ")
        assert header.startswith("// -----// IR Dump")
        pass_name = shlex.split(first[len(REPLAY):])[3]
        assert _replay(str(folder), path, capsys) == strip_comments(open(nxt).read()), (pass_name, path, nxt)
    raw = os.path.join(folder, names[-2])
    assert _replay(str(folder), mlir[-1], capsys) == "".join(open(raw).readlines()[1:])
    assert open(raw).readline() == f"; replay: irc-opt {os.path.basename(mlir[-1])} -t llvm-raw\n"
    assert "define" in open(os.path.join(folder, names[-1])).read()


def test_f_dump_ir_and_f_ir_stages(logreg, tmp_path):
    build, _ = logreg
    f = build()
    paths = f.dump_ir(str(tmp_path))
    assert [os.path.basename(p) for p in paths][0] == "000_input.mlir"
    assert "tensor.fused_matvec" in f.ir("optimized") and "tensor." in f.ir("tensor")
    assert "loop.parallel" in f.ir("loop")
    assert "define" in f.ir("llvm")
    assert f.ir("asm").strip()
    assert f.ir("canonicalize")
