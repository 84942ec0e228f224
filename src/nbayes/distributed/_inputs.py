"""What an estimator learns from and predicts on, taken from one partition of a dask collection.

Any estimator with ``fit``, ``partial_fit`` and ``merge`` can be fitted on a cluster; what
it takes is read from its scikit-learn tags, not from its type: an estimator whose input is
not a 2-D array (``input_tags.two_d_array`` False, e.g. :class:`nbayes.TextClassifier`)
learns from documents, one per row (a DataFrame's ``text_col``, a Bag's first items); every
other one learns from a table (a DataFrame's other columns, a Bag's first items as rows, an
Array's rows).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

_MISSING = "nbayes.distributed requires dask: pip install 'nbayes[dask]'"


def require_dask() -> Any:
    """The dask module, with its array, bag and dataframe parts, or a helpful ImportError."""
    try:
        import dask
        import dask.array  # noqa: F401
        import dask.bag  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return dask


class BlocksDisagreeError(ValueError):
    """The blocks of a file read by dask (no bad rows skipped) disagree on its columns or
    their types: dask reads each block's from its own rows. Skipping bad rows
    (``bad_rows="skip"``) reads every block as one process reads the whole file."""


class PartitionError(ValueError):
    """Bad rows in one partition of a distributed fit: says which partition and row, and,
    for a collection read by :func:`nbayes.distributed.read`, which file, row and line.

    Attributes
    ----------
    partition : int
        Number of the partition (0-based, in the collection's order).
    row : int or None
        Position of the first bad row within the partition (0-based), if found.
    label : object
        Index label of that row (dask DataFrame input) or its global position (dask Array
        input), if known.
    reason : str
        What is wrong with the row: a missing label or text, or the error of the
        single-machine fit on that partition.
    source : str or None
        The file the partition was read from (a collection of :func:`read`), if known.
    source_row : int or None
        The row's number in that file (0-based, as the single-machine readers count:
        the header and blank lines are no rows).
    line : int or None
        The line of the file where that row ends (1-based), if the file could be read
        again on this machine.
    """

    def __init__(
        self,
        partition: int,
        row: int | None,
        label: Any,
        reason: str,
        source: str | None = None,
        source_row: int | None = None,
        line: int | None = None,
        advice: str | None = None,
    ) -> None:
        self.partition = partition
        self.row = row
        self.label = label
        self.reason = reason
        self.source = source
        self.source_row = source_row
        self.line = line
        self.advice = _ADVICE.get(reason.split(" (")[0], "") if advice is None else advice
        super().__init__(self.problem + (f" {self.advice}" if self.advice else ""))

    @property
    def problem(self) -> str:
        """Where the bad row is and what is wrong with it (the message without advice)."""
        end = "" if self.reason.endswith((".", "!", "?")) else "."
        if self.source is not None:
            # as the single-machine readers say it (nbayes.io.read_texts, the CLI)
            where = self.source
            if self.source_row is not None:
                where += f", row {self.source_row}"
                if self.line is not None:
                    where += f" (line {self.line})"
            elif self.row is not None:
                where += f" (partition {self.partition}, row {self.row})"
            else:
                where += f" (partition {self.partition})"
            return f"{where}: {self.reason}{end}"
        where = f"partition {self.partition}"
        if self.row is not None:
            where += f", row {self.row}"
            if self.label is not None:
                where += f" (index {self.label!r})"
        return f"Bad data in {where}: {self.reason}{end}"

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep the attributes when the error travels from a worker to the client.
        return (
            type(self),
            (
                self.partition, self.row, self.label, self.reason, self.source,
                self.source_row, self.line, self.advice,
            ),
        )  # fmt: skip


#: the reasons of rows refused before any fit (the single-machine readers' words)
MISSING_LABEL = "missing label (null)"
MISSING_TEXT = "missing text (null)"
#: what to do about them (a distributed fit stops at the first bad row: no skipping)
_ADVICE = {
    "missing label": "Drop the rows without a label first (or give them one), e.g. "
    "frame.dropna(subset=[label_col]).",
    "missing text": "Drop the rows without a document first (or make them ''), e.g. "
    "frame.dropna(subset=[text_col]).",
}


# ------------------------------------------------------------------ collections
def kind(data: Any) -> str:
    """What ``data`` is: "frame", "bag", "arrays" (a tuple (X, y)) or "array"."""
    dask = require_dask()
    if isinstance(data, tuple) and len(data) == 2:
        if all(isinstance(d, dask.array.Array) for d in data):
            return "arrays"
        raise TypeError("A tuple (X, y) must hold two dask Arrays.")
    if isinstance(data, dask.dataframe.DataFrame):
        return "frame"
    if isinstance(data, dask.bag.Bag):
        return "bag"
    if isinstance(data, dask.array.Array):
        return "array"
    raise TypeError(
        f"Cannot fit on a {type(data).__name__}: pass a dask DataFrame, a dask Bag of "
        "(x, label) pairs or a tuple (X, y) of dask Arrays."
    )


def aligned_arrays(X: Any, y: Any) -> tuple[Any, Any]:
    """X in blocks of whole rows and y in the same row blocks."""
    if any(math.isnan(c) for c in X.chunks[0]) or any(math.isnan(c) for c in y.chunks[0]):
        raise ValueError(
            "X and y have unknown chunk sizes: call X.compute_chunk_sizes() and "
            "y.compute_chunk_sizes() first."
        )
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels.")
    return whole_rows(X), (y if y.chunks[0] == X.chunks[0] else y.rechunk({0: X.chunks[0]}))


def whole_rows(X: Any) -> Any:
    """A 2-D dask Array with every row in one block (an estimator needs all its columns)."""
    return X.rechunk({1: -1}) if X.ndim == 2 and X.numblocks[1] > 1 else X


def check_columns(frame: Any, text_col: str | None, label_col: str | None) -> None:
    """KeyError naming the columns if ``text_col`` or ``label_col`` is not one of them."""
    for what, col in (("label", label_col), ("text", text_col)):
        if col is not None and col not in frame.columns:
            raise KeyError(f"No {what} column {col!r}: the columns are {list(frame.columns)}.")


# ------------------------------------------------------------------ estimators
def takes_documents(estimator: Any) -> bool:
    """Whether ``estimator`` learns from documents (1-D input) rather than a table."""
    from sklearn.utils import get_tags

    return not get_tags(estimator).input_tags.two_d_array


def check_estimator(estimator: Any) -> None:
    """TypeError unless ``estimator`` can be fitted by parts and its parts merged."""
    methods = ("fit", "partial_fit", "merge")
    missing = [m for m in methods if not callable(getattr(estimator, m, None))]
    if missing:
        needs = " and ".join([", ".join(missing[:-1]), missing[-1]] if missing[:-1] else missing)
        raise TypeError(
            f"nbayes.distributed cannot fit a {type(estimator).__name__}: it fits one model "
            f"per partition and merges them, so the estimator needs {needs} (every nbayes "
            "estimator has them)."
        )


def frame_input(estimator: Any, frame: Any, text_col: str | None, label_col: str | None) -> Any:
    """What ``estimator`` learns from, from one pandas partition: documents (the
    ``text_col`` column as a list) or a table (every column but ``label_col``)."""
    if takes_documents(estimator):
        return _documents(estimator, frame, text_col)
    return frame.drop(columns=[c for c in (label_col,) if c is not None and c in frame.columns])


def predict_input(estimator: Any, frame: Any, text_col: str | None) -> Any:
    """What a fitted ``estimator`` predicts on, from one pandas partition: documents, or
    the columns named in ``feature_names_in_`` (every column if it has no names)."""
    if takes_documents(estimator):
        return _documents(estimator, frame, text_col)
    names = getattr(estimator, "feature_names_in_", None)
    return frame if names is None else frame[list(names)]


def _documents(estimator: Any, frame: Any, text_col: str | None) -> list[Any]:
    if text_col is None:
        text_col = infer_text_col(estimator, list(frame.columns))
    check_columns(frame, text_col, None)
    return list(frame[text_col].tolist())


#: the readers' default column of documents (a column's name, not a kind of model)
DEFAULT_TEXT_COL = "text"


def infer_text_col(estimator: Any, columns: Sequence[Any], label_col: str | None = None) -> Any:
    """The column of the documents when ``text_col`` is not given: the frame's one column
    besides ``label_col``, else a column named "text" (the readers' default, as in
    :func:`nbayes.io.read_texts` and the CLI's ``--text-col``); ValueError if neither."""
    candidates = [c for c in columns if c != label_col]
    if len(candidates) == 1:
        return candidates[0]
    if DEFAULT_TEXT_COL in candidates:
        return DEFAULT_TEXT_COL
    raise ValueError(
        f"A {type(estimator).__name__} learns from documents: pass text_col, the column "
        f"holding them (the columns are {list(columns)}; none is named 'text')."
    )


def record_input(estimator: Any, xs: list[Any]) -> Any:
    """The first items of a Bag's records as documents or as the rows of a table."""
    return xs if takes_documents(estimator) else np.asarray(xs)


# ------------------------------------------------------------------ partitions
@dataclass
class Part:
    """One partition as a fit sees it: the estimator's input and the labels.

    ``labels`` gives, per row, what an error message should call it (index labels of a
    DataFrame partition, global row numbers of an Array block), or None.
    """

    partition: int
    X: Any
    y: np.ndarray
    labels: Sequence[Any] | None = None

    def __len__(self) -> int:
        return int(len(self.y))

    def head(self, k: int) -> Part:
        X = self.X.iloc[:k] if hasattr(self.X, "iloc") else self.X[:k]
        return Part(self.partition, X, self.y[:k], None)


def to_part(kind: str, estimator: Any, cols: dict[str, Any], i: int, raw: Any) -> Part | None:
    """Partition ``i`` of a collection of this kind as a :class:`Part` (None if empty).

    ``cols`` holds ``text_col`` and ``label_col`` (frames) and ``offsets``, the first
    global row of every block (arrays). A row without a label (or, for an estimator of
    documents, without a document) is a :class:`PartitionError` at once, in the words of
    the single-machine readers, before any fit.
    """
    documents = takes_documents(estimator)
    if kind == "frame":
        if len(raw) == 0:
            return None
        label_col, text_col = cols["label_col"], cols["text_col"]
        labels = list(raw.index)
        texts = raw[text_col] if documents and text_col in raw.columns else None
        _refuse_missing(i, labels, raw[label_col], texts)
        X = frame_input(estimator, raw, text_col, label_col)
        return Part(i, X, as_labels(raw[label_col].to_numpy()), labels)
    if kind == "bag":
        records = list(raw)
        if not records:
            return None
        xs, ys = [r[0] for r in records], [r[1] for r in records]
        _refuse_missing(i, None, ys, xs if documents else None)
        X = record_input(estimator, xs)
        return Part(i, X, np.asarray(ys), None)
    X, y = raw
    if len(y) == 0:
        return None
    start = cols["offsets"][i]
    rows = range(start, start + len(y))
    _refuse_missing(i, rows, y, None)
    return Part(i, X, np.asarray(y), rows)


def as_labels(values: Any) -> np.ndarray:
    """A partition's labels as the single-machine readers give them: strings as a str
    array (pandas hands them as objects, and the model file then stored its classes as
    objects: not byte for byte the file of one process)."""
    y = np.asarray(values)
    if y.dtype == object and len(y) and all(isinstance(v, str) for v in y.tolist()):
        return y.astype(str)
    return y


def _refuse_missing(i: int, labels: Sequence[Any] | None, y: Any, texts: Any) -> None:
    """PartitionError naming the first row of partition ``i`` whose label (or document,
    ``texts`` given) is missing: None, NaN or pandas' NA."""
    missing_y = _missing(y)
    missing_x = np.zeros_like(missing_y) if texts is None else _missing(texts)
    bad = np.flatnonzero(missing_y | missing_x)
    if not len(bad):
        return
    row = int(bad[0])
    reason = MISSING_TEXT if missing_x[row] else MISSING_LABEL
    raise PartitionError(i, row, None if labels is None else labels[row], reason)


def _missing(values: Any) -> np.ndarray:
    """Per value, whether it is missing (None, NaN, pandas' NA)."""
    if hasattr(values, "isna"):  # a pandas Series
        return np.asarray(values.isna().to_numpy(), dtype=bool)
    if isinstance(values, np.ndarray) and values.ndim == 1:
        if values.dtype.kind == "f":
            return np.isnan(values)
        if values.dtype.kind != "O":
            return np.zeros(len(values), dtype=bool)
    import pandas as pd

    return np.fromiter(
        (v is None or v is pd.NA or (isinstance(v, float) and v != v) for v in values),
        dtype=bool, count=len(values),
    )  # fmt: skip


def first_bad_row(learn: Callable[[Part], Any], part: Part) -> int | None:
    """The first row whose prefix ``learn`` refuses (log2(n) attempts), or None.

    Per-row problems (NaN, a negative count, a document that is no str) make every
    longer prefix fail too, so bisection finds the first offending row.
    """

    def fails(k: int) -> bool:
        try:
            learn(part.head(k))
        except (ValueError, TypeError):
            return True
        return False

    lo, hi = 1, len(part)
    while lo < hi:
        mid = (lo + hi) // 2
        if fails(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo - 1 if fails(lo) else None
