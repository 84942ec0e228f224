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


class PartitionError(ValueError):
    """Bad rows in one partition of a distributed fit: says which partition and row.

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
        The error of the single-machine fit on that partition.
    """

    def __init__(self, partition: int, row: int | None, label: Any, reason: str) -> None:
        self.partition = partition
        self.row = row
        self.label = label
        self.reason = reason
        where = f"partition {partition}"
        if row is not None:
            where += f", row {row}"
            if label is not None:
                where += f" (index {label!r})"
        super().__init__(f"Bad data in {where}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Keep the attributes when the error travels from a worker to the client.
        return (type(self), (self.partition, self.row, self.label, self.reason))


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
        raise ValueError(
            f"A {type(estimator).__name__} learns from documents: pass text_col, the column "
            "holding them."
        )
    check_columns(frame, text_col, None)
    return list(frame[text_col].tolist())


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
    global row of every block (arrays).
    """
    if kind == "frame":
        if len(raw) == 0:
            return None
        X = frame_input(estimator, raw, cols["text_col"], cols["label_col"])
        return Part(i, X, np.asarray(raw[cols["label_col"]].to_numpy()), list(raw.index))
    if kind == "bag":
        records = list(raw)
        if not records:
            return None
        X = record_input(estimator, [r[0] for r in records])
        return Part(i, X, np.asarray([r[1] for r in records]), None)
    X, y = raw
    if len(y) == 0:
        return None
    start = cols["offsets"][i]
    return Part(i, X, np.asarray(y), range(start, start + len(y)))


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
