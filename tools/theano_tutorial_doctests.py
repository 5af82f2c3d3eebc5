"""Theano 1.0.5's tutorial (doc/tutorial/*.txt) run as Sphinx's doctest builder would, on irc.

    python3 tools/theano_tutorial_doctests.py [--docs a.txt ...] [--cache DIR] [--json PATH]
                                              [--irc-root TREE] [--time-limit S]

Theano's sdist (downloaded once by `tools/theano_api_tests.py`'s `pip download`, into the cache
dir, never into git) holds doc/tutorial/*.txt; `theano` is mapped onto irc by the throw-away
facade package of `tools/theano_api/`. Each document runs in a subprocess of its own
(`tools/theano_doctest/run_document.py`), in a scratch directory, twice: once as is and once with
every random seed shifted. Prints, per document, `>>>` examples and testcode blocks passed/total
and the failures grouped by reason (the first line of the exception, "output differs", or which
exception came where the document expects another), then the two overall percentages (passed / (total − skipped − random)).

Sphinx's rules followed (sphinx.ext.doctest; Theano's doc/conf.py loads it and sets neither
doctest_global_setup nor doctest_default_flags): reST doctest blocks and `.. doctest::` in group
"default"; `testsetup`/`testcleanup` per group (`*` = every group); a fresh namespace per group,
tests in document order; the flags ELLIPSIS, IGNORE_EXCEPTION_DETAIL, DONT_ACCEPT_TRUE_FOR_1 plus
a directive's `:options:` and inline `# doctest:` options; `>>>` examples compiled 'single',
testcode 'exec'; a testoutput is compared with its testcode's output with doctest's checker
(DONT_ACCEPT_BLANKLINE on; a testoutput starting with "Traceback" expects that exception); a group
whose set-up fails counts all its tests as failed; `+SKIP` examples are skipped.
Not followed: Sphinx compares a testcode with no testoutput against empty output; here it passes
when it runs without an exception (this tool's rule). `:skipif:`, `:pyversion:` and
`:trim-doctest-flags:` are not read (the tutorial uses none). Documents are read line by line,
not by docutils (see `rst_blocks.py`).
Normalizations (not irc's business): numpy's printing as when the tutorial was written
(`np.set_printoptions(legacy="1.13")`: `array(5.0)`, `[ 11.,  22.]`; it also gives numpy < 2's
scalar repr, `5.0` rather than `np.float64(5.0)`, as legacy="1.25" would); Python's
`time.clock` (removed in 3.8) as `time.perf_counter`; numpy's global generator seeded (0) for a
reproducible run; an example that fails and whose printed output changes when every seed is shifted (numpy's global and
RandomState/default_rng seeds, irc's stream seeds; memory addresses blurred) prints random draws
that Theano's generators made (irc's streams are Philox, not Theano's MRG/RandomState): it is
counted as "output depends on random draws", neither passed nor failed.
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
import time
from pathlib import Path

from theano_api_tests import DEFAULT_CACHE, THEANO, install_harness, theano_sources

ROOT = Path(__file__).resolve().parent.parent
WORKER = ROOT / "tools" / "theano_doctest"
KINDS = ("example", "testcode")


def build_run_dir(cache: Path) -> tuple[Path, Path]:
    """The facade package in a run directory; Theano's tutorial directory."""
    source = theano_sources(cache)
    run = cache / "run-tutorial"
    shutil.rmtree(run, ignore_errors=True)
    install_harness(run)
    shutil.copytree(source / "compat", run / "theano" / "compat")
    modules = sorted(".".join(("theano",) + p.relative_to(source).with_suffix("").parts).removesuffix(".__init__")
                     for p in source.rglob("*.py"))
    (run / "theano_api_modules.txt").write_text("\n".join(modules) + "\n")
    return run, cache / THEANO / "doc" / "tutorial"


def run_document(run: Path, doc: Path, perturb: bool, time_limit: float, irc_root: Path = ROOT) -> list[dict]:
    label = doc.stem + ("-perturbed" if perturb else "")
    scratch = run / "scratch" / label
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    out = scratch / "records.json"
    env = dict(os.environ, THEANO_API_BACKEND="irc", PYTHONPATH=os.pathsep.join([str(run), str(irc_root)]))
    command = [sys.executable, str(WORKER / "run_document.py"), str(doc), str(out)]
    try:
        proc = subprocess.run(command + (["--perturb-random"] if perturb else []), cwd=scratch, env=env,
                              capture_output=True, text=True, timeout=time_limit)
    except subprocess.TimeoutExpired:
        return [{"id": doc.name, "kind": "document", "outcome": "failed", "reason": "timed out", "got": ""}]
    if not out.exists():
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or ["(no output)"]
        return [{"id": doc.name, "kind": "document", "outcome": "failed",
                 "reason": f"document run crashed (exit status {proc.returncode}): {tail[0][:200]}", "got": ""}]
    return json.loads(out.read_text())


def _blur(text: str) -> str:
    return re.sub(r"0x[0-9a-fA-F]+", "0x…", text or "")


def classify(plain: list[dict], perturbed: list[dict]) -> list[dict]:
    """Failures whose output changes with the seeds become outcome "random"."""
    got_when_perturbed = {r["id"]: _blur(r["got"]) for r in perturbed}
    for record in plain:
        if (record["outcome"] == "failed" and record["reason"] == "output differs"
                and record["id"] in got_when_perturbed and got_when_perturbed[record["id"]] != _blur(record["got"])):
            record["outcome"] = "random"
    return plain


def _percent(count: collections.Counter, kind: str) -> tuple[int, int, float]:
    counted = count[kind, "passed"] + count[kind, "failed"]
    return count[kind, "passed"], counted, 100.0 * count[kind, "passed"] / counted if counted else 100.0


def print_report(results: dict[str, list[dict]]) -> None:
    total = collections.Counter()
    print(f"\nTheano 1.0.5's tutorial on irc (passed/counted; random = output depends on random draws)")
    print(f"{'document':24} {'examples':>10} {'skip':>5} {'random':>6} {'testcode':>10} {'skip':>5} {'random':>6}")
    for name, records in results.items():
        count = collections.Counter((r["kind"], r["outcome"]) for r in records)
        if count["document", "failed"]:
            print(f"{name:24} {records[0]['reason']}")
        total.update(count)
        cells = []
        for kind in KINDS:
            passed, counted, _ = _percent(count, kind)
            cells.append(f"{passed:>4}/{counted:<5} {count[kind, 'skipped']:5} {count[kind, 'random']:6}")
        print(f"{name:24} " + " ".join(cells))
        reasons = collections.Counter(r["reason"] for r in records if r["outcome"] == "failed")
        for text, n in reasons.most_common():
            example = next(r for r in records if r["outcome"] == "failed" and r["reason"] == text)
            print(f"    {n:3} × {text}   (e.g. line {example['id'].rsplit(':', 1)[-1]}: "
                  f"{example.get('source', '').strip().splitlines()[0][:70] if example.get('source') else ''})")
    print()
    for kind, label in zip(KINDS, ("doctest examples", "testcode blocks")):
        passed, counted, percent = _percent(total, kind)
        print(f"overall {label:17}: {passed}/{counted} = {percent:.1f}%   "
              f"(skipped {total[kind, 'skipped']}, random draws {total[kind, 'random']})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", nargs="*", default=None, help="file names under doc/tutorial (default: all)")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per document run")
    parser.add_argument("--json", type=Path, default=None, help="also write every record here")
    parser.add_argument("--irc-root", type=Path, default=ROOT, help="the tree whose irc runs (another "
                        "checkout, to measure a baseline)")
    args = parser.parse_args(argv)
    run, tutorial = build_run_dir(args.cache)
    docs = [tutorial / name for name in args.docs] if args.docs else sorted(tutorial.glob("*.txt"))
    results = {}
    for doc in docs:
        started = time.time()
        plain = run_document(run, doc, False, args.time_limit, args.irc_root)
        perturbed = run_document(run, doc, True, args.time_limit, args.irc_root)
        results[doc.name] = classify(plain, perturbed)
        print(f"{doc.name}: {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    print_report(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
