"""Theano 1.0.5's own unit tests of its user API, run on irc (or on PyTensor, the reference).

    python3 tools/theano_api_tests.py [--backend irc|pytensor] [--python PATH] [--files a.py ...]
                                      [--time-limit S] [--cache DIR] [--report-only]

Downloads Theano's sdist once (pip download, into the cache dir — never into git), builds a
throw-away `theano` package in a run directory that maps Theano's module names onto the backend
(`tools/theano_api/facade.py`; Theano's own test helpers `theano.tests.unittest_tools` and
`theano.compat` are kept as Theano wrote them), copies Theano's test packages next to it and runs
pytest on each chosen file in a subprocess of its own. A test that crashes the interpreter is
counted as crashed and the file goes on without it; each test has a time limit (timed out =
failed). Then prints a table per file and the most common failure reasons, grouped by message.

Which tests count: those that touch only the user API, by the rule of `tools/theano_api/rule.py`
(the source text a test runs names no Theano internal: compiled-graph inspection, optimizer or
linker selection, C code, DebugMode, in-place ops, Op implementation, internal modules). The rule
reads only Theano's source, so it is the same for every backend; the tool prints how many tests
are in and out. The pass rate is passed / (in − skipped).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = ROOT / "tools" / "theano_api"
THEANO = "Theano-1.0.5"
DEFAULT_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "irc" / "theano-api"

USER_API_FILES = [
    "tensor/tests/test_basic.py", "tensor/tests/test_subtensor.py", "tensor/tests/test_elemwise.py",
    "tensor/tests/test_extra_ops.py", "tensor/tests/test_sharedvar.py",
    "tensor/tests/test_shared_randomstreams.py", "tensor/tests/test_var.py", "tensor/tests/test_sort.py",
    "tensor/nnet/tests/test_nnet.py", "tensor/nnet/tests/test_sigm.py",
    "scan_module/tests/test_scan.py", "tests/test_ifelse.py", "tests/test_gradient.py", "tests/test_rop.py",
    "compile/tests/test_function.py", "compile/tests/test_function_module.py", "compile/tests/test_shared.py",
    "compile/tests/test_pfunc.py", "compile/tests/test_builders.py", "sandbox/tests/test_rng_mrg.py",
]
OUTCOMES = ("passed", "failed", "error", "crashed", "skipped")
MAX_RESTARTS = 25


# ---------------------------------------------------------------------------- the run directory
def theano_sources(cache: Path) -> Path:
    """Theano's extracted sdist, downloaded on first use."""
    source = cache / THEANO
    if not (source / "theano").is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        archive = cache / f"{THEANO}.tar.gz"
        if not archive.exists():
            subprocess.run([sys.executable, "-m", "pip", "download", "Theano==1.0.5", "--no-deps",
                            "--no-binary", ":all:", "-d", str(cache)], check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(cache, filter="data")
    return source / "theano"


def test_dependencies(cache: Path) -> Path:
    """`parameterized` and `six`, which Theano's test helpers import, in a directory of their own."""
    deps = cache / "deps"
    if not (deps / "parameterized").is_dir() or not (deps / "six.py").exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target", str(deps),
                        "parameterized", "six"], check=True)
    return deps


def install_harness(run: Path) -> None:
    """The throw-away `theano` package and the harness's own modules, conftest and shims in `run`."""
    (run / "theano").mkdir(parents=True, exist_ok=True)
    shutil.copy(HARNESS / "facade.py", run / "theano" / "__init__.py")
    shutil.copy(HARNESS / "backends.py", run / "theano_api_backends.py")
    shutil.copy(HARNESS / "rule.py", run / "theano_api_rule.py")
    shutil.copy(HARNESS / "private_names.py", run / "theano_api_private_names.py")
    shutil.copy(HARNESS / "conftest_template.py", run / "conftest.py")
    shutil.copytree(HARNESS / "shims", run / "shims")


def build_run_dir(cache: Path, label: str, files: list[str]) -> Path:
    """The throw-away `theano` package, Theano's test packages, and the harness's conftest."""
    source = theano_sources(cache)
    run = cache / f"run-{label}"
    shutil.rmtree(run, ignore_errors=True)
    install_harness(run)
    shutil.copytree(test_dependencies(cache), run / "deps")
    shutil.copytree(source / "compat", run / "theano" / "compat")
    modules = sorted(".".join(("theano",) + p.relative_to(source).with_suffix("").parts).removesuffix(".__init__")
                     for p in source.rglob("*.py"))
    (run / "theano_api_modules.txt").write_text("\n".join(modules) + "\n")
    for sample in (source / "sandbox").glob("samples_*.txt"):   # test_rng_mrg's reference draws
        (run / "theano" / "sandbox").mkdir(exist_ok=True)
        shutil.copy(sample, run / "theano" / "sandbox" / sample.name)
    for test_dir in sorted({str(Path(f).parent) for f in files} | {"tests"}):
        shutil.copytree(source / test_dir, run / "theano" / test_dir,
                        ignore=shutil.ignore_patterns("*.pyc", "__pycache__"))
        for parent in Path(test_dir).parents:   # pytest names modules by __init__.py files
            init = run / "theano" / parent / "__init__.py"
            if parent != Path(".") and not init.exists():
                init.write_text("")
    (run / "pytest.ini").write_text("[pytest]\npython_files = test_*.py\npython_classes = Test* test*\n"
                                    "python_functions = test*\naddopts = -p no:cacheprovider\n")
    return run


# ---------------------------------------------------------------------------- running a file
def _read_events(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def run_file(run: Path, file: str, backend: str, python: str, time_limit: float, results: Path,
             irc_root: Path = ROOT) -> list[dict]:
    """Run one test file, restarting it after an interpreter crash without the tests already done."""
    events_path = results / (file.replace("/", "__") + ".jsonl")
    events_path.unlink(missing_ok=True)
    env = dict(os.environ, THEANO_API_BACKEND=backend, THEANO_API_RESULTS=str(events_path),
               THEANO_API_TIME_LIMIT=str(time_limit), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1",
               PYTHONPATH=os.pathsep.join([str(run), str(irc_root)] if backend == "irc" else [str(run)]))
    done: set[str] = set()
    for _ in range(MAX_RESTARTS):
        deselect = [arg for nodeid in sorted(done) for arg in ("--deselect", nodeid)]
        proc = subprocess.run([python, "-m", "pytest", "-q", f"theano/{file}", *deselect],
                              cwd=run, env=env, capture_output=True, text=True)
        events = _read_events(events_path)
        if events and events[-1]["event"] == "finish":
            break
        started = [e["nodeid"] for e in events if e["event"] == "start"]
        reported = {e["nodeid"] for e in events if e["event"] == "report"}
        crashed = [n for n in started if n not in reported]
        if not crashed:
            with events_path.open("a") as out:
                out.write(json.dumps({"event": "collect_error", "nodeid": file,
                                      "message": (proc.stdout + proc.stderr).strip()[-400:]}) + "\n")
            break
        with events_path.open("a") as out:
            for nodeid in crashed:
                out.write(json.dumps({"event": "report", "nodeid": nodeid, "when": "call",
                                      "outcome": "crashed",
                                      "message": f"interpreter crashed (exit status {proc.returncode})"}) + "\n")
        done |= reported | set(crashed)
    return _read_events(events_path)


# ---------------------------------------------------------------------------- the report
def summarize(events: list[dict]) -> tuple[dict, list[tuple[str, str]]]:
    """Counts per outcome for the tests that are in, and each failure's (nodeid, message)."""
    selection = {}
    for e in events:
        if e["event"] == "selection":
            selection[e["nodeid"]] = e["internal"]
    outcome: dict[str, tuple[str, str]] = {}
    for e in events:
        if e["event"] != "report":
            continue
        previous = outcome.get(e["nodeid"], ("passed", ""))
        if e["outcome"] == "passed" and e["when"] == "call" and previous[0] == "passed":
            outcome[e["nodeid"]] = ("passed", "")
        elif e["outcome"] == "skipped":
            outcome[e["nodeid"]] = ("skipped", e["message"])
        elif e["outcome"] == "crashed":
            outcome[e["nodeid"]] = ("crashed", e["message"])
        elif e["outcome"] == "failed":
            outcome[e["nodeid"]] = ("failed" if e["when"] == "call" else "error", e["message"])
    counts = collections.Counter(kind for kind in selection.values())
    row = {"in": sum(1 for k in selection.values() if k is None), "out": sum(counts[k] for k in counts if k),
           "out_by_kind": {k: v for k, v in counts.items() if k}}
    for name in OUTCOMES:
        row[name] = 0
    failures = []
    for nodeid, internal in selection.items():
        if internal is not None:
            continue
        kind, message = outcome.get(nodeid, ("error", "no result (collection or session error)"))
        row[kind] += 1
        if kind not in ("passed", "skipped"):
            failures.append((nodeid, message))
    collect_errors = [e for e in events if e["event"] == "collect_error"]
    row["collect_errors"] = [e["message"][-300:] for e in collect_errors]
    return row, failures


def _percent(row: dict) -> float:
    counted = row["in"] - row["skipped"]
    return 100.0 * row["passed"] / counted if counted else 0.0


def reason(message: str) -> str:
    """A failure's message with the parts that vary between tests (numbers, addresses) blurred."""
    first = (message or "").strip().splitlines()[0] if (message or "").strip() else "(no message)"
    first = re.sub(r"0x[0-9a-f]+", "0x…", first)
    first = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "N", first)
    return first[:150]


def print_report(backend: str, rows: dict[str, dict], failures: list[tuple[str, str]], top: int) -> None:
    print(f"\nTheano 1.0.5 user-API tests on {backend}")
    header = f"{'file':46} {'in':>5} {'out':>5} {'pass':>5} {'fail':>5} {'err':>5} {'crash':>5} {'skip':>5} {'%':>6}"
    print(header)
    print("-" * len(header))
    total = collections.Counter()
    for file, row in rows.items():
        print(f"{file:46} {row['in']:5} {row['out']:5} {row['passed']:5} {row['failed']:5} {row['error']:5} "
              f"{row['crashed']:5} {row['skipped']:5} {_percent(row):6.1f}")
        total.update({k: row[k] for k in ("in", "out", *OUTCOMES)})
    print("-" * len(header))
    print(f"{'total':46} {total['in']:5} {total['out']:5} {total['passed']:5} {total['failed']:5} "
          f"{total['error']:5} {total['crashed']:5} {total['skipped']:5} {_percent(total):6.1f}")
    out_kinds = collections.Counter()
    for row in rows.values():
        out_kinds.update(row["out_by_kind"])
    print("out, by the internal they name: " + ", ".join(f"{k} {v}" for k, v in out_kinds.most_common()))
    for file, row in rows.items():
        for message in row["collect_errors"]:
            print(f"collection error in {file}: {message}")
    groups = collections.Counter(reason(message) for _, message in failures)
    example = {}
    for nodeid, message in failures:
        example.setdefault(reason(message), nodeid)
    print(f"\ntop failure reasons ({len(failures)} tests):")
    for text, count in groups.most_common(top):
        print(f"{count:5}  {text}\n       e.g. {example[text]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=("irc", "pytensor"), default="irc")
    parser.add_argument("--python", default=None, help="the backend's interpreter "
                        "(default: this one for irc, /work/venv-pt/bin/python for pytensor)")
    parser.add_argument("--files", nargs="*", default=USER_API_FILES, help="paths under theano/")
    parser.add_argument("--time-limit", type=float, default=120.0, help="seconds per test")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--report-only", action="store_true", help="print the last run's results")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--irc-root", type=Path, default=ROOT, help="the tree whose irc runs (another "
                        "checkout, to measure a baseline)")
    parser.add_argument("--label", default=None, help="the results' name (default: the backend's)")
    args = parser.parse_args(argv)
    python = args.python or (sys.executable if args.backend == "irc" else "/work/venv-pt/bin/python")
    results = args.cache / "results" / (args.label or args.backend)
    results.mkdir(parents=True, exist_ok=True)
    if not args.report_only:
        run = build_run_dir(args.cache, args.label or args.backend, args.files)
    rows: dict[str, dict] = {}
    failures: list[tuple[str, str]] = []
    for file in args.files:
        started = time.time()
        if args.report_only:
            events = _read_events(results / (file.replace("/", "__") + ".jsonl"))
        else:
            events = run_file(run, file, args.backend, python, args.time_limit, results, args.irc_root)
        rows[file], file_failures = summarize(events)
        failures += file_failures
        if not args.report_only:
            print(f"{file}: {rows[file]['passed']}/{rows[file]['in']} in {time.time() - started:.0f} s",
                  file=sys.stderr, flush=True)
    print_report(args.label or args.backend, rows, failures, args.top)
    (results / "summary.json").write_text(json.dumps({"rows": rows, "failures": failures}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
