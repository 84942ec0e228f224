"""The columns of MixedNB, each one likelihood family over its own statistics.

A column of kind ``k`` (a :class:`~nbayes._families.kinds.Kind` of the registry) counts the
statistics its kind makes and scores, samples and ranks through that kind and its family's
public methods (``derive``, ``feature_log_density``,
``log_likelihood``, ``sample``, ``separation``, ``n_parameters``): the math of a gaussian
column is :class:`~nbayes._families.gaussian.GaussianFamily`'s, of a text column
:class:`~nbayes._families.multinomial.MultinomialFamily`'s over the column's vocabulary, and
so on. MixedNB adds two rules of its own: a class that never saw a value of a column takes
the column's statistics pooled over all classes (:func:`~nbayes.mixed._stats.pooled`), and
a missing value contributes nothing.

What the families are given to derive with (each kind's ``hyperparameters``):

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

from .._families import Family
from .._families._base import ParameterBlock
from .._families._common import class_log_prior
from .._families.categorical import CategoryTypeError
from .._families.gaussian import largest_variance
from .._families.kinds import POISSON_BETA, Kind, Marginal, register_kind
from .._families.kinds import kind as kind_named
from .._families.multinomial import MultinomialFamily
from .._statistics import CountStats, class_codes
from ..text._drivers.class_counts import count_by_class, transform_counts
from ..text._textstats import TextStats, Vocabulary
from ..text.recipes import resolve as resolve_recipe
from ._stats import MixedStats, pooled
from ._table import _is_missing, _Table

__all__ = ["POISSON_BETA", "ColumnModel", "MixedFamily", "TextKind", "column_stats", "empty_column"]


class TextKind(Kind):
    """A text column: a bag of words, one multinomial over the column's vocabulary.

    Its statistics are a text model's (:class:`nbayes.text._textstats.TextStats`),
    counted by nbayes.text's compiled counting. The ``"text"`` kind counts as
    scikit-learn's ``CountVectorizer()`` does; a kind registered under another name takes
    n-grams, stop words and a ``preprocess`` recipe as :class:`~nbayes.text.TextClassifier`
    does: ``register_kind(TextKind("bigrams", ngram_range=(1, 2), stop_words="english"))``.
    """

    stats_type = TextStats
    values = "documents"

    def __init__(
        self,
        name: str = "text",
        *,
        lowercase: bool = True,
        ngram_range: tuple[int, int] = (1, 1),
        stop_words: Any = None,
        preprocess: Any = None,
    ) -> None:
        self.name = name
        self.options = {"lowercase": lowercase, "ngram_range": ngram_range,
                        "stop_words": stop_words}  # fmt: skip
        self.preprocess = resolve_recipe(preprocess)

    def make_family(self) -> Family:
        return MultinomialFamily()

    def _docs(self, vals: np.ndarray) -> list[str]:
        docs = [str(v) for v in vals]
        return docs if self.preprocess is None else [self.preprocess(d) for d in docs]

    def column_stats(self, vals: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
        docs = self._docs(vals)
        classes, codes = class_codes(y)
        index: dict[str, int] = {}
        if np.all(w == 1.0):  # the sums per class straight from the documents
            _, sums, df = count_by_class(docs, codes, len(classes), vocabulary=index,
                                         dtype=np.float64, **self.options)  # fmt: skip
            term_freq = sums.sum(axis=0)
        else:  # weighted rows: the vocabulary, then the rows' counts
            count_by_class(docs, codes, len(classes), vocabulary=index, **self.options)
            X = transform_counts(docs, index, **self.options)
            sums = CountStats.from_batch(X, y, w).feature_count
            df = np.bincount(X.indices, minlength=len(index))
            term_freq = np.asarray(X.sum(axis=0), dtype=np.float64).reshape(-1)
        class_count = np.bincount(codes, weights=w, minlength=len(classes)).astype(np.float64)
        counts = CountStats(classes, class_count, sums)
        stats = TextStats(counts, np.asarray(df, dtype=np.int64), term_freq, len(docs))
        return stats.with_vocabulary(Vocabulary(index=index))

    def empty(self, classes: np.ndarray) -> Any:
        stats = TextStats(CountStats.empty(classes, 0), np.zeros(0, np.int64), np.zeros(0), 0)
        return stats.with_vocabulary(Vocabulary(index={}))

    def family_stats(self, col: Any) -> Any:
        return col.counts

    def after_subtract(self, col: Any) -> Any:
        return col.without_unused_terms()

    def features(self, col: Any) -> np.ndarray | None:
        terms = np.empty(col.n_columns, dtype=object)
        terms[:] = list(col.vocabulary.terms)
        return terms

    def log_likelihood(self, d: Any, vals: np.ndarray, features: Any) -> np.ndarray:
        index = {str(w): i for i, w in enumerate(features)}
        counts = transform_counts(self._docs(vals), index, **self.options)
        return np.asarray(self.family.log_likelihood(d, counts))

    def sample(
        self, d: Any, stats: Any, codes: np.ndarray, rng: np.random.Generator, features: Any
    ) -> np.ndarray:
        family: Any = self.family
        docs = family.sample_sequences(d, stats, codes, rng)
        out = np.empty(len(codes), dtype=object)
        for i, words in enumerate(docs):
            out[i] = " ".join(str(w) for w in features[words])
        return out

    def size(self, col: Any) -> int | None:
        return int(col.n_columns)

    def marginal(self, d: Any, stats: Any, k: int, n_grid: int, words: Any) -> Marginal:
        return kind_named("multinomial").marginal(d, stats, k, n_grid, words)


register_kind(TextKind())


def column_stats(name: str, vals: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
    """Statistics of one column of kind ``name`` from its present rows."""
    return kind_named(name).column_stats(vals, y, w)


def empty_column(name: str, classes: np.ndarray) -> Any:
    """Statistics of a column of kind ``name`` that has seen no value."""
    return kind_named(name).empty(classes)


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
    def derive(cls, name: str, col: Any, p: dict[str, Any], epsilon: float) -> ColumnModel:
        of = kind_named(name)
        features = of.features(col)
        stats = pooled(of.family_stats(col))
        derived = of.family.derive(stats, of.hyperparameters(p, epsilon))
        return cls(name, of.family, stats, derived, col.class_count > 0, features)

    def log_likelihood(self, values: np.ndarray, missing: np.ndarray) -> np.ndarray:
        """log P(x_j | y) per row and class; 0 where the value is missing (and for a column
        no class ever saw)."""
        out = np.zeros((len(values), len(self.observed)))
        present = ~missing
        if not self.observed.any() or not present.any():
            return out
        with np.errstate(divide="ignore", invalid="ignore"):
            out[present] = kind_named(self.kind).log_likelihood(
                self.derived, values[present], self.vocabulary
            )
        return out

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
        return kind_named(self.kind).sample(self.derived, self.stats, codes, rng, self.vocabulary)


def _n_parameters(name: str, col: Any, full_joint: bool, doc_length: int | None) -> float:
    """The column's parameters (beyond the class prior's), as its family counts them."""
    C = len(col.classes)
    of = kind_named(name)
    return of.family.n_parameters(of.family_stats(col), full_joint, doc_length) - (C - 1)


class MixedFamily(Family):
    """One family per column (a :class:`ColumnModel`); log P(x | y) is the columns' sum."""

    name = "mixed"

    def derive(self, stats: MixedStats, p: dict[str, Any]) -> dict[str, Any]:
        kinds = stats.families
        columns = zip(kinds, stats.columns, strict=True)
        largest = [largest_variance(c) for k, c in columns if kind_named(k).is_variance()]
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
        out = []
        for name, col, v, m in zip(
            table.names, d["columns"], table.values, table.missing, strict=True
        ):
            try:
                out.append(col.log_likelihood(v, m))
            except CategoryTypeError as exc:  # (named by its column)
                raise ValueError(f"Column {name!r} {exc.detail}.") from None
        return out

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
            if kind_named(k).is_variance():
                continue
            n = _n_parameters(k, c, True, doc_length)
            if math.isinf(n):
                return math.inf
            levels *= int(n) // C + 1  # the family's table: C · (levels - 1) parameters
        g = sum(kind_named(k).is_variance() for k in kinds)
        return C * (levels - 1) + C * levels * (g + g * (g + 1) // 2) + C - 1

    def parameters(
        self, stats: MixedStats, p: dict[str, Any], d: dict[str, Any]
    ) -> list[ParameterBlock]:
        """Each column's parameters as its family tabulates them, rows named by the column
        (and its category, or a text column's word); kernel-density columns have none."""
        blocks = []
        for j, col in enumerate(d["columns"]):
            if type(col.family).parameters is Family.parameters:
                continue  # a family without a table of estimates (kernel densities)
            q = kind_named(col.kind).hyperparameters(p, d["epsilon"])
            for b in col.family.parameters(col.stats, q, col.derived):
                levels = b.levels
                if col.vocabulary is not None:  # a text column: its words
                    levels = [str(w) for w in col.vocabulary.tolist()]
                blocks.append(replace(b, features=[j] * b.n_rows, levels=levels))
        return blocks

    def separation(
        self, d: dict[str, Any], among: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        out = [col.separation() for col in d["columns"]]
        return np.array([s for s, _ in out]), np.array([b for _, b in out], dtype=int)
