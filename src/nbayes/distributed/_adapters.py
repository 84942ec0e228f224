"""Map and reduce steps of a distributed fit, per kind of estimator (no dask needed here).

A distributed fit is the single-machine fit split in two:

* **map** (on a worker, per partition): validate the rows and build their statistics with the
  estimator's own ``_batch``, on a clone, exactly as ``fit`` does on one machine;
* **reduce** (a tree of ``combine`` calls): add statistics with ``merge``.

An :class:`Adapter` says how one kind of estimator does both and how the finished statistics
become a fitted estimator. Adapters are looked up by estimator class in a registry
(:func:`register`, :func:`get_adapter`), most specific class first, so a new estimator (e.g.
``MixedNB`` with families fixed up front) plugs in by registering its own adapter.

Statistics cross the network between map and reduce and between reduce levels. Count
tables are sent packed (:class:`PackedArray`): as a sparse matrix when that is smaller, with
32-bit integers when every count is a whole number, decoded exactly on arrival.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

__all__ = [
    "Adapter",
    "PackedArray",
    "Part",
    "Partial",
    "PartitionError",
    "TableAdapter",
    "TextAdapter",
    "get_adapter",
    "register",
]

_INT32_MAX = np.iinfo(np.int32).max


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
        The error of the single-machine validation for that partition.
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


# --------------------------------------------------------------------- packing
@dataclass(frozen=True, eq=False)
class PackedArray:
    """A 2-D float64 array in its most compact exact form for the network.

    ``data`` is a dense array or a CSR matrix; whole numbers that fit are stored as int32.
    :meth:`unpack` gives back the float64 array bit for bit.
    """

    data: Any

    @classmethod
    def pack(cls, arr: np.ndarray) -> PackedArray:
        arr = np.asarray(arr, dtype=np.float64)
        values = arr
        if arr.size and np.all(arr == np.round(arr)) and np.abs(arr).max() <= _INT32_MAX:
            values = arr.astype(np.int32)
        nnz = int(np.count_nonzero(values))
        # CSR costs a value and a 32-bit index per non-zero, plus the row pointers.
        sparse_bytes = nnz * (values.itemsize + 4) + 8 * (arr.shape[0] + 1)
        if arr.ndim == 2 and sparse_bytes < values.nbytes:
            csr = sp.csr_matrix(values)
            csr.indices = csr.indices.astype(np.int32, copy=False)
            return cls(csr)
        return cls(values)

    @property
    def nbytes(self) -> int:
        if sp.issparse(self.data):
            return int(self.data.data.nbytes + self.data.indices.nbytes + self.data.indptr.nbytes)
        return int(self.data.nbytes)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    def unpack(self) -> np.ndarray:
        if sp.issparse(self.data):
            return np.asarray(self.data.toarray(), dtype=np.float64)
        return np.asarray(self.data, dtype=np.float64)

    def coo(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, columns, values) of the non-zero entries."""
        m = sp.coo_matrix(self.data)
        return m.row, m.col, m.data.astype(np.float64)


# ---------------------------------------------------------------- partitions
@dataclass
class Part:
    """One partition as the map step sees it: features (or documents) and labels.

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


@dataclass(frozen=True, eq=False)
class Partial:
    """Statistics of some partitions, ready to be merged with others.

    Attributes
    ----------
    stats : object
        The statistics (adapter-specific, possibly packed).
    state : dict
        Fitted attributes that validation sets on the estimator (``n_features_in_``,
        ``feature_names_in_`` and the like), from the first partition.
    n_rows : int
        Rows covered.
    n_partitions : int
        Partitions covered.
    terms : list of str or None
        Text models with an open vocabulary: the term of each column.
    """

    stats: Any
    state: dict[str, Any] = field(default_factory=dict)
    n_rows: int = 0
    n_partitions: int = 1
    terms: list[str] | None = None


class Adapter(Protocol):
    """How one kind of estimator is fitted by map (per partition) and reduce (merge)."""

    def check(self, estimator: Any) -> None:
        """Validate the hyperparameters on the client, before any work is sent out."""

    def split_frame(
        self, estimator: Any, frame: Any, text_col: str | None, label_col: str | None
    ) -> tuple[Any, np.ndarray | None]:
        """Features (or documents) and labels (None if ``label_col`` is None) of a frame."""

    def split_records(self, estimator: Any, records: Sequence[Any]) -> tuple[Any, np.ndarray]:
        """Features and labels of a list of ``(x, label)`` pairs (a dask Bag partition)."""

    def map(self, estimator: Any, part: Part) -> Partial:
        """Statistics of one partition, computed as on one machine (raises on bad rows)."""

    def combine(self, partials: Sequence[Partial]) -> Partial:
        """Merge statistics, in order (the first partition's columns come first)."""

    def finish(self, estimator: Any, total: Partial) -> Any:
        """A fitted clone of ``estimator`` holding the merged statistics."""

    def predict_input(self, estimator: Any, frame: Any, text_col: str | None) -> Any:
        """What ``estimator.predict`` takes, from one partition of a frame."""


def _frame_labels(frame: Any, label_col: str | None) -> np.ndarray | None:
    if label_col is None:
        return None
    if label_col not in frame.columns:
        raise KeyError(f"No label column {label_col!r}: the columns are {list(frame.columns)}.")
    return np.asarray(frame[label_col].to_numpy())


def _merge_state(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    if not a:
        return dict(b)
    na, nb = a.get("n_features_in_"), b.get("n_features_in_")
    if na is not None and nb is not None and na != nb:
        raise ValueError(f"Partitions have {na} and {nb} features: every partition must agree.")
    fa, fb = a.get("feature_names_in_"), b.get("feature_names_in_")
    if (fa is None) != (fb is None) or (
        fa is not None and fb is not None and not np.array_equal(fa, fb)
    ):
        raise ValueError(
            f"Partitions have different feature names ({None if fa is None else list(fa)} vs "
            f"{None if fb is None else list(fb)}): every partition must have the same columns."
        )
    return a


# ---------------------------------------------------------------- table models
class TableAdapter:
    """Estimators built on :class:`nbayes._base.BaseNB`: rows of features and a label.

    The map step is ``clone(estimator)._batch(X, y, None, reset=True)``, the very code of
    ``fit``; the reduce step is the statistics' ``merge``; :meth:`finish` does the rest of
    ``fit`` (``empty + batch``, then the derivation check). Fitted attributes that
    validation sets on the clone (``n_features_in_``, ``feature_names_in_``, and e.g.
    ``CategoricalNB``'s coding) are carried from the first partition.
    """

    def check(self, estimator: Any) -> None:
        estimator._check_params()

    def split_frame(
        self, estimator: Any, frame: Any, text_col: str | None, label_col: str | None
    ) -> tuple[Any, np.ndarray | None]:
        drop = [c for c in (label_col,) if c is not None and c in frame.columns]
        return frame.drop(columns=drop), _frame_labels(frame, label_col)

    def split_records(self, estimator: Any, records: Sequence[Any]) -> tuple[Any, np.ndarray]:
        X = np.asarray([r[0] for r in records])
        return X, np.asarray([r[1] for r in records])

    def map(self, estimator: Any, part: Part) -> Partial:
        est = clone(estimator)
        params = set(est.get_params(deep=False))
        stats = est._batch(part.X, part.y, None, reset=True)
        state = {
            k: v for k, v in vars(est).items() if k not in params and k not in ("_stats", "_cache")
        }
        return Partial(_pack_stats(stats), state, len(part))

    def combine(self, partials: Sequence[Partial]) -> Partial:
        stats = _unpack_stats(partials[0].stats)
        state = dict(partials[0].state)
        for p in partials[1:]:
            state = _merge_state(state, p.state)
            stats = stats.merge(_unpack_stats(p.stats))
        return Partial(
            _pack_stats(stats),
            state,
            sum(p.n_rows for p in partials),
            sum(p.n_partitions for p in partials),
        )

    def finish(self, estimator: Any, total: Partial) -> Any:
        est = clone(estimator)
        est._check_params()
        for k, v in total.state.items():
            setattr(est, k, v)
        batch = _unpack_stats(total.stats)
        est._set_stats(est._empty_stats(batch.classes, est.n_features_in_).merge(batch))
        est._check_derivation()
        return est

    def predict_input(self, estimator: Any, frame: Any, text_col: str | None) -> Any:
        names = getattr(estimator, "feature_names_in_", None)
        if names is not None:
            return frame[list(names)]
        return frame


def _pack_stats(stats: Any) -> Any:
    """Count statistics with their feature table packed; other statistics unchanged."""
    from .._stats import CountStats

    if type(stats) is CountStats:
        packed: Any = PackedArray.pack(stats.feature_count)
        return replace(stats, feature_count=packed)
    return stats


def _unpack_stats(stats: Any) -> Any:
    fc = getattr(stats, "feature_count", None)
    if isinstance(fc, PackedArray):
        return replace(stats, feature_count=fc.unpack())
    return stats


# ------------------------------------------------------------------ text models
@dataclass(frozen=True, eq=False)
class PackedTextStats:
    """:class:`nbayes.text.classifier.TextStats` for the network.

    ``term_freq`` is left out (None) when it equals the column sums of the counts, which
    is the case without sample weights.
    """

    classes: np.ndarray
    class_count: np.ndarray
    counts: PackedArray
    doc_freq: np.ndarray
    term_freq: np.ndarray | None
    n_docs: int

    @property
    def nbytes(self) -> int:
        tf = 0 if self.term_freq is None else self.term_freq.nbytes
        return int(self.counts.nbytes + self.doc_freq.nbytes + tf + self.class_count.nbytes)


def _pack_text(stats: Any) -> PackedTextStats:
    fc = stats.counts.feature_count
    tf = stats.term_freq
    if np.array_equal(tf, fc.sum(axis=0)):
        tf = None
    df = stats.doc_freq
    if df.size == 0 or df.max() <= _INT32_MAX:
        df = df.astype(np.int32)
    return PackedTextStats(
        stats.counts.classes,
        stats.counts.class_count,
        PackedArray.pack(fc),
        df,
        tf,
        int(stats.n_docs),
    )


def _unpack_text(p: PackedTextStats) -> Any:
    from .._stats import CountStats
    from ..text.classifier import TextStats

    fc = p.counts.unpack()
    tf = fc.sum(axis=0) if p.term_freq is None else p.term_freq
    return TextStats(
        CountStats(p.classes, p.class_count, fc),
        p.doc_freq.astype(np.int64),
        np.asarray(tf, dtype=np.float64),
        p.n_docs,
    )


class TextAdapter:
    """:class:`nbayes.text.TextClassifier`: documents and labels.

    Map: ``clone(estimator)._batch(docs, y, None, vocabulary={})`` counts the partition
    over its own vocabulary (terms in order of first appearance), exactly as ``fit`` does.
    The partial result is the list of those terms plus per-class counts over them, packed.
    Reduce: the vocabularies are united and the counts added, as ``TextClassifier.merge``
    does; :meth:`finish` puts the columns in sorted term order, as ``fit`` numbers them.
    Hashing models have no vocabulary: their columns are the buckets.
    """

    def check(self, estimator: Any) -> None:
        estimator._check_params()

    def split_frame(
        self, estimator: Any, frame: Any, text_col: str | None, label_col: str | None
    ) -> tuple[Any, np.ndarray | None]:
        return self.predict_input(estimator, frame, text_col), _frame_labels(frame, label_col)

    def split_records(self, estimator: Any, records: Sequence[Any]) -> tuple[Any, np.ndarray]:
        return [r[0] for r in records], np.asarray([r[1] for r in records])

    def predict_input(self, estimator: Any, frame: Any, text_col: str | None) -> Any:
        if text_col is None:
            raise ValueError("A TextClassifier needs text_col: the column holding the documents.")
        if text_col not in frame.columns:
            raise KeyError(f"No text column {text_col!r}: the columns are {list(frame.columns)}.")
        return frame[text_col].tolist()

    def map(self, estimator: Any, part: Part) -> Partial:
        docs = list(part.X)
        for i, d in enumerate(docs):  # name the row at once (cheaper than bisecting)
            if not isinstance(d, str):
                label = None if part.labels is None else part.labels[i]
                raise PartitionError(
                    part.partition,
                    i,
                    label,
                    f"the document is a {type(d).__name__} ({d!r}), not a str. Replace "
                    "missing texts with '' and decode bytes first.",
                )
        est = clone(estimator)
        vocabulary: dict[str, int] = {}
        stats = est._batch(docs, part.y, None, vocabulary)
        terms = None if estimator.hashing else list(vocabulary)
        return Partial(_pack_text(stats), {}, len(part), 1, terms)

    def combine(self, partials: Sequence[Partial]) -> Partial:
        from .._stats import union_classes

        hashing = partials[0].terms is None
        if hashing:
            n_columns = max(p.stats.counts.shape[1] for p in partials)
            col_maps = [np.arange(p.stats.counts.shape[1]) for p in partials]
            terms = None
        else:
            terms, col_maps = _unite_terms([p.terms or [] for p in partials])
            n_columns = len(terms)
        classes = partials[0].stats.classes
        for p in partials[1:]:
            classes = union_classes(classes, p.stats.classes)
        rows, cols, vals = [], [], []
        class_count = np.zeros(len(classes))
        doc_freq = np.zeros(n_columns, dtype=np.int64)
        keep_tf = any(p.stats.term_freq is not None for p in partials)
        term_freq = np.zeros(n_columns) if keep_tf else None
        for p, cmap in zip(partials, col_maps, strict=True):
            s = p.stats
            pos = np.searchsorted(classes, s.classes)
            r, c, v = s.counts.coo()
            rows.append(pos[r])
            cols.append(cmap[c])
            vals.append(v)
            class_count[pos] += s.class_count
            doc_freq[cmap] += s.doc_freq
            if term_freq is not None:
                tf = s.counts.unpack().sum(axis=0) if s.term_freq is None else s.term_freq
                term_freq[cmap] += tf
        counts = sp.coo_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
            shape=(len(classes), n_columns),
        ).tocsr()  # duplicates (the same class and term in two partials) are summed
        counts.sum_duplicates()
        # Sparse costs about 8 bytes per non-zero (int32 value and index), dense 4 per cell.
        dense = counts.nnz * 8 >= len(classes) * n_columns * 4
        packed = PackedArray.pack(counts.toarray()) if dense else _pack_sparse(counts)
        df = doc_freq.astype(np.int32) if doc_freq.max(initial=0) <= _INT32_MAX else doc_freq
        stats = PackedTextStats(
            classes, class_count, packed, df, term_freq, sum(p.stats.n_docs for p in partials)
        )
        return Partial(
            stats,
            {},
            sum(p.n_rows for p in partials),
            sum(p.n_partitions for p in partials),
            terms,
        )

    def finish(self, estimator: Any, total: Partial) -> Any:
        est = clone(estimator)
        est._check_params()
        stats = _unpack_text(total.stats)
        if not (stats.doc_freq > 0).any():
            raise ValueError(
                "empty vocabulary; perhaps the documents only contain stop words "
                "(no token of two or more word characters was found)."
            )
        vocabulary = None
        if total.terms is not None:
            # fit() numbers the terms of its one batch in sorted order: so do we.
            order = sorted(range(len(total.terms)), key=total.terms.__getitem__)
            vocabulary = {total.terms[j]: i for i, j in enumerate(order)}
            stats = _take_columns(stats, np.asarray(order, dtype=np.int64))
        return est._set(stats, vocabulary)


def _unite_terms(term_lists: Sequence[list[str]]) -> tuple[list[str], list[np.ndarray]]:
    """United vocabulary (in order of first appearance) and each list's columns in it."""
    sizes = [len(t) for t in term_lists]
    flat = np.empty(sum(sizes), dtype=object)
    ends = np.cumsum(sizes)
    for terms, end, size in zip(term_lists, ends, sizes, strict=True):
        flat[end - size : end] = terms
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - dask.dataframe brings pandas
        vocabulary: dict[str, int] = {}
        for t in flat:
            vocabulary.setdefault(t, len(vocabulary))
        codes = np.fromiter(map(vocabulary.__getitem__, flat), np.int64, len(flat))
        united = list(vocabulary)
    else:
        # A C hash table: ~10x faster than a dict filled term by term.
        codes, uniques = pd.factorize(flat)
        united = uniques.tolist()
    return united, np.split(codes.astype(np.int64), ends[:-1])


def _take_columns(stats: Any, cols: np.ndarray) -> Any:
    """Text statistics with their columns in the order ``cols``."""
    c = stats.counts
    return replace(
        stats,
        counts=replace(c, feature_count=np.ascontiguousarray(c.feature_count[:, cols])),
        doc_freq=stats.doc_freq[cols],
        term_freq=stats.term_freq[cols],
    )


def _pack_sparse(m: sp.csr_matrix) -> PackedArray:
    """A CSR count matrix as a PackedArray without going through a dense array."""
    data = m.data
    if data.size and np.all(data == np.round(data)) and np.abs(data).max() <= _INT32_MAX:
        data = data.astype(np.int32)
    out = sp.csr_matrix((data, m.indices.astype(np.int32), m.indptr), shape=m.shape)
    return PackedArray(out)


# -------------------------------------------------------------------- registry
_REGISTRY: dict[type, Callable[[], Adapter]] = {}
_BUILTINS_DONE: list[bool] = []


def register(cls: type, factory: Callable[[], Adapter]) -> None:
    """Make ``factory()`` the adapter of ``cls`` and its subclasses (unless they have one).

    Parameters
    ----------
    cls : type
        Estimator class.
    factory : callable
        Returns an object following the :class:`Adapter` protocol.
    """
    _REGISTRY[cls] = factory


def _register_builtins() -> None:
    if _BUILTINS_DONE:
        return
    _BUILTINS_DONE.append(True)
    from .._base import BaseNB
    from ..text.classifier import TextClassifier

    _REGISTRY.setdefault(BaseNB, TableAdapter)
    _REGISTRY.setdefault(TextClassifier, TextAdapter)


def get_adapter(estimator: Any) -> Adapter:
    """The adapter of ``estimator``'s class (the most specific registered base class).

    Raises
    ------
    TypeError
        If no adapter is registered for the estimator's class or its bases.
    """
    _register_builtins()
    for klass in type(estimator).__mro__:
        if klass in _REGISTRY:
            return _REGISTRY[klass]()
    raise TypeError(
        f"nbayes.distributed cannot fit a {type(estimator).__name__}: no adapter is "
        "registered for it (see nbayes.distributed.register)."
    )
