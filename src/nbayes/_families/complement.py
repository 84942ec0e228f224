"""Complement Naive Bayes (Rennie et al. 2003): weights from the counts of the other classes."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._statistics import CountStats
from ._base import Derived, Family, ParameterBlock, log_range
from ._common import FloatArray, check_alpha, class_log_prior, log, log_dot, row_major
from .multinomial import MultinomialFamily, count_terms, smoothed_log_prob, word_block


class ComplementFamily(Family):
    name = "complement"

    def linear_form(
        self, d: Derived, cols: np.ndarray | None = None
    ) -> tuple[FloatArray, FloatArray] | None:
        flp = d["feature_log_prob"] if cols is None else d["feature_log_prob"][:, cols]
        prior = np.asarray(d["class_log_prior"], dtype=np.float64)
        bias = prior if len(prior) == 1 else np.zeros_like(prior)
        return np.ascontiguousarray(flp.T), bias

    def derive(self, stats: CountStats, p: dict[str, Any]) -> Derived:
        alpha = check_alpha(p["alpha"], p["force_alpha"], stats.n_features)
        fc = row_major(stats.feature_count)  # the row sums below: see there
        feature_all = fc.sum(axis=0)
        comp = feature_all + alpha - fc
        with np.errstate(divide="ignore", invalid="ignore"):
            logged = log(comp / comp.sum(axis=1, keepdims=True))
            if p["norm"]:
                flp = logged / logged.sum(axis=1, keepdims=True)
            else:
                flp = -logged
        return {
            "alpha": alpha,
            "feature_all": feature_all,
            "feature_log_prob": flp,
            "class_log_prior": class_log_prior(stats.class_count, p["fit_prior"], p["class_prior"]),
            # for sampling and informative features: the multinomial of the same counts
            "multinomial_log_prob": smoothed_log_prob(fc, alpha),
        }

    def joint_log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        jll = log_dot(X, d["feature_log_prob"])
        if len(d["class_log_prior"]) == 1:
            jll += d["class_log_prior"]
        return jll

    def feature_log_density(self, d: Derived, X: Any) -> FloatArray:
        return count_terms(np.asarray(X, dtype=np.float64), d["feature_log_prob"])

    def parameters(self, stats: CountStats, p: dict[str, Any], d: Derived) -> list[ParameterBlock]:
        # the complement estimate: (count of w outside class y + alpha) / (words outside
        # y + V alpha); the class's weights are its logarithms (normalised when norm=True)
        fc = row_major(stats.feature_count)
        comp = d["feature_all"] - fc
        log_prob = smoothed_log_prob(comp, d["alpha"])
        return [word_block("P(w | not y)", r"P(w \mid \neg y)", comp, p["alpha"], d, log_prob)]

    def sample(
        self, d: Derived, stats: CountStats, codes: np.ndarray, rng: np.random.Generator
    ) -> Any:
        # Complement weights are not a distribution: draw from the multinomial of the counts.
        mult = {"feature_log_prob": d["multinomial_log_prob"]}
        return MultinomialFamily().sample(mult, stats, codes, rng)

    def n_parameters(self, stats: CountStats, full_joint: bool, doc_length: int | None) -> float:
        return MultinomialFamily().n_parameters(stats, full_joint, doc_length)

    def separation(
        self, d: Derived, among: np.ndarray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        return log_range(d["multinomial_log_prob"], among)
