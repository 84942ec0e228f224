"""NBSVM's probabilities (``calibration="temperature"``): one scale of the decision values,
fitted to held-out decision values of the training documents, found without tokenizing or
counting them again.

An NBSVM's decision values are the margins of a linear SVM (about +-1 at the margin), so
their logistic hugs 0.5 (expected calibration error 0.23 on RT-s, 0.33 on IMDB); the scale
that makes them probabilities must be fitted on documents the model did not train on (on
its own training documents the margins are larger: the scale fitted there is 6 times too
large on RT-s). How the held-out decision values are obtained:

* The training documents are split into ``FOLDS`` stratified folds. For each, the model
  the other folds would give is derived from the one fit: the held-out documents' counts
  are subtracted from the Naive Bayes statistics (per class, sample weights counted), the
  log-count ratios re-derived over the terms the rest still holds (the vocabulary a fit on
  the rest would have), and the solver refitted on the rest's rows of the one matrix of
  binarized features. With the default vocabulary settings a held-out decision value is
  the one ``NBSVM().fit`` on the rest gives (tested); with ``min_df``, ``max_df`` or
  ``max_features`` the rest's vocabulary is the whole fit's, restricted to the terms it
  holds.
* These refits stop after ``MAX_ITER`` iterations (the fit's ``max_iter`` if lower): they
  only set the scale (on IMDB the scale is 11.751 after 50 iterations and 11.750 after
  1000, where liblinear stops unconverged; the calibration then adds 14-15 % to the fit).
* Each held-out decision value is kept in two parts, ``nb`` (the mean weight magnitude
  times ``x . r``) and ``svm`` (``x . (r w) + b``), so that every ``beta`` re-derives it
  as ``coef_`` is derived: ``(1 - beta) nb + beta svm``.
* The probabilities are those of the uncalibrated model, the logistic of each problem's
  decision value normalised over the classes (one-vs-rest), of the decision values times
  a scale ``a``; ``a`` minimises their log loss on the held-out decision values against
  Platt's targets, ``(N_c + 1) / (N_c + 2)`` for the document's class ``c`` and the rest
  shared by the others (finite when the folds are separable). With 20 classes this form
  calibrates better than ``softmax(a s)`` (20 Newsgroups test set: 0.037 against 0.050).

``calibration="temperature_shift"`` (the default) adds one degree of freedom with more than
two classes: the logistic of ``a s + t`` for every problem's decision value ``s``, the same
shift ``t`` for all, normalised over the classes; ``a`` and ``t`` minimise the same held-out
log loss (from the scale alone and ``t = 0``). The shift changes the shape of the map, not
only its steepness: a problem's logistic saturates where ``a s + t`` is large and is
exponential where it is very negative, so ``t`` sets how the probability is shared between
the few classes whose decision values are near 0 and the many far below (one scale leaves
the middle confidences underconfident: on 20 Newsgroups' held-out documents 0.44 predicted
where 0.58 were right). Two classes have one problem, whose shift would move the
decision threshold: there the shift is 0 and the probabilities are those of the scale alone.
On 20 Newsgroups' bydate test set the expected calibration error is 0.035 against 0.038 with
the scale alone (BENCHMARKS.md); a power ``sigmoid(a s)^g`` (0.040) and a softmax with a
shift and a power (0.036) did worse.

The scale and the shift change no prediction: each problem's probability grows with its
decision value, by the same map for all.

``calibration="binned"`` (the default) is "temperature_shift" followed, with more than two
classes, by a histogram binning of the most probable class's probability (top-label
histogram binning: Zadrozny & Elkan 2001; Gupta & Ramdas 2022): the held-out documents'
top probabilities (by the fitted scale and shift) are cut into ``TOP_BINS`` bins of equal
numbers of documents, and a top probability in a bin becomes the share of that bin's
held-out documents whose top class was right (Laplace-smoothed, ``(right + 1) / (n + 2)``,
so never 0 or 1); the other classes share the rest in their proportions. A floor keeps the
top class the most probable, so no prediction changes. The logistic map is too rigid for
20 classes: fitted on held-out documents it leaves confidences 0.9+ too high (bydate test:
ECE 0.035); the bins take the held-out accuracy of each confidence as it is (0.026,
BENCHMARKS.md), from the same held-out values (no second pass). Two classes keep the scale
alone (ECE 0.008-0.023 already; binning would make their probabilities steps).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.optimize import minimize, minimize_scalar
from scipy.special import expit, log_expit, logsumexp
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold

from ._ratios import problem_ratios

__all__ = [
    "FOLDS",
    "MAX_ITER",
    "SCALE_RANGE",
    "SHIFT_RANGE",
    "TOP_BINS",
    "HeldOutScores",
    "TopBins",
    "cross_fit",
    "fit_scale",
    "fit_scale_shift",
    "probabilities",
]

FOLDS = 2
"""Folds of the cross-fit (the scale is the same with 3 or 5 on RT-s: 5.74, 5.73, 5.71)."""
MAX_ITER = 100
"""Iterations of the refitted solvers, at most."""
SCALE_RANGE = (1e-3, 1e4)
"""The scales allowed: a decision value that tells nothing on held-out documents gets the
smallest (probabilities near 1/n_classes that still rank as the decisions do)."""
SHIFT_RANGE = (-10.0, 10.0)
"""The shifts allowed (``calibration="temperature_shift"``, more than two classes)."""
TOP_BINS = 15
"""Bins of the top probability (``calibration="binned"``, more than two classes), of equal
numbers of held-out documents (20 Newsgroups' bydate test ECE: 0.024-0.027 with 5 to 30)."""


@dataclass(frozen=True)
class TopBins:
    """A histogram binning of the most probable class's probability: ``edges`` (the
    inner bin edges, increasing) and the probability ``values`` of each bin."""

    edges: np.ndarray
    values: np.ndarray

    @classmethod
    def fit(cls, proba: np.ndarray, codes: np.ndarray, weight: np.ndarray) -> TopBins:
        """The bins of held-out probabilities ``proba`` of documents of classes ``codes``:
        equal (weighted) shares of the documents, each valued at the (weighted, Laplace-
        smoothed) share whose most probable class is right."""
        top = proba.max(axis=1)
        right = (np.argmax(proba, axis=1) == codes).astype(np.float64)
        order = np.argsort(top, kind="stable")
        mass = np.cumsum(weight[order])
        cuts = np.searchsorted(mass, mass[-1] * np.arange(1, TOP_BINS) / TOP_BINS)
        edges = np.unique(top[order][np.minimum(cuts, len(top) - 1)])
        which = np.searchsorted(edges, top, side="right")
        n = np.bincount(which, weights=weight, minlength=len(edges) + 1)
        k = np.bincount(which, weights=weight * right, minlength=len(edges) + 1)
        return cls(edges, (k + 1.0) / (n + 2.0))

    def apply(self, proba: np.ndarray) -> np.ndarray:
        """``proba`` with each row's top probability replaced by its bin's value (at least
        what keeps it the most probable) and the others scaled to fill the rest."""
        if proba.shape[1] < 3 or not len(proba):
            return proba
        best = np.argmax(proba, axis=1)
        rows = np.arange(len(proba))
        top = proba[rows, best]
        second = np.partition(proba, -2, axis=1)[:, -2]
        rest = 1.0 - top
        value = self.values[np.searchsorted(self.edges, top, side="right")]
        # the least top probability that stays above the scaled second (ties: a hair more)
        floor = second / np.maximum(rest + second, np.finfo(np.float64).tiny)
        value = np.minimum(np.maximum(value, np.nextafter(floor, 1.0) + 1e-12), 1.0)
        out = (
            proba * np.where(rest > 0, (1.0 - value) / np.where(rest > 0, rest, 1.0), 0.0)[:, None]
        )
        out[rows, best] = np.where(rest > 0, value, top)
        return out


@dataclass(frozen=True)
class HeldOutScores:
    """The decision values of every training document by the model fitted without its
    fold, in two parts (``nb``, ``svm``: shape (n_documents, n_problems)), with the
    document's class (``codes``, an index into ``classes_``) and weight."""

    nb: np.ndarray
    svm: np.ndarray
    codes: np.ndarray
    weight: np.ndarray

    def decision(self, beta: float) -> np.ndarray:
        """The held-out decision values at ``beta``."""
        return (1.0 - beta) * self.nb + beta * self.svm

    def scale(self, beta: float, n_classes: int) -> float:
        """The probability scale fitted to the held-out decision values at ``beta``."""
        return fit_scale(self.decision(beta), self.codes, self.weight, n_classes)

    def scale_shift(self, beta: float, n_classes: int) -> tuple[float, float]:
        """The probability scale and shift fitted to the held-out decision values at
        ``beta`` (the shift is 0 with two classes)."""
        return fit_scale_shift(self.decision(beta), self.codes, self.weight, n_classes)

    def top_bins(self, beta: float, scale: float, shift: float) -> TopBins:
        """The binning of the top probability fitted to the held-out probabilities at
        ``beta`` by ``scale`` and ``shift`` (``calibration="binned"``)."""
        proba = probabilities(self.decision(beta), scale, shift)
        return TopBins.fit(proba, self.codes, self.weight)


def probabilities(scores: np.ndarray, scale: float = 1.0, shift: float = 0.0) -> np.ndarray:
    """Class probabilities from decision values (n_documents, n_problems): the logistic of
    each problem's scaled and shifted decision value, normalised over the classes
    (one-vs-rest, as scikit-learn's ``LogisticRegression``); two classes have one problem,
    for the second, and no shift."""
    if scores.shape[1] == 1:
        if shift:
            raise ValueError(f"two classes have one problem: its shift is 0, not {shift!r}")
        p = expit(scale * scores)
        return np.hstack([1.0 - p, p])
    p = expit(scale * scores + shift)
    total = p.sum(axis=1, keepdims=True)
    return p / np.where(total == 0, 1.0, total)


def _log_probabilities(scores: np.ndarray, scale: float, shift: float = 0.0) -> np.ndarray:
    """The logarithm of :func:`probabilities`, computed without rounding to 0."""
    if scores.shape[1] == 1:
        return np.hstack([log_expit(-scale * scores), log_expit(scale * scores)])
    log_p = log_expit(scale * scores + shift)
    return log_p - logsumexp(log_p, axis=1, keepdims=True)


def _platt_targets(codes: np.ndarray, weight: np.ndarray, n_classes: int) -> np.ndarray:
    """Platt's targets: ``(N_c + 1) / (N_c + 2)`` for a document's class ``c``, the rest
    shared by the other classes."""
    mass = np.bincount(codes, weights=weight, minlength=n_classes)
    own = ((mass + 1.0) / (mass + 2.0))[codes]
    target = np.repeat(((1.0 - own) / max(n_classes - 1, 1))[:, None], n_classes, axis=1)
    target[np.arange(len(codes)), codes] = own
    return target


def fit_scale(scores: np.ndarray, codes: np.ndarray, weight: np.ndarray, n_classes: int) -> float:
    """The scale ``a`` of least (weighted) log loss of ``probabilities(s, a)`` against
    Platt's targets, within ``SCALE_RANGE``: the best of a grid of 4 scales a decade, then
    Brent's method between its neighbours."""
    scores = np.asarray(scores, dtype=np.float64)
    target = _platt_targets(codes, weight, n_classes)

    def loss(log_scale: float) -> float:
        log_p = _log_probabilities(scores, float(np.exp(log_scale)))
        return float(-np.dot(weight, (target * log_p).sum(axis=1)))

    low, high = np.log(SCALE_RANGE)
    grid = np.linspace(low, high, int(round((high - low) / np.log(10) * 4)) + 1)
    best = int(np.argmin([loss(g) for g in grid]))
    bounds = (grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)])
    found = minimize_scalar(loss, bounds=bounds, method="bounded", options={"xatol": 1e-10})
    return float(np.exp(found.x))


def fit_scale_shift(
    scores: np.ndarray, codes: np.ndarray, weight: np.ndarray, n_classes: int
) -> tuple[float, float]:
    """The scale ``a`` and shift ``t`` of least (weighted) log loss of
    ``probabilities(s, a, t)`` against Platt's targets, within ``SCALE_RANGE`` and
    ``SHIFT_RANGE``: L-BFGS-B from :func:`fit_scale`'s scale and ``t = 0`` (so never a
    larger loss than the scale alone). Two classes (one problem): that scale, shift 0."""
    scores = np.asarray(scores, dtype=np.float64)
    scale = fit_scale(scores, codes, weight, n_classes)
    if scores.shape[1] == 1:
        return scale, 0.0
    target = _platt_targets(codes, weight, n_classes)

    def loss(x: np.ndarray) -> float:
        log_p = _log_probabilities(scores, float(np.exp(x[0])), float(x[1]))
        return float(-np.dot(weight, (target * log_p).sum(axis=1)))

    start = np.array([np.log(scale), 0.0])
    bounds = [tuple(np.log(SCALE_RANGE)), SHIFT_RANGE]
    found = minimize(loss, start, method="L-BFGS-B", bounds=bounds,
                     options={"ftol": 1e-12, "gtol": 1e-8})  # fmt: skip
    if not loss(found.x) < loss(start):
        return scale, 0.0
    return float(np.exp(found.x[0])), float(found.x[1])


def cross_fit(
    model: Any,
    nb: Any,
    presence: sp.csr_matrix,
    y: np.ndarray,
    sample_weight: np.ndarray | None,
    seed: Any,
) -> HeldOutScores | str:
    """The held-out decision values of the training documents of an NBSVM (``model``: its
    solver settings; ``nb`` the Naive Bayes model of the binarized features ``presence``
    of the documents, ``y`` their labels), or why there are none (a sentence)."""
    classes = nb.classes_
    n, n_classes = presence.shape[0], len(classes)
    codes = np.zeros(n, dtype=np.intp)
    for k, c in enumerate(classes):
        codes[y == c] = k
    weight = np.ones(n) if sample_weight is None else np.asarray(sample_weight, np.float64)
    per_class = np.bincount(codes, minlength=n_classes)
    if per_class.min() < FOLDS:
        smallest = int(np.argmin(per_class))
        return (
            f"class {classes[smallest].item()!r} has {per_class[smallest]} document(s), and the "
            f"{FOLDS}-fold cross-fit that calibrates the probabilities needs {FOLDS} per class"
        )
    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=seed)
    targets = [1] if n_classes == 2 else list(range(n_classes))
    nb_part = np.zeros((n, len(targets)))
    svm_part = np.zeros((n, len(targets)))
    alpha = float(nb.alpha)
    for train, held in folds.split(np.zeros((n, 1)), codes):
        rest_mass = nb.class_count_ - np.bincount(codes[held], weight[held], n_classes)
        if (rest_mass <= 0).any():
            empty = classes[int(np.argmin(rest_mass))].item()
            return f"the documents of class {empty!r} outside a fold of the cross-fit weigh 0"
        rest, out = presence[train], presence[held]
        counts, kept = _rest_counts(nb.feature_count_, out, codes[held], weight[held])
        ratios = _rest_ratios(counts, kept, alpha)
        del counts
        sw = None if sample_weight is None else weight[train]
        for k, target in enumerate(targets):
            solver = model._solver()
            solver.set_params(max_iter=min(int(model.max_iter), MAX_ITER))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # the cap is on purpose
                solver.fit(rest @ sp.diags(ratios[k]), (codes[train] == target).astype(np.int64),
                           sample_weight=sw)  # fmt: skip
            w = solver.coef_[0]
            b = float(np.ravel(solver.intercept_)[0]) if model.fit_intercept else 0.0
            magnitude = float(np.abs(w).sum()) / max(int(kept.sum()), 1)  # the rest's terms
            nb_part[held, k] = magnitude * (out @ ratios[k])
            svm_part[held, k] = out @ (ratios[k] * w) + b
    return HeldOutScores(nb_part, svm_part, codes, weight)


def _rest_counts(
    feature_count: np.ndarray, out: sp.csr_matrix, codes: np.ndarray, weight: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The Naive Bayes counts without the held-out documents (``out``, of classes
    ``codes``), by subtraction, and which terms the rest still holds."""
    n_classes = feature_count.shape[0]
    by_class = sp.csr_matrix(
        (weight, (codes, np.arange(len(codes)))), shape=(n_classes, len(codes))
    )
    held = (by_class @ out).tocoo()
    counts = feature_count.copy()
    counts[held.row, held.col] -= held.data  # one (class, term) cell each
    # what fractional weights leave of a count all held out is rounding: 0
    cells = counts[held.row, held.col]
    gone = cells <= 1e-10 * feature_count[held.row, held.col]
    counts[held.row[gone], held.col[gone]] = 0.0
    return counts, counts.sum(axis=0) > 0


def _rest_ratios(counts: np.ndarray, kept: np.ndarray, alpha: float) -> np.ndarray:
    """The log-count ratios of a fit on the rest, whose vocabulary is the ``kept`` terms:
    those of every term, each class's smoothed total less the ``alpha`` of the terms the
    rest lacks, and 0 for these (as :func:`problem_ratios` of ``counts[:, kept]`` put back
    in place, without that copy)."""
    ratios = problem_ratios(counts, alpha)
    missing = alpha * float(np.count_nonzero(~kept))
    if missing:
        own = counts.sum(axis=1) + alpha * counts.shape[1]  # the smoothed totals as derived
        others = own.sum() - own - alpha * counts.shape[1] * (len(own) - 2)
        shift = np.log(own / (own - missing)) - np.log(others / (others - missing))
        ratios += (shift[1:] if len(own) == 2 else shift)[:, None]
        ratios[:, ~kept] = 0.0
    return ratios
