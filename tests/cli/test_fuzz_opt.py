"""Mutants of the project's own `.mlir` files (fixed seed) through irc-opt's pipeline and
code generators, in this process: every one exits 0 or 1 with a located error — never 2 (an
internal error), never an exception. `tools/fuzz_opt.py` runs the same with a larger count."""
from __future__ import annotations

from pathlib import Path

from irc.cli.fuzz import CONFIGS, MUTATORS, Mutant, corpus, fuzz, mutants, run_case

TESTS = Path(__file__).resolve().parents[1]
COUNT = 300


def _report(tally) -> str:
    lines = [f"{len(tally.failures)} bad outcome(s): {tally.counts}"]
    for mutant, outcome in tally.failures[:3]:
        lines += [f"--- {outcome.status}: {mutant.source} {mutant.mutations} irc-opt {' '.join(mutant.args)}",
                  outcome.stderr.strip()[-800:], "--- input:", mutant.text]
    return "\n".join(lines)


def test_mutants_never_crash_irc_opt():
    tally = fuzz(TESTS, COUNT, seed=2026, timeout_s=60)
    assert not tally.failures, _report(tally)
    assert sum(tally.counts.values()) == COUNT
    assert tally.counts.get(0, 0) > COUNT // 10 and tally.counts.get(1, 0) > COUNT // 10  # both paths exercised


def test_mutants_are_reproducible_and_varied():
    files = corpus(TESTS)
    first = [(m.text, m.args) for m in mutants(files, 50, seed=7)]
    assert first == [(m.text, m.args) for m in mutants(files, 50, seed=7)]
    kinds = {k for m in mutants(files, 400, seed=7) for k in m.mutations}
    assert kinds == {fn.__name__.strip("_") for fn in MUTATORS}
    assert {m.args for m in mutants(files, 400, seed=7)} == set(CONFIGS)


def test_an_internal_error_is_caught_as_such(tmp_path, monkeypatch):
    """The harness itself: a crash inside irc-opt is classified 2, not passed off as fine."""
    from irc.ir import verifier

    def broken(*args, **kwargs):
        raise RuntimeError("boom")
    monkeypatch.setattr(verifier, "collect_diagnostics", broken)
    text = "func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {\n  func.return %a : tensor<?xf32>\n}\n"
    outcome = run_case(Mutant("x.mlir", [], text, ("-p", "canonicalize")), str(tmp_path))
    assert outcome.status == 2 and "internal error: RuntimeError: boom" in outcome.stderr
