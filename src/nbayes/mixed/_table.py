"""The tables of MixedNB: columns of any container, their families, their values.

:func:`infer_family` gives a column its default family (the rules are in :mod:`nbayes.mixed`);
:func:`_columns_of` and :func:`_parse` turn a pandas or polars DataFrame or a 2-D array into
a :class:`_Table`: per column, its values in the form its family takes, and where values are
missing; :func:`_check_labels` checks y. Every error names the column. :func:`frame` builds
a table like the input from sampled columns.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from .._families.kinds import kind as kind_named
from .._template.guards import check_int_labels

__all__ = [
    "FAMILIES",
    "FamilyEvidence",
    "MAX_CODES",
    "MAX_COUNT",
    "TEXT_MIN_WORDS",
    "family_evidence",
    "frame",
    "infer_family",
]

#: nbayes's own column families (:func:`nbayes._families.kinds.column_kinds` adds the
#: registered ones)
FAMILIES = ("gaussian", "kde", "poisson", "categorical", "bernoulli", "text")
#: non-negative int columns with at most this many distinct values are categorical
MAX_CODES = 10
#: non-negative int columns with more values, all at most this, are Poisson counts
MAX_COUNT = 100
#: string columns whose median value has at least this many words are text
TEXT_MIN_WORDS = 3


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
        if getattr(self.raw.dtype, "kind", "") == "c":
            raise ValueError(
                f"Complex data not supported: column {self.name!r} holds complex numbers. "
                "Pass their real and imaginary parts (or abs) as two real columns."
            )
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
        elif isinstance(v, complex | np.complexfloating):
            raise ValueError(
                f"Complex data not supported: column {name!r} holds {v!r} at row {i}. Pass "
                "the real and imaginary parts (or abs) as two real columns."
            )
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
    ('categorical', 'non-negative integers with 3 distinct values (<= 10), none above 10: codes')
    >>> infer_family(np.array([23, 31, 47, 52, 23, 64, 38, 41]))  # ages, not codes
    ('poisson', 'non-negative integers up to 100: counts')
    >>> infer_family(np.array(["a long enough review", "so short", "three words here"]))[0]
    'text'
    """
    return family_evidence(column, name).decide()


@dataclass(frozen=True)
class FamilyEvidence:
    """What :func:`infer_family` reads of a column to choose its family, in a form that
    merges: the column's kind ("bool", "float", "int", "category", "string"; "empty": an
    object column without a value) and, where the family and the reason follow from the
    values, what it reads of them: the integers' count, least and greatest, and their
    distinct values while they can be codes; the strings' words (``(words, strings)``
    pairs, by words).

    The evidence of two parts of a column merges into the evidence of all their rows
    (:meth:`merged`), so that a model merged from parts of a table (a Dask fit) gives its
    columns the families and reasons of one fit of all the rows. Parts of other kinds
    (integers in one, strings in another) have no such evidence: ``parts`` then keeps
    their reasons, and ``family`` the family they share."""

    kind: str
    count: int = 0
    least: int = 0
    greatest: int = 0
    codes: frozenset[int] | None = None
    words: tuple[tuple[int, int], ...] = ()
    parts: tuple[str, ...] = ()
    family: str = ""

    def decide(self) -> tuple[str, str]:
        """The family and the reason, as :func:`infer_family` gives them."""
        if self.parts:
            reasons = "; ".join(dict.fromkeys(self.parts))
            return self.family, f"inferred from parts of the rows alone ({reasons})"
        return _family_of(self)

    def merged(self, other: FamilyEvidence) -> FamilyEvidence:
        """The evidence of the rows of both parts, as of one column of all their rows (a
        part of integers and one of floats: floats, as pandas concatenates them; an object
        column without a value takes the other's kind)."""
        a, b = self, other
        if a.kind == "empty" and not a.parts:
            return b
        if b.kind == "empty" and not b.parts:
            return a
        if {a.kind, b.kind} == {"int", "float"} and not (a.parts or b.parts):
            return FamilyEvidence("float")
        if a.parts or b.parts or a.kind != b.kind:
            kept = (*a._reasons(), *b._reasons())
            return FamilyEvidence("parts", parts=kept, family=a.decide()[0])
        if a.kind == "int":
            return _merged_ints(a, b)
        if a.kind == "string":
            counts = dict(a.words)
            for words, n in b.words:
                counts[words] = counts.get(words, 0) + n
            return FamilyEvidence("string", words=tuple(sorted(counts.items())))
        return a

    def _reasons(self) -> tuple[str, ...]:
        return self.parts or (_family_of(self)[1],)


def _merged_ints(a: FamilyEvidence, b: FamilyEvidence) -> FamilyEvidence:
    if not a.count or not b.count:
        return a if a.count else b
    least, greatest = min(a.least, b.least), max(a.greatest, b.greatest)
    codes = None
    if a.codes is not None and b.codes is not None and greatest <= MAX_CODES:
        codes = a.codes | b.codes
    return FamilyEvidence("int", a.count + b.count, least, greatest, codes)


def family_evidence(column: Any, name: str = "x") -> FamilyEvidence:
    """What :func:`infer_family` reads of ``column`` (a :class:`_Column`, or an array or
    a pandas or polars Series)."""
    col = column if isinstance(column, _Column) else _as_column(column, name)
    kind = col.kind()
    if kind == "object":  # (of the one type of its values)
        kind = _value_types(col.objects(), col.name)
        kind = "string" if kind == "str" else kind
    if kind == "int":
        vals = col.floats()
        if vals is None:  # an object column holding ints
            vals = np.array([np.nan if v is None else float(v) for v in col.objects()])
        vals = vals[~np.isnan(vals)]
        if not vals.size:
            return FamilyEvidence("int")
        least, greatest = int(vals.min()), int(vals.max())
        codes = None
        if least >= 0 and greatest <= MAX_CODES:
            codes = frozenset(int(v) for v in np.unique(vals))
        return FamilyEvidence("int", int(vals.size), least, greatest, codes)
    if kind == "string":
        obj = col.objects()
        _warn_if_numbers(obj, col.name)
        counts: dict[int, int] = {}
        for v in obj:
            if v is not None:
                words = len(str(v).split())
                counts[words] = counts.get(words, 0) + 1
        return FamilyEvidence("string", words=tuple(sorted(counts.items())))
    if kind in ("bool", "float", "category", "empty"):
        return FamilyEvidence(kind)
    raise TypeError(
        f"Column {col.name!r} has an unsupported type {kind}: convert it to numbers, "
        "booleans or strings, or drop it."
    )


def _family_of(evidence: FamilyEvidence) -> tuple[str, str]:
    """The family of a column of this evidence, and why (the rules of the module
    docstring)."""
    kind = evidence.kind
    if kind == "bool":
        return "bernoulli", "boolean values"
    if kind == "float":
        return "gaussian", "float values"
    if kind == "int":
        if evidence.count and evidence.least < 0:
            return "gaussian", "integers with negative values"
        # codes are few and small (0-10: levels, ratings); a few values spread wider (ages
        # 23, 31, 47, ... of a small table) are measurements: as codes, an age not seen in
        # training would get the prior alone
        distinct = len(evidence.codes or ())
        none = not evidence.count
        if none or (evidence.greatest <= MAX_CODES and distinct <= MAX_CODES):
            return (
                "categorical",
                f"non-negative integers with {distinct} distinct values (<= {MAX_CODES}), "
                f"none above {MAX_CODES}: codes",
            )
        if none or evidence.greatest <= MAX_COUNT:
            return "poisson", f"non-negative integers up to {MAX_COUNT}: counts"
        return "gaussian", f"integers above {MAX_COUNT}"
    if kind == "category":
        return "categorical", "category dtype"
    median = _median(evidence.words)  # strings (or an object column without a value)
    if median >= TEXT_MIN_WORDS:
        return "text", f"strings of {median:g} words (median >= {TEXT_MIN_WORDS}): text"
    return "categorical", f"short strings (median {median:g} words)"


def _median(counts: tuple[tuple[int, int], ...]) -> float:
    """The median of values given as ``(value, times)`` pairs in increasing order, as
    ``np.median`` of all of them (0 for none)."""
    total = sum(n for _, n in counts)
    if not total:
        return 0.0
    middle = [(total - 1) // 2, total // 2]
    found: list[int] = []
    seen = 0
    for value, n in counts:
        while middle and middle[0] < seen + n:
            found.append(value)
            middle.pop(0)
        seen += n
    return float(np.mean(found))


def _warn_if_numbers(values: np.ndarray, name: str) -> None:
    """Warn when a column of strings is numbers but for a few cells (a typo, "n/a"): one
    "abc" among 4,600 numbers made the column categorical, with hundreds of categories,
    without a word."""
    present = [(i, v) for i, v in enumerate(values) if v is not None and str(v).strip()]
    if len(present) < 10:
        return
    others = []
    for i, v in present:
        try:
            float(v)
        except ValueError:
            others.append((i, v))
            if len(others) > len(present) // 20:  # (at most 5 % of them: a slip)
                return
    if not others:
        return
    import warnings

    from nbayes.exceptions import NBayesWarning

    i, v = others[0]
    warnings.warn(
        f"Column {name!r} holds {len(present) - len(others):,} numbers and {len(others):,} "
        f"other value(s) ({v!r} at row {i}): it is read as categorical, every distinct "
        "number a category. Fix those cells (or make them missing: empty, None), or give "
        f"the column's family in columns= ({{{name!r}: 'gaussian'}}).",
        NBayesWarning,
        stacklevel=4,
    )


def _as_column(arr: Any, name: str) -> _Column:
    src = _module(arr)
    if src in ("pandas", "polars"):
        return _Column(name, arr, src)
    a = np.asarray(arr)
    if a.dtype.kind == "U":
        a = a.astype(object)
    return _Column(name, a, "numpy")


def _check_rows(shape: tuple[int, ...], who: str) -> None:
    """A table to learn from or to predict must have a row and a column (as scikit-learn)."""
    for n, what in ((shape[0], "sample"), (shape[1], "feature")):
        if n == 0:
            raise ValueError(
                f"Found array with 0 {what}(s) (shape={tuple(shape)}) while a minimum of 1 "
                f"is required by {who}."
            )


def _columns_of(
    X: Any, names: Sequence[str] | None, who: str = "MixedNB"
) -> tuple[list[_Column], str]:
    """The columns of X (by name for data frames, by position otherwise)."""
    src = _module(X)
    if src in ("pandas", "polars") and hasattr(X, "columns"):
        labels = [str(c) for c in X.columns]
        twice = sorted({c for c in labels if labels.count(c) > 1})
        if twice:
            raise ValueError(
                f"X has duplicate column names {twice}: MixedNB tells columns apart by name. "
                "Rename them (e.g. df.columns = [...]) or pass df.to_numpy()."
            )
        _check_rows(X.shape, who)
        cols = [_Column(str(c), X[c], src) for c in X.columns]
    else:
        src = "numpy"
        if _module(X) == "scipy":
            raise TypeError(
                f"Sparse data was passed for X, but dense data is required: {who} reads a "
                "table of columns. Use X.toarray() to convert to a dense numpy array."
            )
        arr = np.asarray(X, dtype=object) if not hasattr(X, "dtype") else np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(
                f"Expected 2D array, got {arr.ndim}D array instead: a table of shape "
                f"{arr.shape}. Reshape your data either using array.reshape(-1, 1) if your "
                "data has a single feature or array.reshape(1, -1) if it contains a single "
                "sample."
            )
        _check_rows(arr.shape, who)
        if arr.dtype.kind == "U":
            arr = arr.astype(object)
        n = arr.shape[1]
        given = list(names) if names is not None else [f"x{j}" for j in range(n)]
        if len(given) != n:
            raise ValueError(
                f"X has {n} features, but {who} is expecting {len(given)} features as input "
                f"(the columns {given} of fit): pass the same columns as in fit."
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


def _first_not_a_number(obj: np.ndarray, missing: np.ndarray) -> int:
    """The row of the first value present that is not a number (``"oops"``, not the
    ``"30"`` of a column read as text because of it); the first value present if all are.

    >>> _first_not_a_number(np.array(["30", None, "oops"], dtype=object), np.array([0, 1, 0], bool))
    2
    """
    present = np.flatnonzero(~missing).tolist()
    for i in present:
        try:
            float(obj[i])
        except (TypeError, ValueError):
            return int(i)
    return int(present[0])


def _parse(col: _Column, family: str) -> tuple[np.ndarray, np.ndarray]:
    """Values of one column for ``family``, with clear errors naming the column."""
    name = col.name
    missing = col.missing()
    values = kind_named(family).values  # how the family reads the column
    if values in ("number", "count", "flag"):
        vals = col.floats()
        if vals is None:
            obj = col.objects()
            kind = _value_types(obj, name)
            if kind == "str":
                i = _first_not_a_number(obj, missing)
                raise ValueError(
                    f"Column {name!r} is a {family} column but holds strings such as "
                    f"{obj[i]!r} (row {i}): give it numbers, or columns={{{name!r}: "
                    "'categorical'}."
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
        if values == "count" and np.any(vals[~missing] < 0):
            i = int(np.flatnonzero(vals < 0)[0])
            raise ValueError(
                f"Column {name!r} is a {family} (count) column but holds the negative value "
                f"{float(vals[i])!r} at row {i}: use columns={{{name!r}: 'gaussian'}} instead."
            )
        if values == "flag":
            ok = np.isnan(vals) | (vals == 0) | (vals == 1)
            if not ok.all():
                i = int(np.flatnonzero(~ok)[0])
                raise ValueError(
                    f"Column {name!r} is a {family} column but holds {float(vals[i])!r} at row "
                    f"{i}: only True/False (or 1/0) are allowed."
                )
        return vals, missing
    obj = col.objects()
    kind = _value_types(obj, name)
    if values == "documents":
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


@dataclass
class _NamedRow:
    """A row given as a dict: an object array whose columns follow the model's names."""

    row: np.ndarray
    names: list[str]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.row


def _check_labels(y: Any, n_rows: int) -> np.ndarray:
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y)
    if y.ndim == 2 and y.shape[1] == 1:
        from sklearn.exceptions import DataConversionWarning

        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the "
            "shape of y to (n_samples, ), for example using ravel().",
            DataConversionWarning,
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
        check_int_labels(y)
    check_classification_targets(y)
    if y.dtype.kind == "O":
        kinds = {type(v) for v in y}
        if kinds <= {str, np.str_}:
            y = y.astype(str)
    return y


def frame(data: dict[str, np.ndarray], src: str, dtypes: Sequence[Any] | None) -> Any:
    """Columns of values (drawn by ``sample``) as a table like the input: a pandas or
    polars DataFrame with the input's dtypes (``src``), else a 2-D array."""
    dtypes = [None] * len(data) if dtypes is None else dtypes
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
