"""Categorical features: each feature takes one of K_j values with P(x_j = k | y).

A category never seen in training gets the smoothed zero count,
alpha / (n_jy + alpha·K_j), instead of an IndexError.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._statistics import CategoryStats
from ._base import Derived, Family, ParameterBlock
from ._common import Factor, FloatArray, as_fraction, check_alpha, class_log_prior, log
from .multinomial import as_int


def category_index(stats: CategoryStats, X: np.ndarray) -> np.ndarray:
    """Column index of each value of X in its feature's categories; K_j for an unseen one."""
    out = np.empty(X.shape, dtype=np.int64)
    for j, cats in enumerate(stats.categories):
        col = X[:, j]
        k = len(cats)
        if stats.integer_coded:
            # a code beyond the known ones (however large: 1e308 too) is unseen, index k
            idx = np.where((col < 0) | (col >= k), k, col).astype(np.int64)
        else:
            try:
                pos = np.searchsorted(cats, col)
            except TypeError:  # (it crashed deep in numpy: "'<' not supported ...")
                raise CategoryTypeError(j, col, cats) from None
            pos = np.minimum(pos, max(k - 1, 0))
            found = (k > 0) & (cats[pos] == col) if k else np.zeros(len(col), dtype=bool)
            idx = np.where(found, pos, k)
        out[:, j] = idx
    return out


def _reads_as(kind: type, value: Any) -> bool:
    """Whether ``kind(value)`` reads ``value`` (``int("1")``: yes; ``int("oops")``: no)."""
    try:
        kind(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


class CategoryTypeError(ValueError):
    """Values of a categorical feature of another type than its categories learnt (a str
    "oops" where the categories are numbers): they cannot be looked up among them."""

    def __init__(self, feature: int, values: np.ndarray, categories: np.ndarray) -> None:
        cats = categories.tolist()
        learnt = sorted({type(c).__name__ for c in cats})
        others = [v for v in values.tolist() if type(v).__name__ not in learnt] or [values[0]]
        # the first that is no category's type written otherwise ("oops" rather than the
        # "1" of a column read as text because of it)
        odd = next((v for v in others if not _reads_as(type(cats[0]), v)), others[0])
        self.feature = feature
        self.detail = (
            f"holds {odd!r} ({type(odd).__name__}), but its categories learnt are "
            f"{' and '.join(learnt)} (such as {cats[0]!r}): give its values as "
            f"{learnt[0]}, as in training"
        )
        super().__init__(f"Feature {feature} {self.detail}.")


class CategoricalFamily(Family):
    name = "categorical"
    exact_supported = True

    def value_labels(self, stats: Any, names: list[str], x: np.ndarray) -> list[str] | None:
        """``outlook = sunny`` under P(outlook = sunny | y), ``outlook = snow (unseen)``
        under the smoothed share of a category no class saw (the notes' P(x_j = k | y))."""
        out = []
        for name, v, cats in zip(names, np.asarray(x, dtype=object).tolist(), stats.categories,
                                 strict=True):  # fmt: skip
            try:
                seen = bool(np.any(cats == v))
            except (TypeError, ValueError):
                seen = False
            out.append(f"{name} = {v}" if seen else f"{name} = {v} (unseen)")
        return out

    def derive(self, stats: CategoryStats, p: dict[str, Any]) -> Derived:
        alpha = float(check_alpha(p["alpha"], p["force_alpha"], stats.n_features))
        flp, unseen = [], []
        for cc in stats.category_count:
            smoothed = cc + alpha
            total = log(smoothed.sum(axis=1, keepdims=True))
            with np.errstate(invalid="ignore"):
                lp = log(smoothed) - total
                lu = log(alpha) - total
            flp.append(np.where(np.isnan(lp), -np.inf, lp))
            unseen.append(np.where(np.isnan(lu), -np.inf, lu))
        return {
            "alpha": alpha,
            "feature_log_prob": flp,
            # one extra column per feature: the log-probability of an unseen category
            "extended": [np.hstack([f, u]) for f, u in zip(flp, unseen, strict=True)],
            "class_log_prior": class_log_prior(stats.class_count, p["fit_prior"], p["class_prior"]),
            "stats": stats,
        }

    def joint_log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        idx = category_index(d["stats"], X)
        jll = np.zeros((X.shape[0], len(d["class_log_prior"])))
        for j, ext in enumerate(d["extended"]):
            jll += ext[:, idx[:, j]].T
        return jll + d["class_log_prior"]

    def feature_log_density(self, d: Derived, X: Any) -> FloatArray:
        X = np.asarray(X)
        idx = category_index(d["stats"], X)
        out = np.empty((X.shape[0], len(d["class_log_prior"]), len(d["extended"])))
        for j, ext in enumerate(d["extended"]):
            out[:, :, j] = ext[:, idx[:, j]].T
        return out

    def exact_factors(
        self, stats: CategoryStats, p: dict[str, Any], x: np.ndarray
    ) -> list[list[Factor]]:
        alpha = as_fraction(p["alpha"])
        idx = category_index(stats, x.reshape(1, -1))[0]
        out = []
        for c in range(len(stats.classes)):
            row = []
            for j, (cc, k) in enumerate(zip(stats.category_count, idx, strict=True)):
                n_k = as_int(cc[c, k]) if k < cc.shape[1] else 0
                total = as_int(cc[c].sum())
                row.append(Factor(j, n_k + alpha, total + alpha * cc.shape[1], reduced=alpha != 0))
            out.append(row)
        return out

    def parameters(
        self, stats: CategoryStats, p: dict[str, Any], d: Derived
    ) -> list[ParameterBlock]:
        # P(x_j = k | y) = (rows of y with category k + alpha) / (rows of y + K_j alpha)
        features: list[int] = []
        levels: list[Any] = []
        counts, totals, values, ks = [], [], [], []
        for j, (cc, cats) in enumerate(zip(stats.category_count, stats.categories, strict=True)):
            n_k = cc.shape[1]
            features += [j] * n_k
            levels += np.asarray(cats).tolist()[:n_k]
            ks += [n_k] * n_k
            counts.append(cc)
            totals.append(np.repeat(cc.sum(axis=1, keepdims=True), n_k, axis=1))
            values.append(np.exp(d["feature_log_prob"][j]))
        n = len(stats.classes)

        def stack(a: list[Any]) -> Any:
            return np.hstack(a) if a else np.zeros((n, 0))

        return [
            ParameterBlock(
                "P(x_j = k | y)", r"P(x_j = k \mid y)", features, stack(values), levels=levels,
                counts=stack(counts), totals=stack(totals), alpha=as_fraction(p["alpha"]), k=ks,
            )
        ]  # fmt: skip

    def sample(
        self, d: Derived, stats: CategoryStats, codes: np.ndarray, rng: np.random.Generator
    ) -> Any:
        n = len(codes)
        columns = []
        for flp, cats in zip(d["feature_log_prob"], stats.categories, strict=True):
            prob = np.exp(flp)
            col = np.empty(n, dtype=cats.dtype if len(cats) else np.int64)
            for c in np.unique(codes):
                rows = np.flatnonzero(codes == c)
                pc = prob[c]
                pc = pc / pc.sum() if pc.sum() > 0 else np.full(len(pc), 1 / max(len(pc), 1))
                col[rows] = cats[rng.choice(len(cats), size=len(rows), p=pc)]
            columns.append(col)
        if stats.integer_coded:
            return np.column_stack(columns).astype(np.int64) if columns else np.zeros((n, 0))
        out = np.empty((n, len(columns)), dtype=object)
        for j, col in enumerate(columns):
            out[:, j] = col
        return out

    def n_parameters(self, stats: CategoryStats, full_joint: bool, doc_length: int | None) -> float:
        C = len(stats.classes)
        levels = [max(len(c), 1) for c in stats.categories]
        if full_joint:
            return C * (math.prod(levels) - 1) + C - 1
        return C * sum(k - 1 for k in levels) + C - 1

    def separation(
        self, d: Derived, among: np.ndarray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        if among is not None:
            kept = np.flatnonzero(among)
            if len(kept) == 0:
                n = len(d["feature_log_prob"])
                return np.zeros(n), np.zeros(n, dtype=int)
            part, picked = self.separation(
                {"feature_log_prob": [f[kept] for f in d["feature_log_prob"]]}
            )
            return part, kept[picked]
        scores, best = [], []
        for flp in d["feature_log_prob"]:
            if flp.shape[1] == 0:
                scores.append(0.0)
                best.append(0)
                continue
            with np.errstate(invalid="ignore"):
                spread = flp.max(axis=0) - flp.min(axis=0)
            spread = np.where(np.isnan(spread), 0.0, spread)
            k = int(np.argmax(spread))
            scores.append(float(spread[k]))
            best.append(int(np.argmax(flp[:, k])))
        return np.asarray(scores), np.asarray(best)
