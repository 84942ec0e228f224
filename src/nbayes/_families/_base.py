"""The interface every likelihood family implements: statistics in, probabilities out."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._common import Factor, FloatArray

Derived = dict[str, Any]


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
        raise ValueError(
            f"exact=True is available for discrete models with integer counts (Bernoulli, "
            f"multinomial, categorical); a {self.name} model has no rational derivation. "
            "Use exact=False."
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
