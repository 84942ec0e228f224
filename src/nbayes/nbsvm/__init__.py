"""NBSVM (Wang & Manning 2012): a linear classifier on binarized n-grams scaled by Naive
Bayes log-count ratios. The estimator is :mod:`._estimator`; its model selection by
:class:`~nbayes.model_selection.NBSearchCV`, :mod:`._search`."""

from __future__ import annotations

from ._estimator import LOSSES, NBSVM

__all__ = ["LOSSES", "NBSVM"]
