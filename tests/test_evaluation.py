"""nbayes.evaluate computes scikit-learn's figures with numpy alone (so `nbayes eval` of a
text model imports no scikit-learn): the same numbers on random predictions."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from sklearn import metrics

from nbayes.evaluation import evaluate


class _Fixed:
    """A 'model' whose predictions and probabilities are given."""

    def __init__(self, classes: list[Any], pred: np.ndarray, proba: np.ndarray) -> None:
        self.classes_ = np.asarray(classes)
        self._pred, self._proba = pred, proba

    def predict(self, X: Any) -> np.ndarray:
        return self._pred[np.asarray(X)]

    def predict_proba(self, X: Any) -> np.ndarray:
        return self._proba[np.asarray(X)]


@pytest.mark.parametrize("seed", range(8))
def test_figures_equal_scikit_learns(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    classes = [f"c{j}" for j in range(k)]
    n = int(rng.integers(1, 60))
    proba = rng.dirichlet(np.ones(k) * 0.3, size=n)
    proba[rng.random(n) < 0.1, 0] = 1.0  # some certain rows (clipped like scikit-learn)
    proba /= proba.sum(axis=1, keepdims=True)
    pred = np.asarray(classes)[rng.integers(0, k, n)]
    y = np.asarray(classes)[rng.integers(0, k, n)]
    report = evaluate(_Fixed(classes, pred, proba), np.arange(n), y, batch_size=7)
    p, r, f, s = metrics.precision_recall_fscore_support(y, pred, labels=classes, zero_division=0.0)
    np.testing.assert_allclose(report.precision, p, rtol=1e-15)
    np.testing.assert_allclose(report.recall, r, rtol=1e-15)
    np.testing.assert_allclose(report.f1, f, rtol=1e-15)
    np.testing.assert_array_equal(report.support, s)
    np.testing.assert_array_equal(
        report.confusion_matrix, metrics.confusion_matrix(y, pred, labels=classes)
    )
    assert report.accuracy == metrics.accuracy_score(y, pred)
    expected = metrics.log_loss(y, proba, labels=classes)
    assert math.isclose(report.log_loss, expected, rel_tol=1e-12)


def test_labels_the_model_does_not_know() -> None:
    classes = ["a", "b"]
    pred = np.array(["a", "b", "a"])
    proba = np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    y = np.array(["a", "b", "z"])
    report = evaluate(_Fixed(classes, pred, proba), np.arange(3), y)
    assert report.classes.tolist() == ["a", "b", "z"]
    assert math.isinf(report.log_loss)
    np.testing.assert_array_equal(
        report.confusion_matrix, metrics.confusion_matrix(y, pred, labels=["a", "b", "z"])
    )
    assert report.recall.tolist() == [1.0, 1.0, 0.0]
    assert report.accuracy == pytest.approx(2 / 3)


def test_a_class_with_a_line_break_keeps_the_table_on_its_rows() -> None:
    """A label holding a line break (a quoted CSV field) split the report's rows (a fuzz);
    it is written escaped, as the JSON keeps it."""
    import numpy as np

    from nbayes import MultinomialNB
    from nbayes.evaluation import evaluate

    X, y = np.array([[1, 0], [0, 1]]), ["a\nb", "c"]
    text = str(evaluate(MultinomialNB().fit(X, y), X, y))
    assert "a\\nb   1.000" in text and len(text.splitlines()) == 9  # (2 classes: 9 lines)
