"""Gaussian kernel density per class and feature, from the stored points.

The density of feature j in class y is ``sum_i w_i N(x; v_i, h_jy^2) / sum_i w_i`` over the
stored points ``v_i`` (bin centres in binned mode) with their weights ``w_i`` in class y.

Bandwidth ``h_jy``: a float is used as is; "scott" is ``n^(-1/5)·sigma`` and "silverman"
``(3n/4)^(-1/5)·sigma``, where ``n`` is the class's weight of the feature (sample weights
are frequency weights: a weight of 2 is a repeated row; for unit weights this is
scipy.stats.gaussian_kde's rule) and ``sigma`` the weighted standard deviation (ddof=1) of
its points. A class whose points do not vary (one point, or one value) takes ``sigma`` from
the points of all classes together; a feature with a single value in all the data gets
``h = 1`` (it carries no evidence either way).

A class with rows but no observed value of a feature (possible with missing values in
``MixedNB``) uses the points of all classes for that feature; a missing value (NaN) at
prediction contributes nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import logsumexp

from .._kernel_stats import PointStats
from ._base import Derived, Family
from ._common import FloatArray, log
from .gaussian import check_priors

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
# cells (rows x stored points) evaluated at once: bounds the memory of a prediction
_CHUNK_CELLS = 2_000_000


def bandwidth_factor(rule: str, n: FloatArray) -> FloatArray:
    """Scott's ``n^(-1/5)`` or Silverman's ``(3n/4)^(-1/5)`` (one dimension)."""
    n = np.maximum(n, 1.0)
    if rule == "scott":
        return np.asarray(n ** (-0.2), dtype=np.float64)
    return np.asarray((n * 0.75) ** (-0.2), dtype=np.float64)


def _weighted_std(points: FloatArray, w: FloatArray) -> float:
    n = float(w.sum())
    if n <= 1 or len(points) < 2:
        return 0.0
    mean = float(w @ points) / n
    return math.sqrt(max(float(w @ (points - mean) ** 2) / (n - 1), 0.0))


def derive_kde(stats: PointStats, bandwidth: Any) -> dict[str, Any]:
    """Per feature: the points, their log-weights per class (normalised) and bandwidths."""
    C = len(stats.classes)
    pts, logw, bw, means, stds = [], [], [], [], []
    for j in range(stats.n_features):
        p = stats.points(j)
        w = stats.weights[j]
        pooled = w.sum(axis=0)
        pooled_std = _weighted_std(p, pooled)
        wj = w.copy()
        unobserved = w.sum(axis=1) <= 0
        wj[unobserved] = pooled
        n = wj.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            lw = log(wj) - log(n)[:, None]
        lw = np.where(np.isnan(lw), -np.inf, lw)
        std = np.array([_weighted_std(p, wj[c]) for c in range(C)])
        if isinstance(bandwidth, str):
            sigma = np.where(std > 0, std, pooled_std)
            h = bandwidth_factor(bandwidth, n) * sigma
            h = np.where(h > 0, h, 1.0)
        else:
            h = np.full(C, float(bandwidth))
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(n > 0, (wj @ p) / n, 0.0) if len(p) else np.zeros(C)
        pts.append(p)
        logw.append(lw)
        bw.append(h)
        means.append(mean)
        stds.append(std)
    return {
        "points": pts,
        "log_weight": logw,
        "bandwidth": np.column_stack(bw) if bw else np.ones((C, 0)),
        "mean": np.column_stack(means) if means else np.zeros((C, 0)),
        "std": np.column_stack(stds) if stds else np.zeros((C, 0)),
        "observed": stats.feature_count() > 0 if stats.n_features else np.zeros((C, 0), bool),
    }


def kde_log_density(d: Derived, X: FloatArray) -> FloatArray:
    """log p(x_j | y) per row, class and feature, shape (n, n_classes, n_features); 0 for NaN
    (and for a feature no class ever observed)."""
    X = np.asarray(X, dtype=np.float64)
    n, n_features = X.shape
    C = d["bandwidth"].shape[0]
    out = np.zeros((n, C, n_features))
    for j in range(n_features):
        p = d["points"][j]
        if len(p) == 0:
            continue
        col = X[:, j]
        present = np.flatnonzero(~np.isnan(col))
        step = max(1, _CHUNK_CELLS // len(p))
        for c in range(C):
            h = float(d["bandwidth"][c, j])
            lw = d["log_weight"][j][c]
            live = np.isfinite(lw)
            pc, lwc = p[live], lw[live]
            if len(pc) == 0:
                out[present, c, j] = -np.inf
                continue
            for start in range(0, len(present), step):
                rows = present[start : start + step]
                z = (col[rows, None] - pc[None, :]) / h
                out[rows, c, j] = logsumexp(lwc - 0.5 * z * z, axis=1) - math.log(h)
            out[present, c, j] -= _LOG_SQRT_2PI
    return out


class KernelFamily(Family):
    """Gaussian KDE per class and feature (see the module docstring)."""

    name = "kde"

    def derive(self, stats: PointStats, p: dict[str, Any]) -> Derived:
        d = derive_kde(stats, p["bandwidth"])
        if p.get("priors") is not None:
            prior = check_priors(p["priors"], len(stats.classes))
        else:
            total = stats.class_count.sum()
            prior = stats.class_count / total if total > 0 else np.zeros(len(stats.classes))
        d["class_prior"] = prior
        d["class_log_prior"] = log(prior)
        d["seen"] = stats.class_count > 0
        return d

    def joint_log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        jll = kde_log_density(d, X).sum(axis=2) + d["class_log_prior"]
        jll[:, ~d["seen"]] = -np.inf
        return jll

    def feature_log_density(self, d: Derived, X: Any) -> FloatArray:
        terms = kde_log_density(d, X)
        terms[:, ~d["seen"]] = -np.inf
        return terms

    def value_range(self, d: Derived, j: int) -> tuple[float, float]:
        """The stored points of feature j, 3 bandwidths either side."""
        pts, h = d["points"][j], float(np.max(d["bandwidth"][:, j]))
        return float(pts.min() - 3 * h), float(pts.max() + 3 * h)

    def sample(
        self, d: Derived, stats: PointStats, codes: np.ndarray, rng: np.random.Generator
    ) -> Any:
        return sample_kde(d, codes, rng)

    def n_parameters(self, stats: PointStats, full_joint: bool, doc_length: int | None) -> float:
        if full_joint:
            return math.inf  # a density over the reals: no finite table
        C = len(stats.classes)
        return C * sum(len(v) for v in stats.values) + C - 1

    def separation(
        self, d: Derived, among: np.ndarray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        """Largest gap between two class means, in units of their pooled spread."""
        return kde_separation(d, d["seen"] if among is None else d["seen"] & among)


def sample_kde(d: Derived, codes: np.ndarray, rng: np.random.Generator) -> FloatArray:
    """Draw from each row's class density: a stored point, plus Gaussian noise of width h."""
    n_features = len(d["points"])
    X = np.zeros((len(codes), n_features))
    for j in range(n_features):
        p = d["points"][j]
        for c in np.unique(codes):
            rows = np.flatnonzero(codes == c)
            if len(p) == 0:
                X[rows, j] = np.nan
                continue
            prob = np.exp(d["log_weight"][j][c])
            prob = prob / prob.sum()
            pick = rng.choice(len(p), size=len(rows), p=prob)
            X[rows, j] = p[pick] + rng.normal(0.0, d["bandwidth"][c, j], size=len(rows))
    return X


def kde_separation(d: Derived, seen: np.ndarray) -> tuple[FloatArray, np.ndarray]:
    mean, std, h = d["mean"][seen], d["std"][seen], d["bandwidth"][seen]
    if len(mean) < 2:
        return np.zeros(mean.shape[1]), np.zeros(mean.shape[1], dtype=int)
    var = std**2 + h**2
    gaps = np.abs(mean[:, None, :] - mean[None, :, :])
    scale = np.sqrt((var[:, None, :] + var[None, :, :]) / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.nan_to_num(gaps / scale).max(axis=(0, 1))
    best = np.flatnonzero(seen)[mean.argmax(axis=0)]
    return score, best
