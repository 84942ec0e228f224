"""Poisson counts per feature, with Gamma-prior smoothing.

The rate of feature j in class y is the posterior mean under a Gamma(alpha, beta) prior
(shape alpha, rate beta): lambda_jy = (sum of x_j over class y + alpha) / (n_y + beta).
alpha = beta = 0 is the maximum-likelihood rate. Derivation hyperparameters: ``alpha``,
``beta``, ``fit_prior`` and ``class_prior``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln

from .._statistics import CountStats
from ._base import Derived, Family, ParameterBlock, log_range
from ._common import FloatArray, as_fraction, class_log_prior, log, log_dot


class PoissonFamily(Family):
    name = "poisson"

    def derive(self, stats: CountStats, p: dict[str, Any]) -> Derived:
        alpha, beta = float(p["alpha"]), float(p["beta"])
        with np.errstate(divide="ignore", invalid="ignore"):
            rate = (stats.feature_count + alpha) / (stats.class_count[:, None] + beta)
        undefined = np.isnan(rate) | np.isinf(rate)
        rate = np.where(undefined, 0.0, rate)
        log_rate = np.where(undefined, -np.inf, log(rate))
        # A class with no data and no prior cannot explain anything: its total rate is
        # irrelevant, as its log-rate is -inf for every feature.
        return {
            "rate": rate,
            "log_rate": log_rate,
            "undefined_class": undefined.any(axis=1),
            "class_log_prior": class_log_prior(stats.class_count, p["fit_prior"], p["class_prior"]),
        }

    def joint_log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        if sp.issparse(X):
            log_fact = np.asarray(
                sp.csr_matrix((gammaln(X.data + 1), X.indices, X.indptr), shape=X.shape).sum(axis=1)
            ).reshape(-1)
        else:
            log_fact = gammaln(np.asarray(X, dtype=np.float64) + 1).sum(axis=1)
        if not np.isfinite(log_fact).all():  # gammaln sets no floating-point flag
            raise FloatingPointError("overflow in log(x!) of a count near 1e308")
        jll = log_dot(X, d["log_rate"]) - d["rate"].sum(axis=1) - log_fact[:, None]
        jll[:, d["undefined_class"]] = -np.inf
        return jll + d["class_log_prior"]

    def parameters(self, stats: CountStats, p: dict[str, Any], d: Derived) -> list[ParameterBlock]:
        # lambda_jy = (sum of x_j over class y + alpha) / (rows of y + beta)
        return [
            ParameterBlock(
                "λ (rate of x_j | y)", r"\lambda_{j,y}", list(range(stats.n_features)),
                d["rate"], counts=stats.feature_count, totals=stats.class_count,
                alpha=as_fraction(p["alpha"]), extra=as_fraction(p["beta"]),
            )
        ]  # fmt: skip

    def feature_log_density(self, d: Derived, X: Any) -> FloatArray:
        x = np.asarray(X, dtype=np.float64)[:, None, :]
        with np.errstate(invalid="ignore"):
            xlogr = np.where(x > 0, x * d["log_rate"], 0.0)
        return np.asarray(xlogr - d["rate"] - gammaln(x + 1), dtype=np.float64)

    def value_range(self, d: Derived, j: int) -> tuple[float, float]:
        """Counts from 0 to the 99.5% quantile of the largest rate of feature j."""
        from scipy.stats import poisson

        return 0.0, float(poisson.ppf(0.995, d["rate"][:, j].max()))

    def sample(
        self, d: Derived, stats: CountStats, codes: np.ndarray, rng: np.random.Generator
    ) -> Any:
        return rng.poisson(d["rate"][codes]).astype(np.float64)

    def n_parameters(self, stats: CountStats, full_joint: bool, doc_length: int | None) -> float:
        C, d = len(stats.classes), stats.n_features
        if full_joint:
            return math.inf  # counts are unbounded: a full table over them never ends
        return C * d + C - 1

    def separation(
        self, d: Derived, among: np.ndarray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        return log_range(d["log_rate"], among)
