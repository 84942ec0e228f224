"""The EM iteration of :class:`~nbayes.SemiSupervisedNB` and its objective (Nigam et al. 2000,
eq. 8 and 10 with EM-lambda), with a tempered and class-balanced E-step.

The E-step gives an unlabelled row ``i`` to class ``c`` with the weight ``r_ic`` that
maximises ``sum_c r_ic log P(x_i, c) + T H(r_i)`` (``H``: the entropy of the row's weights),
where ``T`` is the temperature: ``r_i`` is ``P(c | x_i)^(1/T)`` renormalised (``T = 1``: the
posterior, Nigam et al.'s E-step; a document of a few hundred tokens has a posterior of 0s
and 1s, which a larger ``T`` softens; deterministic annealing, Ueda & Nakano 1998, at a fixed
temperature). With ``balance`` the maximum is taken under the constraint that the unlabelled
rows' weights sum, class by class, to the class proportions of the labelled rows (class mass
normalisation, Zhu, Ghahramani & Lafferty 2003), found by Sinkhorn's scaling of the classes.
The objective EM raises at every iteration is then (the free energy)::

    log P(theta) + sum_labelled w_i log P(x_i, y_i)
                 + lambda sum_unlabelled w_i max_r [sum_c r_c log P(x_i, c) + T H(r)]

which is Nigam et al.'s log-likelihood for ``T = 1`` without ``balance`` (the maximum is then
``log sum_c P(x_i, c)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._families import BernoulliFamily, CategoricalFamily, MultinomialFamily
from .._template.base import BaseNB
from ._counts import Counts

__all__ = ["EMResult", "EStep", "Rows", "run_em", "swamped"]

_SINKHORN_ITER = 200
_SINKHORN_TOL = 1e-6


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

    def class_proportions(self) -> np.ndarray:
        """The labelled rows' weight in each class, as proportions (the balance target)."""
        mass = np.bincount(
            self.codes, weights=self.weights[self.labeled, self.codes],
            minlength=self.weights.shape[1],
        )  # fmt: skip
        total = mass.sum()
        return mass / total if total > 0 else np.full(len(mass), 1.0 / len(mass))


@dataclass(frozen=True)
class EStep:
    """How the E-step spreads an unlabelled row over the classes: ``temperature`` T
    (``P(c | x)^(1/T)``), and ``target``, the class proportions the unlabelled rows'
    weights must sum to (None: no constraint)."""

    temperature: float = 1.0
    target: np.ndarray | None = None

    def __call__(
        self, jll: np.ndarray, sw: np.ndarray, scale: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """The weights ``r`` (rows x classes, each row sums to 1), each row's value
        ``max_r sum_c r_c jll_c + T H(r)`` and the class scaling found (to start the next
        E-step from)."""
        t = self.temperature
        if jll.shape[0] == 0:
            return jll.copy(), np.zeros(0), scale
        z = jll / t
        top = z.max(axis=1, keepdims=True)
        top[~np.isfinite(top)] = 0.0
        p = np.exp(np.maximum(z - top, -700.0))  # no class underflows to 0: it can be scaled
        goal = None if self.target is None else self.target * sw.sum()
        if goal is None or not (goal > 0).any():
            s = p.sum(axis=1)
            return p / s[:, None], t * (top[:, 0] + np.log(s)), None
        q = np.ones(p.shape[1]) if scale is None else scale.copy()
        q[goal <= 0] = 0.0  # a class without labelled weight gets none
        wanted = goal > 0
        for _ in range(_SINKHORN_ITER):
            s = p @ q  # row sums of p * q
            mass = q * ((sw / s) @ p)  # the classes' weight after row normalisation
            ratio = goal[wanted] / np.maximum(mass[wanted], 1e-300)
            if np.abs(ratio - 1.0).max() <= _SINKHORN_TOL:
                break
            q[wanted] *= ratio
            q /= q.max()
        r = p * q
        s = r.sum(axis=1)
        r /= s[:, None]
        with np.errstate(divide="ignore"):
            log_q = np.where(q > 0, np.log(np.where(q > 0, q, 1.0)), 0.0)
        value = t * (top[:, 0] + np.log(s) - r @ log_q)
        return r, value, q


@dataclass(frozen=True)
class EMResult:
    model: Any
    jll: np.ndarray  # of every training row under ``model``
    history: list[float]
    condition: str
    start_jll: np.ndarray  # of every training row under the model of the labelled rows


def run_em(
    counts: Counts,
    rows: Rows,
    unlabeled_weight: float,
    max_iter: int,
    tol: float,
    params: dict[str, Any] | None = None,
    say: Callable[[int, float], None] | None = None,
    temperature: float = 1.0,
    balance: bool | np.ndarray = False,
    start: tuple[Any, np.ndarray] | None = None,
) -> EMResult:
    """Fit on the labelled rows (or take ``start``: that model and its joint log-likelihood
    of every row), then E-step / M-step until the objective rises by less than ``tol`` times
    its magnitude, or ``max_iter`` iterations; an iteration that lowers it is discarded
    (``condition == "decreased"``)."""
    params = params or {}
    weights = rows.weights.copy()
    unlabeled = rows.unlabeled
    unlabeled_sw = unlabeled_weight * rows.sample_weight
    if isinstance(balance, np.ndarray):  # the class proportions asked for
        target: np.ndarray | None = balance
    else:
        target = rows.class_proportions() if balance else None
    e_step = EStep(temperature, target)
    if start is None:
        model = counts.fit(weights, **params)
        start = model, counts.joint_log_likelihood(model)
    model, jll = start
    start_jll = jll
    posterior, value, scale = e_step(jll[unlabeled], unlabeled_sw)
    score = _objective(model, jll, weights, rows.labeled, rows.codes, value, unlabeled_sw)
    history = [score]
    if say is not None:
        say(0, score)
    if unlabeled.size == 0:
        return EMResult(model, jll, history, "no_unlabeled", start_jll)
    if unlabeled_weight == 0:  # the supervised model (what the CV chose, or asked for)
        return EMResult(model, jll, history, "supervised", start_jll)
    condition = "max_iter"
    for iteration in range(1, max_iter + 1):
        # E-step: every unlabelled row to every class, by the (tempered, balanced) posterior
        weights[unlabeled] = unlabeled_sw[:, None] * posterior
        # M-step: the labelled counts plus the soft counts
        new_model = counts.fit(weights, **params)
        new_jll = counts.joint_log_likelihood(new_model)
        new_posterior, value, new_scale = e_step(new_jll[unlabeled], unlabeled_sw, scale)
        new_score = _objective(new_model, new_jll, weights, rows.labeled, rows.codes,
                               value, unlabeled_sw)  # fmt: skip
        history.append(new_score)
        if say is not None:
            say(iteration, new_score)
        if new_score < score - 1e-12 * abs(score):  # more than rounding
            condition = "decreased"
            break
        model, jll, gain, score = new_model, new_jll, new_score - score, new_score
        posterior, scale = new_posterior, new_scale
        if gain <= tol * abs(score):
            condition = "converged"
            break
    return EMResult(model, jll, history, condition, start_jll)


def _objective(
    model: BaseNB,
    jll: np.ndarray,
    weights: np.ndarray,
    labeled_rows: np.ndarray,
    codes: np.ndarray,
    value: np.ndarray,
    unlabeled_sw: np.ndarray,
) -> float:
    """The objective of the model on the data: Nigam et al.'s log-likelihood (eq. 10 with
    EM-lambda) with each unlabelled row's E-step ``value`` (its marginal log-likelihood at
    temperature 1 without balance)."""
    labeled = jll[labeled_rows, codes]
    w = weights[labeled_rows, codes]
    total = float(np.dot(w[w > 0], labeled[w > 0])) if labeled.size else 0.0
    if value.size:
        keep = unlabeled_sw > 0
        total += float(np.dot(unlabeled_sw[keep], value[keep]))
    return total + _log_prior(model)


def _log_prior(model: BaseNB) -> float:
    """``log P(theta)`` (up to a constant) of the Dirichlet prior that additive smoothing
    ``alpha`` is the MAP estimate under; 0 for maximum-likelihood families."""
    fitted = model.likelihood()
    family, d = fitted.family, fitted.derived
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


def swamped(result: EMResult, rows: Rows) -> tuple[float, float, float] | None:
    """Whether EM's model has lost the labels it was given (a collapse): ``(share lost,
    accuracy of the labelled model, accuracy of EM's)`` on the labelled rows (weighted) when
    EM's model misclassifies half or more of the labelled rows that the model of the
    labelled rows alone classifies right; None otherwise.

    EM's model is fitted to the labelled rows too, so it classifies most of them right when
    the unlabelled rows shape the classes (on 20 Newsgroups, 20 labelled per class: 93-96 %
    of them, the labelled model 100 %); when their soft counts swamp the labels it no longer
    does (alpha=1, weight 1: 15 %, one class drawing in 81 % of the unlabelled rows). Where
    EM lost a quarter of them (a vocabulary of 20,000 terms, alpha=1) it still beat the
    labelled model; where it lost half, it did not."""
    labeled, codes = rows.labeled, rows.codes
    w = rows.weights[labeled, codes]
    if labeled.size == 0 or w.sum() <= 0 or result.condition in ("supervised", "no_unlabeled"):
        return None
    before = result.start_jll[labeled].argmax(axis=1) == codes
    after = result.jll[labeled].argmax(axis=1) == codes
    right = float(np.dot(w, before))
    if right <= 0:
        return None
    lost = float(np.dot(w, before & ~after)) / right
    if lost < 0.5:
        return None
    return lost, right / float(w.sum()), float(np.dot(w, after)) / float(w.sum())
