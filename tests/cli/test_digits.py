"""The digits the demo and the examples train on: read from scikit-learn's data file
without importing scikit-learn, to the arrays scikit-learn itself gives."""

import gzip

import numpy as np
import pytest

from tensorfleet.cli import digits

sklearn_datasets = pytest.importorskip("sklearn.datasets")


def test_the_arrays_are_scikit_learns():
    data, target = digits.digits_arrays()
    ref = sklearn_datasets.load_digits()
    assert data.dtype == ref.data.dtype and target.dtype == np.int64
    np.testing.assert_array_equal(data, ref.data)
    np.testing.assert_array_equal(target, ref.target)


def test_a_missing_scikit_learn_is_named(monkeypatch):
    monkeypatch.setattr(digits.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match="pip install scikit-learn"):
        digits.digits_arrays()


def test_a_damaged_data_file_is_named(monkeypatch, tmp_path):
    pkg = tmp_path / "sklearn"
    (pkg / "datasets" / "data").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    with gzip.open(pkg / "datasets" / "data" / "digits.csv.gz", "wt") as f:
        f.write("1,2,3\n4,5,6\n")
    spec = type("Spec", (), {"origin": str(pkg / "__init__.py")})()
    monkeypatch.setattr(digits.importlib.util, "find_spec", lambda name: spec)
    with pytest.raises(ValueError, match="expected 65 columns"):
        digits.digits_arrays()
