"""Gaussian kernel density per class and feature, from the stored points, with point masses.

**Point masses.** With ``point_mass`` set (KernelNB's default; MixedNB's kde columns leave it
None), a stored value of feature j whose weight over all classes is at least 2 (it repeats;
sample weights are frequency weights) and more than ``point_mass`` of the feature's total
weight is a point mass ``m_k`` (only for exact features: a binned feature has none). The
rule reads the statistics alone, so it is the same after merge, update and unlearn as after
a fit on the same rows. With ``n_yk`` the weight of ``m_k`` in class y, ``n_y`` the class's
weight of the feature and K masses, class y gives

* at a mass: ``log P(x = m_k | y) = log((n_yk + 1) / (n_y + K + 1))``,
* elsewhere: ``log((r_y + 1) / (n_y + K + 1)) + log f_y(x)``, ``r_y`` the weight of its
  other values and ``f_y`` their kernel density (below).

The pseudo-count 1 (Laplace's rule over the K masses and "elsewhere") keeps a mass that a
class never showed from vetoing that class. A class with no value outside the masses takes
the shape of ``f_y`` from the other values of all classes; a feature with no value outside
its masses uses the kernels of all its points for ``f_y``.

**Kernel density.** ``f_y(x) = sum_i w_i N(x; v_i, h_jy^2) / sum_i w_i`` over the stored
points ``v_i`` outside the masses (bin centres in binned mode) with their weights ``w_i`` in
class y.

Bandwidth ``h_jy``: a float is used as is; "scott" is ``n^(-1/5)·sigma``, "silverman"
``(3n/4)^(-1/5)·sigma`` and "robust" ``0.9·n^(-1/5)·min(sigma, IQR/1.349)`` (Silverman's
rule of thumb, R's ``bw.nrd0``), where ``n`` is the class's weight of those points (sample
weights are frequency weights: a weight of 2 is a repeated row; for unit weights "scott" and
"silverman" are scipy.stats.gaussian_kde's rules), ``sigma`` their weighted standard
deviation (ddof=1) and IQR their weighted interquartile range (numpy's linear quantiles for
unit weights; "robust" falls back to ``sigma`` when the IQR is 0). A class whose points do
not vary (one point, or one value) takes its spread from the points of all classes
together; a feature with a single value in all the data gets ``h = 1`` (it carries no
evidence either way).

A class with rows but no observed value of a feature (possible with missing values in
``MixedNB``) uses the points of all classes for that feature; a missing value (NaN) at
prediction contributes nothing.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import logsumexp

from .._statistics.points import PointStats
from ._base import Derived, Family
from ._common import FloatArray, log
from .gaussian import check_priors

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
# cells (rows x stored points) evaluated at once: bounds the memory of a prediction
_CHUNK_CELLS = 2_000_000
# pseudo-count added to each point mass and to "elsewhere" (Laplace's rule)
MASS_ALPHA = 1.0


def bandwidth_factor(rule: str, n: FloatArray) -> FloatArray:
    """Scott's ``n^(-1/5)``, Silverman's ``(3n/4)^(-1/5)`` or the rule of thumb's
    ``0.9·n^(-1/5)`` ("robust"), in one dimension."""
    n = np.maximum(n, 1.0)
    if rule == "robust":
        return np.asarray(0.9 * n ** (-0.2), dtype=np.float64)
    if rule == "scott":
        return np.asarray(n ** (-0.2), dtype=np.float64)
    return np.asarray((n * 0.75) ** (-0.2), dtype=np.float64)


def _weighted_std(points: FloatArray, w: FloatArray) -> float:
    n = float(w.sum())
    if n <= 1 or len(points) < 2:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        mean = float(w @ points) / n
        var = float(w @ (points - mean) ** 2) / (n - 1)
        if not math.isfinite(var):  # large values and weights: the same, in shares of n
            q = w / n
            mean = float(q @ points)
            var = float(q @ (points - mean) ** 2) * (n / (n - 1))
    return math.sqrt(max(var, 0.0))


def _weighted_quantiles(points: FloatArray, w: FloatArray, q: FloatArray) -> FloatArray:
    """Quantiles ``q`` of the points (sorted) under frequency weights ``w``: the inverse of
    the weighted distribution function, interpolated linearly (for unit weights, numpy's
    default "linear" method)."""
    keep = w > 0
    p, cw = points[keep], np.cumsum(w[keep])
    # the k-th of n frequency-weighted rows sits at rank k - 1 (0-based)
    ranks = q * max(float(cw[-1]) - 1.0, 0.0)
    below = np.floor(ranks)
    lo = np.minimum(np.searchsorted(cw, below + 1.0), len(p) - 1)
    hi = np.minimum(np.searchsorted(cw, below + 2.0), len(p) - 1)
    frac = ranks - below
    return np.asarray(p[lo] + frac * (p[hi] - p[lo]), dtype=np.float64)


def _spread(rule: str, points: FloatArray, w: FloatArray) -> float:
    """The ``sigma`` of a bandwidth rule: the standard deviation, or for "robust"
    ``min(std, IQR / 1.349)`` (the IQR of a normal is 1.349 sigma)."""
    std = _weighted_std(points, w)
    if rule != "robust" or std <= 0:
        return std
    q1, q3 = _weighted_quantiles(points, w, np.array([0.25, 0.75]))
    iqr = (q3 - q1) / 1.349
    return min(std, iqr) if iqr > 0 else std


def point_masses(pooled: FloatArray, point_mass: float | None) -> np.ndarray:
    """Which stored values of a feature are point masses (see the module docstring): a
    value of weight at least 2 (it repeats) holding more than ``point_mass`` of the
    feature's weight, all classes together."""
    if point_mass is None or len(pooled) == 0:
        return np.zeros(len(pooled), dtype=bool)
    return np.asarray((pooled >= 2.0) & (pooled > point_mass * pooled.sum()))


def _mixture(
    wj: FloatArray, is_mass: np.ndarray
) -> tuple[FloatArray, FloatArray, np.ndarray, FloatArray]:
    """The smoothed log-probabilities of the masses (C, K) and of "elsewhere" (C,), which
    stored points carry the kernel density elsewhere, and their weights per class."""
    C = wj.shape[0]
    if not is_mass.any():
        return np.zeros((C, 0)), np.zeros(C), np.ones(wj.shape[1], dtype=bool), wj
    rest = wj[:, ~is_mass]
    r = rest.sum(axis=1)
    denom = log(wj.sum(axis=1) + MASS_ALPHA * (int(is_mass.sum()) + 1))
    log_mass = log(wj[:, is_mass] + MASS_ALPHA) - denom[:, None]
    log_rest = log(r + MASS_ALPHA) - denom
    pooled_rest = rest.sum(axis=0)
    if pooled_rest.sum() <= 0:  # every value is a mass: the kernels of all the points
        all_points = np.ones(wj.shape[1], dtype=bool)
        return log_mass, log_rest, all_points, np.tile(wj.sum(axis=0), (C, 1))
    shape = rest.copy()
    shape[r <= 0] = pooled_rest
    return log_mass, log_rest, ~is_mass, shape


def derive_kde(
    stats: PointStats, bandwidth: Any, point_mass: float | None = None
) -> dict[str, Any]:
    """Per feature: the point masses and their log-probabilities per class, the kernel
    points elsewhere, their log-weights per class (normalised) and bandwidths."""
    C = len(stats.classes)
    pts, logw, bw, means, stds, masses, logm, logr = [], [], [], [], [], [], [], []
    for j in range(stats.n_features):
        p = stats.points(j)
        w = stats.weights[j]
        pooled = w.sum(axis=0)
        wj = w.copy()
        unobserved = w.sum(axis=1) <= 0
        wj[unobserved] = pooled
        is_mass = point_masses(pooled, point_mass if stats.widths[j] == 0 else None)
        log_mass, log_rest, kernel, kw = _mixture(wj, is_mass)
        kp = p[kernel]
        n = kw.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            lw = log(kw) - log(n)[:, None]
        lw = np.where(np.isnan(lw), -np.inf, lw)
        if isinstance(bandwidth, str):
            kstd = np.array([_spread(bandwidth, kp, kw[c]) for c in range(C)])
            sigma = np.where(kstd > 0, kstd, _spread(bandwidth, kp, pooled[kernel]))
            h = bandwidth_factor(bandwidth, n) * sigma
            if not np.isfinite(h).all():  # squares of values near 1e308 exceed float64
                raise ValueError(
                    f"The statistics of KernelNB overflowed: the spread of feature {j} is no "
                    "longer finite because its values are too large for float64 arithmetic "
                    "(near 1e308). Rescale the features (e.g. divide them by a power of "
                    "ten), or pass a numeric bandwidth."
                )
            h = np.where(h > 0, h, 1.0)
        else:
            h = np.full(C, float(bandwidth))
        total = wj.sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(total > 0, (wj @ p) / total, 0.0) if len(p) else np.zeros(C)
            if not np.isfinite(mean).all():  # large values and weights: in shares of total
                mean = np.where(total > 0, (wj / total[:, None]) @ p, 0.0)
        pts.append(kp)
        logw.append(lw)
        bw.append(h)
        means.append(mean)
        stds.append(np.array([_weighted_std(p, wj[c]) for c in range(C)]))
        masses.append(p[is_mass])
        logm.append(log_mass)
        logr.append(log_rest)
    return {
        "points": pts,
        "log_weight": logw,
        "mass_values": masses,
        "log_mass": logm,
        "log_rest": np.column_stack(logr) if logr else np.zeros((C, 0)),
        "bandwidth": np.column_stack(bw) if bw else np.ones((C, 0)),
        "mean": np.column_stack(means) if means else np.zeros((C, 0)),
        "std": np.column_stack(stds) if stds else np.zeros((C, 0)),
        "observed": stats.feature_count() > 0 if stats.n_features else np.zeros((C, 0), bool),
    }


def _at_mass(masses: FloatArray, col: FloatArray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``col`` exactly at a point mass, and the index of that mass."""
    if len(masses) == 0:
        return np.zeros(len(col), dtype=bool), np.zeros(len(col), dtype=np.int64)
    pos = np.minimum(np.searchsorted(masses, col), len(masses) - 1)
    return masses[pos] == col, pos


def kde_log_density(d: Derived, X: FloatArray) -> FloatArray:
    """log p(x_j | y) per row, class and feature, shape (n, n_classes, n_features): the log
    mass probability at a point mass, else log((1 - mass share) x kernel density); 0 for
    NaN (and for a feature no class ever observed)."""
    X = np.asarray(X, dtype=np.float64)
    n, n_features = X.shape
    C = d["bandwidth"].shape[0]
    out = np.zeros((n, C, n_features))
    for j in range(n_features):
        p = d["points"][j]
        if len(p) == 0:
            continue
        col = X[:, j]
        present = ~np.isnan(col)
        at, which = _at_mass(d["mass_values"][j], col)
        at &= present
        out[at, :, j] = d["log_mass"][j][:, which[at]].T
        elsewhere = np.flatnonzero(present & ~at)
        step = max(1, _CHUNK_CELLS // len(p))
        for c in range(C):
            h = float(d["bandwidth"][c, j])
            lw = d["log_weight"][j][c]
            live = np.isfinite(lw)
            pc, lwc = p[live], lw[live]
            if len(pc) == 0:
                out[elsewhere, c, j] = -np.inf
                continue
            for start in range(0, len(elsewhere), step):
                rows = elsewhere[start : start + step]
                # a point more than ~1e154 bandwidths away: its kernel is exactly 0 (the
                # square overflows to inf, exp(-inf) = 0), not an error
                with np.errstate(over="ignore"):
                    z = (col[rows, None] - pc[None, :]) / h
                    out[rows, c, j] = logsumexp(lwc - 0.5 * z * z, axis=1) - math.log(h)
            out[elsewhere, c, j] += d["log_rest"][c, j] - _LOG_SQRT_2PI
        if len(elsewhere) and np.isneginf(out[elsewhere, :, j]).all(axis=1).any():
            # a value so far from every stored point that no class has a density there:
            # the arithmetic overflowed (the caller's advice: rescale)
            raise FloatingPointError(f"overflow in the kernel densities of feature {j}")
    return out


class KernelFamily(Family):
    """Gaussian KDE per class and feature (see the module docstring)."""

    name = "kde"

    def derive(self, stats: PointStats, p: dict[str, Any]) -> Derived:
        d = derive_kde(stats, p["bandwidth"], p.get("point_mass"))
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
        pts = np.concatenate([d["points"][j], d["mass_values"][j]])
        h = float(np.max(d["bandwidth"][:, j]))
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
    """Draw from each row's class distribution: a point mass with its probability, else a
    stored point of the kernel density plus Gaussian noise of width h."""
    n_features = len(d["points"])
    X = np.zeros((len(codes), n_features))
    for j in range(n_features):
        p, masses = d["points"][j], d["mass_values"][j]
        for c in np.unique(codes):
            rows = np.flatnonzero(codes == c)
            if len(p) == 0:
                X[rows, j] = np.nan
                continue
            prob = np.exp(d["log_weight"][j][c])
            prob = prob / prob.sum()
            pick = rng.choice(len(p), size=len(rows), p=prob)
            X[rows, j] = p[pick] + rng.normal(0.0, d["bandwidth"][c, j], size=len(rows))
            if len(masses):
                share = np.exp(np.append(d["log_mass"][j][c], d["log_rest"][c, j]))
                kind = rng.choice(len(share), size=len(rows), p=share / share.sum())
                at = kind < len(masses)
                X[rows[at], j] = masses[kind[at]]
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
