"""MixedNB: one Naive Bayes model over a table of numeric, categorical, boolean, count and
text columns.

Every column gets a likelihood family and its own statistics object, built only from the
rows where that column is present (so each column has its own class counts); one
:class:`~nbayes._stats.CountStats` with no features holds the class counts of the prior.
``merge``/``subtract`` apply to every part and the classes are united across them, so
``fit``, ``partial_fit``/``update``, ``unlearn`` and ``+`` keep the algebra of the core.

Family inference (``columns=None`` or a column left out of ``columns``), on the first fit:

==============================================  ==============================================
column                                           family
==============================================  ==============================================
bool (numpy, pandas ``boolean``, polars)         ``"bernoulli"``
float                                            ``"gaussian"`` (whole numbers too: pandas makes
                                                 int columns with gaps float; use ``Int64`` or
                                                 ``columns=``)
int, some value negative                         ``"gaussian"``
int >= 0, at most ``MAX_CODES`` = 10 values      ``"categorical"`` (codes, ratings, levels)
int >= 0, more values, largest <= ``MAX_COUNT``  ``"poisson"`` (counts)
   = 100
int >= 0, larger values                          ``"gaussian"``
category / enum                                  ``"categorical"``
strings whose median value has >= 3 words       ``"text"`` (a bag of words)
other strings                                    ``"categorical"``
==============================================  ==============================================

Missing values (NaN, None, pandas NA, polars null) are skipped for their column when
fitting and marginalised out when predicting: the column contributes nothing to that row.
A class that never saw a value of a column uses the column's statistics pooled over all
classes (so the column hardly counts for or against it); an unseen category gets the
smoothed zero count ``alpha / (n + alpha·K)``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import gammaln
from sklearn.base import clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _params as P
from ._base import BaseNB, log_normalize
from ._families import Family
from ._families._base import log_range
from ._families._common import class_log_prior, log, log_dot
from ._families.categorical import CategoricalFamily, category_index
from ._families.kde import derive_kde, kde_log_density, kde_separation, sample_kde
from ._families.multinomial import smoothed_log_prob
from ._kernel_stats import PointStats
from ._stats import CategoryStats, CountStats, MomentStats, _chan_merge, union_classes
from .kernel import bandwidth_rule

__all__ = [
    "FAMILIES",
    "MAX_CODES",
    "MAX_COUNT",
    "MixedFamily",
    "MixedNB",
    "MixedStats",
    "TextStats",
    "infer_family",
]

FAMILIES = ("gaussian", "kde", "poisson", "categorical", "bernoulli", "text")
#: non-negative int columns with at most this many distinct values are categorical
MAX_CODES = 10
#: non-negative int columns with more values, all at most this, are Poisson counts
MAX_COUNT = 100
#: string columns whose median value has at least this many words are text
TEXT_MIN_WORDS = 3
_NUMERIC = ("gaussian", "kde", "poisson")


# ---------------------------------------------------------------------- text interface
class _SklearnBagOfWords:
    """The bag of words of a text column: scikit-learn's CountVectorizer defaults.

    The whole interface is :meth:`count` (vocabulary and counts of a batch) and
    :meth:`transform` (counts over a given vocabulary); nbayes.text's fast path can
    replace it without touching the statistics.
    """

    def count(self, docs: Sequence[str]) -> tuple[np.ndarray, sp.csr_matrix]:
        from sklearn.feature_extraction.text import CountVectorizer

        try:
            cv = CountVectorizer()
            X = cv.fit_transform(docs)
        except ValueError:  # empty vocabulary: no document holds a word
            return np.zeros(0, dtype=object), sp.csr_matrix((len(docs), 0))
        return cv.get_feature_names_out().astype(object), sp.csr_matrix(X)

    def transform(self, docs: Sequence[str], vocabulary: np.ndarray) -> sp.csr_matrix:
        from sklearn.feature_extraction.text import CountVectorizer

        if len(vocabulary) == 0:
            return sp.csr_matrix((len(docs), 0))
        cv = CountVectorizer(vocabulary={str(w): i for i, w in enumerate(vocabulary)})
        return sp.csr_matrix(cv.transform(docs))


_BAG_OF_WORDS = _SklearnBagOfWords()


@dataclass(frozen=True, eq=False)
class TextStats:
    """Word counts per class over a vocabulary that grows with the data (sorted words)."""

    vocabulary: np.ndarray
    counts: CountStats

    @property
    def classes(self) -> np.ndarray:
        return self.counts.classes

    @property
    def class_count(self) -> np.ndarray:
        return self.counts.class_count

    @classmethod
    def from_batch(cls, docs: np.ndarray, y: np.ndarray, w: np.ndarray) -> TextStats:
        vocab, X = _BAG_OF_WORDS.count([str(d) for d in docs])
        return cls(vocab, CountStats.from_batch(X, y, w))

    def _on(self, vocabulary: np.ndarray) -> CountStats:
        fc = np.zeros((len(self.classes), len(vocabulary)))
        fc[:, np.searchsorted(vocabulary, self.vocabulary)] = self.counts.feature_count
        return replace(self.counts, feature_count=fc)

    def reindex(self, classes: np.ndarray) -> TextStats:
        return replace(self, counts=self.counts.reindex(classes))

    def merge(self, other: TextStats) -> TextStats:
        vocab = np.union1d(self.vocabulary, other.vocabulary).astype(object)
        return TextStats(vocab, self._on(vocab).merge(other._on(vocab)))

    def subtract(self, other: TextStats) -> TextStats:
        known = np.isin(other.vocabulary, self.vocabulary)
        extra = other.counts.feature_count[:, ~known].sum(axis=0) > 0
        if extra.any():
            word = other.vocabulary[~known][extra][0]
            raise ValueError(
                f"Cannot unlearn these examples: the word {word!r} was never learned. "
                "Nothing was changed."
            )
        # the batch's counts laid out over this vocabulary (its unknown words count 0)
        fc = np.zeros((len(other.classes), len(self.vocabulary)))
        pos = np.searchsorted(self.vocabulary, other.vocabulary[known])
        fc[:, pos] = other.counts.feature_count[:, known]
        counts = self.counts.subtract(replace(other.counts, feature_count=fc))
        used = counts.feature_count.sum(axis=0) > 0
        return TextStats(
            self.vocabulary[used], replace(counts, feature_count=counts.feature_count[:, used])
        )

    def drop_emptied(self, touched: np.ndarray) -> TextStats:
        return replace(self, counts=self.counts.drop_emptied(touched))


# ------------------------------------------------------------------- the statistics
@dataclass(frozen=True, eq=False)
class MixedStats:
    """Class counts (``head``) and one statistics object per column, over the same classes."""

    head: CountStats
    names: tuple[str, ...]
    families: tuple[str, ...]
    columns: tuple[Any, ...]

    @property
    def classes(self) -> np.ndarray:
        return self.head.classes

    @property
    def class_count(self) -> np.ndarray:
        return self.head.class_count

    @property
    def n_features(self) -> int:
        return len(self.columns)

    def is_integral(self) -> bool:
        return self.head.is_integral()

    def reindex(self, classes: np.ndarray) -> MixedStats:
        return replace(
            self,
            head=self.head.reindex(classes),
            columns=tuple(c.reindex(classes) for c in self.columns),
        )

    def _check(self, other: MixedStats) -> None:
        if (self.names, self.families) != (other.names, other.families):
            mine = dict(zip(self.names, self.families, strict=True))
            theirs = dict(zip(other.names, other.families, strict=True))
            raise ValueError(
                f"Cannot combine models over different columns or families: {mine} vs "
                f"{theirs}. Fix the families with columns={{...}} on both."
            )

    def merge(self, other: MixedStats) -> MixedStats:
        self._check(other)
        head = self.head.merge(other.head)
        cols = tuple(
            a.merge(b).reindex(head.classes)
            for a, b in zip(self.columns, other.columns, strict=True)
        )
        return replace(self, head=head, columns=cols)

    def subtract(self, other: MixedStats) -> MixedStats:
        self._check(other)
        head = self.head.subtract(other.head)
        cols = tuple(
            _align(a.subtract(b.reindex(union_classes(a.classes, b.classes))), head.classes)
            for a, b in zip(self.columns, other.columns, strict=True)
        )
        return replace(self, head=head, columns=cols)

    def drop_emptied(self, touched: np.ndarray) -> MixedStats:
        head = self.head.drop_emptied(touched)
        return replace(
            self, head=head, columns=tuple(_align(c, head.classes) for c in self.columns)
        )


def _align(col: Any, classes: np.ndarray) -> Any:
    """Column statistics over exactly ``classes`` (drop classes the head dropped)."""
    extra = ~np.isin(col.classes, classes)
    if extra.any():
        if isinstance(col, TextStats):
            counts = replace(col.counts, class_count=np.where(extra, 0.0, col.class_count))
            col = replace(col, counts=counts)
        else:
            col = replace(col, class_count=np.where(extra, 0.0, col.class_count))
        col = col.drop_emptied(col.classes[extra])
    return col.reindex(classes)


def _pooled(col: Any) -> Any:
    """Statistics where classes that never observed the column take the pooled values."""
    empty = col.class_count <= 0
    if not empty.any() or empty.all():
        return col
    if isinstance(col, MomentStats):
        n: Any = 0.0
        mean, m2 = np.zeros(col.n_features), np.zeros(col.n_features)
        for c in np.flatnonzero(~empty):
            n, mean, m2 = _chan_merge(n, mean, m2, col.class_count[c], col.mean[c], col.m2[c])
        return replace(
            col,
            class_count=np.where(empty, n, col.class_count),
            mean=np.where(empty[:, None], mean, col.mean),
            m2=np.where(empty[:, None], m2, col.m2),
        )
    if isinstance(col, CategoryStats):
        counts = tuple(np.where(empty[:, None], c.sum(axis=0), c) for c in col.category_count)
        total = col.class_count.sum()
        return replace(
            col, class_count=np.where(empty, total, col.class_count), category_count=counts
        )
    if isinstance(col, TextStats):
        return replace(col, counts=_pooled(col.counts))
    if isinstance(col, PointStats):
        weights = tuple(np.where(empty[:, None], w.sum(axis=0), w) for w in col.weights)
        total = col.class_count.sum()
        return replace(col, class_count=np.where(empty, total, col.class_count), weights=weights)
    fc = col.feature_count
    return replace(
        col,
        class_count=np.where(empty, col.class_count.sum(), col.class_count),
        feature_count=np.where(empty[:, None], fc.sum(axis=0), fc),
    )


# ------------------------------------------------------------------------ input access
def _module(X: Any) -> str:
    return type(X).__module__.split(".")[0]


@dataclass
class _Column:
    """One input column, whatever the container."""

    name: str
    raw: Any  # pandas Series, polars Series or 1-D numpy array
    source: str  # "pandas", "polars" or "numpy"

    def kind(self) -> str:
        """bool, int, float, category, string (all str) or object (to inspect)."""
        if self.source == "pandas":
            import pandas as pd

            dt = self.raw.dtype
            if isinstance(dt, pd.CategoricalDtype):
                return "category"
            if pd.api.types.is_bool_dtype(dt):
                return "bool"
            if pd.api.types.is_integer_dtype(dt):
                return "int"
            if pd.api.types.is_float_dtype(dt):
                return "float"
            if pd.api.types.is_string_dtype(dt) or dt is np.dtype(object):
                return "object"
            return f"unsupported ({dt})"
        if self.source == "polars":
            import polars as pl

            dt = self.raw.dtype
            if dt == pl.Boolean:
                return "bool"
            if dt.is_integer():
                return "int"
            if dt.is_float():
                return "float"
            if dt in (pl.Categorical, pl.Enum) or isinstance(dt, pl.Categorical | pl.Enum):
                return "category"
            if dt in (pl.String, pl.Object):
                return "object"
            return f"unsupported ({dt})"
        k = self.raw.dtype.kind
        return {
            "b": "bool",
            "i": "int",
            "u": "int",
            "f": "float",
            "U": "object",
            "O": "object",
        }.get(k, f"unsupported ({self.raw.dtype})")

    def missing(self) -> np.ndarray:
        if self.source == "pandas":
            return np.asarray(self.raw.isna().to_numpy(), dtype=bool)
        if self.source == "polars":
            m = self.raw.is_null()
            if self.raw.dtype.is_float():
                m = m | self.raw.is_nan().fill_null(True)
            return np.asarray(m.to_numpy(), dtype=bool)
        arr = self.raw
        if arr.dtype.kind == "f":
            return np.isnan(arr)
        if arr.dtype.kind == "O":
            return np.array([_is_missing(v) for v in arr], dtype=bool)
        return np.zeros(len(arr), dtype=bool)

    def objects(self) -> np.ndarray:
        """The values as an object array (missing ones as None)."""
        if self.source == "pandas":
            out = self.raw.to_numpy(dtype=object)
        elif self.source == "polars":
            out = np.array(self.raw.to_list() + [None], dtype=object)[:-1]
        else:
            out = np.asarray(self.raw, dtype=object)
        out = out.copy()
        out[self.missing()] = None
        return out

    def floats(self) -> np.ndarray | None:
        """The values as float64 with NaN for missing, or None if not numeric."""
        kind = self.kind()
        if kind not in ("bool", "int", "float"):
            return None
        if self.source == "pandas":
            return np.asarray(self.raw.to_numpy(dtype=np.float64, na_value=np.nan))
        if self.source == "polars":
            import polars as pl

            return np.asarray(self.raw.cast(pl.Float64).fill_null(np.nan).to_numpy())
        return np.asarray(self.raw, dtype=np.float64)

    def dtype(self) -> Any:
        return self.raw.dtype


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float | np.floating):
        return bool(np.isnan(v))
    return type(v).__name__ in ("NAType", "NaTType")


def _value_types(values: np.ndarray, name: str) -> str:
    """The one type of the (non-missing) values of an object column: str, bool, int, float."""
    kinds: dict[str, tuple[int, Any]] = {}
    for i, v in enumerate(values):
        if v is None:
            continue
        if isinstance(v, str | np.str_):
            k = "str"
        elif isinstance(v, bool | np.bool_):
            k = "bool"
        elif isinstance(v, int | np.integer):
            k = "int"
        elif isinstance(v, float | np.floating):
            k = "float"
        else:
            raise TypeError(
                f"Column {name!r} holds a {type(v).__name__} ({v!r} at row {i}): values must "
                "be numbers, booleans or strings. Convert the column first."
            )
        kinds.setdefault(k, (i, v))
    if {"int", "float"} <= kinds.keys():
        kinds.pop("int")
    if len(kinds) > 1:
        shown = ", ".join(f"{k} ({v!r} at row {i})" for k, (i, v) in kinds.items())
        raise ValueError(
            f"Column {name!r} mixes value types: {shown}. Use one type per column (e.g. "
            f"df[{name!r}].astype(str)), and None or NaN for missing values."
        )
    return next(iter(kinds), "empty")


def infer_family(column: Any, name: str = "x") -> tuple[str, str]:
    """The family MixedNB gives a column by default, and why (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> infer_family(np.array([0.5, 1.5]))
    ('gaussian', 'float values')
    >>> infer_family(np.array([1, 2, 3, 1]))
    ('categorical', 'non-negative integers with 3 distinct values (<= 10): codes')
    >>> infer_family(np.array(["a long enough review", "so short", "three words here"]))[0]
    'text'
    """
    col = column if isinstance(column, _Column) else _as_column(column, name)
    kind = col.kind()
    if kind == "object":
        kind = {"str": "string", "empty": "string"}.get(
            _value_types(col.objects(), col.name), _value_types(col.objects(), col.name)
        )
    if kind == "bool":
        return "bernoulli", "boolean values"
    if kind == "float":
        return "gaussian", "float values"
    if kind == "int":
        vals = col.floats()
        assert vals is not None
        vals = vals[~np.isnan(vals)]
        if vals.size and vals.min() < 0:
            return "gaussian", "integers with negative values"
        distinct = len(np.unique(vals))
        if distinct <= MAX_CODES:
            return (
                "categorical",
                f"non-negative integers with {distinct} distinct values (<= {MAX_CODES}): codes",
            )
        if vals.size == 0 or vals.max() <= MAX_COUNT:
            return "poisson", f"non-negative integers up to {MAX_COUNT}: counts"
        return "gaussian", f"integers above {MAX_COUNT}"
    if kind == "category":
        return "categorical", "category dtype"
    if kind == "string":
        obj = col.objects()
        words = [len(str(v).split()) for v in obj if v is not None]
        median = float(np.median(words)) if words else 0.0
        if median >= TEXT_MIN_WORDS:
            return "text", f"strings of {median:g} words (median >= {TEXT_MIN_WORDS}): text"
        return "categorical", f"short strings (median {median:g} words)"
    raise TypeError(
        f"Column {col.name!r} has an unsupported type {kind}: convert it to numbers, "
        "booleans or strings, or drop it."
    )


def _as_column(arr: Any, name: str) -> _Column:
    src = _module(arr)
    if src in ("pandas", "polars"):
        return _Column(name, arr, src)
    a = np.asarray(arr)
    if a.dtype.kind == "U":
        a = a.astype(object)
    return _Column(name, a, "numpy")


def _columns_of(X: Any, names: Sequence[str] | None) -> tuple[list[_Column], str]:
    """The columns of X (by name for data frames, by position otherwise)."""
    src = _module(X)
    if src == "pandas" and hasattr(X, "columns"):
        cols = [_Column(str(c), X[c], "pandas") for c in X.columns]
    elif src == "polars" and hasattr(X, "columns"):
        cols = [_Column(str(c), X[c], "polars") for c in X.columns]
    else:
        src = "numpy"
        arr = np.asarray(X, dtype=object) if not hasattr(X, "dtype") else np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(
                f"Expected a 2-D table (data frame or array); got an array of shape {arr.shape}."
            )
        if arr.dtype.kind == "U":
            arr = arr.astype(object)
        n = arr.shape[1]
        given = list(names) if names is not None else [f"x{j}" for j in range(n)]
        if len(given) != n:
            raise ValueError(
                f"X has {n} columns but the model knows {len(given)} ({given}): pass the "
                "same columns as in fit."
            )
        return [_Column(given[j], arr[:, j], "numpy") for j in range(n)], src
    if names is not None:
        have = {c.name: c for c in cols}
        missing = [n for n in names if n not in have]
        if missing:
            raise ValueError(
                f"X lacks the column(s) {missing} the model was fitted on; it has "
                f"{list(have)}. Pass every fitted column (use None/NaN for unknown values)."
            )
        cols = [have[n] for n in names]
    return cols, src


@dataclass
class _Table:
    """The parsed input: per column, its values in the form its family uses."""

    names: list[str]
    families: list[str]
    values: list[np.ndarray]  # float64 (NaN = missing) or object (None = missing)
    missing: list[np.ndarray]
    n_rows: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n_rows, len(self.names))

    def __getitem__(self, rows: Any) -> _Table:
        """The same columns restricted to ``rows`` (cross-validation counts folds of a
        table validated once)."""
        index = np.arange(self.n_rows)[rows]
        return _Table(
            self.names,
            self.families,
            [v[index] for v in self.values],
            [m[index] for m in self.missing],
            len(index),
        )


def _parse(col: _Column, family: str) -> tuple[np.ndarray, np.ndarray]:
    """Values of one column for ``family``, with clear errors naming the column."""
    name = col.name
    missing = col.missing()
    if family in _NUMERIC or family == "bernoulli":
        vals = col.floats()
        if vals is None:
            obj = col.objects()
            kind = _value_types(obj, name)
            if kind == "str":
                i = int(np.flatnonzero(~missing)[0])
                raise ValueError(
                    f"Column {name!r} is a {family} column but holds strings such as "
                    f"{obj[i]!r} (row {i}): give it numbers, or columns={{{name!r}: "
                    "'categorical'}}."
                )
            vals = np.array([np.nan if v is None else float(v) for v in obj], dtype=np.float64)
        vals = vals.astype(np.float64, copy=True)
        vals[missing] = np.nan
        bad = np.isinf(vals)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"Column {name!r} contains infinity ({float(vals[i])!r} at row {i}): clip it, "
                "or set it to NaN to mark the value as missing."
            )
        if family == "poisson" and np.any(vals[~missing] < 0):
            i = int(np.flatnonzero(vals < 0)[0])
            raise ValueError(
                f"Column {name!r} is a poisson (count) column but holds the negative value "
                f"{float(vals[i])!r} at row {i}: use columns={{{name!r}: 'gaussian'}} instead."
            )
        if family == "bernoulli":
            ok = np.isnan(vals) | (vals == 0) | (vals == 1)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ValueError(
                    f"Column {name!r} is a bernoulli column but holds {float(vals[i])!r} at row "
                    f"{i}: only True/False (or 1/0) are allowed."
                )
        return vals, missing
    obj = col.objects()
    kind = _value_types(obj, name)
    if family == "text":
        if kind not in ("str", "empty"):
            i = int(np.flatnonzero(~missing)[0])
            raise ValueError(
                f"Column {name!r} is a text column but holds a {type(obj[i]).__name__} "
                f"({obj[i]!r} at row {i}): text columns take strings (None for missing)."
            )
        return obj, missing
    if kind == "float":
        obj = np.array([None if v is None else float(v) for v in obj], dtype=object)
        if any(v is not None and not np.isfinite(v) for v in obj):
            i = next(i for i, v in enumerate(obj) if v is not None and not np.isfinite(v))
            raise ValueError(
                f"Column {name!r} contains infinity ({obj[i]!r} at row {i}): not a category."
            )
    elif kind == "int":
        obj = np.array([None if v is None else int(v) for v in obj], dtype=object)
    elif kind == "bool":
        obj = np.array([None if v is None else bool(v) for v in obj], dtype=object)
    elif kind == "str":
        obj = np.array([None if v is None else str(v) for v in obj], dtype=object)
    return obj, missing


# ------------------------------------------------------------------- per-column models
def _column_stats(family: str, vals: np.ndarray, y: np.ndarray, w: np.ndarray) -> Any:
    """Statistics of one column from its present rows."""
    if family == "gaussian":
        return MomentStats.from_batch(vals[:, None].astype(np.float64), y, w)
    if family == "kde":
        return PointStats.from_batch(vals[:, None].astype(np.float64), y, w)
    if family in ("poisson", "bernoulli"):
        return CountStats.from_batch(vals[:, None].astype(np.float64), y, w)
    if family == "categorical":
        return CategoryStats.from_batch(vals[:, None], y, w, integer_coded=False)
    return TextStats.from_batch(vals, y, w)


def _empty_column(family: str, classes: np.ndarray) -> Any:
    if family == "gaussian":
        return MomentStats.empty(classes, 1)
    if family == "kde":
        return PointStats.empty(classes, 1)
    if family in ("poisson", "bernoulli"):
        return CountStats.empty(classes, 1)
    if family == "categorical":
        return CategoryStats.empty(classes, 1, integer_coded=False)
    return TextStats(np.zeros(0, dtype=object), CountStats.empty(classes, 0))


def _derive_column(family: str, col: Any, p: dict[str, Any], eps: float) -> dict[str, Any]:
    observed = col.class_count > 0
    pooled = _pooled(col)
    d: dict[str, Any] = {"observed": observed, "any": bool(observed.any())}
    alpha = float(p["alpha"])
    with np.errstate(divide="ignore", invalid="ignore"):
        if family == "gaussian":
            n = pooled.class_count[:, None]
            var = np.where(n > 0, pooled.m2 / n, 0.0) + eps
            d.update(theta=pooled.mean[:, 0], var=np.maximum(var[:, 0], np.finfo(float).tiny))
        elif family == "kde":
            d.update(derive_kde(col, p["bandwidth"]), observed=observed)
        elif family == "poisson":
            rate = (pooled.feature_count[:, 0] + alpha) / (pooled.class_count + 1.0)
            d.update(rate=rate, log_rate=log(rate), pooled=pooled)
        elif family == "bernoulli":
            fc, cc = pooled.feature_count[:, 0], pooled.class_count
            d.update(
                flp=np.nan_to_num(log(fc + alpha) - log(cc + 2 * alpha), nan=-np.inf),
                neg=np.nan_to_num(log(cc - fc + alpha) - log(cc + 2 * alpha), nan=-np.inf),
            )
        elif family == "categorical":
            d.update(
                CategoricalFamily().derive(
                    pooled,
                    {"alpha": alpha, "force_alpha": True, "fit_prior": True, "class_prior": None},
                )
            )
        else:
            d.update(
                flp=smoothed_log_prob(pooled.counts.feature_count, alpha),
                vocabulary=col.vocabulary,
                pooled=pooled.counts,
            )
    return d


def _column_loglik(family: str, d: dict[str, Any], vals: np.ndarray, missing: np.ndarray) -> Any:
    """log P(x_j | y) per row and class; 0 where the value is missing."""
    n, C = len(vals), len(d["observed"])
    out = np.zeros((n, C))
    if not d["any"]:
        return out
    present = ~missing
    if not present.any():
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        if family == "gaussian":
            x = vals[present].astype(np.float64)[:, None]
            out[present] = (
                -0.5 * np.log(2 * np.pi * d["var"]) - 0.5 * (x - d["theta"]) ** 2 / (d["var"])
            )
        elif family == "kde":
            out[present] = kde_log_density(d, vals[present].astype(np.float64)[:, None])[:, :, 0]
        elif family == "poisson":
            x = vals[present].astype(np.float64)[:, None]
            xlr = np.where(x > 0, x * d["log_rate"], 0.0)
            out[present] = xlr - d["rate"] - gammaln(x + 1)
        elif family == "bernoulli":
            x = vals[present].astype(np.float64)[:, None]
            out[present] = np.where(x > 0, d["flp"], d["neg"])
        elif family == "categorical":
            idx = category_index(d["stats"], vals[present][:, None])[:, 0]
            out[present] = d["extended"][0][:, idx].T
        else:
            docs = [str(v) for v in vals[present]]
            counts = _BAG_OF_WORDS.transform(docs, d["vocabulary"])
            out[present] = log_dot(counts, d["flp"])
    return out


def _column_separation(family: str, d: dict[str, Any]) -> tuple[float, int]:
    seen = d["observed"]
    if not d["any"] or seen.sum() < 2:
        return 0.0, 0
    if family == "gaussian":
        theta, var = d["theta"][seen], d["var"][seen]
        gaps = np.abs(theta[:, None] - theta[None, :])
        scale = np.sqrt((var[:, None] + var[None, :]) / 2)
        return float((gaps / scale).max()), int(np.flatnonzero(seen)[theta.argmax()])
    if family == "kde":
        sub = {k: d[k] for k in ("mean", "std", "bandwidth")}
        score, best = kde_separation(sub, seen)
        return float(score[0]), int(best[0])
    if family == "categorical":
        flp = d["feature_log_prob"][0]
        scores, best = CategoricalFamily().separation({"feature_log_prob": [flp[seen]]})
        return float(scores[0]), int(np.flatnonzero(seen)[best[0]])
    if family in ("poisson", "bernoulli"):
        key = "log_rate" if family == "poisson" else "flp"
        score, best = log_range(d[key][seen][:, None])
        return float(score[0]), int(np.flatnonzero(seen)[best[0]])
    flp = d["flp"][seen]
    if flp.shape[1] == 0:
        return 0.0, 0
    score, best = log_range(flp)
    k = int(np.argmax(score))
    return float(score[k]), int(np.flatnonzero(seen)[best[k]])


def _column_sample(
    family: str, d: dict[str, Any], col: Any, codes: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    n = len(codes)
    if family == "gaussian":
        return rng.normal(d["theta"][codes], np.sqrt(d["var"][codes]))
    if family == "kde":
        return sample_kde(d, codes, rng)[:, 0]
    if family == "poisson":
        return rng.poisson(d["rate"][codes]).astype(np.float64)
    if family == "bernoulli":
        return rng.random(n) < np.exp(d["flp"][codes])
    out = np.empty(n, dtype=object)
    if family == "categorical":
        cats = d["stats"].categories[0]
        prob = np.exp(d["feature_log_prob"][0])
        for c in np.unique(codes):
            rows = np.flatnonzero(codes == c)
            if len(cats) == 0:
                out[rows] = None
                continue
            out[rows] = cats[rng.choice(len(cats), size=len(rows), p=prob[c] / prob[c].sum())]
        return out
    vocab, pooled = d["vocabulary"], d["pooled"]
    prob = np.exp(d["flp"])
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_len = np.where(
            pooled.class_count > 0, pooled.feature_count.sum(axis=1) / pooled.class_count, 0.0
        )
    for i, c in enumerate(codes):
        length = rng.poisson(mean_len[c]) if len(vocab) else 0
        words = (
            vocab[rng.choice(len(vocab), size=length, p=prob[c] / prob[c].sum())] if length else []
        )
        out[i] = " ".join(str(w) for w in words)
    return out


def _n_column_parameters(family: str, col: Any, C: int) -> int:
    if family == "gaussian":
        return 2 * C
    if family == "kde":
        return C * len(col.values[0])
    if family in ("poisson", "bernoulli"):
        return C
    if family == "categorical":
        return C * max(len(col.categories[0]) - 1, 0)
    return C * max(len(col.vocabulary) - 1, 0)


# ----------------------------------------------------------------------------- family
class MixedFamily(Family):
    """Dispatches to one family per column; the joint log-likelihood is their sum."""

    name = "mixed"

    def derive(self, stats: MixedStats, p: dict[str, Any]) -> dict[str, Any]:
        eps = 0.0
        for fam, col in zip(stats.families, stats.columns, strict=True):
            if fam == "gaussian" and col.n_rows > 0:
                eps = max(eps, float(col.row_m2[0] / col.n_rows))
        eps *= float(p["var_smoothing"])
        return {
            "class_log_prior": class_log_prior(stats.class_count, p["fit_prior"], p["class_prior"]),
            "epsilon": eps,
            "columns": [
                _derive_column(fam, col, p, eps)
                for fam, col in zip(stats.families, stats.columns, strict=True)
            ],
            "families": stats.families,
        }

    def column_logliks(self, d: dict[str, Any], table: _Table) -> list[np.ndarray]:
        return [
            _column_loglik(fam, dc, v, m)
            for fam, dc, v, m in zip(
                d["families"], d["columns"], table.values, table.missing, strict=True
            )
        ]

    def joint_log_likelihood(self, d: dict[str, Any], X: Any) -> np.ndarray:
        jll = np.zeros((X.n_rows, len(d["class_log_prior"])))
        for ll in self.column_logliks(d, X):
            jll += ll
        return jll + d["class_log_prior"]

    def n_parameters(self, stats: MixedStats, full_joint: bool, doc_length: int | None) -> float:
        C = len(stats.classes)
        fams = stats.families
        if not full_joint:
            total = sum(
                _n_column_parameters(f, c, C) for f, c in zip(fams, stats.columns, strict=True)
            )
            return total + C - 1
        if any(f in ("kde", "poisson") for f in fams) or ("text" in fams and doc_length is None):
            return math.inf
        # one table over every combination of discrete values, and per cell and class a
        # multivariate normal over the Gaussian columns (a conditional Gaussian model)
        levels = 1
        for f, c in zip(fams, stats.columns, strict=True):
            if f == "bernoulli":
                levels *= 2
            elif f == "categorical":
                levels *= max(len(c.categories[0]), 1)
            elif f == "text":
                V = len(c.vocabulary)
                levels *= math.comb(int(doc_length or 0) + V - 1, int(doc_length or 0))
        g = fams.count("gaussian")
        return C * (levels - 1) + C * levels * (g + g * (g + 1) // 2) + C - 1

    def separation(self, d: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
        out = [_column_separation(f, dc) for f, dc in zip(d["families"], d["columns"], strict=True)]
        return np.array([s for s, _ in out]), np.array([b for _, b in out], dtype=int)


# -------------------------------------------------------------------------- estimator
class MixedNB(BaseNB):
    """Naive Bayes over a table whose columns follow different distributions.

    Each column gets a family: "gaussian", "kde" (kernel density), "poisson" (counts),
    "categorical", "bernoulli" (booleans) or "text" (a bag of words, one multinomial over
    the column's vocabulary), inferred from its dtype unless given (rules in the module
    docstring; :meth:`summary` says what was chosen and why). ``log P(x | y)`` is the sum
    of the columns' terms; a missing value (NaN, None, pandas NA, polars null) is skipped
    when fitting and contributes nothing when predicting.

    Parameters
    ----------
    columns : dict, list or None, default=None
        Families by column name (``{"age": "kde"}``; columns left out are inferred), or for
        a numpy array a list with one family per column (or a dict whose keys name the
        columns in order).
    alpha : float, default=1.0
        Smoothing of categorical, bernoulli and text columns (pseudo-counts), and the
        Gamma(alpha, 1) prior of poisson rates.
    var_smoothing : float, default=1e-9
        As in GaussianNB: this fraction of the largest variance of a gaussian column (over
        every row seen, derived from the statistics, so independent of the batches) is
        added to every gaussian variance.
    bandwidth : {"scott", "silverman"} or float, default="scott"
        Kernel width of "kde" columns (see :class:`nbayes.kernel.KernelNB`).
    fit_prior : bool, default=True
        Learn the class prior (else uniform).
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes.

    Attributes
    ----------
    classes_, class_count_, n_features_in_, feature_names_in_
    families_ : dict
        Column name -> family.
    epsilon_ : float
        Variance added to gaussian columns.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes.mixed import MixedNB
    >>> df = pd.DataFrame({
    ...     "age": [23.0, 25.0, None, 61.0, 58.0, 65.0],
    ...     "plan": ["free", "free", "free", "pro", "pro", None],
    ...     "active": [True, False, True, True, True, True],
    ... })
    >>> clf = MixedNB().fit(df, ["young", "young", "young", "old", "old", "old"])
    >>> clf.families_
    {'age': 'gaussian', 'plan': 'categorical', 'active': 'bernoulli'}
    >>> new = pd.DataFrame({"age": [60.0, None], "plan": [None, "free"], "active": [True, None]})
    >>> clf.predict(new)
    array(['old', 'young'], dtype='<U5')
    >>> clf.explain(new.iloc[[0]]).contributions("old")[0][0]
    'age'
    """

    _family = MixedFamily()
    _accept_sparse = False
    _derivation_params = ("alpha", "var_smoothing", "bandwidth", "fit_prior", "class_prior")
    _param_rules = {
        "columns": [P.none, P.Rule(lambda v: isinstance(v, Mapping | list | tuple), "a dict")],
        "alpha": [P.non_negative_real],
        "var_smoothing": [P.non_negative_real],
        "bandwidth": [bandwidth_rule],
        "fit_prior": [P.boolean],
        "class_prior": [P.array_like, P.none],
    }

    def __init__(
        self,
        columns: Any = None,
        *,
        alpha: float = 1.0,
        var_smoothing: float = 1e-9,
        bandwidth: Any = "scott",
        fit_prior: bool = True,
        class_prior: Any = None,
    ) -> None:
        self.columns = columns
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.bandwidth = bandwidth
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    # ------------------------------------------------------------------ input
    def _given_families(self) -> dict[str, str]:
        spec = self.columns
        if spec is None:
            return {}
        if isinstance(spec, Mapping):
            items = {str(k): v for k, v in spec.items()}
        else:
            items = {f"x{j}": v for j, v in enumerate(spec)}
        for k, v in items.items():
            if v not in FAMILIES:
                raise ValueError(
                    f"Unknown family {v!r} for column {k!r}: choose one of {list(FAMILIES)}."
                )
        return items

    def _numpy_names(self) -> list[str] | None:
        if isinstance(self.columns, Mapping):
            return [str(k) for k in self.columns]
        return None

    def _read(self, X: Any, reset: bool) -> _Table:
        if reset:
            cols, src = _columns_of(
                X, None if _module(X) in ("pandas", "polars") else self._numpy_names()
            )
            given = self._given_families()
            unknown = [k for k in given if k not in {c.name for c in cols}]
            if unknown:
                raise ValueError(
                    f"columns names {unknown}, which X does not have; its columns are "
                    f"{[c.name for c in cols]}."
                )
            families, reasons = [], []
            for c in cols:
                if c.name in given:
                    families.append(given[c.name])
                    reasons.append("given in columns=")
                else:
                    fam, why = infer_family(c)
                    families.append(fam)
                    reasons.append(why)
            self._source = src
            self._dtypes = [c.dtype() for c in cols]
            self._reasons = reasons
            names = [c.name for c in cols]
            self._pending = (names, families)
            self.n_features_in_ = len(cols)
            if src in ("pandas", "polars"):
                self.feature_names_in_ = np.asarray(names, dtype=object)
            else:
                self.__dict__.pop("feature_names_in_", None)
        else:
            names, families = self._names_families()
            cols, _ = _columns_of(X, names)
        values, missing = [], []
        for c, fam in zip(cols, families, strict=True):
            v, m = _parse(c, fam)
            values.append(v)
            missing.append(m)
        n_rows = len(values[0]) if values else 0
        return _Table(list(names), list(families), values, missing, n_rows)

    def _names_families(self) -> tuple[list[str], list[str]]:
        if hasattr(self, "_stats"):
            return list(self._stats.names), list(self._stats.families)
        return self._pending

    def _check_X(self, X: Any) -> Any:
        check_is_fitted(self)
        return self._read(X, reset=False)

    def _check_X_y(self, X: Any, y: Any, reset: bool) -> tuple[Any, np.ndarray]:
        table = self._read(X, reset=reset)
        y = _check_labels(y, table.n_rows)
        return table, y

    def _empty_stats(self, classes: np.ndarray, n_features: int) -> Any:
        names, families = self._names_families()
        return MixedStats(
            CountStats.empty(classes, 0),
            tuple(names),
            tuple(families),
            tuple(_empty_column(f, np.asarray(classes)) for f in families),
        )

    def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
        table: _Table = X
        head = CountStats.from_batch(np.zeros((len(y), 0)), y, sample_weight)
        cols = []
        for fam, v, m in zip(table.families, table.values, table.missing, strict=True):
            keep = ~m
            stats = _column_stats(fam, v[keep], y[keep], sample_weight[keep])
            cols.append(stats.reindex(head.classes))
        return MixedStats(head, tuple(table.names), tuple(table.families), tuple(cols))

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> MixedNB:
        """Fit the model to the table X and labels y: the statistics of this data only.

        Parameters
        ----------
        X : pandas or polars DataFrame, or array-like of shape (n_samples, n_columns)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self : object
        """
        self.__dict__.pop("_stats", None)
        return super().fit(X, y, sample_weight=sample_weight)

    def merge(self, other: MixedNB) -> MixedNB:
        """The model of the union of both models' data (neither model is changed)."""
        if not isinstance(other, MixedNB):
            raise ValueError(
                f"Cannot merge a MixedNB with a {type(other).__name__}: only models of the "
                "same type combine."
            )
        check_is_fitted(self)
        check_is_fitted(other)
        mine, theirs = self.get_params(deep=False), other.get_params(deep=False)
        differ = [k for k in mine if not _same(mine[k], theirs[k])]
        if differ:
            shown = ", ".join(f"{k}={mine[k]!r} vs {theirs[k]!r}" for k in differ)
            raise ValueError(
                f"Cannot merge models with different hyperparameters ({shown}): set them "
                "equal first (set_params)."
            )
        stats = self._stats.merge(other._stats)
        merged = clone(self)
        for attr in ("n_features_in_", "feature_names_in_", "_source", "_dtypes", "_reasons"):
            if hasattr(self, attr):
                setattr(merged, attr, getattr(self, attr))
        return merged._set_stats(stats)

    # ---------------------------------------------------------------- results
    @property
    def families_(self) -> dict[str, str]:
        """Column name -> family."""
        check_is_fitted(self)
        return dict(zip(self._stats.names, self._stats.families, strict=True))

    @property
    def epsilon_(self) -> float:
        """Variance added to every gaussian column's variances."""
        return float(self._derived()["epsilon"])

    def _feature_names(self) -> list[str]:
        return list(self._stats.names)

    def summary(self) -> str:
        """What family each column got and why, with its observed counts per class.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes.mixed import MixedNB
        >>> X = np.array([[1.5, 2], [0.5, 7], [2.5, np.nan]])
        >>> print(MixedNB().fit(X, ["a", "b", "a"]).summary())  # doctest: +NORMALIZE_WHITESPACE
        MixedNB over 2 columns, classes ['a', 'b'] (rows 2, 1)
        column  family       observed per class  why
        x0      gaussian     2, 1                float values
        x1      gaussian     1, 1                float values
        """
        check_is_fitted(self)
        s = self._stats
        reasons = getattr(self, "_reasons", ["?"] * s.n_features)
        counts = ", ".join(f"{c:g}" for c in s.class_count)
        rows = [("column", "family", "observed per class", "why")]
        for name, fam, col, why in zip(s.names, s.families, s.columns, reasons, strict=True):
            rows.append((name, fam, ", ".join(f"{c:g}" for c in col.class_count), why))
        width = [max(len(r[i]) for r in rows) for i in range(3)]
        lines = [
            f"MixedNB over {s.n_features} columns, classes {s.classes.tolist()} (rows {counts})"
        ]
        for r in rows:
            lines.append(
                f"{r[0]:<{width[0]}}  {r[1]:<{max(width[1], 11)}}  {r[2]:<{width[2]}}  {r[3]}"
            )
        return "\n".join(line.rstrip() for line in lines)

    def explain(self, x: Any, exact: bool = False, feature_names: Any = None) -> Any:
        """Why the model classifies one row as it does: every column's term per class.

        ``x`` is a one-row data frame, a pandas Series, a dict (column -> value) or a 1-D
        sequence in column order. A missing value's term is 0. ``exact=True`` is not
        available for mixed models.

        Returns
        -------
        nbayes.Explanation
        """
        from .explain import Explanation

        check_is_fitted(self)
        if exact:
            raise ValueError(
                "exact=True is available for discrete models with integer counts; a mixed "
                "model has no rational derivation. Use exact=False."
            )
        table = self._check_X(self._one_row(x))
        d = self._derived()
        lls = self._family.column_logliks(d, table)
        terms = np.column_stack([ll[0] for ll in lls]) if lls else np.zeros((len(self.classes_), 0))
        jll = terms.sum(axis=1) + d["class_log_prior"]
        log_post, _ = log_normalize(jll[None, :])
        values = np.array([v[0] for v in table.values], dtype=object)
        return Explanation(
            classes=self.classes_,
            feature_names=list(self._stats.names) if feature_names is None else list(feature_names),
            values=values,
            log_prior=np.asarray(d["class_log_prior"], dtype=np.float64),
            terms=terms,
            joint_log_likelihood=jll,
            log_posterior=log_post[0],
        )

    def _one_row(self, x: Any) -> Any:
        if isinstance(x, Mapping):
            names = list(self._stats.names)
            unknown = [k for k in x if k not in names]
            if unknown:
                raise ValueError(f"Unknown column(s) {unknown}; the columns are {names}.")
            row = np.empty((1, len(names)), dtype=object)
            row[0] = [x.get(n) for n in names]
            return _NamedRow(row, names)
        if _module(x) == "pandas" and not hasattr(x, "columns"):  # a Series: one row
            return x.to_frame().T
        if hasattr(x, "columns"):
            if x.shape[0] != 1:
                raise ValueError(f"explain() takes one row; got {x.shape[0]} rows.")
            return x
        arr = np.asarray(x, dtype=object)
        if arr.ndim == 2 and arr.shape[0] == 1:
            return arr
        if arr.ndim != 1:
            raise ValueError(f"explain() takes one row (1-D); got an array of shape {arr.shape}.")
        return arr.reshape(1, -1)

    def sample(self, n_samples: int = 1, random_state: Any = None) -> tuple[Any, np.ndarray]:
        """Draw rows from P(y) P(x | y): a data frame like the training data, and labels.

        The result has the same columns and dtypes as the data of ``fit`` (a pandas or
        polars DataFrame; an object array for array input), without missing values.

        Returns
        -------
        X : DataFrame or ndarray of shape (n_samples, n_columns)
        y : ndarray of shape (n_samples,)
        """
        rng = np.random.default_rng(random_state)
        d = self._derived()
        codes = self.sample_classes(n_samples, rng)
        s = self._stats
        data = {
            name: _column_sample(fam, dc, col, codes, rng)
            for name, fam, dc, col in zip(s.names, s.families, d["columns"], s.columns, strict=True)
        }
        return self._frame(data), self.classes_[codes]

    def _frame(self, data: dict[str, np.ndarray]) -> Any:
        src = getattr(self, "_source", "numpy")
        dtypes = getattr(self, "_dtypes", [None] * len(data))
        if src == "pandas":
            import pandas as pd

            cols = {}
            for (name, vals), dt in zip(data.items(), dtypes, strict=True):
                cols[name] = _pandas_cast(pd, vals, dt)
            return pd.DataFrame(cols)
        if src == "polars":
            import polars as pl

            series = []
            for (name, vals), dt in zip(data.items(), dtypes, strict=True):
                if dt.is_integer():
                    vals = np.rint(vals.astype(np.float64)).astype(np.int64)
                series.append(pl.Series(name, list(vals)).cast(dt))
            return pl.DataFrame(series)
        out = np.empty((len(next(iter(data.values()), [])), len(data)), dtype=object)
        for j, (vals, dt) in enumerate(zip(data.values(), dtypes, strict=True)):
            if dt is not None and dt.kind in "iu":
                vals = np.rint(vals.astype(np.float64)).astype(dt)
            elif dt is not None and dt.kind == "b":
                vals = vals.astype(bool)
            out[:, j] = vals
        if all(dt is not None and dt.kind in "biuf" for dt in dtypes):
            return out.astype(np.result_type(*dtypes))
        return out

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


@dataclass
class _NamedRow:
    """A row given as a dict: an object array whose columns follow the model's names."""

    row: np.ndarray
    names: list[str]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.row


def _pandas_cast(pd: Any, vals: np.ndarray, dt: Any) -> Any:
    s = pd.Series(vals)
    if isinstance(dt, pd.CategoricalDtype):
        known = set(dt.categories)
        if all(v in known for v in vals):
            return s.astype(dt)
        return s.astype("category")
    if pd.api.types.is_integer_dtype(dt):
        return pd.Series(np.rint(vals.astype(np.float64))).astype(dt)
    if pd.api.types.is_bool_dtype(dt):
        return s.astype(bool).astype(dt)
    try:
        return s.astype(dt)
    except (TypeError, ValueError):
        return s


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return dict(a) == dict(b)
    if a is None or b is None or isinstance(a, str | bool | int | float):
        return bool(a == b) if type(a) is type(b) else a is b
    try:
        return bool(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))
    except (TypeError, ValueError):
        return False


def _check_labels(y: Any, n_rows: int) -> np.ndarray:
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected; it was flattened.",
            stacklevel=4,
        )
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array; got an array of shape {y.shape} instead.")
    if len(y) != n_rows:
        raise ValueError(f"X has {n_rows} rows but y has {len(y)} labels: pass one per row.")
    missing = np.array([_is_missing(v) for v in y], dtype=bool) if y.dtype.kind in "fO" else None
    if missing is not None and missing.any():
        rows = np.flatnonzero(missing)
        raise ValueError(
            f"The label column y has missing values (NaN/None) at row(s) "
            f"{rows[:5].tolist()}{' ...' if len(rows) > 5 else ''}: every training row needs a "
            "label. Drop the unlabelled rows first (e.g. df[df[label].notna()])."
        )
    if y.dtype.kind == "O":
        _value_types(y, "y")
    check_classification_targets(y)
    if y.dtype.kind == "O":
        kinds = {type(v) for v in y}
        if kinds <= {str, np.str_}:
            y = y.astype(str)
    return y
