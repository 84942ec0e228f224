"""Multivariate Bernoulli event model: every vocabulary word is present or absent.

Absent features count: log P(x | y) = sum_j x_j log theta_jy + (1 - x_j) log(1 - theta_jy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._statistics import CountStats
from ._base import Derived, Family, ParameterBlock, exact_alpha_of, log_range
from ._common import (
    Factor,
    FloatArray,
    as_fraction,
    check_alpha,
    class_log_prior,
    log,
    log_dot,
)
from .multinomial import as_int, exact_alpha


class BernoulliFamily(Family):
    name = "bernoulli"
    exact_supported = True
    presence = True

    def linear_form(
        self, d: Derived, cols: np.ndarray | None = None
    ) -> tuple[FloatArray, FloatArray] | None:
        flp = d["feature_log_prob"] if cols is None else d["feature_log_prob"][:, cols]
        prior = np.asarray(d["class_log_prior"], dtype=np.float64)
        neg = d["neg_log_prob"]
        neg_cols = neg if cols is None else neg[:, cols]
        absent = neg.sum(axis=1)  # finite when every log(1 - P) is
        if not np.isfinite(absent).all():
            return None
        # written transposed in one pass (not a difference, then its transposed copy);
        # finite exactly when both log-probabilities are (log P is never +inf)
        with np.errstate(invalid="ignore"):
            W = np.subtract(flp.T, neg_cols.T, order="C")
        if not np.isfinite(W).all():
            return None
        return W, prior + absent

    def derive(self, stats: CountStats, p: dict[str, Any]) -> Derived:
        alpha = check_alpha(p["alpha"], p["force_alpha"], stats.n_features)
        fc, cc = stats.feature_count, stats.class_count[:, None]
        denominator = log(cc + 2 * alpha)
        # Two C x V arrays made in C order (sum(neg): see row_major) and then worked on in
        # place: each new array of a 20-class bigram model is 190 MB of fresh pages, and
        # the expression form made ten of them (1.1 s of a loaded model's first predict).
        flp = np.add(fc, alpha, dtype=np.float64, order="C")
        # log(1 - theta) straight from the counts: exact where theta is close to 1.
        neg = np.subtract(cc, fc, dtype=np.float64, order="C")
        neg += alpha
        # fractional weights can leave cc - fc a rounding below 0: log(0), not NaN
        np.maximum(neg, 0.0, out=neg)
        with np.errstate(divide="ignore", invalid="ignore"):  # log 0; 0/0 just below
            np.log(flp, out=flp)
            np.log(neg, out=neg)
            flp -= denominator
            neg -= denominator
        if not np.isfinite(denominator).all():  # a class never seen, unsmoothed: 0/0
            for a in (flp, neg):
                np.copyto(a, -np.inf, where=np.isnan(a))  # it can explain nothing
        return {
            "alpha": alpha,
            "feature_log_prob": flp,
            "neg_log_prob": neg,
            "class_log_prior": class_log_prior(stats.class_count, p["fit_prior"], p["class_prior"]),
        }

    def joint_log_likelihood(self, d: Derived, X: Any) -> FloatArray:
        flp, neg = d["feature_log_prob"], d["neg_log_prob"]
        if np.isfinite(flp).all() and np.isfinite(neg).all():
            # neg · (1 - X)^T computed as sum(neg) - X · neg^T, as scikit-learn does
            jll = np.asarray(X @ (flp - neg).T, dtype=np.float64)
            return jll + d["class_log_prior"] + neg.sum(axis=1)
        # Unsmoothed: a present feature with theta = 0 or an absent one with theta = 1
        # makes the row impossible for that class.
        present = log_dot(X, flp)
        flip = np.where(np.isfinite(neg), neg, 0.0)
        absent_impossible = (neg == -np.inf).astype(np.float64)
        n_absent_bad = absent_impossible.sum(axis=1) - np.asarray(X @ absent_impossible.T)
        jll = present - np.asarray(X @ flip.T) + flip.sum(axis=1)
        jll = np.where(n_absent_bad > 0, -np.inf, jll)
        return jll + d["class_log_prior"]

    def feature_log_density(self, d: Derived, X: Any) -> FloatArray:
        present = np.asarray(X, dtype=np.float64)[:, None, :] > 0
        terms = np.where(present, d["feature_log_prob"], d["neg_log_prob"])
        return np.asarray(terms, dtype=np.float64)

    def exact_factors(
        self, stats: CountStats, p: dict[str, Any], x: np.ndarray
    ) -> list[list[Factor]]:
        # every vocabulary word is a factor (absent ones too); their fractions repeat (a
        # few distinct counts), so each distinct numerator is made once per class
        V = stats.n_features
        scalar = np.ndim(p["alpha"]) == 0
        alpha = exact_alpha(p["alpha"], V) if not scalar else None
        a0 = as_fraction(float(p["alpha"])) if scalar else None
        present = (np.asarray(x) > 0).tolist()
        out = []
        for c in range(len(stats.classes)):
            n_c = as_int(stats.class_count[c])
            seen = np.rint(np.asarray(stats.feature_count[c], dtype=np.float64)).tolist()
            row = []
            if a0 is not None:
                den = n_c + 2 * a0
                made: dict[int, Any] = {}
                for j, (k, here) in enumerate(zip(seen, present, strict=True)):
                    num = int(k) if here else n_c - int(k)
                    frac = made.get(num)
                    if frac is None:
                        frac = made[num] = num + a0
                    row.append(Factor(j, frac, den, reduced=a0 != 0))
            else:
                assert alpha is not None
                for j, (k, here) in enumerate(zip(seen, present, strict=True)):
                    num = int(k) if here else n_c - int(k)
                    row.append(Factor(j, num + alpha[j], n_c + 2 * alpha[j], reduced=alpha[j] != 0))
            out.append(row)
        return out

    def parameters(self, stats: CountStats, p: dict[str, Any], d: Derived) -> list[ParameterBlock]:
        # theta_jy = (documents of class y with word j + alpha) / (documents of y + 2 alpha)
        V = stats.n_features
        return [
            ParameterBlock(
                "P(x_j = 1 | y)", r"P(x_j = 1 \mid y)", list(range(V)),
                np.exp(d["feature_log_prob"]), counts=stats.feature_count,
                totals=stats.class_count, alpha=exact_alpha_of(p["alpha"], V), k=2,
            )
        ]  # fmt: skip

    def sample(
        self, d: Derived, stats: CountStats, codes: np.ndarray, rng: np.random.Generator
    ) -> Any:
        theta = np.exp(d["feature_log_prob"])[codes]
        return (rng.random(theta.shape) < theta).astype(np.float64)

    def n_parameters(self, stats: CountStats, full_joint: bool, doc_length: int | None) -> float:
        C, d = len(stats.classes), stats.n_features
        if full_joint:
            return C * (2**d - 1) + C - 1
        return C * d + C - 1

    def separation(
        self, d: Derived, among: np.ndarray | None = None
    ) -> tuple[FloatArray, np.ndarray]:
        return log_range(d["feature_log_prob"], among)
