"""What a classifier decides on a batch, computed once: :class:`Decisions`.

Every answer a front end gives (the labels of ``nbayes predict``, its ``--proba`` and
``--top N``, the service's ``/predict``, the verdicts of two cutoffs) comes from one
scoring of the inputs: a joint log-likelihood (a Naive Bayes model) or a matrix of
probabilities (a model scored otherwise, such as an NBSVM). numpy and the standard library
only: the lean prediction path imports it without scikit-learn.

>>> import numpy as np
>>> jll = np.log([[0.02, 0.01], [1.0, 1.0], [0.001, 0.004]])
>>> jll[1] = -np.inf  # every class has zero likelihood
>>> d = decisions_from_jll(jll, np.array(["ham", "spam"]), np.log([0.6, 0.4]))
>>> d.labels.tolist(), d.undecidable.tolist()
(['ham', 'ham', 'spam'], [False, True, False])
>>> d.proba.round(3).tolist()
[[0.667, 0.333], [nan, nan], [0.2, 0.8]]
>>> d.top(1)[0].tolist()
[['ham'], ['ham'], ['spam']]
>>> d.verdicts("spam", low=0.4, high=0.7).tolist()
['ham', 'unsure', 'spam']
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from numbers import Real
from typing import Any

import numpy as np

from .._families._common import log_normalize
from ..display import TopPredictions

__all__ = ["Decisions", "best_classes", "decide", "decisions_from_jll", "decisions_from_proba"]


@dataclasses.dataclass(frozen=True, eq=False)
class Decisions:
    """A batch's decisions, from one scoring.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    labels : ndarray of shape (n_rows,)
        The most probable class of each row (what ``predict`` returns; an undecidable row
        gets the class with the highest prior).
    proba : ndarray of shape (n_rows, n_classes)
        The posterior of each class (what ``predict_proba`` returns; NaN for an undecidable
        row).
    undecidable : ndarray of bool, shape (n_rows,)
        The rows no class can explain (every class has zero likelihood: the notes' "the
        classifier cannot decide").
    prior_rank : ndarray of shape (n_classes,)
        Class indices, most probable a priori first: the order of an undecidable row's
        :meth:`top`.
    """

    classes: np.ndarray
    labels: np.ndarray
    proba: np.ndarray
    undecidable: np.ndarray
    prior_rank: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)

    def top(self, n: int = 3) -> TopPredictions:
        """The ``n`` most probable classes of each row, best first, and their probabilities
        (what ``predict_top`` returns; ties keep the classes' order, an undecidable row lists
        the classes by prior with NaN probabilities)."""
        if not isinstance(n, int | np.integer) or n < 1:
            raise ValueError(f"n must be a positive integer; got {n!r}.")
        n = min(int(n), self.proba.shape[1])
        proba = self.proba
        order = np.argsort(-np.where(np.isnan(proba), -1.0, proba), axis=1, kind="stable")
        order[self.undecidable] = self.prior_rank
        top = order[:, :n]
        return TopPredictions(self.classes[top], np.take_along_axis(proba, top, axis=1))

    def verdicts(
        self, positive: Any, low: float, high: float, unsure: Any = "unsure"
    ) -> np.ndarray:
        """Three-way decisions of a two-class problem from two cutoffs on the ``positive``
        class's probability: that class where it is at least ``high``, the other class where
        it is at most ``low``, ``unsure`` between them (and for undecidable rows).

        Raises ValueError for cutoffs out of order or a class the model does not have.
        """
        if len(self.classes) != 2:
            raise ValueError(
                f"Cutoffs decide between two classes; this model has {len(self.classes)}: "
                f"{self.classes.tolist()!r}."
            )
        for name, value in (("low", low), ("high", high)):
            if not isinstance(value, Real) or isinstance(value, bool):
                raise TypeError(f"The cutoff {name} must be a number in [0, 1]; got {value!r}.")
        if not 0.0 <= low <= high <= 1.0:
            raise ValueError(f"Cutoffs need 0 <= low <= high <= 1; got low={low}, high={high}.")
        hits = np.flatnonzero(self.classes == positive)
        if not len(hits):
            raise ValueError(
                f"{positive!r} is not a class of this model; its classes are "
                f"{self.classes.tolist()!r}."
            )
        j = int(hits[0])
        p = self.proba[:, j]
        out = np.full(len(p), unsure, dtype=object)
        positive_class, other = self.classes[j].tolist(), self.classes[1 - j].tolist()
        out[p >= high] = positive_class
        out[p <= low] = other
        out[np.isnan(p)] = unsure
        return out


def best_classes(
    jll: np.ndarray,
    class_log_prior: Callable[[], np.ndarray],
    normalized: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The index of each row's most probable class, and the mask of undecidable rows (they
    get the class with the highest prior, ``class_log_prior()``, asked only then).
    ``normalized``: ``log_normalize(jll)`` where the caller has it."""
    if np.isfinite(jll).all():  # the common case: argmax needs no normalisation
        return np.argmax(jll, axis=1), np.zeros(len(jll), dtype=bool)
    log_proba, undecidable = log_normalize(jll) if normalized is None else normalized
    best = np.argmax(np.where(np.isnan(log_proba), -np.inf, log_proba), axis=1)
    if undecidable.any():
        best[undecidable] = int(np.argmax(class_log_prior()))
    return best, undecidable


def decisions_from_jll(
    jll: np.ndarray, classes: np.ndarray, class_log_prior: np.ndarray
) -> Decisions:
    """The decisions of joint log-likelihoods (rows: inputs, columns: ``classes``), the
    way every Naive Bayes model decides (:class:`~nbayes._template.posterior.PosteriorMixin`)."""
    log_proba, undecidable = log_normalize(jll)
    best, _ = best_classes(jll, lambda: class_log_prior, (log_proba, undecidable))
    prior_rank = np.argsort(-class_log_prior, kind="stable")
    return Decisions(classes, classes[best], np.exp(log_proba), undecidable, prior_rank)


def decisions_from_proba(
    proba: np.ndarray, classes: np.ndarray, labels: np.ndarray | None = None
) -> Decisions:
    """The decisions of a matrix of probabilities (a model that is not scored by a joint
    log-likelihood); ``labels`` where the model decides otherwise than by the largest
    probability (else the first largest)."""
    undecidable = np.isnan(proba).any(axis=1)
    if labels is None:
        labels = classes[np.argmax(np.where(np.isnan(proba), -1.0, proba), axis=1)]
    return Decisions(classes, labels, proba, undecidable, np.arange(len(classes)))


def decide(model: Any, X: Any) -> Decisions:
    """``model.decide(X)`` (one scoring) for every nbayes classifier; a model without that
    method (another library's) is asked for ``predict_proba`` and ``predict``."""
    method = getattr(model, "decide", None)
    if method is not None:
        return method(X)
    proba = np.asarray(model.predict_proba(X), dtype=np.float64)
    labels = np.asarray(model.predict(X))
    return decisions_from_proba(proba, np.asarray(model.classes_), labels)
