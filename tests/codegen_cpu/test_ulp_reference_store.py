"""The stored float64 ulp references: rebuilt bit for bit, and a file that no longer matches the
samples, mpmath or is missing fails loudly, naming the command that remakes it."""
from __future__ import annotations

import numpy as np
import pytest

from irc.codegen_cpu import ulp_reference_store as stored
from irc.codegen_llvm.mathlib_ulp import edge_values, one_at_a_time, sample_sets


def small_sample(name: str, dtype=np.float64) -> np.ndarray:
    """A few values of every set of the sweep, the edge values (infinities, NaN, denormals) too."""
    sets = sample_sets(name, dtype, 400, seed=3)
    return np.concatenate([xs[0] for _, xs in sets] + [edge_values(dtype)])


@pytest.mark.parametrize("name,dtype", [("gammaln", np.float64), ("erfc", np.float64), ("erfcinv", np.float64),
                                        ("erfinv", np.float32), ("psi", np.float32), ("erfcx", np.float32)])
def test_a_stored_reference_is_rebuilt_bit_for_bit(name, dtype, tmp_path):
    x = small_sample(name, dtype)
    path = tmp_path / "ref.npz"
    arrays = stored.save(path, name, x)
    got = stored.load(path, name, x, spot_checks=x.size)
    want = stored.full_reference(name, x)
    assert got.dtype == (np.longdouble if dtype == np.float64 else np.float64) == want.dtype
    assert stored._same(got, want).all()
    one_by_one = one_at_a_time(name, x)
    assert one_by_one.any()
    if name != "erfcinv":  # (which has no series ends) the ends are computed vectorized, not stored
        assert one_by_one.sum() < x.size
    assert arrays["k"].size == one_by_one.sum() and arrays["k"].dtype == np.int8 and arrays["q"].dtype == np.int16


def test_values_far_from_the_prediction_are_stored_as_text(tmp_path, monkeypatch):
    """Where the prediction is more than 127 steps off (gammaln near its roots, with a table
    prediction), k cannot carry the value: stored as text, exact."""
    x = small_sample("gammaln")
    kernel = stored.prediction
    monkeypatch.setattr(stored, "prediction", lambda name, v: kernel(name, v) * (1 + (v > 10) * 1e-10))
    arrays = stored.save(tmp_path / "ref.npz", "gammaln", x)
    slow = x[one_at_a_time("gammaln", x)]
    far = ((slow > 10) & np.isfinite(slow)).sum()
    assert far > 0 and arrays["rest_index"].size >= far
    assert stored._same(stored.load(tmp_path / "ref.npz", "gammaln", x, spot_checks=50),
                        stored.full_reference("gammaln", x)).all()


def test_a_missing_file_names_the_command_that_makes_it(tmp_path):
    with pytest.raises(stored.StaleReferenceError, match="missing.*tools/make_ulp_references.py"):
        stored.load(tmp_path / "none.npz", "erf", np.array([0.5]))


def test_other_samples_than_the_files_fail_loudly(tmp_path):
    x = small_sample("erf")
    stored.save(tmp_path / "ref.npz", "erf", x)
    with pytest.raises(stored.StaleReferenceError, match="other sample values.*make_ulp_references"):
        stored.load(tmp_path / "ref.npz", "erf", x[:-1])


def test_a_stored_value_that_mpmath_disagrees_with_fails_loudly(tmp_path):
    """The spot checks recompute values with mpmath: a file made with an older reference fails."""
    x = np.linspace(-3, 3, 101)
    path = tmp_path / "ref.npz"
    arrays = stored.save(path, "erf", x)
    arrays["q"] = arrays["q"] + np.int16(1)  # every value 2^-12 ulp off
    np.savez_compressed(path, **arrays)
    with pytest.raises(stored.StaleReferenceError, match=r"erf\(.*the reference gives.*make_ulp_references"):
        stored.load(path, "erf", x, spot_checks=20)


def test_another_prediction_computes_every_value_with_a_warning(tmp_path, monkeypatch):
    """The files are stored relative to the float64 kernel: once it changes, the values still
    come out right (all computed), and the warning says how to remake the files."""
    x = small_sample("erfinv")
    stored.save(tmp_path / "ref.npz", "erfinv", x)
    kernel = stored.prediction
    monkeypatch.setattr(stored, "prediction", lambda name, v: np.nextafter(kernel(name, v), np.inf))
    with pytest.warns(UserWarning, match="another float64 kernel.*make_ulp_references"):
        got = stored.load(tmp_path / "ref.npz", "erfinv", x)
    assert stored._same(got, stored.full_reference("erfinv", x)).all()


def test_the_sweep_files_are_there_for_every_stored_function():
    for dtype, names in stored.STORED.items():
        for name in names:
            assert stored.sweep_file(name, dtype).exists(), f"make it with `{stored.REMAKE}`"


def test_stored_values_are_checked_against_their_inputs_and_the_function(tmp_path, monkeypatch):
    """`values` (the Bessel and chi2sf references): remade with IRC_REMAKE_REFERENCES=1, then
    loaded; other inputs or a value the function no longer gives fail loudly."""
    x, y = np.linspace(0.5, 3, 50), np.linspace(1, 2, 50)
    path = tmp_path / "v.npz"
    monkeypatch.setenv(stored.REMAKE_VARIABLE, "1")
    made = stored.values(path, lambda a, b: a ** b, x, y)
    monkeypatch.delenv(stored.REMAKE_VARIABLE)
    np.testing.assert_array_equal(stored.values(path, lambda a, b: a ** b, x, y, spot_checks=50), made)
    with pytest.raises(stored.StaleReferenceError, match="other sample values.*make_ulp_references"):
        stored.values(path, lambda a, b: a ** b, x, y[::-1])
    with pytest.raises(stored.StaleReferenceError, match="computed again.*make_ulp_references"):
        stored.values(path, lambda a, b: a ** b + 1e-9, x, y, spot_checks=5)
    with pytest.raises(stored.StaleReferenceError, match="missing"):
        stored.values(tmp_path / "none.npz", lambda a: a, x)
