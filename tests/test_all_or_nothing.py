"""Every learning call is all-or-nothing: a call that fails leaves the model as it was.

fit, partial_fit, update and unlearn of every estimator (issue 14, item 3): after a failed
call the model is exactly the model before it (fitted with the old statistics and width, or
unfitted), and a KeyboardInterrupt in the middle of a call does the same.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    KernelNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
    TextClassifier,
)

RNG = np.random.default_rng(0)
X4 = RNG.integers(0, 4, (30, 4)).astype(float)
Y = np.arange(30) % 3
ARRAY_MODELS = [
    BernoulliNB, MultinomialNB, ComplementNB, CategoricalNB, GaussianNB, PoissonNB, KernelNB,
    MixedNB,
]  # fmt: skip
DOCS = [f"word{i % 3} common text number {i}" for i in range(30)]


def _bad_batches(Est: type, call: str) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """Batches a learning call must refuse: wrong width (but for a refit), NaN (where
    refused; in a wider batch), bad y."""
    wide = np.hstack([X4, X4[:, :1]])
    out = [("y too short", wide, Y[:-1])]
    if call != "fit":
        out.append(("wrong width", wide, Y))
    if Est is not MixedNB:  # MixedNB takes NaN as a missing value
        nan = wide.copy()
        nan[3, 2] = np.nan
        out.append(("NaN, wider", nan, Y))
    return out


def _state(model: object) -> bytes:
    return pickle.dumps(model.__dict__)


def _answers(model: object, X: np.ndarray) -> tuple[np.ndarray, ...]:
    return (model.predict_proba(X), model.classes_.copy(), np.asarray(model.n_features_in_))


@pytest.mark.parametrize("Est", ARRAY_MODELS)
@pytest.mark.parametrize("call", ["fit", "partial_fit", "update", "unlearn"])
def test_a_failed_call_on_a_fitted_model_changes_nothing(Est: type, call: str) -> None:
    model = Est().fit(X4, Y)
    before, state = _answers(model, X4), _state(model)
    for what, X, y in _bad_batches(Est, call):
        kwargs = {"classes": np.unique(Y)} if call == "partial_fit" else {}
        with pytest.raises(ValueError):
            getattr(model, call)(X, y, **kwargs)
        assert _state(model) == state, f"{Est.__name__}.{call} on {what} changed the model"
        for a, b in zip(_answers(model, X4), before, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("Est", ARRAY_MODELS)
@pytest.mark.parametrize("call", ["fit", "partial_fit", "update"])
def test_a_failed_first_call_leaves_the_model_unfitted(Est: type, call: str) -> None:
    model = Est()
    X = X4.copy()
    kwargs = {"classes": np.unique(Y)} if call == "partial_fit" else {}
    with pytest.raises(ValueError):
        getattr(model, call)(X, Y[:-1], **kwargs)
    assert model.__dict__ == Est().__dict__
    with pytest.raises(NotFittedError):
        model.predict(X4)


@pytest.mark.parametrize("Est", ARRAY_MODELS)
def test_an_interrupted_fit_leaves_the_old_model(
    Est: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = Est().fit(X4, Y)
    state = _state(model)

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    # Ctrl-C after the new input was read, while the statistics are built
    monkeypatch.setattr(model, "_batch_stats", interrupted)
    with pytest.raises(KeyboardInterrupt):
        model.fit(np.hstack([X4, X4]), Y)
    monkeypatch.undo()
    assert _state(model) == state
    assert model.n_features_in_ == 4


def test_a_failed_fit_of_a_fitted_text_classifier_changes_nothing() -> None:
    model = TextClassifier().fit(DOCS, Y)
    proba = model.predict_proba(DOCS)
    with pytest.raises(ValueError):
        model.fit(DOCS, Y[:-1])
    with pytest.raises(ValueError):
        model.update(DOCS[:3], Y[:2])
    np.testing.assert_array_equal(model.predict_proba(DOCS), proba)


def test_a_failed_fit_keeps_the_old_width_gaussian() -> None:
    # the reported case: fitted on 4 columns, a failed fit on 5, then predict on 4
    model = GaussianNB().fit(X4, Y)
    bad = np.hstack([X4, X4[:, :1]])
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        model.fit(bad, Y)
    assert model.n_features_in_ == 4
    assert model.predict(X4).shape == (30,)


def test_a_failed_fit_keeps_the_classes_partial_fit_compares_to() -> None:
    # scikit-learn's test_discretenb_provide_prior: the failed fit (3 classes, 2 priors)
    # changes nothing, and classes listing a class twice are not the model's classes
    model = MultinomialNB(class_prior=[0.5, 0.5]).fit([[0], [0], [1]], [0, 0, 1])
    with pytest.raises(ValueError, match="Number of priors must match number of classes"):
        model.fit([[0], [1], [2]], [0, 1, 2])
    assert model.classes_.tolist() == [0, 1]
    with pytest.raises(ValueError, match="is not the same as on last call to partial_fit"):
        model.partial_fit([[0], [1]], [0, 1], classes=[0, 1, 1])
    model.partial_fit([[0], [1]], [0, 1], classes=[1, 0])  # any order


@pytest.mark.parametrize("Est", ARRAY_MODELS)
def test_a_failed_merge_changes_neither_model(Est: type) -> None:
    a, b = Est().fit(X4, Y), Est().fit(np.hstack([X4, X4]), Y)
    states = _state(a), _state(b)
    with pytest.raises(ValueError):
        a.merge(b)
    assert (_state(a), _state(b)) == states


@pytest.mark.parametrize("call", ["partial_fit", "update", "unlearn"])
def test_a_setting_made_bad_after_the_fit_is_refused_and_nothing_learned(call: str) -> None:
    """set_params(alpha=-1) on a fitted model, then a learning call: refused before the
    batch is learned (it used to learn it, then fail at every predict)."""
    from nbayes import MultinomialNB, TextClassifier

    X, y = np.array([[1, 2], [2, 1], [3, 0]]), np.array([0, 1, 0])
    docs = ["free prize", "lunch at noon", "free cash"]
    for model, data in ((MultinomialNB().fit(X, y), X), (TextClassifier().fit(docs, y), docs)):
        before = model.class_count_.copy()
        model.set_params(alpha=-1.0)
        kw = {"classes": [0, 1]} if call == "partial_fit" else {}
        with pytest.raises(ValueError, match="alpha"):
            getattr(model, call)(data, y, **kw)
        np.testing.assert_array_equal(model.class_count_, before)
