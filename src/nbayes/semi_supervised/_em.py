"""The EM iteration of :class:`~nbayes.SemiSupervisedNB` and its objective (Nigam et al. 2000,
eq. 8 and 10 with EM-lambda)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import logsumexp

from .._base import BaseNB
from .._families import BernoulliFamily, CategoricalFamily, MultinomialFamily
from ._counts import Counts

__all__ = ["EMResult", "Rows", "run_em"]


@dataclass(frozen=True)
class Rows:
    """The training rows as EM sees them: ``weights`` (rows x classes) holds every labelled
    row's weight in its class (``labeled`` rows, class ``codes``); the ``unlabeled`` rows get
    ``unlabeled_sw`` (their sample weight, times lambda) spread by the posterior."""

    weights: np.ndarray
    labeled: np.ndarray
    codes: np.ndarray
    unlabeled: np.ndarray
    sample_weight: np.ndarray  # of the unlabelled rows, before lambda


@dataclass(frozen=True)
class EMResult:
    model: Any
    jll: np.ndarray  # of every training row under ``model``
    history: list[float]
    condition: str


def run_em(
    counts: Counts,
    rows: Rows,
    unlabeled_weight: float,
    max_iter: int,
    tol: float,
    params: dict[str, Any] | None = None,
    say: Callable[[int, float], None] | None = None,
) -> EMResult:
    """Fit on the labelled rows, then E-step / M-step until the objective rises by less than
    ``tol`` times its magnitude, or ``max_iter`` iterations; an iteration that lowers it is
    discarded (``condition == "decreased"``)."""
    params = params or {}
    weights = rows.weights.copy()
    unlabeled = rows.unlabeled
    unlabeled_sw = unlabeled_weight * rows.sample_weight
    model = counts.fit(weights, **params)
    jll = counts.joint_log_likelihood(model)
    score = _objective(model, jll, weights, rows.labeled, rows.codes, unlabeled, unlabeled_sw)
    history = [score]
    if say is not None:
        say(0, score)
    if unlabeled.size == 0:
        return EMResult(model, jll, history, "no_unlabeled")
    if unlabeled_weight == 0:  # the supervised model (what the CV chose, or asked for)
        return EMResult(model, jll, history, "supervised")
    condition = "max_iter"
    for iteration in range(1, max_iter + 1):
        # E-step: every unlabelled row to every class, by the posterior
        posterior = np.exp(jll[unlabeled] - logsumexp(jll[unlabeled], axis=1, keepdims=True))
        weights[unlabeled] = unlabeled_sw[:, None] * posterior
        # M-step: the labelled counts plus the soft counts
        new_model = counts.fit(weights, **params)
        new_jll = counts.joint_log_likelihood(new_model)
        new_score = _objective(new_model, new_jll, weights, rows.labeled, rows.codes,
                               unlabeled, unlabeled_sw)  # fmt: skip
        history.append(new_score)
        if say is not None:
            say(iteration, new_score)
        if new_score < score - 1e-12 * abs(score):  # more than rounding
            condition = "decreased"
            break
        model, jll, gain, score = new_model, new_jll, new_score - score, new_score
        if gain <= tol * abs(score):
            condition = "converged"
            break
    return EMResult(model, jll, history, condition)


def _objective(
    model: BaseNB,
    jll: np.ndarray,
    weights: np.ndarray,
    labeled_rows: np.ndarray,
    codes: np.ndarray,
    unlabeled_rows: np.ndarray,
    unlabeled_sw: np.ndarray,
) -> float:
    """Nigam et al.'s log-likelihood of the model on the data (eq. 10 with EM-lambda)."""
    labeled = jll[labeled_rows, codes]
    w = weights[labeled_rows, codes]
    total = float(np.dot(w[w > 0], labeled[w > 0])) if labeled.size else 0.0
    if unlabeled_rows.size:
        marginal = logsumexp(jll[unlabeled_rows], axis=1)
        keep = unlabeled_sw > 0
        total += float(np.dot(unlabeled_sw[keep], marginal[keep]))
    return total + _log_prior(model)


def _log_prior(model: BaseNB) -> float:
    """``log P(theta)`` (up to a constant) of the Dirichlet prior that additive smoothing
    ``alpha`` is the MAP estimate under; 0 for maximum-likelihood families."""
    family, d, _ = model.likelihood()
    if not isinstance(family, MultinomialFamily | BernoulliFamily | CategoricalFamily):
        return 0.0
    alpha = np.asarray(d["alpha"], dtype=np.float64)
    if isinstance(family, CategoricalFamily):  # one alpha for every feature
        return float(alpha * sum(f.sum() for f in d["feature_log_prob"])) if alpha > 0 else 0.0
    flp = np.asarray(d["feature_log_prob"])
    if isinstance(family, BernoulliFamily):
        flp = flp + np.asarray(d["neg_log_prob"])
    if alpha.ndim == 0:
        return float(alpha * flp.sum()) if alpha > 0 else 0.0
    smoothed = alpha > 0  # an unsmoothed feature (alpha 0) may have log 0 = -inf: no prior
    return float((flp[:, smoothed] * alpha[smoothed]).sum())
