"""Gaussian features: x_j | y ~ N(theta_jy, var_jy), moments from the statistics."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._statistics import MomentStats
from ._base import Derived, Family, ParameterBlock
from ._common import FloatArray, log


def check_priors(priors: Any, n_classes: int) -> FloatArray:
    p = np.asarray(priors, dtype=np.float64)
    if p.shape != (n_classes,):
        got = f"{p.size} priors" if p.ndim == 1 else f"priors of shape {p.shape}"
        raise ValueError(
            f"Number of priors must match number of classes: got {got} for {n_classes} "
            "classes (give one prior per class, a 1-D array)."
        )
    if not np.isclose(p.sum(), 1.0):
        raise ValueError(f"The sum of the priors should be 1: they sum to {float(p.sum())!r}.")
    if (p < 0).any():
        raise ValueError("Priors must be non-negative.")
    return p


def largest_variance(stats: MomentStats) -> float:
    """The largest variance of a feature over all rows seen (0 before any row)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        row_var = stats.row_m2 / stats.n_rows if stats.n_rows > 0 else stats.row_m2 * 0.0
    return float(row_var.max(initial=0.0))


_TINY = float(np.finfo(np.float64).tiny)


class GaussianFamily(Family):
    """Derivation hyperparameters: ``var_smoothing`` and ``priors`` (as GaussianNB), or
    instead of ``var_smoothing`` the variance to add itself as ``epsilon``; optionally
    ``min_variance``, a floor under every variance (MixedNB keeps constant columns densities
    with it)."""

    name = "gaussian"

    def derive(self, stats: MomentStats, p: dict[str, Any]) -> Derived:
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.where(
                stats.class_count[:, None] > 0, stats.m2 / stats.class_count[:, None], 0.0
            )
        # If the ratio of data variance between dimensions is too small, it will cause
        # numerical errors: add a small fraction of the largest variance to every variance.
        if "epsilon" in p:
            epsilon = float(p["epsilon"])
        else:
            epsilon = float(p["var_smoothing"]) * largest_variance(stats)
        var = var + epsilon
        if "min_variance" in p:
            var = np.maximum(var, p["min_variance"])
        seen = stats.class_count > 0
        if p["priors"] is not None:
            prior = check_priors(p["priors"], len(stats.classes))
        else:
            total = stats.class_count.sum()
            prior = stats.class_count / total if total > 0 else np.zeros(len(stats.class_count))
        return {
            "theta": stats.mean,
            "var": var,
            "epsilon": epsilon,
            "class_prior": prior,
            "class_log_prior": log(prior),
            "seen": seen,
        }

    def parameters(self, stats: MomentStats, p: dict[str, Any], d: Derived) -> list[ParameterBlock]:
        # the class's sample mean and (population) variance of each feature, plus epsilon
        rows = list(range(stats.n_features))
        return [
            ParameterBlock("mean μ", r"\mu_{j,y}", rows, np.asarray(d["theta"], dtype=np.float64)),
            ParameterBlock("variance σ²", r"\sigma^2_{j,y}", rows, np.asarray(d["var"])),
        ]

    def joint_log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        """log P(y) + log P(x | y). A feature of zero variance in a class (no smoothing:
        ``var_smoothing=0``, or every feature constant) is a point mass there: impossible
        off its value, and at it a density without bound. Classes are then compared as
        the limit of variances shrinking alike (each mass N(μ, ε), ε -> 0): the classes
        matching the most masses at x win (the rest get -inf), and among them the other
        features and the prior decide, by the finite part given here (the infinite factor,
        the same for each, left out). Before, every class matching a mass got +inf, and the
        tie was shared evenly whatever the other features and the prior said."""
        X = np.asarray(X, dtype=np.float64)
        theta, var = d["theta"], d["var"]
        out = np.empty((X.shape[0], len(theta)))
        masses = np.zeros((X.shape[0], len(theta)), dtype=np.int64)  # masses x is at
        for i in range(len(theta)):
            if not d["seen"][i]:
                out[:, i] = -np.inf
                continue
            point = var[i, :] <= 0
            if point.any():
                out[:, i], masses[:, i] = self._with_point_masses(X, theta[i], var[i], point)
            else:
                n_ij = -0.5 * np.sum(np.log(2.0 * np.pi * var[i, :]))
                n_ij = n_ij - 0.5 * np.sum(((X - theta[i, :]) ** 2) / var[i, :], axis=1)
                out[:, i] = n_ij
            out[:, i] += d["class_log_prior"][i]
        most = masses.max(axis=1, keepdims=True)
        return np.where(masses == most, out, -np.inf)

    @staticmethod
    def _with_point_masses(
        X: np.ndarray, theta: np.ndarray, var: np.ndarray, point: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """One class's finite part of log P(x | y) (its features of non-zero variance;
        -inf off a mass) and the number of its masses x is at (0 off one)."""
        miss = (X[:, point] != theta[point]).any(axis=1)
        rest = ~point
        finite = -0.5 * np.sum(np.log(2.0 * np.pi * var[rest])) - 0.5 * np.sum(
            ((X[:, rest] - theta[rest]) ** 2) / var[rest], axis=1
        )
        return np.where(miss, -np.inf, finite), np.where(miss, 0, int(point.sum()))

    reads = True

    def readings(self, d: Derived, x: np.ndarray) -> list[list[str]] | None:
        """``N(3 | μ = 2, σ² = 1) = 0.242`` per class and feature (the notes' densities)."""
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        density = np.exp(self.feature_terms(d, x))
        theta, var = np.asarray(d["theta"]), np.asarray(d["var"])
        return [
            [
                f"N({x[j]:.4g} | μ = {theta[c, j]:.4g}, σ² = {var[c, j]:.4g}) = {density[c, j]:.3g}"
                for j in range(len(x))
            ]
            for c in range(theta.shape[0])
        ]

    def feature_log_density(self, d: Derived, X: Any) -> FloatArray:
        x = np.asarray(X, dtype=np.float64)[:, None, :]
        seen = d["seen"][:, None]
        var = d["var"]
        point = var <= 0
        # a variance at the float floor (MixedNB's constant columns): its density at the
        # mean, and 0 off it (x - mean squared over it overflowed, and the model's scoring
        # said to rescale the features)
        floor = ~point & (var <= _TINY)
        safe = np.where(point | floor | ~seen, 1.0, var)
        terms = -0.5 * np.log(2.0 * np.pi * safe) - 0.5 * (x - d["theta"]) ** 2 / safe
        at_mean = x == d["theta"]
        terms = np.where(point, np.where(at_mean, np.inf, -np.inf), terms)
        terms = np.where(
            floor, np.where(at_mean, -0.5 * np.log(2.0 * np.pi * _TINY), -np.inf), terms
        )
        return np.asarray(np.where(seen, terms, -np.inf), dtype=np.float64)

    def value_range(self, d: Derived, j: int) -> tuple[float, float]:
        """An interval holding nearly all of feature j in every class (4 standard deviations
        either side of the means)."""
        theta, sd = d["theta"][:, j], np.sqrt(d["var"][:, j])
        return float(np.min(theta - 4 * sd)), float(np.max(theta + 4 * sd))

    def sample(
        self, d: Derived, stats: MomentStats, codes: np.ndarray, rng: np.random.Generator
    ) -> Any:
        return rng.normal(d["theta"][codes], np.sqrt(d["var"][codes]))

    def n_parameters(self, stats: MomentStats, full_joint: bool, doc_length: int | None) -> float:
        C, d = len(stats.classes), stats.n_features
        if full_joint:
            # one multivariate normal per class: mean and a full covariance matrix
            return C * (d + d * (d + 1) // 2) + C - 1
        return 2 * C * d + C - 1

    def separation(
        self, d: Derived, among: np.ndarray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        """Largest standardised gap between two class means; the class with the larger mean."""
        seen = d["seen"] if among is None else d["seen"] & among
        theta, var = d["theta"][seen], d["var"][seen]
        if len(theta) < 2:
            return np.zeros(theta.shape[1]), np.zeros(theta.shape[1], dtype=int)
        gaps = np.abs(theta[:, None, :] - theta[None, :, :])
        scale = np.sqrt((var[:, None, :] + var[None, :, :]) / 2)
        score = (gaps / scale).max(axis=(0, 1))
        best = np.flatnonzero(seen)[theta.argmax(axis=0)]
        return score, best
