"""Every learning call of the text estimators is all-or-nothing (issue 14, item 3): a call
that fails leaves the estimator exactly as it was, fitted or not, and a model that was
fitted still predicts, saves and loads as before."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nbayes
from nbayes import TextClassifier
from nbayes.text import CountVectorizer

from .conftest import load_slice

SMS, SMS_Y = load_slice("sms_slice.csv")
TEST = SMS[150:]


def state(est: Any) -> dict[str, int]:
    """Every attribute of ``est``, by identity (a learning call makes new statistics,
    never changes them in place)."""
    return {k: id(v) for k, v in vars(est).items()}


def fitted(**kw: Any) -> TextClassifier:
    return TextClassifier(**kw).fit(SMS[:150], SMS_Y[:150])


def interrupted(docs: list[str]) -> Iterator[str]:
    """Documents that stop half-way, as Ctrl-C in a long read would."""
    yield from docs[:3]
    raise KeyboardInterrupt


FAILING_FITS: dict[str, Callable[[TextClassifier], Any]] = {
    "missing label": lambda m: m.fit(SMS[:4], ["a", None, "b", "a"]),
    "pruned to nothing": lambda m: m.set_params(min_df=50).fit(SMS[:20], SMS_Y[:20]),
    "max_df < min_df": lambda m: m.set_params(min_df=3, max_df=2).fit(SMS[:20], SMS_Y[:20]),
    "empty vocabulary": lambda m: m.fit(["", "a", "!"], [0, 1, 0]),
    "bad weights": lambda m: m.fit(SMS[:3], [0, 1, 0], sample_weight=[1, -1, 1]),
    "interrupted": lambda m: m.fit(interrupted(SMS), SMS_Y),
    "bad chunk": lambda m: m.fit_chunks([(SMS[:5], SMS_Y[:5]), (SMS[5:9], [None] * 4)]),
    "chunks pruned to nothing": lambda m: m.set_params(min_df=60).fit_chunks(
        [(SMS[:20], SMS_Y[:20]), (SMS[20:40], SMS_Y[20:40])]
    ),
}


@pytest.mark.parametrize("kw", [{}, {"hashing": True, "n_features": 2**10}])
@pytest.mark.parametrize("failing", FAILING_FITS.values(), ids=FAILING_FITS.keys())
def test_a_failing_refit_keeps_the_fitted_model(failing, kw, tmp_path: Path) -> None:
    model = fitted(**kw)
    proba = model.predict_proba(TEST)
    before = state(model)
    params = model.get_params()
    with pytest.raises((ValueError, KeyboardInterrupt)):
        failing(model)
    model.set_params(**params)  # the failing call may have changed a hyperparameter
    assert state(model) == before
    np.testing.assert_array_equal(model.predict_proba(TEST), proba)
    nbayes.save(model, tmp_path / "model.nbm")
    np.testing.assert_array_equal(nbayes.load(tmp_path / "model.nbm").predict_proba(TEST), proba)


@pytest.mark.parametrize("failing", FAILING_FITS.values(), ids=FAILING_FITS.keys())
def test_a_failing_first_fit_leaves_the_model_unfitted(failing, tmp_path: Path) -> None:
    model = TextClassifier()
    with pytest.raises((ValueError, KeyboardInterrupt)):
        failing(model)
    assert not model.__sklearn_is_fitted__()
    with pytest.raises(ValueError, match="not fitted"):
        nbayes.save(model, tmp_path / "model.nbm")
    assert not (tmp_path / "model.nbm").exists()


FAILING_INCREMENTS: dict[str, Callable[[TextClassifier], Any]] = {
    "partial_fit unknown class": lambda m: m.partial_fit(SMS[:4], ["ham", "x", "ham", "spam"]),
    "partial_fit other classes": lambda m: m.partial_fit(SMS[:2], SMS_Y[:2], classes=["a"]),
    "partial_fit interrupted": lambda m: m.partial_fit(interrupted(SMS), SMS_Y),
    "update bad weights": lambda m: m.update(SMS[:2], SMS_Y[:2], sample_weight=[np.nan, 1]),
    "update interrupted": lambda m: m.update(interrupted(SMS), SMS_Y),
    "unlearn unseen word": lambda m: m.unlearn(["zzzunseen"], ["ham"]),
    "unlearn every document": lambda m: m.unlearn(SMS[:150], SMS_Y[:150]),
    "merge other settings": lambda m: m.merge(TextClassifier(alpha=2).fit(SMS[:5], SMS_Y[:5])),
}


@pytest.mark.parametrize("failing", FAILING_INCREMENTS.values(), ids=FAILING_INCREMENTS.keys())
def test_a_failing_increment_keeps_the_fitted_model(failing) -> None:
    model = fitted()
    proba = model.predict_proba(TEST)
    before = state(model)
    with pytest.raises((ValueError, KeyboardInterrupt)):
        failing(model)
    assert state(model) == before
    np.testing.assert_array_equal(model.predict_proba(TEST), proba)


@pytest.mark.parametrize(
    "first",
    [
        lambda m: m.partial_fit(SMS[:4], ["ham", "x", "ham", "spam"], classes=["ham", "spam"]),
        lambda m: m.partial_fit(SMS[:4], SMS_Y[:4]),  # classes missing
        lambda m: m.partial_fit(SMS[:4], SMS_Y[:4], classes=["ham", "spam"], sample_weight=[1]),
        lambda m: m.partial_fit(interrupted(SMS), SMS_Y, classes=["ham", "spam"]),
        lambda m: m.set_params(min_df=3, max_df=2).partial_fit(SMS[:4], SMS_Y[:4],
                                                               classes=["ham", "spam"]),
    ],
)  # fmt: skip
def test_a_failing_first_partial_fit_leaves_nothing_to_save(first, tmp_path: Path) -> None:
    model = TextClassifier()
    try:
        first(model)
    except (ValueError, KeyboardInterrupt):
        pass
    else:  # a partial_fit whose pruning keeps nothing yet: the next batch may bring terms
        model.partial_fit(SMS[:150], SMS_Y[:150])
        with pytest.raises(ValueError, match="max_df corresponds to < documents than min_df"):
            model.predict(TEST)
        return
    assert not model.__sklearn_is_fitted__() and vars(model) == vars(TextClassifier())
    with pytest.raises(ValueError, match="not fitted"):
        nbayes.save(model, tmp_path / "m.nbm")
    model.partial_fit(SMS[:150], SMS_Y[:150], classes=["ham", "spam"])  # then learns as new
    np.testing.assert_array_equal(model.predict_proba(TEST), fitted().predict_proba(TEST))


@pytest.mark.parametrize(
    ("kw", "docs"),
    [
        ({"min_df": 3, "max_df": 2}, SMS),  # max_df < min_df, after counting
        ({"min_df": 1000}, SMS),  # nothing left after pruning
        ({}, ["", "!"] * 10),  # empty vocabulary
        ({"ngram_range": (1, 3), "min_df": 1000}, SMS),
    ],
)
def test_a_failing_vectorizer_refit_keeps_the_fitted_vocabulary(kw, docs) -> None:
    cv = CountVectorizer().fit(SMS[:100])
    X = cv.transform(SMS)
    params = cv.get_params()
    cv.set_params(**kw)
    before = state(cv)
    with pytest.raises(ValueError):
        cv.fit(docs)
    assert state(cv) == before  # no scratch attribute left behind either
    assert (cv.set_params(**params).transform(SMS) != X).nnz == 0


def test_a_counting_setting_changed_after_the_fit_takes_effect_at_the_next_fit(tmp_path) -> None:
    """As a vectorizer's: set_params(ngram_range=...) on a fitted model does not silently
    change its predictions or mix n-gram orders in one table; predicting, learning more
    and saving are refused until fit counts again (or the setting is set back)."""
    import nbayes
    from nbayes import TextClassifier

    docs = ["free prize now", "win free cash", "lunch at noon", "see you at lunch"] * 3
    y = ["spam", "spam", "ham", "ham"] * 3
    model = TextClassifier(ngram_range=(1, 2)).fit(docs, y)
    before = model.predict_proba(docs)
    model.set_params(alpha=0.5, ngram_range=(1, 1))  # alpha: a derivation, fine after fit
    for call in (
        lambda: model.predict(docs),
        lambda: model.partial_fit(docs, y),
        lambda: model.update(docs, y),
        lambda: nbayes.save(model, tmp_path / "m.nbayes"),
    ):
        with pytest.raises(ValueError, match="ngram_range changed since this model was fitted"):
            call()
    model.set_params(ngram_range=(1, 2), alpha=1.0)  # set back: the model as it was
    np.testing.assert_array_equal(model.predict_proba(docs), before)
    model.set_params(binary=True)  # the counts would be clipped
    with pytest.raises(ValueError, match="binary changed"):
        model.predict(docs)
    model.fit(docs, y)  # counts again, with binary=True
    assert model.predict(docs).tolist() == y
