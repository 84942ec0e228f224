"""The interface every likelihood family implements: statistics in, probabilities out."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from ._common import Estimate, Factor, FloatArray, as_fraction

Derived = dict[str, Any]


@dataclass
class ParameterBlock:
    """One kind of estimated parameter of a fitted model, per class (``values[c, r]``)
    and row ``r`` (a feature, or a feature's category), with what it is estimated from:
    ``(counts + alpha) / (totals + extra)``, ``extra = k·alpha`` when ``k`` is given (see
    :class:`~nbayes._families._common.Estimate`). ``counts`` is None for parameters that
    are no fractions of counts (a Gaussian's mean and variance): ``values`` only.
    """

    #: what the rows hold, as text and in LaTeX: ``P(x_j = 1 | y)``
    symbol: str
    latex: str
    #: the feature of each row (-1: none, the class prior)
    features: list[int]
    values: FloatArray
    #: the category of each row (categorical features), else None
    levels: list[Any] | None = None
    counts: Any = None
    totals: Any = None
    alpha: Any = 0
    k: Any = None
    extra: Any = None

    @property
    def n_rows(self) -> int:
        return len(self.features)

    def estimate(self, c: int, r: int) -> Estimate | float:
        """The parameter of class ``c`` and row ``r``: an unreduced :class:`Estimate` when
        it is a fraction of counts, else its float value."""
        if self.counts is None:
            return float(self.values[c, r])
        alpha = self.alpha[r] if isinstance(self.alpha, list) else self.alpha
        k = self.k[r] if isinstance(self.k, list) else self.k
        count = self.counts[c][r]
        count = count if isinstance(count, Fraction) else int(round(float(count)))
        total = self.totals[c][r] if np.ndim(self.totals[c]) else self.totals[c]
        total = total if isinstance(total, Fraction) else int(round(float(total)))
        return Estimate(count, total, alpha, self.extra, k)


def exact_alpha_of(alpha: Any, n_features: int) -> Fraction | list[Fraction]:
    """alpha as the exact rational a person means: one, or one per feature."""
    if np.ndim(alpha) == 0:
        return as_fraction(float(alpha))
    values = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (n_features,))
    return [as_fraction(v) for v in values.tolist()]


def prior_block(stats: Any, p: dict[str, Any], d: Derived) -> ParameterBlock:
    """The class prior P(y): ``count / total`` of the classes when learnt (3/5), else
    the prior given (``class_prior``/``priors``) or uniform (``fit_prior=False``)."""
    n = len(stats.classes)
    given = p.get("class_prior", p.get("priors"))
    values = np.exp(np.asarray(d["class_log_prior"], dtype=np.float64))[:, None]
    counts: list[list[Any]]
    totals: list[Any]
    if given is not None:
        exact = [as_fraction(v) for v in np.asarray(given, dtype=np.float64).tolist()]
        counts = [[q.numerator] for q in exact]  # 0.4 -> 2/5
        totals = [q.denominator for q in exact]
    elif not p.get("fit_prior", True):
        counts, totals = [[1]] * n, [n] * n
    else:
        class_count = np.asarray(stats.class_count, dtype=np.float64)
        if not np.array_equal(class_count, np.rint(class_count)):  # fractional weights
            return ParameterBlock("P(y)", "P(y)", [-1], values)
        counts = [[c] for c in class_count.tolist()]
        totals = [float(class_count.sum())] * n
    return ParameterBlock("P(y)", "P(y)", [-1], values, counts=counts, totals=totals)


class Family:
    """Turns sufficient statistics into log-probabilities, scores, samples and explanations.

    A family is stateless: every method takes the statistics (or what :meth:`derive` made
    of them) and the derivation hyperparameters ``p`` (alpha, priors, ...).
    """

    name = "base"
    #: whether :meth:`exact_factors` can give a derivation with fractions
    exact_supported = False
    #: whether the family models each feature's presence and absence (Bernoulli): counts
    #: are clipped to 1, and an absent feature has a term of its own
    presence = False

    def linear_form(
        self, d: Derived, cols: np.ndarray | None = None
    ) -> tuple[FloatArray, FloatArray] | None:
        """``(W, bias)`` with ``jll = counts @ W[cols] + bias``, when the family is linear
        in the counts and the weights are finite (else None); with ``cols``, W holds those
        columns only (for rows that use no other column). ``W`` has one C-contiguous row
        per column, so a row's terms are a gather of rows (the lean text scorer's form)."""
        return None

    def derive(self, stats: Any, p: dict[str, Any]) -> Derived:
        """Log-probabilities and the other fitted quantities, from the statistics."""
        raise NotImplementedError

    def joint_log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        """log P(y) + log P(x | y) for every row and class, shape (n_samples, n_classes)."""
        raise NotImplementedError

    def feature_log_density(self, d: Derived, X: Any) -> FloatArray:
        """Each feature's term of log P(x | y) for every row and class, shape (n_samples,
        n_classes, n_features): log P(x_j | y), times the count for multinomial features.

        X is dense. This is the per-feature likelihood every other per-feature view (an
        explanation's terms, a plotted density, a column of a mixed model) is read from.
        """
        raise NotImplementedError

    def log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        """log P(x | y) without the prior, per row and class: the sum of the features' terms."""
        return self.feature_log_density(d, X).sum(axis=2)

    def feature_terms(self, d: Derived, x: np.ndarray) -> FloatArray:
        """Each feature's term of log P(x | y) for one row, shape (n_classes, n_features)."""
        return self.feature_log_density(d, np.asarray(x).reshape(1, -1))[0]

    def exact_factors(self, stats: Any, p: dict[str, Any], x: np.ndarray) -> list[list[Factor]]:
        """Per class, the likelihood factors P(x_j | y) as unreduced fractions."""
        shows = " (its explanation shows each feature's density per class)" if self.reads else ""
        raise ValueError(
            f"exact=True is available for discrete models with integer counts (Bernoulli, "
            f"multinomial, categorical); a {self.name} model has no rational derivation. "
            f"Use exact=False{shows}."
        )

    #: whether :meth:`readings` writes the terms out (a density's formula and value)
    reads = False

    def value_labels(self, stats: Any, names: list[str], x: np.ndarray) -> list[str] | None:
        """The names under an exact derivation's factors where the feature's value says
        more than its name (a category: ``outlook = sunny``, ``outlook = snow (unseen)``),
        or None (the names)."""
        return None

    def readings(self, d: Derived, x: np.ndarray) -> list[list[str]] | None:
        """Per class and feature, the term P(x_j | y) written out as a person reads it
        (``N(3 | μ = 2, σ² = 1) = 0.242``), or None (the family's terms need no more)."""
        return None

    def parameters(self, stats: Any, p: dict[str, Any], d: Derived) -> list[ParameterBlock]:
        """The estimated parameters of P(x_j | y), per feature and class, as the course
        notes tabulate them (the class prior is :func:`prior_block`'s)."""
        raise ValueError(
            f"This model's {self.name} densities have no parameter table (they are no small "
            "set of estimates per class and feature): use explain() or the plots to see them."
        )

    def sample(self, d: Derived, stats: Any, codes: np.ndarray, rng: np.random.Generator) -> Any:
        """Feature values drawn from P(x | y) for rows of the given class codes."""
        raise NotImplementedError

    def n_parameters(self, stats: Any, full_joint: bool, doc_length: int | None) -> float:
        raise NotImplementedError

    def separation(
        self, d: Derived, among: np.ndarray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        """Per feature: how strongly it separates the classes, and the class it points to.

        ``among`` (a boolean mask over the classes) compares only those classes; the class
        returned is still an index into all of them.
        """
        raise NotImplementedError


def log_range(
    weights: FloatArray, among: np.ndarray | None = None
) -> tuple[FloatArray, np.ndarray]:
    """Spread across classes of a per-class log-parameter, and the class where it is largest.

    This is the log of the largest likelihood ratio between two classes (NLTK's
    "most informative features" ratio). Features that are impossible in some class
    (weight -inf) rank first: they rule that class out. ``among`` restricts the comparison
    to some classes (see :meth:`Family.separation`).
    """
    if among is not None:
        return _among(log_range, weights, among)
    with np.errstate(invalid="ignore"):
        spread = weights.max(axis=0) - weights.min(axis=0)
    spread = np.where(np.isnan(spread), 0.0, spread)
    return spread, weights.argmax(axis=0)


def _among(rank: Any, weights: FloatArray, among: np.ndarray) -> tuple[FloatArray, np.ndarray]:
    """``rank`` over the classes of ``among`` only, its classes mapped back to all of them."""
    kept = np.flatnonzero(among)
    if len(kept) == 0:
        return np.zeros(weights.shape[1]), np.zeros(weights.shape[1], dtype=int)
    score, best = rank(weights[kept])
    return score, kept[best]
