"""A count model's load checks what its first derivation would check without deriving it
(issue 14 item 9: the log-probabilities are as large as the counts; deriving them at load
took the load to 2.14x the file for MultinomialNB)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nbayes import BernoulliNB, ComplementNB, MultinomialNB, PoissonNB, load, save
from nbayes.exceptions import ModelFileError
from nbayes.io._modelfile import read_model_file, write_model_file

X = np.random.default_rng(0).poisson(1.0, size=(30, 12)).astype(float)
Y = np.arange(30) % 3
MODELS = [MultinomialNB, ComplementNB, BernoulliNB, PoissonNB]


@pytest.mark.parametrize("cls", MODELS, ids=lambda c: c.__name__)
def test_load_derives_no_table_as_large_as_the_counts(
    tmp_path: Path, cls: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = cls().fit(X, Y)
    save(model, tmp_path / "m.nbayes")
    family = type(model._family)
    widths: list[int] = []
    derive = family.derive

    def spy(self: Any, stats: Any, p: Any) -> Any:
        widths.append(stats.feature_count.shape[1])
        return derive(self, stats, p)

    monkeypatch.setattr(family, "derive", spy)
    back = load(tmp_path / "m.nbayes")
    assert widths and max(widths) <= 1  # one column checked, not the 12
    np.testing.assert_array_equal(back.predict_proba(X), model.predict_proba(X))


def _with_alpha(tmp_path: Path, cls: type, alpha: list[float]) -> Path:
    save(cls(alpha=np.ones(12)).fit(X, Y), tmp_path / "m.nbayes")
    metadata, arrays = read_model_file(tmp_path / "m.nbayes")
    metadata["model"]["hyperparameters"]["alpha"] = {
        "type": "ndarray", "dtype": "float64", "values": alpha,
    }  # fmt: skip
    write_model_file(tmp_path / "m.nbayes", metadata, arrays)
    return tmp_path / "m.nbayes"


@pytest.mark.parametrize(
    "cls", [MultinomialNB, ComplementNB, BernoulliNB], ids=lambda c: c.__name__
)
@pytest.mark.parametrize(
    ("alpha", "message"),
    [
        ([1.0] * 11, "n_features"),  # one value short
        ([1.0] * 13, "n_features"),
        ([1.0] * 11 + [-1.0], "greater than 0"),  # the bad value is not the first column's
    ],
)
def test_alpha_is_still_checked_over_every_feature(
    tmp_path: Path, cls: type, alpha: list[float], message: str
) -> None:
    with pytest.raises(ModelFileError, match=message):
        load(_with_alpha(tmp_path, cls, alpha))


def test_class_prior_is_still_checked(tmp_path: Path) -> None:
    save(MultinomialNB().fit(X, Y), tmp_path / "m.nbayes")
    metadata, arrays = read_model_file(tmp_path / "m.nbayes")
    metadata["model"]["hyperparameters"]["class_prior"] = {
        "type": "list", "dtype": "float64", "values": [0.5, 0.5],
    }  # fmt: skip
    write_model_file(tmp_path / "m.nbayes", metadata, arrays)
    with pytest.raises(ModelFileError, match="priors"):
        load(tmp_path / "m.nbayes")
