"""Wang & Manning's log-count ratios ``r`` from the Naive Bayes counts of the binarized
features: each class's smoothed term distribution against that of the other classes."""

from __future__ import annotations

import numpy as np

from .._families.multinomial import smoothed_log_prob

__all__ = ["log_count_ratios", "problem_ratios"]


def log_count_ratios(feature_count: np.ndarray, alpha: float) -> np.ndarray:
    """Each class's log-count ratio against the other classes, shape (n_classes, n_terms).

    ``feature_count`` holds, per class, the number of documents holding each term (the
    binarized counts): ``p = alpha + count``, ``q = alpha + the other classes' count``.
    """
    counts = np.asarray(feature_count, dtype=np.float64)
    # each side is the multinomial family's smoothed log-probability (alpha > 0 here);
    # the other classes' side first, so that at most two (n_classes, n_terms) arrays
    # live at once (the expression form made eight: 1.5 GB of a 20-class bigram model)
    others = counts.sum(axis=0, keepdims=True) - counts
    log_q = smoothed_log_prob(others, alpha)
    del others
    ratios = smoothed_log_prob(counts, alpha)
    ratios -= log_q
    return ratios


def problem_ratios(feature_count: np.ndarray, alpha: float) -> np.ndarray:
    """The log-count ratio of each binary problem: the second class against the first for
    two classes (one row), else each class against the rest."""
    ratios = log_count_ratios(feature_count, alpha)
    return ratios[1:] if len(ratios) == 2 else ratios
