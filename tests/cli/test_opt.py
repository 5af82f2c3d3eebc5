"""irc-opt and the pass manager: what FileCheck tests cannot say nicely — reproducer round
trips, tree-dir files that parse back, report layouts, exit codes, no tracebacks, start-up time."""
from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from irc.cli.opt import main
from irc.ir.diagnostics import PassError

ROOT = Path(__file__).resolve().parents[2]

# A function with dead pure ops, so `test-erase-unused` visibly changes the IR.
DEAD = """\
func.func @f(%a: f32) -> f32 {
  %c = scalar.constant {value = 1.0 : f32} : f32
  %d = scalar.add %a, %c : f32
  func.return %a : f32
}
"""
# Only builtin and func.
PLAIN = """\
func.func @id(%a: f32) -> f32 {
  func.return %a : f32
}
"""


def opt(*args: str, stdin: str = "") -> tuple[int, str, str]:
    """Run irc-opt in this process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = main(list(args))
            except SystemExit as e:
                status = int(e.code or 0)
    finally:
        sys.stdin = saved
    return status, out.getvalue(), err.getvalue()


def opt_process(*args: str, stdin: str = "", env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    full_env.pop("IRC_TRACEBACK", None) if env is None or "IRC_TRACEBACK" not in env else None
    return subprocess.run([sys.executable, "-m", "irc.cli.opt", *args], input=stdin, capture_output=True,
                          text=True, env=full_env, cwd=ROOT, timeout=120)


def parse(text: str):
    from irc.ir.parser import parse_module
    return parse_module(text, "<test>")


# ---------------------------------------------------------------------------- start-up
def test_help_is_fast():
    """Measured and printed (run with -s to see it), not asserted: machines differ."""
    opt_process("--help")  # warm the bytecode cache
    best = min(_timed(lambda: opt_process("--help")) for _ in range(3))
    print(f"\nirc-opt --help: {best * 1000:.0f} ms")
    proc = opt_process("--help")
    assert proc.returncode == 0 and "--pass-pipeline" in proc.stdout


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def test_help_imports_nothing_heavy():
    code = ("import contextlib, io, sys\nfrom irc.cli.opt import main\n"
            "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
            "    main(['--help'])\n"
            "heavy = [m for m in ('numpy', 'llvmlite', 'networkx', 'irc.ir.core') if m in sys.modules]\n"
            "print(heavy)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout.strip() == "[]", proc.stdout + proc.stderr


# ---------------------------------------------------------------------------- pipelines
def test_pipeline_string_round_trips():
    from irc.ir.pass_manager import PassManager
    pm = PassManager.parse("test-erase-unused, test-options{count=3 ratio=0.25,flag label='a b'}")
    text = pm.pipeline_string()
    assert text == ('builtin.module(test-erase-unused,'
                    'test-options{count=3 ratio=0.25 flag=true label="a b"})')
    assert PassManager.parse(text).pipeline_string() == text
    assert PassManager.parse("builtin.module()").passes == []
    assert PassManager.parse("").passes == []


@pytest.mark.parametrize("pipeline, col, message", [
    ("test-erase-unsed", 1, "unknown pass 'test-erase-unsed' (did you mean 'test-erase-unused'?)"),
    ("test-fail,test-optons", 11, "unknown pass 'test-optons' (did you mean 'test-options'?)"),
    ("test-options{cont=3}", 14, "unknown option 'cont' for pass 'test-options' (did you mean 'count'?) "
                                 "(valid options: count, ratio, flag, label)"),
    ("test-options{count=three}", 20, "invalid value 'three' for option 'count' of pass 'test-options': "
                                      "expected an integer"),
    ("test-options{flag=maybe}", 19, "expected true or false"),
    ("test-options{ratio=x}", 20, "expected a number"),
    ("builtin.module(test-fail", 25, "expected ')'"),
    ("func.func(test-fail)", 1, "nested pipelines on 'func.func' are not supported"),
])
def test_pipeline_errors_point_at_the_column(pipeline, col, message):
    from irc.ir.pass_manager import PassManager
    with pytest.raises(PassError) as info:
        PassManager.parse(pipeline)
    text = str(info.value)
    assert text.startswith(f"<pipeline>:1:{col}: error: ")
    assert message in text
    lines = text.splitlines()
    assert lines[1] == pipeline and lines[2] == " " * (col - 1) + "^"


def test_exclude_tags():
    from irc.ir.pass_manager import PassManager
    pm = PassManager.parse("test-erase-unused,test-options", exclude_tags=("testing",))
    assert pm.passes == []


def test_unknown_pass_on_the_command_line():
    status, out, err = opt("-", "-p", "test-erase-unsed", stdin=PLAIN)
    assert status == 1 and out == ""
    assert err.startswith("<pipeline>:1:1: error: unknown pass 'test-erase-unsed' "
                          "(did you mean 'test-erase-unused'?)\ntest-erase-unsed\n^")


def test_unknown_pass_in_print_flag():
    status, _, err = opt("-", "--print-ir-after=test-fial", stdin=PLAIN)
    assert status == 1 and "unknown pass 'test-fial' (did you mean 'test-fail'?)" in err


# ---------------------------------------------------------------------------- output
def test_round_trip_without_passes():
    status, out, err = opt("-", stdin=PLAIN)
    assert status == 0, err
    again = opt("-", stdin=out)[1]
    assert again == out


def test_output_file(tmp_path):
    dest = tmp_path / "out.mlir"
    status, out, _ = opt("-", "-o", str(dest), stdin=PLAIN)
    assert status == 0 and out == ""
    assert "func.func @id" in dest.read_text()


def test_targets_registry_is_open(monkeypatch):
    from irc.runtime.targets import TARGETS
    from irc.runtime.targets.base import Stage
    monkeypatch.setitem(TARGETS["cpu"].stages, "test-count",
                        Stage("test-count", "count ops", lambda module: f"{sum(1 for _ in module.walk())} ops\n"))
    status, out, _ = opt("-", "-t", "test-count", stdin=PLAIN)
    assert status == 0 and out == "3 ops\n"
    assert "test-count" in opt("--list-targets")[1]
    status, _, err = opt("-", "-t", "mlr", stdin=PLAIN)
    assert status == 1 and "unknown target 'mlr' (did you mean 'mlir'?)" in err


def test_list_passes():
    status, out, _ = opt("--list-passes")
    assert status == 0
    assert re.search(r"^  test-erase-unused +Erase pure ops", out, re.M)
    assert "count=<int> (default: 1)" in out


# ---------------------------------------------------------------------------- dumps
def test_after_all_headers_and_failed_header():
    status, out, err = opt("-", "-p", "test-erase-unused,test-fail", "--print-ir-after-all", stdin=DEAD)
    assert status == 1 and out == ""
    headers = [line for line in err.splitlines() if line.startswith("// -----//")]
    assert headers == ["// -----// IR Dump After TestEraseUnused (test-erase-unused) //----- //",
                       "// -----// IR Dump After TestFail (test-fail) Failed //----- //"]
    assert "test-fail: failing as requested" in err


def test_after_change_skips_passes_that_change_nothing():
    status, _, err = opt("-", "-p", "test-options,test-erase-unused,test-options", "--print-ir-after-change",
                         stdin=DEAD)
    assert status == 0
    assert err.count("// -----// IR Dump After") == 1 and "TestEraseUnused" in err


def test_diff_shows_removed_lines():
    status, _, err = opt("-", "-p", "test-erase-unused", "--print-ir-diff", stdin=DEAD)
    assert status == 0
    assert "// -----// IR Diff After TestEraseUnused (test-erase-unused) //----- //" in err
    assert re.search(r"^-.*scalar\.add", err, re.M) and re.search(r"^-.*scalar\.constant", err, re.M)


def test_tree_dir_files_parse_back(tmp_path):
    folder = tmp_path / "tree"
    status, out, _ = opt("-", "-p", "test-erase-unused,test-options", "--print-ir-tree-dir", str(folder),
                         stdin=DEAD)
    assert status == 0
    names = sorted(os.listdir(folder))
    assert names == ["000_input.mlir", "001_test-erase-unused.mlir", "002_test-options.mlir"]
    texts = [(folder / n).read_text() for n in names]
    assert "scalar.add" in texts[0] and "scalar.add" not in texts[1]
    for text in texts:
        parse(text)
    assert texts[2] == out


def test_python_api_instrumentation():
    from irc.ir.instrumentation import IRPrinter
    from irc.ir.pass_manager import PassManager
    stream = io.StringIO()
    module = parse(DEAD)
    PassManager.parse("test-erase-unused", [IRPrinter(stream, before=["test-erase-unused"])]).run(module)
    assert stream.getvalue().startswith(
        "// -----// IR Dump Before TestEraseUnused (test-erase-unused) //----- //\n")
    assert "scalar.add" not in str(module)


# ---------------------------------------------------------------------------- reports
def test_timing_layout():
    status, _, err = opt("-", "-p", "test-erase-unused,test-options", "--mlir-timing", stdin=DEAD)
    assert status == 0
    lines = err.splitlines()
    rule = "===" + "-" * 73 + "==="
    assert lines[0] == rule and lines[2] == rule
    assert lines[1] == " " * 25 + "... Execution time report ..."
    assert re.fullmatch(r"  Total Execution Time: \d+\.\d{4} seconds", lines[3])
    assert lines[5] == "  ----Wall Time----  ----Name----"
    names = [re.fullmatch(r"  +\d+\.\d{4} \( *\d+\.\d%\)  (.*)", ln).group(1) for ln in lines[6:]]
    assert names == ["Parser", "TestEraseUnused", "TestOptions", "Output", "Total"]


def test_statistics_layout():
    status, _, err = opt("-", "-p", "test-erase-unused,test-options{count=2}", "--pass-statistics",
                         stdin=DEAD)
    assert status == 0
    assert err.splitlines() == [
        "===" + "-" * 73 + "===",
        " " * 25 + "... Pass statistics report ...",
        "===" + "-" * 73 + "===",
        "'test-erase-unused'",
        "  (S) 2 erased - Number of unused pure ops erased",
        "'test-options'",
        "  (S) 6 ops - Number of ops seen",
    ]


# ---------------------------------------------------------------------------- failures
def test_reproducer_round_trip(tmp_path):
    repro = tmp_path / "repro.mlir"
    status, _, err = opt("-", "-p", "test-erase-unused,test-fail{message=boom}", "--crash-reproducer",
                         str(repro), stdin=DEAD)
    assert status == 1 and "boom" in err and str(repro) in err
    text = repro.read_text()
    assert text.splitlines()[0] == "// irc-reproducer: -p 'builtin.module(test-fail{message=boom})'"
    assert "scalar.add" not in text  # the IR before the failing pass, after test-erase-unused
    status, out, err2 = opt(str(repro), "--run-reproducer")
    assert status == 1 and out == ""
    assert "error: boom" in err2
    status, out, _ = opt(str(repro), "--run-reproducer", "-p", "test-options")  # the user's flags win
    assert status == 0 and "func.func @f" in out


def test_reproducer_of_broken_ir_and_of_a_crash(tmp_path):
    repro = tmp_path / "repro.mlir"
    status, _, err = opt("-", "-p", "test-options,test-break-ir", "--mlir-pass-pipeline-crash-reproducer",
                         str(repro), stdin=PLAIN)
    assert status == 1
    assert "IR failed to verify after pass 'test-break-ir' (TestBreakIR)" in err
    assert opt(str(repro), "--run-reproducer")[0] == 1
    assert opt(str(repro), "--run-reproducer", "--no-verify-each")[0] == 0
    status, _, err = opt("-", "-p", "test-crash", "--crash-reproducer", str(repro), stdin=PLAIN)
    assert status == 2 and "internal error" in err
    assert repro.read_text().startswith("// irc-reproducer: -p 'builtin.module(test-crash)'\n")


def test_not_a_reproducer(tmp_path):
    path = tmp_path / "x.mlir"
    path.write_text(PLAIN)
    status, _, err = opt(str(path), "--run-reproducer")
    assert status == 1 and "is not a reproducer" in err


def test_split_input_file_keeps_going_after_an_error():
    text = PLAIN + "// -----\nfunc.func @bad( {\n// -----\n" + PLAIN.replace("@id", "@id2")
    status, out, err = opt("-", "--split-input-file", stdin=text)
    assert status == 1
    assert "@id" in out and "@id2" in out and out.count("// -----") == 1
    assert re.search(r"^<stdin>:5:\d+: error: ", err, re.M), err


@pytest.mark.parametrize("args, stdin, status, message", [
    (["/nonexistent/x.mlir"], "", 1, "could not open input file '/nonexistent/x.mlir'"),
    (["-"], "func.func @f( {\n", 1, "<stdin>:1:"),
    (["-"], '"nodialect.op"() : () -> ()\n', 1, "<stdin>:1:"),
    (["-", "-p", "test-fail"], PLAIN, 1, "<stdin>:1:1: error: test-fail: failing as requested"),
    (["-", "-p", "test-break-ir"], PLAIN, 1, "IR failed to verify after pass 'test-break-ir'"),
    (["-", "-p", "test-crash"], PLAIN, 2, "internal error: RuntimeError: test-crash"),
    (["-", "--no-such-flag"], PLAIN, 1, "unrecognized arguments"),
    (["-", "--verify-each=perhaps"], PLAIN, 1, "expected true or false"),
    (["-", "-p", "test-break-ir", "--verify-each=false"], PLAIN, 0, ""),
])
def test_exit_codes_and_no_traceback(args, stdin, status, message):
    proc = opt_process(*args, stdin=stdin)
    assert proc.returncode == status, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    if status == 2:
        assert "IRC_TRACEBACK=1" in proc.stderr


def test_traceback_on_request():
    proc = opt_process("-", "-p", "test-crash", stdin=PLAIN, env={"IRC_TRACEBACK": "1"})
    assert proc.returncode != 0 and "Traceback" in proc.stderr


def test_unregistered_ops_are_accepted_on_request():
    text = '"nodialect.op"() : () -> ()\n'
    status, out, err = opt("-", "--allow-unregistered-dialect", "-p", "test-options", stdin=text)
    assert status == 0, err
    assert "nodialect.op" in out


# ---------------------------------------------------------------------------- the README's command
def test_hello_example_runs_the_readme_command():
    """`irc-opt examples/hello.mlir -p canonicalize --print-ir-after-all` (README's main job)."""
    from irc.ir.pass_manager import lookup_pass
    hello = str(ROOT / "examples" / "hello.mlir")
    status, out, err = opt(hello)
    assert status == 0, err
    if lookup_pass("canonicalize") is None:
        pytest.skip("the canonicalize pass is not registered yet")
    status, out, err = opt(hello, "-p", "canonicalize", "--print-ir-after-all")
    assert status == 0, err
    assert "// -----// IR Dump After " in err and "(canonicalize) //----- //" in err
    assert "func.func @predict" in out
