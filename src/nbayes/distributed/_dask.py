"""Fit and predict on dask collections: map per partition, merge as a tree."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

import numpy as np

from ._adapters import Adapter, Part, Partial, PartitionError, get_adapter

__all__ = [
    "fit",
    "fit_source",
    "predict",
    "predict_log_proba",
    "predict_proba",
    "read",
    "reduce_depth",
]

_MISSING = "nbayes.distributed requires dask: pip install 'nbayes[dask]'"


def _require_dask() -> Any:
    try:
        import dask
        import dask.array  # noqa: F401
        import dask.bag  # noqa: F401
        import dask.dataframe  # noqa: F401
    except ImportError as exc:
        raise ImportError(_MISSING) from exc
    return dask


# ------------------------------------------------------------------ the inputs
def _kind(data: Any) -> str:
    dask = _require_dask()
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


def _aligned_arrays(X: Any, y: Any) -> tuple[Any, Any]:
    if any(math.isnan(c) for c in X.chunks[0]) or any(math.isnan(c) for c in y.chunks[0]):
        raise ValueError(
            "X and y have unknown chunk sizes: call X.compute_chunk_sizes() and "
            "y.compute_chunk_sizes() first."
        )
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]} labels.")
    if X.ndim == 2 and X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    if y.chunks[0] != X.chunks[0]:
        y = y.rechunk({0: X.chunks[0]})
    return X, y


def _parts_task(
    kind: str, adapter: Adapter, estimator: Any, spec: dict[str, Any], i: int, raw: Any
) -> Part | None:
    """Turn one raw partition into a :class:`Part` (None if it has no rows)."""
    if kind == "frame":
        if len(raw) == 0:
            return None
        X, y = adapter.split_frame(estimator, raw, spec["text_col"], spec["label_col"])
        assert y is not None
        return Part(i, X, y, list(raw.index))
    if kind == "bag":
        records = list(raw)
        if not records:
            return None
        X, y = adapter.split_records(estimator, records)
        return Part(i, X, y, None)
    X, y = raw
    if len(y) == 0:
        return None
    start = spec["offsets"][i]
    return Part(i, X, np.asarray(y), range(start, start + len(y)))


def _first_bad_row(adapter: Adapter, estimator: Any, part: Part) -> int | None:
    """The first row whose prefix fails validation (log2(n) attempts), or None.

    Per-row problems (NaN, a negative count, a wrong type) make every longer prefix fail
    too, so bisection finds the first offending row.
    """

    def fails(k: int) -> bool:
        try:
            adapter.map(estimator, part.head(k))
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


def _map_task(
    kind: str, adapter: Adapter, estimator: Any, spec: dict[str, Any], i: int, raw: Any
) -> Partial | None:
    """Map step: the statistics of partition ``i``, or a PartitionError naming a bad row."""
    part = _parts_task(kind, adapter, estimator, spec, i, raw)
    if part is None:
        return None
    try:
        return adapter.map(estimator, part)
    except PartitionError:
        raise
    except (ValueError, TypeError) as exc:
        row = _first_bad_row(adapter, estimator, part)
        label = None if row is None or part.labels is None else part.labels[row]
        raise PartitionError(i, row, label, str(exc)) from exc


def _combine_task(adapter: Adapter, partials: Sequence[Partial | None]) -> Partial | None:
    """Reduce step: merge the statistics of consecutive partitions, in order."""
    present = [p for p in partials if p is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    return adapter.combine(present)


def reduce_depth(n_partitions: int, split_every: int) -> int:
    """Levels of the merge tree over ``n_partitions`` with ``split_every`` inputs per merge.

    >>> reduce_depth(256, 8), reduce_depth(2, 8), reduce_depth(1, 8)
    (3, 1, 0)
    """
    depth, n = 0, n_partitions
    while n > 1:
        n = -(-n // split_every)
        depth += 1
    return depth


def _graph(
    estimator: Any,
    data: Any,
    text_col: str | None,
    label_col: str | None,
    split_every: int,
) -> tuple[Any, Adapter, int]:
    """The delayed merge tree of the whole fit, the adapter and the number of partitions."""
    dask = _require_dask()
    if not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2; got {split_every!r}.")
    adapter = get_adapter(estimator)
    adapter.check(estimator)
    kind = _kind(data)
    spec: dict[str, Any] = {"text_col": text_col, "label_col": label_col}
    if kind == "array":
        raise TypeError("Pass the labels too: fit(estimator, (X, y)) with two dask Arrays.")
    if kind == "frame":
        if label_col is None:
            raise ValueError("Fitting on a dask DataFrame needs label_col (the label column).")
        if label_col not in data.columns:
            raise KeyError(f"No label column {label_col!r}: the columns are {list(data.columns)}.")
        if text_col is not None and text_col not in data.columns:
            raise KeyError(f"No text column {text_col!r}: the columns are {list(data.columns)}.")
        raws = list(data.to_delayed())
    elif kind == "bag":
        raws = list(data.to_delayed())
    else:
        X, y = _aligned_arrays(*data)
        xs = X.to_delayed().ravel()
        ys = y.to_delayed().ravel()
        raws = [dask.delayed(tuple)([a, b]) for a, b in zip(xs, ys, strict=True)]
        spec["offsets"] = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(int).tolist()
    token = uuid.uuid4().hex[:12]
    map_task = dask.delayed(_map_task, pure=False)
    level = [
        map_task(kind, adapter, estimator, spec, i, raw, dask_key_name=f"nbayes-map-{token}-{i}")
        for i, raw in enumerate(raws)
    ]
    combine = dask.delayed(_combine_task, pure=False)
    depth = 0
    while len(level) > 1:
        depth += 1
        level = [
            combine(
                adapter,
                level[j : j + split_every],
                dask_key_name=f"nbayes-merge-{token}-{depth}-{j // split_every}",
            )
            for j in range(0, len(level), split_every)
        ]
    if not level:
        raise ValueError("The collection has no partitions: nothing to learn from.")
    return level[0], adapter, len(raws)


# ----------------------------------------------------------------- public API
def fit(
    estimator: Any,
    data: Any,
    *,
    text_col: str | None = None,
    label_col: str | None = None,
    split_every: int = 8,
    scheduler: Any = None,
    retries: int = 0,
) -> Any:
    """Fit ``estimator`` on a dask collection: statistics per partition, merged as a tree.

    The result equals ``estimator.fit`` on all the data on one machine (up to rounding in
    the last bits for Gaussian moments and fractional counts), whatever the partitioning.

    Parameters
    ----------
    estimator : nbayes estimator
        Any core estimator or :class:`nbayes.TextClassifier` (or one with a registered
        adapter); it is not changed.
    data : dask DataFrame, dask Bag or tuple (X, y) of dask Arrays
        A DataFrame holds the labels in ``label_col`` and the documents in ``text_col``
        (TextClassifier) or the features in its other columns. A Bag holds ``(x, label)``
        pairs (``x`` a document or a sequence of feature values).
    text_col, label_col : str, default=None
        Columns of a DataFrame.
    split_every : int, default=8
        Partials merged per reduce task: the merge tree has depth
        ``ceil(log(n_partitions) / log(split_every))``.
    scheduler : str or dask scheduler, default=None
        As for ``dask.compute`` (None: the active distributed Client, else dask's default).
    retries : int, default=0
        Times a failing task is re-run (dask.distributed). Tasks lost with a dead worker
        are re-run by the scheduler anyway.

    Returns
    -------
    estimator
        A fitted clone of ``estimator``.

    Raises
    ------
    PartitionError
        A partition holds bad rows: the message names the partition and the first bad row.
    """
    dask = _require_dask()
    estimator = _with_fixed_families(estimator, data, label_col, scheduler)
    total, adapter, _ = _graph(estimator, data, text_col, label_col, split_every)
    (result,) = dask.compute(total, scheduler=scheduler, retries=retries)
    if result is None:
        raise ValueError("Every partition is empty: nothing to learn from.")
    return adapter.finish(estimator, result)


def _with_fixed_families(estimator: Any, data: Any, label_col: Any, scheduler: Any) -> Any:
    """A MixedNB infers each column's family from the data; partitions could disagree
    (a short integer column: categorical here, poisson there). Infer them once, from the
    first non-empty partition, and fix them for every partition. Pass ``columns=`` with
    every column's family to get exactly the families a local fit on all data infers."""
    from sklearn.base import clone

    from nbayes.mixed import MixedNB

    if not isinstance(estimator, MixedNB) or _kind(data) != "frame" or label_col is None:
        return estimator
    for i in range(data.npartitions):
        head = data.get_partition(i).compute(scheduler=scheduler)
        if len(head):
            break
    else:
        return estimator
    X = head.drop(columns=[label_col])
    probe = clone(estimator).fit(X, np.asarray(head[label_col]))
    return clone(estimator).set_params(columns=dict(probe.families_))


def _model_delayed(estimator: Any) -> Any:
    dask = _require_dask()
    return dask.delayed(estimator, name=f"nbayes-model-{uuid.uuid4().hex[:12]}")


def _frame_method(df: Any, estimator: Any, method: str, text_col: str | None) -> Any:
    import pandas as pd

    X = get_adapter(estimator).predict_input(estimator, df, text_col)
    if method == "predict":
        out = estimator.predict(X) if len(df) else estimator.classes_[:0]
        return pd.Series(out, index=df.index, name="prediction")
    if len(df):
        values = getattr(estimator, method)(X)
    else:
        values = np.zeros((0, len(estimator.classes_)))
    return pd.DataFrame(values, index=df.index, columns=list(estimator.classes_.tolist()))


def _bag_method(part: Any, estimator: Any, method: str) -> list[Any]:
    docs = [r[0] if isinstance(r, tuple) else r for r in part]
    if not docs:
        return []
    X = docs if type(get_adapter(estimator)).__name__ == "TextAdapter" else np.asarray(docs)
    return list(np.asarray(getattr(estimator, method)(X)).tolist())


def _block_method(block: np.ndarray, estimator: Any, method: str) -> np.ndarray:
    if block.shape[0] == 0:
        n = len(estimator.classes_)
        return estimator.classes_[:0] if method == "predict" else np.zeros((0, n))
    return np.asarray(getattr(estimator, method)(block))


def _apply(estimator: Any, data: Any, method: str, text_col: str | None) -> Any:
    kind = _kind(data)
    model = _model_delayed(estimator)
    classes = estimator.classes_
    if kind == "frame":
        meta = _frame_method(data._meta, estimator, method, text_col)
        return data.map_partitions(_frame_method, model, method, text_col, meta=meta)
    if kind == "bag":
        return data.map_partitions(_bag_method, model, method)
    if kind == "arrays":
        X = data[0]
    else:
        X = data
    if X.ndim == 2 and X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    if method == "predict":
        return X.map_blocks(
            _block_method, model, method, drop_axis=1, dtype=classes.dtype,
            meta=np.empty((0,), dtype=classes.dtype),
        )  # fmt: skip
    return X.map_blocks(
        _block_method, model, method, chunks=(X.chunks[0], (len(classes),)), dtype=np.float64,
        meta=np.empty((0, 0)),
    )  # fmt: skip


def predict(estimator: Any, data: Any, *, text_col: str | None = None) -> Any:
    """Predicted classes, lazily: a dask Series (DataFrame input), Bag or Array.

    Parameters
    ----------
    estimator : fitted nbayes estimator
    data : dask DataFrame, dask Bag, dask Array or tuple (X, y)
        A DataFrame's features are the columns named in ``feature_names_in_`` (all columns
        if the model has no feature names), or ``text_col`` for a TextClassifier. A Bag
        holds documents (or ``(x, label)`` pairs, whose labels are ignored).
    text_col : str, default=None
        Column of the documents (TextClassifier).

    Returns
    -------
    dask collection
        One prediction per row, in the partitioning of ``data``.
    """
    return _apply(estimator, data, "predict", text_col)


def predict_proba(estimator: Any, data: Any, *, text_col: str | None = None) -> Any:
    """Posterior probabilities, lazily: a dask DataFrame with one column per class, or a
    dask Array (Array input) or Bag of rows; see :func:`predict`."""
    return _apply(estimator, data, "predict_proba", text_col)


def predict_log_proba(estimator: Any, data: Any, *, text_col: str | None = None) -> Any:
    """Log-posterior probabilities, lazily; see :func:`predict_proba`."""
    return _apply(estimator, data, "predict_log_proba", text_col)


# ------------------------------------------------------------------- reading
_FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def _format_of(source: str) -> str:
    suffixes = [s.lower() for s in PurePath(source.rstrip("/*")).suffixes]
    if suffixes and suffixes[-1] in (".gz", ".bz2", ".xz", ".zst"):
        suffixes = suffixes[:-1]
    if suffixes and suffixes[-1] in _FORMATS:
        return _FORMATS[suffixes[-1]]
    raise ValueError(
        f"Cannot tell the format of {source!r} from its name: give format= one of "
        "'csv', 'tsv', 'jsonl', 'parquet'."
    )


def read(
    source: str | Sequence[str],
    *,
    format: str | None = None,
    blocksize: str | int | None = "64MB",
    columns: Sequence[str] | None = None,
    **kw: Any,
) -> Any:
    """Read CSV/TSV, JSON lines or Parquet files (a path, glob or list) as a dask DataFrame.

    Parameters
    ----------
    source : str or list of str
        Path, glob (``data/*.csv``) or URL understood by fsspec.
    format : {"csv", "tsv", "jsonl", "parquet"}, default=None
        Taken from the file extension if not given (``.gz`` and the like are skipped).
    blocksize : str, int or None, default="64MB"
        Bytes per partition of text formats (None: one partition per file, needed for
        compressed files and for CSV fields holding line breaks).
    columns : list of str, default=None
        Columns to read (all by default).
    **kw
        Passed to ``dask.dataframe.read_csv`` / ``read_json`` / ``read_parquet``.

    Returns
    -------
    dask.dataframe.DataFrame
    """
    dask = _require_dask()
    dd = dask.dataframe
    first = source if isinstance(source, str) else source[0]
    fmt = format or _format_of(first)
    compressed = str(first).lower().endswith((".gz", ".bz2", ".xz", ".zst"))
    if compressed:
        blocksize = None
    cols = None if columns is None else list(columns)
    if fmt in ("csv", "tsv"):
        sep = "\t" if fmt == "tsv" else ","
        return dd.read_csv(source, sep=kw.pop("sep", sep), blocksize=blocksize, usecols=cols, **kw)
    if fmt == "jsonl":
        df = dd.read_json(source, lines=True, blocksize=blocksize, **kw)
        return df if cols is None else df[cols]
    if fmt == "parquet":
        return dd.read_parquet(source, columns=cols, **kw)
    raise ValueError(f"Unknown format {fmt!r}: use 'csv', 'tsv', 'jsonl' or 'parquet'.")


def fit_source(
    estimator: Any,
    source: str | Sequence[str],
    text_col: str | None = "text",
    label_col: str = "label",
    *,
    scheduler: str | None = None,
    workers: int | None = None,
    split_every: int = 8,
    retries: int = 0,
    **read_kw: Any,
) -> Any:
    """Read files with :func:`read` and :func:`fit` on them: the entry point of the CLI.

    Parameters
    ----------
    estimator : nbayes estimator
    source : str or list of str
        Files, globs or URLs (CSV/TSV, JSON lines, Parquet).
    text_col : str or None, default="text"
        Column of the documents (TextClassifier); ignored by other estimators, which take
        every column but ``label_col`` as features.
    label_col : str, default="label"
    scheduler : str, default=None
        A dask.distributed scheduler address (``tcp://host:8786``) to connect to, or a
        local dask scheduler name ("sync", "threads", "processes").
    workers : int, default=None
        Start a ``LocalCluster`` of this many single-threaded worker processes for the
        fit and close it afterwards (ignored if ``scheduler`` is an address).
    split_every, retries
        As in :func:`fit`.
    **read_kw
        Passed to :func:`read` (``blocksize=``, ``format=`` ...).

    Returns
    -------
    estimator
        The fitted clone.
    """
    _require_dask()
    from ..text.classifier import TextClassifier

    data = read(source, **read_kw)
    is_text = isinstance(estimator, TextClassifier)
    kw = dict(
        text_col=text_col if is_text else None, label_col=label_col,
        split_every=split_every, retries=retries,
    )  # fmt: skip
    if scheduler is not None and "://" in scheduler:
        from distributed import Client

        with Client(scheduler) as client:
            return fit(estimator, data, scheduler=client, **kw)  # type: ignore[arg-type]
    if workers is not None:
        from distributed import Client, LocalCluster

        with (
            LocalCluster(
                n_workers=int(workers), threads_per_worker=1, processes=True,
                dashboard_address=None,
            ) as cluster,
            Client(cluster) as client,
        ):  # fmt: skip
            return fit(estimator, data, scheduler=client, **kw)  # type: ignore[arg-type]
    return fit(estimator, data, scheduler=scheduler, **kw)  # type: ignore[arg-type]
