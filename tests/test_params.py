"""Hyperparameter equality by value (what ``merge`` asks of two models' settings)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from nbayes import MixedNB, MultinomialNB, TextClassifier
from nbayes._template.params import same_value


def _lower(doc: str) -> str:
    return doc.lower()


def _make(k: int):  # a closure: equal when the captured value is
    return lambda d: d[:k]


@pytest.mark.parametrize(
    "a, b",
    [
        ([1, 2], (1, 2)),
        ([0.3, 0.7], np.array([0.3, 0.7])),
        (["the", "a"], ("the", "a")),
        ({"the", "a"}, frozenset({"a", "the"})),
        ({"x": "gaussian"}, {"x": "gaussian"}),
        (1, 1.0),
        ((1, 2), (1, 2)),
        (None, None),
        ("english", "english"),
        (_lower, pickle.loads(pickle.dumps(_lower))),
        (_make(3), _make(3)),
        (str.lower, str.lower),
    ],
)
def test_equal_values(a, b) -> None:
    assert same_value(a, b) and same_value(b, a)


@pytest.mark.parametrize(
    "a, b",
    [
        ([1, 2], (1, 3)),
        ([1, 2], [1, 2, 3]),
        ("english", ["english"]),
        ("ab", ["a", "b"]),
        (True, 1),
        (None, 0),
        ({"the"}, ["the"]),
        ({"x": "gaussian"}, {"x": "poisson"}),
        (_make(3), _make(4)),
        (_lower, str.lower),
        (lambda d: d.lower(), lambda d: d.upper()),
    ],
)
def test_different_values(a, b) -> None:
    assert not same_value(a, b) and not same_value(b, a)


DOCS, Y = ["free money now", "see you at lunch", "win a prize", "lunch tomorrow"], [1, 0, 1, 0]


def test_text_models_with_equal_stop_word_lists_merge() -> None:
    a = TextClassifier(stop_words=["the", "a"]).fit(DOCS[:2], Y[:2])
    b = TextClassifier(stop_words=("the", "a")).fit(DOCS[2:], Y[2:])
    merged = a.merge(b)
    assert merged.class_count_.tolist() == [2, 2]
    with pytest.raises(ValueError, match="different hyperparameters"):
        a.merge(TextClassifier(stop_words=["the"]).fit(DOCS[2:], Y[2:]))


def test_text_models_with_copies_of_one_lambda_merge() -> None:
    import cloudpickle

    a = TextClassifier(preprocess=lambda d: d.lower()).fit(DOCS[:2], Y[:2])
    b = cloudpickle.loads(cloudpickle.dumps(a)).fit(DOCS[2:], Y[2:])
    assert a.merge(b).predict(["free prize"]).tolist() == [1]


def test_core_and_mixed_models_compare_by_value() -> None:
    a = MultinomialNB(class_prior=[0.5, 0.5]).fit([[1, 0], [0, 1]], [0, 1])
    b = MultinomialNB(class_prior=(0.5, 0.5)).fit([[2, 0], [0, 2]], [0, 1])
    assert a.merge(b).class_count_.tolist() == [2, 2]
    X = np.array([[1.0, 2.0], [2.0, 1.0], [1.5, 2.5], [2.5, 1.5]])
    spec = {"x0": "gaussian", "x1": "gaussian"}
    m1 = MixedNB(columns=dict(spec)).fit(X[:2], [0, 1])
    m2 = MixedNB(columns=dict(spec)).fit(X[2:], [0, 1])
    assert m1.merge(m2).class_count_.tolist() == [2, 2]


@pytest.mark.parametrize(
    "name, params",
    [
        ("MultinomialNB", {"alpha": np.inf}),
        ("ComplementNB", {"alpha": np.inf}),
        ("BernoulliNB", {"alpha": np.inf}),
        ("BernoulliNB", {"binarize": np.inf}),
        ("CategoricalNB", {"alpha": np.inf}),
        ("GaussianNB", {"var_smoothing": np.inf}),
        # a NumPy scalar is not an array-like (scikit-learn's np.isscalar): it is a float
        ("MultinomialNB", {"alpha": np.float32(np.inf)}),
        ("MultinomialNB", {"alpha": np.float32(np.nan)}),
        ("MultinomialNB", {"alpha": np.int64(-1)}),
        ("ComplementNB", {"alpha": np.float32(-1.0)}),
        ("BernoulliNB", {"alpha": np.float16(np.inf)}),
        ("CategoricalNB", {"min_categories": np.int64(0)}),
    ],
)
def test_an_infinite_hyperparameter_is_refused_as_scikit_learn_refuses_it(
    name: str, params: dict[str, float]
) -> None:
    import sklearn.naive_bayes

    import nbayes

    X, y = np.array([[1, 2], [3, 0]]), [0, 1]
    with pytest.raises(ValueError) as theirs:
        getattr(sklearn.naive_bayes, name)(**params).fit(X, y)
    with pytest.raises(ValueError) as ours:
        getattr(nbayes, name)(**params).fit(X, y)
    assert str(ours.value) == str(theirs.value)


def test_a_numpy_scalar_in_range_is_taken_as_a_float() -> None:
    X, y = np.array([[1, 2], [3, 0]]), [0, 1]
    for alpha in (np.float32(0.5), np.int64(2)):
        got = MultinomialNB(alpha=alpha).fit(X, y).predict_proba(X)
        assert np.allclose(got, MultinomialNB(alpha=float(alpha)).fit(X, y).predict_proba(X))
