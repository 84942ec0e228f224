"""MixedNB, the estimator (:mod:`nbayes.mixed` describes the model)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._families.kinds import column_kinds
from .._families.kinds import kind as kind_named
from .._statistics import CountStats
from .._template import params as P
from .._template.base import BaseNB
from .._template.guards import check_encodable
from ..display import Summary
from ..exceptions import ColumnFamiliesError
from ..kernel import bandwidth_rule
from ..text._textstats import TextStats
from ._columns import MixedFamily, column_stats, empty_column
from ._stats import MixedStats
from ._table import (
    FAMILIES,
    MAX_CODES,
    MAX_COUNT,
    FamilyEvidence,
    _check_labels,
    _columns_of,
    _module,
    _NamedRow,
    _parse,
    _Table,
    family_evidence,
    frame,
    infer_family,
)
from ._table import TEXT_MIN_WORDS as TEXT_MIN_WORDS

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


# -------------------------------------------------------------------------- merging
def _merged_evidence(columns: tuple[FamilyEvidence | None, ...]) -> FamilyEvidence | None:
    """One column's evidence over the models merged (None: its family was given)."""
    if any(e is None for e in columns):
        return None
    first, *others = columns
    assert first is not None
    for each in others:
        assert each is not None
        first = first.merged(each)
    return first


def _check_families(
    merged: Any, evidence: list[FamilyEvidence | None], batch: bool = False
) -> None:
    """A :class:`ColumnFamiliesError` if the rows of the models merged together (with
    ``batch``: a model's rows and a batch it learns) would give a column another family
    than the one the model has."""
    mine = merged.families_
    theirs = {
        name: family if e is None else e.decide()[0]
        for (name, family), e in zip(mine.items(), evidence, strict=True)
    }
    if theirs == mine:
        return
    differ = [name for name in mine if mine[name] != theirs[name]]
    said = ", ".join(f"{name!r} {theirs[name]}, not {mine[name]}" for name in differ)
    example = {name: theirs[name] for name in differ}
    if batch:
        message = (
            f"Cannot learn this batch: with the rows learnt before, it would give columns "
            f"other families than the model inferred from its earlier rows ({said}), so the "
            f"model would no longer be the model of all its rows. Nothing was changed. Give "
            f"those families with columns={{...}} (e.g. columns={example}) and fit again."
        )
    else:
        message = (
            f"Cannot combine these models: their rows together would give columns other "
            f"families than each model inferred from its own rows ({said}), so the merged "
            f"model would not be the model of all the rows. Fix the families with "
            f"columns={{...}} on every model (e.g. columns={example})."
        )
    raise ColumnFamiliesError(message, mine, theirs, together=True)


def _parts_reason(reasons: tuple[str, ...]) -> str:
    """The reason of a column of merged models that kept their reasons alone: theirs if
    they agree, else each part's, said to be of a part."""
    kept = list(dict.fromkeys(reasons))
    if len(kept) == 1:
        return kept[0]
    return f"inferred from parts of the rows alone ({'; '.join(kept)})"


# -------------------------------------------------------------------------- estimator
@P.hyperparameters
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
        shape of the Gamma(alpha, beta) prior of poisson rates, whose rate ``beta`` is
        PoissonNB's default 1 (``nbayes.mixed._columns.POISSON_BETA``; MixedNB has no
        ``beta`` of its own).
    var_smoothing : float, default=1e-9
        As in GaussianNB: this fraction of the largest variance of a gaussian column (over
        every row seen, derived from the statistics, so independent of the batches) is
        added to every gaussian variance.
    bandwidth : {"scott", "silverman", "robust"} or float, default="scott"
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
    family_reasons_ : dict
        Column name -> why it got its family.
    column_sizes_ : dict
        Column name -> categories, words or stored points (None for other families).
    dtypes_ : list or None
        The pandas dtypes of the columns (None unless fitted on a pandas DataFrame).
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

    columns: Any = dataclasses.field(default=None, kw_only=False)
    alpha: float = 1.0
    var_smoothing: float = 1e-9
    bandwidth: Any = "scott"
    fit_prior: bool = True
    class_prior: Any = None

    # ------------------------------------------------------------------ input
    def _given_families(self) -> dict[str, str]:
        spec = self.columns
        if spec is None:
            return {}
        if isinstance(spec, Mapping):
            items = {str(k): v for k, v in spec.items()}
        else:
            items = {f"x{j}": v for j, v in enumerate(spec)}
        known = column_kinds()
        for k, v in items.items():
            if v not in known:
                raise ValueError(
                    f"Unknown family {v!r} for column {k!r}: choose one of {list(known)}."
                )
        return items

    def _numpy_names(self) -> list[str] | None:
        if isinstance(self.columns, Mapping):
            return [str(k) for k in self.columns]
        return None

    def _read(
        self, X: Any, reset: bool, grown: list[FamilyEvidence | None] | None = None
    ) -> _Table:
        """``X`` parsed by the columns' families, inferred from it with ``reset``; with
        ``grown`` (a list) and the model's own evidence, the batch's evidence of each
        column whose family was inferred (None for the others) is appended to it."""
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
            evidence: list[FamilyEvidence | None] = []
            for c in cols:
                if c.name in given:
                    families.append(given[c.name])
                    reasons.append("given in columns=")
                    evidence.append(None)
                else:
                    found = family_evidence(c)
                    fam, why = found.decide()
                    families.append(fam)
                    reasons.append(why)
                    evidence.append(found)
            self._source = src
            self._dtypes = [c.dtype() for c in cols]
            self._reasons = reasons
            self._evidence = evidence
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
        kept = self.__dict__.get("_evidence")
        if grown is not None and kept is not None and not reset:
            # (a batch without a value of a column says nothing of its family: a pandas
            # column of ints and a missing value is of floats)
            grown.extend(
                None if k is None else FamilyEvidence("empty") if m.all() else family_evidence(c)
                for k, c, m in zip(kept, cols, missing, strict=True)
            )
        return _Table(list(names), list(families), values, missing, n_rows)

    def _names_families(self) -> tuple[list[str], list[str]]:
        if hasattr(self, "_stats"):
            return list(self._stats.names), list(self._stats.families)
        return self._pending

    def _check_X(self, X: Any) -> Any:
        check_is_fitted(self)
        return self._read(X, reset=False)

    def _check_X_y(self, X: Any, y: Any, reset: bool) -> tuple[Any, np.ndarray]:
        # (partial_fit and update of a fitted model: the batch's evidence, :meth:`_growing`)
        grown = None if reset else self.__dict__.get("_batch_evidence")
        table = self._read(X, reset=reset, grown=grown)
        y = _check_labels(y, table.n_rows)
        for name, values in zip(table.names, table.values, strict=True):
            if values.dtype == object:  # categories and texts are stored as UTF-8
                check_encodable(values, f"value of column {name!r}")
        return table, y

    def _empty_stats(self, classes: np.ndarray, n_features: int) -> Any:
        names, families = self._names_families()
        return MixedStats(
            CountStats.empty(classes, 0),
            tuple(names),
            tuple(families),
            tuple(empty_column(f, np.asarray(classes)) for f in families),
        )

    def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
        table: _Table = X
        head = CountStats.from_batch(np.zeros((len(y), 0)), y, sample_weight)
        cols = []
        for fam, v, m in zip(table.families, table.values, table.missing, strict=True):
            keep = ~m
            if not keep.any():  # (a batch without a value of the column: counted nothing)
                cols.append(empty_column(fam, head.classes))
                continue
            stats = column_stats(fam, v[keep], y[keep], sample_weight[keep])
            cols.append(stats.reindex(head.classes))
        return MixedStats(head, tuple(table.names), tuple(table.families), tuple(cols))

    # merge is the template's, with two settings: the statistics compare the columns and
    # families (a clearer error than a count of features), and a merged model keeps the
    # input's source and dtypes (for sample and info); its family reasons are those of
    # the rows of every model merged (:meth:`merge`).
    _fitted_inputs = ("n_features_in_", "feature_names_in_", "_source", "_dtypes", "_reasons")

    def _check_merge_inputs(self, other: Any) -> None:
        self._stats._check(other._stats)

    # partial_fit and update are the template's, and the columns' evidence grows with the
    # rows learnt, so that a batch cannot leave a column of a family that one fit of all
    # the rows would not give it (codes 0-9 first, then 0-40: counts). unlearn keeps the
    # evidence (the rows unlearnt can no longer be told apart in it).
    def partial_fit(
        self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None
    ) -> MixedNB:
        """As :meth:`BaseNB.partial_fit`. A batch that, with the rows learnt before, would
        give an inferred column another family than the model's (the first batch's codes
        0-9, a later one's 0-40: counts) is a
        :class:`~nbayes.exceptions.ColumnFamiliesError`, and nothing is learnt: give the
        families with ``columns=`` when a first batch cannot show them."""
        learn = super().partial_fit
        return self._growing(lambda: learn(X, y, classes=classes, sample_weight=sample_weight))

    def update(self, X: Any, y: Any, sample_weight: Any = None) -> MixedNB:
        """As :meth:`BaseNB.update`, with :meth:`partial_fit`'s check of the families."""
        learn = super().update
        return self._growing(lambda: learn(X, y, sample_weight=sample_weight))

    def _growing(self, learn: Any) -> MixedNB:
        """Run a learning call of more rows, and grow the columns' evidence by the batch's
        (read by :meth:`_check_X_y`); refuse the batch if the evidence of all the rows
        would give a column another family. A model of a file without the evidence (one
        written before nbayes kept it, or with the families given) learns as it is."""
        kept = self.__dict__.get("_evidence") if self.__sklearn_is_fitted__() else None
        self._batch_evidence: list[FamilyEvidence | None] = []
        try:
            learn()
            batch = self._batch_evidence
        finally:
            self.__dict__.pop("_batch_evidence", None)
        if kept is None or not batch:  # (a fit: the evidence is the batch's own)
            return self
        grown = [
            None if k is None or b is None else k.merged(b)
            for k, b in zip(kept, batch, strict=True)
        ]
        self._adopt_evidence(grown, batch=True)
        return self

    def _adopt_evidence(self, evidence: list[FamilyEvidence | None], batch: bool) -> None:
        """Keep the evidence of all the rows (a merge's, or the rows learnt and a batch's)
        and the reasons it gives, once :func:`_check_families` finds the families the
        same."""
        _check_families(self, evidence, batch=batch)
        self._evidence = evidence
        self._reasons = [
            why if e is None else e.decide()[1]
            for why, e in zip(self._reasons, evidence, strict=True)
        ]

    def merge(self, other: MixedNB, *more: MixedNB) -> MixedNB:
        """The model of the union of both models' data (neither model is changed).

        As for every nbayes model (:meth:`BaseNB.merge`), with the columns' families: the
        same in both, and, where they were inferred, the families one fit of all the rows
        infers, with its reasons (a model fitted in this version keeps what it inferred
        them from; a model loaded from a file keeps its reasons, said to be of parts of the
        rows where they differ). A column whose rows together would get another family
        (codes 0-9 in one model, 1-10 in the other: 11 values, counts) is a
        :class:`~nbayes.exceptions.ColumnFamiliesError`: fix the families with
        ``columns=``.
        """
        merged = super().merge(other, *more)
        models = (self, other, *more)
        evidence = [getattr(m, "_evidence", None) for m in models]
        if all(e is not None for e in evidence):
            kept = [_merged_evidence(columns) for columns in zip(*evidence, strict=True)]
            merged._adopt_evidence(kept, batch=False)
        else:  # (a model of a file: its reasons, not what they were inferred from)
            merged.__dict__.pop("_evidence", None)
            merged._reasons = [
                _parts_reason(reasons)
                for reasons in zip(*(m.family_reasons_.values() for m in models), strict=True)
            ]
        return merged

    # ---------------------------------------------------------------- results
    @property
    def families_(self) -> dict[str, str]:
        """Column name -> family."""
        check_is_fitted(self)
        return dict(zip(self._stats.names, self._stats.families, strict=True))

    @property
    def family_reasons_(self) -> dict[str, str]:
        """Column name -> why it got its family (from its values, or "given in columns=")."""
        check_is_fitted(self)
        reasons = getattr(self, "_reasons", ["?"] * self._stats.n_features)
        return dict(zip(self._stats.names, reasons, strict=True))

    @property
    def column_sizes_(self) -> dict[str, int | None]:
        """Column name -> the size of its table: its categories (categorical), words (text)
        or stored points (kde); None for the other families."""
        check_is_fitted(self)
        s = self._stats
        sizes: dict[str, int | None] = {}
        for name, family, col in zip(s.names, s.families, s.columns, strict=True):
            sizes[name] = kind_named(family).size(col)
        return sizes

    @property
    def dtypes_(self) -> list[Any] | None:
        """The pandas dtypes of the columns, in column order, if fitted on a pandas
        DataFrame; else None."""
        check_is_fitted(self)
        if getattr(self, "_source", None) != "pandas" or not hasattr(self, "_dtypes"):
            return None
        return list(self._dtypes)

    @property
    def epsilon_(self) -> float:
        """Variance added to every gaussian column's variances."""
        return float(self._derived()["epsilon"])

    def _feature_names(self) -> list[str]:
        return list(self._stats.names)

    def summary(self) -> Summary:
        """What family each column got and why, with its observed counts per class.

        A str (the text below) that shows as these lines in a notebook, and as an HTML
        table.

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
        reasons = self.family_reasons_.values()
        counts = ", ".join(f"{c:g}" for c in s.class_count)
        rows = [("column", "family", "observed per class", "why")]
        for name, fam, col, why in zip(s.names, s.families, s.columns, reasons, strict=True):
            rows.append((name, fam, ", ".join(f"{c:g}" for c in col.class_count), why))
        width = [max(len(r[i]) for r in rows) for i in range(3)]
        title = f"MixedNB over {s.n_features} columns, classes {s.classes.tolist()} (rows {counts})"
        lines = [title]
        for r in rows:
            lines.append(
                f"{r[0]:<{width[0]}}  {r[1]:<{max(width[1], 11)}}  {r[2]:<{width[2]}}  {r[3]}"
            )
        return Summary("\n".join(line.rstrip() for line in lines), title, rows)

    def explain(self, x: Any, exact: bool = False, feature_names: Any = None) -> Any:
        """Why the model classifies one row as it does: every column's term per class.

        ``x`` is a one-row data frame, a pandas Series, a dict (column -> value) or a 1-D
        sequence in column order. Each column's term is its family's log P(x_j | y) (for a
        text column, of all its words); a missing value's term is 0. ``exact=True`` is not
        available for mixed models.

        Returns
        -------
        nbayes.Explanation
        """
        return super().explain(x, exact=exact, feature_names=feature_names)

    def _row_values(self, X: Any) -> np.ndarray:
        return np.array([v[0] for v in X.values], dtype=object)

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
        data, y = super().sample(n_samples, random_state)
        return frame(data, getattr(self, "_source", "numpy"), getattr(self, "_dtypes", None)), y

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags
