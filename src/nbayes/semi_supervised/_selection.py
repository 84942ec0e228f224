"""Choosing EM's settings by cross-validation on the labelled rows only.

Every candidate setting (an ``unlabeled_weight`` and estimator parameters such as ``alpha``)
is scored by k-fold cross-validation over the *labelled* rows: the labels of the held-out fold
are hidden as well (those rows join the unlabelled ones, as Nigam et al. choose lambda), EM
runs on the rest, and the fold is scored by the class EM gives its rows (weighted accuracy).
The weight 0 -- the supervised model of the labelled rows -- is always a candidate and wins
ties, so EM is used only when it beats the supervised model by this cross-validation.

Which candidates depends on the estimator's settings, never on whether it was passed or
left to the default: an estimator whose ``alpha`` is additive smoothing (``SMOOTHED``) and
left at its default has it chosen (:func:`alpha_grid`), and the temperatures tried depend
on the kind of rows (:func:`temperatures`).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.model_selection import StratifiedKFold, check_cv

from .._template.base import BaseNB
from ..naive_bayes import BernoulliNB, CategoricalNB, ComplementNB, MultinomialNB
from ..text.classifier import TextClassifier
from ._counts import Counts
from ._em import Rows, run_em

__all__ = [
    "ALPHAS",
    "CV_TOL",
    "EM_ALPHAS",
    "SMOOTHED",
    "TEMPERATURES",
    "TEXT_TEMPERATURES",
    "WEIGHTS",
    "Candidate",
    "alpha_grid",
    "candidates",
    "cross_validate",
    "n_splits",
    "temperatures",
]

WEIGHTS = (0.1, 0.3, 1.0)
"""The unlabelled weights tried by ``unlabeled_weight="auto"`` (besides 0, the supervised
model)."""
EM_ALPHAS = (0.01,)
"""The TextClassifier ``alpha`` values tried with EM when the estimator is the default one."""
CV_TOL = 1e-3
"""The candidates' EM runs stop at ``max(tol, CV_TOL)``: they only rank the settings (on 20
Newsgroups, 20 labelled per class, seeds 0-4: the same mean error cut as with 1e-4, 31.70 %
vs 31.78 %, in two thirds of the time)."""
TEMPERATURES = (1.0, 10.0, 30.0)
"""The E-step temperatures tried by ``temperature="auto"`` (1: the posterior itself)."""
TEXT_TEMPERATURES = (10.0, 30.0)
"""Those tried with a TextClassifier: a document of a few hundred tokens has a posterior of
0s and 1s at temperature 1."""
ALPHAS = (0.01, 0.03, 0.1, 0.3, 1.0)
"""The ``alpha`` values tried for the supervised model (weight 0), with the estimator's own."""
SMOOTHED = (TextClassifier, MultinomialNB, BernoulliNB, ComplementNB, CategoricalNB)
"""The estimators whose ``alpha`` is additive smoothing of counts, chosen by ``alphas="auto"``
unless you set it. Its best value depends on the size of the vocabulary and on how many
rows are counted: TextClassifier's default alpha=1, spread over the corpus vocabulary of 20
Newsgroups (130,000 terms), smooths 20 labelled documents per class into a model that
classifies a sixth of the test set, and EM from there ends far below the supervised model
of a small alpha (BENCHMARKS.md, "Semi-supervised EM"). PoissonNB's ``alpha`` (a gamma
prior) and MixedNB's (some of its columns only) are kept."""


def alpha_grid(estimator: BaseNB) -> tuple[tuple[Any, ...], tuple[Any, ...]] | None:
    """The alphas ``alphas="auto"`` tries, ``(supervised, EM)``; None: the estimator's own.

    For an estimator of ``SMOOTHED`` whose ``alpha`` is its class's default (passed or left
    to SemiSupervisedNB: the same), ``ALPHAS`` for the supervised model and ``EM_ALPHAS``
    with EM (the unlabelled rows' soft counts are most of the counts: EM wants little
    smoothing). An alpha you set (any other value, or one per feature) is kept."""
    if not isinstance(estimator, SMOOTHED):
        return None
    own = estimator.get_params(deep=False)["alpha"]
    default = inspect.signature(type(estimator)).parameters["alpha"].default
    if not (isinstance(own, Real) and not isinstance(own, bool) and own == default):
        return None
    return tuple(sorted({*ALPHAS, float(own)})), EM_ALPHAS


def temperatures(estimator: BaseNB) -> tuple[float, ...]:
    """The E-step temperatures ``temperature="auto"`` tries: ``TEXT_TEMPERATURES`` for a
    TextClassifier (documents), ``TEMPERATURES`` for any other estimator."""
    return TEXT_TEMPERATURES if isinstance(estimator, TextClassifier) else TEMPERATURES


@dataclass(frozen=True)
class Candidate:
    unlabeled_weight: float
    params: dict[str, Any]
    temperature: float = 1.0

    def as_dict(self) -> dict[str, Any]:
        """The setting as ``cv_results_["params"]`` shows it (no temperature for the
        supervised model, which has no E-step)."""
        em = {"temperature": self.temperature} if self.unlabeled_weight else {}
        return {"unlabeled_weight": self.unlabeled_weight, **em, **self.params}


def candidates(
    weights: tuple[float, ...],
    alphas: tuple[tuple[float, ...], tuple[float, ...]] | None,
    temperatures: tuple[float, ...] = (1.0,),
) -> list[Candidate]:
    """The settings to try: each weight of ``weights``, with each alpha of ``alphas``
    (``(supervised alphas, EM alphas)``; None: the estimator's own alpha) and, for a weight
    above 0, each of ``temperatures``; the supervised ones (weight 0) first: they win ties."""
    supervised = [w for w in weights if w == 0]
    em = [w for w in weights if w != 0]
    sup_alphas: tuple[Any, ...] = (None,) if alphas is None else alphas[0]
    em_alphas: tuple[Any, ...] = (None,) if alphas is None else alphas[1]

    def params(a: Any) -> dict[str, Any]:
        return {} if a is None else {"alpha": a}

    return [Candidate(w, params(a)) for w in supervised for a in sup_alphas] + [
        Candidate(w, params(a), t) for a in em_alphas for t in temperatures for w in em
    ]


def n_splits(codes: np.ndarray, cv: Any) -> int:
    """Folds an integer ``cv`` gives: at most the rows of the smallest labelled class (0 or 1:
    too few labelled rows to cross-validate)."""
    smallest = int(np.bincount(codes).min())
    return min(int(cv), smallest) if isinstance(cv, Integral) else 2


def cross_validate(
    counts: Counts,
    rows: Rows,
    settings: list[Candidate],
    cv: Any,
    max_iter: int,
    tol: float,
    balance: bool | np.ndarray = False,
) -> tuple[Candidate, dict[str, Any]]:
    """The best of ``settings`` by cross-validation on the labelled rows (the first of the
    best mean score), and the scores (``cv_results_``: ``params``, ``mean_test_score``,
    ``split<k>_test_score``)."""
    labeled, codes = rows.labeled, rows.codes
    if isinstance(cv, Integral):
        splitter: Any = StratifiedKFold(n_splits(codes, cv))
    else:
        splitter = check_cv(cv, codes, classifier=True)
    folds = list(splitter.split(np.zeros((len(codes), 1)), codes))
    cv_tol = max(tol, CV_TOL)
    sw = rows.weights[labeled, codes]
    scores = np.zeros((len(settings), len(folds)))
    for k, (train, held) in enumerate(folds):
        weights = np.zeros_like(rows.weights)
        weights[labeled[train], codes[train]] = sw[train]
        unlabeled = np.concatenate([rows.unlabeled, labeled[held]])
        order = np.argsort(unlabeled, kind="stable")
        fold_rows = Rows(
            weights, labeled[train], codes[train], unlabeled[order],
            np.concatenate([rows.sample_weight, sw[held]])[order],
        )  # fmt: skip
        labelled_models: dict[tuple[Any, ...], tuple[Any, np.ndarray]] = {}
        for i, setting in enumerate(settings):
            key = tuple(sorted(setting.params.items()))
            if key not in labelled_models:  # EM's start: one fit per fold and parameters
                model = counts.fit(weights, **setting.params)
                labelled_models[key] = model, counts.joint_log_likelihood(model)
            result = run_em(counts, fold_rows, setting.unlabeled_weight, max_iter, cv_tol,
                            setting.params, temperature=setting.temperature,
                            balance=balance, start=labelled_models[key])  # fmt: skip
            right = result.jll[labeled[held]].argmax(axis=1) == codes[held]
            total = sw[held].sum()
            scores[i, k] = float(np.dot(sw[held], right) / total) if total > 0 else 0.0
    mean = scores.mean(axis=1)
    results: dict[str, Any] = {
        "params": [s.as_dict() for s in settings],
        "mean_test_score": mean,
    }
    for k in range(len(folds)):
        results[f"split{k}_test_score"] = scores[:, k]
    return settings[int(np.argmax(mean))], results
