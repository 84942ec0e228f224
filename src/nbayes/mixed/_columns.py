"""The columns of MixedNB, each one likelihood family over its own statistics.

A column of kind ``k`` counts the statistics its family derives from and scores, samples
and ranks through that family's public methods (``derive``, ``feature_log_density``,
``log_likelihood``, ``sample``, ``separation``, ``n_parameters``): the math of a gaussian
column is :class:`~nbayes._families.gaussian.GaussianFamily`'s, of a text column
:class:`~nbayes._families.multinomial.MultinomialFamily`'s over the column's vocabulary, and
so on. MixedNB adds two rules of its own: a class that never saw a value of a column takes
the column's statistics pooled over all classes (:func:`~nbayes.mixed._stats.pooled`), and
a missing value contributes nothing.

What the families are given to derive with (:func:`family_params`):

* gaussian: ``epsilon``, ``var_smoothing`` times the largest variance of any gaussian
  column (one value for all of them, as GaussianNB has one for all its features), and the
  smallest positive float as a floor under every variance;
* kde: ``bandwidth``;
* poisson: ``alpha`` and ``beta`` of the Gamma(alpha, beta) prior of the rates. MixedNB has
  no ``beta`` hyperparameter: the derivation values' ``beta`` if they have one, else
  :data:`POISSON_BETA` = 1.0 (PoissonNB's default);
* categorical, bernoulli and text: ``alpha`` as given (``force_alpha``: 0 is unsmoothed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .._families import BernoulliFamily, CategoricalFamily, Family, GaussianFamily
from .._families._base import ParameterBlock
from .._families._common import class_log_prior
from .._families.gaussian import largest_variance
from .._families.kde import KernelFamily
from .._families.multinomial import MultinomialFamily
from .._families.poisson import PoissonFamily
from .._statistics import CategoryStats, CountStats, MomentStats
from .._statistics.points import PointStats
from . import _text as _mixed_text
from ._stats import MixedStats, pooled
from ._table import _is_missing, _Table
from ._text import TextStats

__all__ = ["POISSON_BETA", "ColumnModel", "MixedFamily", "column_stats", "empty_column"]

#: the rate of the Gamma prior of poisson columns (MixedNB has no ``beta`` of its own)
POISSON_BETA = 1.0

#: the family of each kind of column
FAMILY_OF: dict[str, Family] = {
    "gaussian": GaussianFamily(),
    "kde": KernelFamily(),
    "poisson": PoissonFamily(),
    "categorical": CategoricalFamily(),
    "bernoulli": BernoulliFamily(),
    "text": MultinomialFamily(),
}
_NUMERIC_STATS: dict[str, Any] = {
    "gaussian": MomentStats,
    "kde": PointStats,
    "poisson": CountStats,
    "bernoulli": CountStats,
}


def column_stats(kind: str, vals: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
    """Statistics of one column from its present rows."""
    if kind == "categorical":
        return CategoryStats.from_batch(vals[:, None], y, w, integer_coded=False)
    if kind == "text":
        return TextStats.from_batch(vals, y, w)
    return _NUMERIC_STATS[kind].from_batch(vals[:, None].astype(np.float64), y, w)


def empty_column(kind: str, classes: np.ndarray) -> Any:
    """Statistics of a column that has seen no value."""
    if kind == "categorical":
        return CategoryStats.empty(classes, 1, integer_coded=False)
    if kind == "text":
        return TextStats(np.zeros(0, dtype=object), CountStats.empty(classes, 0))
    return _NUMERIC_STATS[kind].empty(classes, 1)


def family_params(kind: str, p: dict[str, Any], epsilon: float) -> dict[str, Any]:
    """The derivation hyperparameters of a column's family (see the module docstring)."""
    if kind == "gaussian":
        return {"epsilon": epsilon, "min_variance": np.finfo(float).tiny, "priors": None}
    if kind == "kde":
        return {"bandwidth": p["bandwidth"], "priors": None}
    q = {"alpha": float(p["alpha"]), "force_alpha": True, "fit_prior": True, "class_prior": None}
    if kind == "poisson":
        q["beta"] = float(p.get("beta", POISSON_BETA))
    return q


def _family_stats(col: Any) -> Any:
    """The statistics a column's family takes: a text column's are its word counts."""
    return col.counts if isinstance(col, TextStats) else col


@dataclass(frozen=True, eq=False)
class ColumnModel:
    """One column: its family and what the family derived from the column's statistics."""

    kind: str
    family: Family
    #: the (pooled) statistics the family derived from
    stats: Any
    derived: dict[str, Any]
    #: the classes that saw a value of the column
    observed: np.ndarray
    #: the words of a text column (its features), else None
    vocabulary: np.ndarray | None = None

    @classmethod
    def derive(cls, kind: str, col: Any, p: dict[str, Any], epsilon: float) -> ColumnModel:
        stats = pooled(col)
        family = FAMILY_OF[kind]
        vocabulary = stats.vocabulary if isinstance(stats, TextStats) else None
        stats = _family_stats(stats)
        derived = family.derive(stats, family_params(kind, p, epsilon))
        return cls(kind, family, stats, derived, col.class_count > 0, vocabulary)

    def log_likelihood(self, values: np.ndarray, missing: np.ndarray) -> np.ndarray:
        """log P(x_j | y) per row and class; 0 where the value is missing (and for a column
        no class ever saw)."""
        out = np.zeros((len(values), len(self.observed)))
        present = ~missing
        if not self.observed.any() or not present.any():
            return out
        with np.errstate(divide="ignore", invalid="ignore"):
            out[present] = self._log_likelihood(values[present])
        return out

    def _log_likelihood(self, vals: np.ndarray) -> np.ndarray:
        if self.kind == "text":
            assert self.vocabulary is not None
            docs = [str(v) for v in vals]
            counts = _mixed_text._BAG_OF_WORDS.transform(docs, self.vocabulary)
            return self.family.log_likelihood(self.derived, counts)
        X = vals[:, None] if self.kind == "categorical" else vals.astype(np.float64)[:, None]
        return self.family.feature_log_density(self.derived, X)[:, :, 0]

    def separation(self) -> tuple[float, int]:
        """How strongly the column separates the classes that saw it, and the class it points
        to (a text column: its most separating word)."""
        if self.observed.sum() < 2:
            return 0.0, 0
        score, best = self.family.separation(self.derived, among=self.observed)
        if len(score) == 0:
            return 0.0, 0
        k = int(np.argmax(score))
        return float(score[k]), int(best[k])

    def sample(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Values drawn for rows of the given class codes, in the column's representation."""
        if self.kind == "text":
            assert isinstance(self.family, MultinomialFamily) and self.vocabulary is not None
            docs = self.family.sample_sequences(self.derived, self.stats, codes, rng)
            out = np.empty(len(codes), dtype=object)
            for i, words in enumerate(docs):
                out[i] = " ".join(str(w) for w in self.vocabulary[words])
            return out
        if self.kind == "categorical" and len(self.stats.categories[0]) == 0:
            return np.full(len(codes), None, dtype=object)  # never observed: no category
        X = np.asarray(self.family.sample(self.derived, self.stats, codes, rng))[:, 0]
        return X.astype(bool) if self.kind == "bernoulli" else X


def _n_parameters(kind: str, col: Any, full_joint: bool, doc_length: int | None) -> float:
    """The column's parameters (beyond the class prior's), as its family counts them."""
    C = len(col.classes)
    return FAMILY_OF[kind].n_parameters(_family_stats(col), full_joint, doc_length) - (C - 1)


class MixedFamily(Family):
    """One family per column (a :class:`ColumnModel`); log P(x | y) is the columns' sum."""

    name = "mixed"

    def derive(self, stats: MixedStats, p: dict[str, Any]) -> dict[str, Any]:
        kinds = stats.families
        columns = zip(kinds, stats.columns, strict=True)
        largest = [largest_variance(c) for k, c in columns if k == "gaussian"]
        epsilon = float(p["var_smoothing"]) * max(largest, default=0.0)
        return {
            "class_log_prior": class_log_prior(stats.class_count, p["fit_prior"], p["class_prior"]),
            "epsilon": epsilon,
            "columns": [
                ColumnModel.derive(k, c, p, epsilon)
                for k, c in zip(kinds, stats.columns, strict=True)
            ],
            "families": kinds,
        }

    def column(self, d: dict[str, Any], j: int) -> ColumnModel:
        """The model of column j (its family and that family's derivation)."""
        model: ColumnModel = d["columns"][j]
        return model

    def column_logliks(self, d: dict[str, Any], table: _Table) -> list[np.ndarray]:
        return [
            col.log_likelihood(v, m)
            for col, v, m in zip(d["columns"], table.values, table.missing, strict=True)
        ]

    def joint_log_likelihood(self, d: dict[str, Any], X: Any) -> np.ndarray:
        jll = np.zeros((X.n_rows, len(d["class_log_prior"])))
        for ll in self.column_logliks(d, X):
            jll += ll
        return jll + d["class_log_prior"]

    def feature_terms(self, d: dict[str, Any], x: np.ndarray) -> np.ndarray:
        """Each column's term for one row of values (a missing one's is 0)."""
        terms = [
            col.log_likelihood(np.array([v], dtype=object), np.array([_is_missing(v)]))[0]
            for col, v in zip(d["columns"], x, strict=True)
        ]
        return np.column_stack(terms) if terms else np.zeros((len(d["class_log_prior"]), 0))

    def sample(
        self, d: dict[str, Any], stats: MixedStats, codes: np.ndarray, rng: np.random.Generator
    ) -> dict[str, np.ndarray]:
        """Column name -> values drawn for rows of the given class codes."""
        columns = zip(stats.names, d["columns"], strict=True)
        return {name: col.sample(codes, rng) for name, col in columns}

    def n_parameters(self, stats: MixedStats, full_joint: bool, doc_length: int | None) -> float:
        C = len(stats.classes)
        kinds, cols = stats.families, stats.columns
        if not full_joint:
            total = sum(_n_parameters(k, c, False, None) for k, c in zip(kinds, cols, strict=True))
            return total + C - 1
        # one table over every combination of discrete values, and per cell and class a
        # multivariate normal over the Gaussian columns (a conditional Gaussian model)
        levels = 1
        for k, c in zip(kinds, cols, strict=True):
            if k == "gaussian":
                continue
            n = _n_parameters(k, c, True, doc_length)
            if math.isinf(n):
                return math.inf
            levels *= int(n) // C + 1  # the family's table: C · (levels - 1) parameters
        g = kinds.count("gaussian")
        return C * (levels - 1) + C * levels * (g + g * (g + 1) // 2) + C - 1

    def parameters(
        self, stats: MixedStats, p: dict[str, Any], d: dict[str, Any]
    ) -> list[ParameterBlock]:
        """Each column's parameters as its family tabulates them, rows named by the column
        (and its category, or a text column's word); kernel-density columns have none."""
        blocks = []
        for j, col in enumerate(d["columns"]):
            if col.kind == "kde":
                continue
            q = family_params(col.kind, p, d["epsilon"])
            for b in col.family.parameters(col.stats, q, col.derived):
                levels = b.levels
                if col.kind == "text":
                    assert col.vocabulary is not None
                    levels = [str(w) for w in col.vocabulary.tolist()]
                blocks.append(replace(b, features=[j] * b.n_rows, levels=levels))
        return blocks

    def separation(
        self, d: dict[str, Any], among: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        out = [col.separation() for col in d["columns"]]
        return np.array([s for s, _ in out]), np.array([b for _, b in out], dtype=int)
