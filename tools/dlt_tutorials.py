"""Runs the Deep Learning Tutorials' own programs (lisa-lab/DeepLearningTutorials, code/) on irc
and on PyTensor, as a new user would: only `theano` redirected, and prints a table of what ran.

    python3 tools/dlt_tutorials.py CODE_DIR [--programs mlp,dA,...] [--backends irc,pytensor]
        [--pytensor-python /work/venv-pt/bin/python] [--timeout 600] [--rows 6000,1000,1000]

CODE_DIR is a folder where the user put the tutorials' files (logistic_sgd.py, mlp.py, utils.py,
...); nothing of it is in this repository, and nothing in it is changed: each run works in a
copy. The throw-away shim (tools/dlt_shim/) holds a `theano` package that aliases every
`theano.x` to `irc.x` (or to `pytensor_as_theano.x`, Theano's names on PyTensor), synthetic
data of MNIST's, ATIS's and IMDB's shapes in place of the downloads (driver.py patches
`logistic_sgd.load_data`, `rnnslu.atisfold`, and `rnnslu.get_perf`, which runs a downloaded
perl script), an `imdb` module, and a Pillow stand-in where Pillow is missing. Fewer epochs come
from each program's own parameters (those of the tutorials' test.py).

Each program runs twice in a fresh process per backend: cold (an empty compile cache) and warm
(the cache the cold run filled); the times are the processes' wall times. The table gives, per
program: whether it ran to its end, the first error (the program's line it came through, the
exception and the deepest line), and the final error rate or cost with irc and with PyTensor.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHIM = Path(__file__).resolve().parent / "dlt_shim"
PYTENSOR_PYTHON = "/work/venv-pt/bin/python"


@dataclass(frozen=True)
class Program:
    """A tutorial: its module, the entry point and the (smaller) arguments it is run with, and
    how its final figure is read from what it prints (the last match of `metric`)."""
    module: str
    entry: str
    kwargs: dict
    metric_name: str
    metric: str


_TEST_ERROR = r"test performance ([0-9.]+) %"
PROGRAMS = [
    Program("logistic_sgd", "sgd_optimization_mnist", {"n_epochs": 5}, "test error %", _TEST_ERROR),
    Program("logistic_cg", "cg_optimization_mnist", {"n_epochs": 5}, "test error %", _TEST_ERROR),
    Program("mlp", "test_mlp", {"n_epochs": 1}, "test error %", _TEST_ERROR),
    Program("dA", "test_dA", {"training_epochs": 1, "output_folder": "tmp_dA_plots"},
            "cost", r"Training epoch \d+, cost\s+([-0-9.e+]+)"),
    Program("SdA", "test_SdA", {"pretraining_epochs": 1, "training_epochs": 1, "batch_size": 300},
            "test error %", _TEST_ERROR),
    Program("cA", "test_cA", {"training_epochs": 1, "output_folder": "tmp_cA_plots"},
            "reconstruction cost", r"reconstruction cost\s+([-0-9.e+]+)"),
    Program("rbm", "test_rbm", {"training_epochs": 1, "batch_size": 300, "n_chains": 1,
                                "n_samples": 1, "n_hidden": 20, "output_folder": "tmp_rbm_plots"},
            "PL cost", r"Training epoch \d+, cost is\s+([-0-9.e+]+)"),
    Program("DBN", "test_DBN", {"pretraining_epochs": 1, "training_epochs": 1, "batch_size": 300},
            "test error %", _TEST_ERROR),
    Program("convolutional_mlp", "evaluate_lenet5", {"n_epochs": 1, "nkerns": [5, 5]},
            "test error %", _TEST_ERROR),
    Program("rnnslu", "main", {"param": {
        "fold": 3, "data": "atis", "lr": 0.0970806646812754, "verbose": 1, "decay": True,
        "win": 7, "nhidden": 200, "seed": 345, "emb_dimension": 50, "nepochs": 1,
        "savemodel": False}}, "test F1 %", r"'best test F1', ([0-9.]+)"),
    Program("lstm", "train_lstm", {"max_epochs": 1, "test_size": 500, "saveto": ""},
            "test error", r"Test\s+([0-9.]+)"),
]


@dataclass
class Run:
    """One backend's two runs of one program."""
    ran: bool = False
    error: str = ""
    metric: float | None = None
    seconds: list = field(default_factory=list)


def _shim_dir(work: Path) -> Path:
    """The throw-away shim: tools/dlt_shim's files and its `theano` package."""
    shim = work / "shim"
    shutil.copytree(SHIM, shim, ignore=shutil.ignore_patterns("__pycache__", "theano_alias.py"))
    (shim / "theano").mkdir()
    shutil.copy(SHIM / "theano_alias.py", shim / "theano" / "__init__.py")
    return shim


def _environment(backend: str, cache: Path) -> dict:
    env = dict(os.environ)
    env["DLT_THEANO_TARGET"] = "irc" if backend == "irc" else "pytensor_as_theano"
    env["PYTHONPATH"] = str(ROOT) if backend == "irc" else ""
    env["IRC_FLAGS"] = f"compiledir={cache}"
    env["PYTENSOR_FLAGS"] = f"base_compiledir={cache}"
    env["OMP_NUM_THREADS"] = env.get("OMP_NUM_THREADS", "2")
    return env


def _first_error(output: str, returncode: int, timed_out: bool, timeout: float) -> str:
    if timed_out:
        return f"timed out after {timeout:.0f} s"
    for line in output.splitlines():
        if line.startswith("DLT_ERROR "):
            e = json.loads(line[len("DLT_ERROR "):])
            where = e["program_line"] or e["deepest"]
            deep = f" (raised at {e['deepest']})" if e["deepest"] and e["deepest"] != where else ""
            return f"{where} `{e['source']}`: {e['type']}: {e['message']}{deep}"
    return f"exit status {returncode}" if returncode else ""


def _metric(program: Program, output: str) -> float | None:
    found = re.findall(program.metric, output)
    return float(found[-1]) if found else None


def run_program(program: Program, backend: str, python: str, code_dir: Path, rows: list,
                timeout: float, log_dir: Path | None) -> Run:
    """Cold then warm run of `program` on `backend`, each in a fresh copy of `code_dir`."""
    result = Run()
    with tempfile.TemporaryDirectory(prefix=f"dlt-{program.module}-{backend}-") as tmp:
        work = Path(tmp)
        shim = _shim_dir(work)
        cache = work / "cache"
        cache.mkdir()
        for attempt in ("cold", "warm"):
            copy = work / f"code-{attempt}"
            shutil.copytree(code_dir, copy, ignore=shutil.ignore_patterns("__pycache__"))
            command = [python, str(shim / "driver.py"), program.module, program.entry,
                       json.dumps(program.kwargs), json.dumps(rows)]
            start = time.perf_counter()
            timed_out = False
            try:
                done = subprocess.run(command, cwd=copy, env=_environment(backend, cache),
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      text=True, timeout=timeout)
                output, returncode = done.stdout, done.returncode
            except subprocess.TimeoutExpired as e:
                output = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
                returncode, timed_out = -9, True
            result.seconds.append(time.perf_counter() - start)
            if log_dir is not None:
                (log_dir / f"{program.module}.{backend}.{attempt}.log").write_text(output)
            result.error = _first_error(output, returncode, timed_out, timeout)
            result.ran = returncode == 0 and not timed_out
            result.metric = _metric(program, output)
            if not result.ran:
                break  # a program that stops cold stops warm too
    return result


def _figure(run: Run | None) -> str:
    if run is None:
        return "—"
    return "—" if run.metric is None else f"{run.metric:.4g}"


def _times(run: Run | None) -> str:
    if run is None or not run.seconds:
        return "—"
    return " / ".join(f"{s:.1f}" for s in run.seconds)


def table(programs: list, runs: dict) -> str:
    """The markdown table: program, ran to end, first error, figures and times per backend."""
    lines = ["| program | ran to end (irc) | first error (irc) | figure | irc | PyTensor "
             "| irc s cold / warm | PyTensor s cold / warm | PyTensor ran? |",
             "|---|---|---|---|---|---|---|---|---|"]
    for p in programs:
        mine, ref = runs.get((p.module, "irc")), runs.get((p.module, "pytensor"))
        ref_ran = "—" if ref is None else ("yes" if ref.ran else f"no: {ref.error}")
        lines.append(
            f"| {p.module} | {'—' if mine is None else ('yes' if mine.ran else 'no')} "
            f"| {'' if mine is None else mine.error} | {p.metric_name} | {_figure(mine)} "
            f"| {_figure(ref)} | {_times(mine)} | {_times(ref)} | {ref_ran} |")
    return "\n".join(lines)


def main(argv: list | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("code_dir", type=Path, help="the folder holding the tutorials' .py files")
    parser.add_argument("--programs", default=",".join(p.module for p in PROGRAMS))
    parser.add_argument("--backends", default="irc,pytensor")
    parser.add_argument("--pytensor-python", default=PYTENSOR_PYTHON)
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per run")
    parser.add_argument("--rows", default="6000,1000,1000",
                        help="MNIST-shaped train,valid,test rows (MNIST has 50000,10000,10000)")
    parser.add_argument("--logs", type=Path, help="a folder for each run's output")
    args = parser.parse_args(argv)
    code_dir = args.code_dir.resolve()
    if not (code_dir / "logistic_sgd.py").is_file():
        parser.error(f"{code_dir} has no logistic_sgd.py: give the tutorials' code/ folder")
    wanted = args.programs.split(",")
    unknown = set(wanted) - {p.module for p in PROGRAMS}
    if unknown:
        parser.error(f"unknown programs: {', '.join(sorted(unknown))}")
    programs = [p for p in PROGRAMS if p.module in wanted]
    rows = [int(r) for r in args.rows.split(",")]
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    runs = {}
    for p in programs:
        for backend in args.backends.split(","):
            python = sys.executable if backend == "irc" else args.pytensor_python
            runs[(p.module, backend)] = run_program(p, backend, python, code_dir, rows,
                                                    args.timeout, args.logs)
            r = runs[(p.module, backend)]
            print(f"{p.module:18} {backend:8} ran={r.ran} {p.metric_name}={_figure(r)} "
                  f"s={_times(r)} {r.error}", file=sys.stderr, flush=True)
    print(table(programs, runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
