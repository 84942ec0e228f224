"""A new likelihood family in four parts: a zero-inflated Poisson.

Counts with more zeros than a Poisson allows (days without a purchase, e-mails without a
link): x = 0 with probability pi + (1 - pi) e^(-lambda), else a Poisson(lambda) count with
probability (1 - pi). What nbayes needs is its statistics, its family, its estimator and
one line in the registry of kinds (``register_kind(ZeroInflatedPoissonKind())``); MixedNB
(``columns={"visits": "zip"}``), ``nbayes train --model zip``, model files and
:func:`nbayes.plot.marginals` then take it without a change of theirs.

Run it: ``python examples/zero_inflated_poisson.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Self

import numpy as np
from scipy.special import gammaln

from nbayes._families import Family
from nbayes._families._base import log_range
from nbayes._families._common import class_log_prior
from nbayes._statistics import CountStats
from nbayes._statistics.base import PerClassStats
from nbayes._template import params as P
from nbayes._template.base import BaseNB
from nbayes.kinds import ArraysCodec, Kind, register_kind

__all__ = ["ZeroInflatedPoissonNB", "ZIPFamily", "ZIPStats", "ZeroInflatedPoissonKind"]


# ---------------------------------------------------------------------- the statistics
@dataclass(frozen=True, eq=False)
class ZIPStats(PerClassStats):
    """Per class: the rows, and per feature the sum of the counts and the rows at zero."""

    PER_CLASS: ClassVar[tuple[str, ...]] = ("class_count", "feature_count", "zero_count")
    classes: np.ndarray
    class_count: np.ndarray
    feature_count: np.ndarray
    zero_count: np.ndarray

    @classmethod
    def empty(cls, classes: np.ndarray, n_features: int) -> Self:
        n = len(classes)
        return cls(np.asarray(classes), np.zeros(n), np.zeros((n, n_features)),
                   np.zeros((n, n_features)))  # fmt: skip

    @classmethod
    def from_batch(cls, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Self:
        X = np.asarray(X, dtype=np.float64)
        sums = CountStats.from_batch(X, y, sample_weight)
        zeros = CountStats.from_batch((X == 0).astype(np.float64), y, sample_weight)
        return cls(sums.classes, sums.class_count, sums.feature_count, zeros.feature_count)

    @property
    def n_features(self) -> int:
        return int(self.feature_count.shape[1])

    def _parts(self) -> tuple[CountStats, CountStats]:
        return (CountStats(self.classes, self.class_count, self.feature_count),
                CountStats(self.classes, self.class_count, self.zero_count))  # fmt: skip

    @classmethod
    def _of(cls, sums: CountStats, zeros: CountStats) -> Self:
        return cls(sums.classes, sums.class_count, sums.feature_count, zeros.feature_count)

    def merge(self, other: ZIPStats) -> Self:
        (a, b), (c, d) = self._parts(), other._parts()
        return self._of(a.merge(c), b.merge(d))

    def subtract(self, other: ZIPStats) -> Self:
        (a, b), (c, d) = self._parts(), other._parts()
        return self._of(a.subtract(c), b.subtract(d))

    def is_integral(self) -> bool:
        return all(p.is_integral() for p in self._parts())


# -------------------------------------------------------------------------- the family
class ZIPFamily(Family):
    """Derivation: the smoothed share of zeros p0 and mean m of each feature and class;
    lambda solves m / (1 - p0) = lambda / (1 - e^-lambda), pi makes P(0) = p0."""

    name = "zip"

    def derive(self, stats: ZIPStats, p: dict[str, Any]) -> dict[str, Any]:
        a = float(p["alpha"])
        n = stats.class_count[:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            p0 = np.clip((stats.zero_count + a) / (n + 2 * a), 1e-12, 1 - 1e-12)
            mean = (stats.feature_count + a) / (n + 1.0)
            ratio = np.nan_to_num(mean / (1 - p0), nan=1.0)
        lam = np.maximum(ratio, 1e-6)
        for _ in range(200):  # the fixed point lambda = ratio (1 - e^-lambda)
            lam = np.maximum(ratio * -np.expm1(-lam), 1e-6)
        e0 = np.exp(-lam)
        pi = np.clip((p0 - e0) / (1 - e0), 0.0, 1.0 - 1e-12)
        return {
            "lam": lam,
            "pi": pi,
            "class_log_prior": class_log_prior(stats.class_count, p["fit_prior"], p["class_prior"]),
        }

    def feature_log_density(self, d: dict[str, Any], X: Any) -> np.ndarray:
        x = np.asarray(X, dtype=np.float64)[:, None, :]
        lam, pi = d["lam"], d["pi"]
        with np.errstate(divide="ignore", invalid="ignore"):
            zero = np.log(pi + (1 - pi) * np.exp(-lam))
            more = np.log1p(-pi) + x * np.log(lam) - lam - gammaln(x + 1)
        return np.asarray(np.where(x == 0, zero, more), dtype=np.float64)

    def joint_log_likelihood(self, d: dict[str, Any], X: Any) -> np.ndarray:
        return self.feature_log_density(d, X).sum(axis=2) + d["class_log_prior"]

    def value_range(self, d: dict[str, Any], j: int) -> tuple[float, float]:
        from scipy.stats import poisson

        return 0.0, float(poisson.ppf(0.995, d["lam"][:, j].max()))

    def sample(
        self, d: dict[str, Any], stats: Any, codes: np.ndarray, rng: np.random.Generator
    ) -> Any:
        x = rng.poisson(d["lam"][codes]).astype(np.float64)
        x[rng.random(x.shape) < d["pi"][codes]] = 0.0
        return x

    def n_parameters(self, stats: Any, full_joint: bool, doc_length: int | None) -> float:
        C, n = len(stats.classes), stats.n_features
        return math.inf if full_joint else 2 * C * n + C - 1

    def separation(
        self, d: dict[str, Any], among: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        return log_range(np.log(d["lam"] * (1 - d["pi"])), among)


# ----------------------------------------------------------------------- the estimator
@P.hyperparameters
class ZeroInflatedPoissonNB(BaseNB):
    """Naive Bayes with zero-inflated Poisson counts per feature.

    >>> clf = ZeroInflatedPoissonNB().fit([[0], [0], [0], [4], [5], [6]], list("aaabbb"))
    >>> clf.predict([[0], [5]]).tolist()
    ['a', 'b']
    """

    _family = ZIPFamily()
    _counts_only = True
    _accept_sparse = False
    _derivation_params = ("alpha", "fit_prior", "class_prior")
    _param_rules = {
        "alpha": [P.non_negative_real],
        "fit_prior": [P.boolean],
        "class_prior": [P.array_like, P.none],
    }

    alpha: float = 1.0
    fit_prior: bool = True
    class_prior: Any = None

    def _empty_stats(self, classes: np.ndarray, n_features: int) -> Any:
        return ZIPStats.empty(classes, n_features)

    def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
        return ZIPStats.from_batch(X, y, sample_weight)


# ------------------------------------------------------------------------ the registry
class ZeroInflatedPoissonKind(Kind):
    name = "zip"
    stats_type = ZIPStats
    values = "count"  # MixedNB reads a zip column as counts (numbers >= 0)
    codec = ArraysCodec(ZIPStats, ("feature_count", "zero_count"))
    estimator = ZeroInflatedPoissonNB

    def make_family(self) -> Family:
        return ZIPFamily()


register_kind(ZeroInflatedPoissonKind())


if __name__ == "__main__":
    import pandas as pd

    from nbayes.mixed import MixedNB

    rng = np.random.default_rng(0)
    visits = np.where(rng.random(400) < 0.6, 0, rng.poisson(3, 400))
    y = np.where(visits > 0, "buyer", "browser")
    df = pd.DataFrame({"visits": visits, "age": rng.normal(40, 10, 400)})
    model = MixedNB({"visits": "zip"}).fit(df, y)
    print(model.summary())
    print(f"accuracy on its own data: {model.score(df, y):.3f}")
