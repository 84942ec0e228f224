"""A fit on a dask collection: one model per partition, merged as a tree.

* **map** (on a worker, per partition): ``clone(estimator).fit(X, y)`` (``partial_fit``
  for a partition that is only part of a model), the estimator's own validation and
  counting, as on one machine;
* **reduce**: the estimator's own ``merge``, in partition order, as a tree of
  ``split_every``-way merges (depth ``ceil(log_split_every(n_partitions))``).

A model is its sufficient statistics, so the merged model equals the fit of all the data on
one machine. What travels between workers is the pickled partition models (see :class:`_Shipped`).
"""

from __future__ import annotations

import os
import pickle
import sys
import time
import uuid
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from ..exceptions import ColumnFamiliesError, InvalidParameterError
from ..io.readers import BadRow
from ._bad_rows import BAD_ROWS, BlockError, Blocks, located, read_part
from ._inputs import (
    Part,
    PartitionError,
    aligned_arrays,
    as_labels,
    check_columns,
    check_estimator,
    first_bad_row,
    infer_text_col,
    kind,
    require_dask,
    takes_documents,
    to_part,
)
from ._table_rows import (
    TableRows,
    agreed,
    column_types,
    needs_types,
    read_table_part,
    rows_read,
)

__all__ = ["fit", "fit_source", "merge_levels", "reduce_depth"]


# ------------------------------------------------------------------ shipping
# What a partition model pickles to decides what the workers ship and keep: a text model
# pickles compactly by itself (its non-zero cells and terms, narrow integers: ~360 kB for
# a 390 kB partition of text), while dense per-class tables that are mostly zeros (a
# table model over hashed features) pickle to their full size and compress 5-100x.
# zlib (level 1, ~100 MB/s) is applied to those only, found by compressing a sample:
# on the compact pickles it would halve the bytes at a cost of time greater than
# sending them on a 1 Gb/s network (measured: BENCHMARKS.md, Dask). A cluster on a slow
# network compresses whatever crosses it with dask's own setting
# (``distributed.comm.compression``), and only the transfers.
_COMPRESS_ABOVE = 1 << 16
_SAMPLES, _SAMPLE_BYTES, _WORTH = 8, 1 << 12, 4


def _worth_compressing(blob: bytes) -> bool:
    """Whether zlib shrinks ``blob`` at least ``_WORTH`` times, judged on a sample."""
    if len(blob) <= _COMPRESS_ABOVE:
        return False
    step = len(blob) // _SAMPLES
    sample = b"".join(blob[i * step : i * step + _SAMPLE_BYTES] for i in range(_SAMPLES))
    return _WORTH * len(zlib.compress(sample, 1)) <= len(sample)


class _Shipped:
    """A model as it travels between tasks: its pickle, zlib-compressed when that pays,
    the number of rows it learned (a partition's, for progress) and, skipping bad rows,
    what the workers skipped in the partitions it covers (by partition; a partition of
    bad rows only ships no model)."""

    __slots__ = ("blob", "compressed", "rows", "skipped")

    def __init__(self, model: Any, rows: int = 0, skipped: dict[int, Any] | None = None) -> None:
        import cloudpickle

        self.rows = rows
        self.skipped = skipped
        if model is None:
            self.blob, self.compressed = None, False
            return
        blob = cloudpickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
        self.compressed = _worth_compressing(blob)
        self.blob = zlib.compress(blob, 1) if self.compressed else blob

    def __getstate__(self) -> tuple[Any, ...]:
        return self.blob, self.compressed, self.rows, self.skipped

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self.blob, self.compressed = state[0], state[1]
        self.rows = state[2] if len(state) > 2 else 0
        self.skipped = state[3] if len(state) > 3 else None

    def model(self) -> Any:
        if self.blob is None:
            return None
        return pickle.loads(zlib.decompress(self.blob) if self.compressed else self.blob)

    def with_skipped(self, skipped: dict[int, Any] | None) -> _Shipped:
        """This model, shipped with ``skipped`` (a new object: a task's input is left
        as it is)."""
        shipped = _Shipped(None, self.rows, skipped)
        shipped.blob, shipped.compressed = self.blob, self.compressed
        return shipped


# ------------------------------------------------------------------ the tasks
def _learn(estimator: Any, classes: Any, part: Part) -> Any:
    """The model of one partition: a clone of ``estimator`` fitted on it alone.

    ``fit`` where it can (the single-machine fit itself: one partition gives that very
    model), else ``partial_fit``: with ``classes`` given (every partition then knows every
    class), and for a partition that ``fit`` refuses as a whole model but that can be a
    part of one (e.g. text without a single term). A bad row fails both.
    """
    from sklearn.base import clone

    if classes is None:
        try:
            return clone(estimator).fit(part.X, part.y)
        except InvalidParameterError:
            raise
        except (ValueError, TypeError):
            classes = np.unique(part.y)
    return clone(estimator).partial_fit(part.X, part.y, classes=classes)


def _fit_task(
    kind: str, estimator: Any, cols: dict[str, Any], classes: Any, i: int, raw: Any
) -> _Shipped | None:
    """Map step: the model of partition ``i`` (None if it has no rows), or a
    :class:`PartitionError` naming its first bad row. Skipping bad rows (``kind``
    "blocks": the partition read by the readers of nbayes.io), with what was skipped."""
    skipped = None
    blocks: Any = cols.get("blocks")
    if kind == "blocks" and blocks.table is not None:  # a table's rows
        types = None if blocks.types is None else blocks.types[i]
        X, labels, found = read_table_part(blocks, i, raw, types)
        part = Part(i, X, as_labels(labels), None) if labels else None
        skipped = {i: found}
    elif kind == "blocks":
        texts, labels, found = read_part(blocks, i, raw)
        part = Part(i, texts, np.asarray(labels), None) if texts else None
        skipped = {i: found}
    else:
        part = to_part(kind, estimator, cols, i, raw)
    if part is None:
        _report(cols.get("topic"), i, 0)
        return None if skipped is None else _Shipped(None, skipped=skipped)
    learn = partial(_learn, estimator, classes)
    try:
        shipped = _Shipped(learn(part), rows=len(part), skipped=skipped)
    except InvalidParameterError:
        raise  # the settings, not the data
    except (ValueError, TypeError) as exc:
        row = first_bad_row(learn, part)
        label = None if row is None or part.labels is None else part.labels[row]
        if row is not None and kind == "blocks" and hasattr(part.X, "index"):
            label = int(part.X.index[row])  # (a table's: the row among the block's rows read)
        raise PartitionError(i, row, label, _refused(learn, part, row, exc)) from exc
    _report(cols.get("topic"), i, len(part))
    return shipped


def _refused(learn: Callable[[Part], Any], part: Part, row: int | None, exc: Exception) -> str:
    """What is wrong with the first bad ``row`` of ``part``: the error of the rows up to it
    (the partition's, ``exc``, may be of a later row: a cell ``''`` of another column)."""
    if row is not None:
        try:
            learn(part.head(row + 1))
        except (ValueError, TypeError) as first:
            return str(first)
    return str(exc)


def _report(topic: str | None, partition: int, rows: int) -> None:
    """On a dask.distributed worker, tell the client (subscribed to ``topic``) that
    ``partition`` is learned, with its rows: the progress of :func:`fit`."""
    if topic is None or "distributed" not in sys.modules:
        return
    from distributed import get_worker

    try:
        worker = get_worker()
    except ValueError:  # not on a worker (a local scheduler)
        return
    worker.log_event(topic, {"partition": partition, "rows": rows})


def _merge_task(
    spans: Sequence[tuple[int, int]], pieces: Sequence[_Shipped | None]
) -> _Shipped | None:
    """Reduce step: the models of consecutive runs of partitions, merged in order.

    ``spans`` gives the partitions (first, last) each piece covers, to name them if two
    models refuse to merge (e.g. partitions from which a MixedNB inferred other families).
    """
    shipped = [p for p in pieces if p is not None]
    skipped = _skipped_of(shipped)
    present = [(s, p) for s, p in zip(spans, pieces, strict=True) if p is not None]
    present = [(s, p) for s, p in present if p.blob is not None]
    if not present:
        return None if skipped is None else _Shipped(None, skipped=skipped)
    if len(present) == 1:
        return present[0][1].with_skipped(skipped)
    models = [piece.model() for _, piece in present]
    try:
        # all at once: a text model unites every vocabulary in one pass
        return _Shipped(models[0].merge(*models[1:]), skipped=skipped)
    except ValueError:
        pass
    # name the first pair that refuses
    (first, last), _ = present[0]
    model = models[0]
    for ((lo, hi), _), other in zip(present[1:], models[1:], strict=True):
        try:
            model = model.merge(other)
        except ValueError as exc:
            said = (
                f"The models of partitions {_span(first, last)} and {_span(lo, hi)} do not "
                f"merge: {exc}"
            )
            if isinstance(exc, ColumnFamiliesError):  # (its families, for the CLI's advice)
                raise ColumnFamiliesError(said, exc.mine, exc.theirs, exc.together) from exc
            raise ValueError(said) from exc
        last = hi
    return _Shipped(model, skipped=skipped)


def _skipped_of(pieces: Sequence[_Shipped]) -> dict[int, Any] | None:
    """What the workers skipped in the partitions of ``pieces``, together (None: no
    bad rows are skipped)."""
    reports = [p.skipped for p in pieces if p.skipped is not None]
    return None if not reports else {k: v for r in reports for k, v in r.items()}


def _span(first: int, last: int) -> str:
    return str(first) if first == last else f"{first}-{last}"


_Merge = Callable[[list[tuple[int, int]], list[Any], int, int], Any]


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


@dataclass
class _Plan:
    """The delayed merge tree of a fit, and what its progress and errors refer to."""

    total: Any
    n_partitions: int
    topic: str
    frame: Any = None  # the dask DataFrame fitted on (its partitions, if a row is located)


def _graph(
    estimator: Any,
    data: Any,
    text_col: str | None,
    label_col: str | None,
    classes: Any,
    split_every: int,
    events: bool = False,
) -> _Plan:
    """The delayed merge tree of the whole fit (``events``: the fit tasks report their
    progress to a dask.distributed client, :func:`_report`)."""
    dask = require_dask()
    if not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2; got {split_every!r}.")
    check_estimator(estimator)
    what = "blocks" if isinstance(data, Blocks) else kind(data)
    token = uuid.uuid4().hex[:12]
    topic = f"nbayes-fit-{token}"  # (also the prefix of the fit tasks' keys)
    # the workers report each partition learned under the topic only when asked to
    # (an event topic stays on the scheduler)
    cols: dict[str, Any] = {
        "text_col": text_col, "label_col": label_col, "topic": topic if events else None,
    }  # fmt: skip
    if what == "array":
        raise TypeError("Pass the labels too: fit(estimator, (X, y)) with two dask Arrays.")
    if what == "frame":
        if label_col is None:
            raise ValueError("Fitting on a dask DataFrame needs label_col (the label column).")
        check_columns(data, text_col, label_col)
        if text_col is None and takes_documents(estimator):
            cols["text_col"] = infer_text_col(estimator, list(data.columns), label_col)
        raws = list(data.to_delayed())
    elif what == "blocks":
        # (the tasks get the blocks' layout, not dask's reads of them: those are the raws)
        cols["blocks"] = replace(data, raws=[])
        raws = list(data.raws)
    elif what == "bag":
        raws = list(data.to_delayed())
    else:
        X, y = aligned_arrays(*data)
        xs, ys = X.to_delayed().ravel(), y.to_delayed().ravel()
        raws = [dask.delayed(tuple)([a, b]) for a, b in zip(xs, ys, strict=True)]
        cols["offsets"] = np.concatenate([[0], np.cumsum(X.chunks[0])]).astype(int).tolist()
    if not raws:
        raise ValueError("The collection has no partitions: nothing to learn from.")
    if classes is not None:
        classes = np.unique(np.asarray(classes))
    fit_task = dask.delayed(_fit_task, pure=False)
    level = [
        fit_task(what, estimator, cols, classes, i, raw, dask_key_name=f"nbayes-fit-{token}-{i}")
        for i, raw in enumerate(raws)
    ]
    merge = dask.delayed(_merge_task, pure=False)

    def merge_group(spans: Any, pieces: Any, depth: int, k: int) -> Any:
        return merge(spans, pieces, dask_key_name=f"nbayes-merge-{token}-{depth}-{k}")

    levels = [level, *merge_levels(level, split_every, merge_group)]
    return _Plan(levels[-1][0], len(raws), topic, data if what == "frame" else None)


def merge_levels(pieces: list[Any], split_every: int, merge: _Merge) -> Iterator[list[Any]]:
    """The levels of the merge tree over ``pieces`` (one per partition), bottom up.

    Every ``split_every`` consecutive pieces become ``merge(spans, pieces, depth, k)``:
    ``spans`` the partitions (first, last) each piece covers, ``depth`` the level (1 for
    the first merges) and ``k`` the group's number in it. The last level has one piece.
    """
    spans = [(i, i) for i in range(len(pieces))]
    depth = 0
    while len(pieces) > 1:
        depth += 1
        groups = range(0, len(pieces), split_every)
        pieces = [
            merge(spans[j : j + split_every], pieces[j : j + split_every], depth, j // split_every)
            for j in groups
        ]
        spans = [(spans[j][0], spans[min(j + split_every, len(spans)) - 1][1]) for j in groups]
        yield pieces


# ----------------------------------------------------------------- computing
#: seconds between two looks at a running fit (progress; Ctrl-C lands in the caller's code)
_POLL = 0.1

Progress = Callable[[int, int, int], None]


def _client_of(scheduler: Any) -> Any:
    """The dask.distributed Client the fit runs on: ``scheduler`` itself, or, when it is
    None, the default client if there is one; None for dask's local schedulers."""
    if "distributed" not in sys.modules:
        return None
    from distributed import Client

    if isinstance(scheduler, Client):
        return scheduler
    if scheduler is None:
        try:
            from distributed import default_client

            return default_client()
        except ValueError:
            return None
    return None


def _compute(plan: _Plan, scheduler: Any, retries: int, progress: Progress | None) -> Any:
    """The fitted model's :class:`_Shipped` (or None: every partition empty)."""
    client = _client_of(scheduler)
    if client is None:
        return _compute_locally(plan, scheduler, retries, progress)
    return _compute_on(client, plan, retries, progress)


def _compute_on(client: Any, plan: _Plan, retries: int, progress: Progress | None) -> Any:
    """On a dask.distributed cluster: the caller's thread waits in short sleeps, not in a
    call of distributed's, so that Ctrl-C interrupts its own code (before, an interrupted
    wait left a task whose exception "was never retrieved" printed at exit); the workers
    report each partition learned (an event), for ``progress``."""
    rows: dict[int, int] = {}
    if progress is not None:
        client.subscribe_topic(plan.topic, lambda event: _note(rows, event))
    future = client.compute(plan.total, retries=retries)
    shown = None
    try:
        while not future.done():
            if progress is not None:
                shown = _show(progress, rows, plan.n_partitions, shown)
            time.sleep(_POLL)
        result = future.result()
        if progress is not None:
            _show(progress, rows, plan.n_partitions, shown)
        return result
    finally:
        if progress is not None:
            client.unsubscribe_topic(plan.topic)
        future.release()  # (interrupted: the cluster stops the fit's tasks)


def _note(rows: dict[int, int], event: Any) -> None:
    _, msg = event
    rows[int(msg["partition"])] = int(msg["rows"])  # (a task run again counts once)


def _show(
    progress: Progress, rows: dict[int, int], n: int, shown: tuple[int, int] | None
) -> tuple[int, int]:
    now = (len(rows), sum(rows.values()))
    if now != shown:
        progress(now[0], n, now[1])
    return now


def _compute_locally(plan: _Plan, scheduler: Any, retries: int, progress: Progress | None) -> Any:
    dask = require_dask()
    if progress is None:
        (result,) = dask.compute(plan.total, scheduler=scheduler, retries=retries)
        return result
    from dask.callbacks import Callback

    rows: dict[int, int] = {}
    prefix = plan.topic + "-"

    def posttask(key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
        if isinstance(key, str) and key.startswith(prefix):
            rows[int(key[len(prefix) :])] = getattr(result, "rows", 0)
            progress(len(rows), plan.n_partitions, sum(rows.values()))

    progress(0, plan.n_partitions, 0)
    with Callback(posttask=posttask):
        (result,) = dask.compute(plan.total, scheduler=scheduler, retries=retries)
    return result


# ----------------------------------------------------------------- public API
def fit(
    estimator: Any,
    data: Any,
    *,
    text_col: str | None = None,
    label_col: str | None = None,
    classes: Any = None,
    split_every: int = 8,
    scheduler: Any = None,
    retries: int = 0,
    progress: Progress | None = None,
) -> Any:
    """Fit ``estimator`` on a dask collection: a model per partition, merged as a tree.

    Every partition is learned by a clone of ``estimator`` (``fit``, or ``partial_fit``
    where the partition is only part of a model) and the partition models are combined
    with the estimator's ``merge``, in partition order. The result equals
    ``estimator.fit`` on all the data on one machine (up to rounding in the last bits for
    Gaussian moments and fractional counts), whatever the partitioning: the same
    statistics, vocabulary and predictions (a TextClassifier's columns may come in
    another order: each partition's new terms after the earlier ones).

    Parameters
    ----------
    estimator : nbayes estimator
        Any nbayes estimator (the drop-ins, KernelNB, MixedNB, TextClassifier), or any
        other with ``fit``, ``partial_fit`` and ``merge``; it is not changed.
    data : dask DataFrame, dask Bag or tuple (X, y) of dask Arrays
        A DataFrame holds the labels in ``label_col`` and the documents in ``text_col``
        (an estimator of documents such as TextClassifier) or the features in its other
        columns. A Bag holds ``(x, label)`` pairs (``x`` a document or a sequence of
        feature values).
    text_col : str, default=None
        Column of the documents. If not given: the frame's one column besides
        ``label_col``, else the column named "text".
    label_col : str, default=None
        Column of the labels (a DataFrame).
    classes : array-like, default=None
        Every class of the data, as for ``partial_fit``. Only needed when a partition may
        lack a class and the estimator's settings count the classes (``class_prior``,
        ``priors``); by default each partition knows the classes it holds.
    split_every : int, default=8
        Models merged per reduce task: the merge tree has depth
        ``ceil(log(n_partitions) / log(split_every))``.
    scheduler : str or dask scheduler, default=None
        As for ``dask.compute`` (None: the active distributed Client, else dask's default).
    retries : int, default=0
        Times a failing task is re-run (dask.distributed). Tasks lost with a dead worker
        are re-run by the scheduler anyway.
    progress : callable, default=None
        Called as ``progress(partitions_done, n_partitions, rows_done)`` in the calling
        thread while the fit runs (when the count changes, at most every 0.1 s on a
        dask.distributed cluster), e.g. to draw a progress bar.

    Returns
    -------
    estimator
        A fitted clone of ``estimator``.

    Raises
    ------
    PartitionError
        A partition holds bad rows: the message names the partition and the first bad row
        (for a collection of :func:`read`: the file, row and line, as the single-machine
        readers do). A row without a label, or without a document, is refused as such.
    ValueError
        Two partition models do not merge: the message names the partitions. A MixedNB
        infers each column's family per partition; if partitions disagree, or agree where
        all the rows would not (a ``ColumnFamiliesError``), fix the families up front,
        e.g. ``MixedNB(columns=MixedNB().fit(sample, y).families_)``.
        A CSV block that does not parse (pandas' ``ParserError``) says what to do when
        quoted fields hold line breaks.
    """
    result = _fitted(estimator, data, text_col, label_col, classes, split_every, scheduler,
                     retries, progress)  # fmt: skip
    if result is None:
        raise ValueError("Every partition is empty: nothing to learn from.")
    return result.model()


def _fitted(
    estimator: Any, data: Any, text_col: str | None, label_col: str | None, classes: Any,
    split_every: int, scheduler: Any, retries: int, progress: Progress | None,
) -> _Shipped | None:  # fmt: skip
    """The :class:`_Shipped` result of :func:`fit` (None: every partition empty), its
    errors said where they are in the files read."""
    from ._read import sources_of
    from ._where import locate, parse_advice

    require_dask()
    if isinstance(data, Blocks) and needs_types(data):
        try:  # (a first read of the partitions, for their columns' types)
            data = replace(data, types=_types(data, scheduler))
        except BlockError as exc:
            raise located(exc, data) from None
    plan = _graph(
        estimator, data, text_col, label_col, classes, split_every, events=progress is not None
    )
    sources = None if plan.frame is None else sources_of(plan.frame)
    try:
        return _compute(plan, scheduler, retries, progress)
    except BlockError as exc:
        raise located(exc, data) from None
    except PartitionError as exc:
        if isinstance(data, Blocks) and data.table is not None:
            raise _in_table(exc, data, scheduler) from None
        if sources is None:
            raise
        raise locate(exc, plan.frame, sources, scheduler) from None
    except ValueError as exc:
        advice = parse_advice(exc, sources)
        if advice is None:
            raise
        raise advice from exc


def _types(blocks: Blocks, scheduler: Any) -> list[dict[str, tuple[str, Any]]]:
    """The columns of a table's partitions and their types, agreed as one process reads
    a whole file's (:func:`._table_rows.agreed`)."""
    return agreed(blocks, _on_each(column_types, blocks, range(len(blocks.raws)), scheduler))


def _in_table(exc: PartitionError, blocks: Blocks, scheduler: Any) -> PartitionError:
    """``exc`` (a bad row of a table's partition; its ``label``, the row among the rows
    its block read) with its file and row, numbered as one process numbers a table's rows
    (from 0, among the rows read from the file): the rows of the file's earlier blocks are
    counted again (``exc`` as it is if they cannot be)."""
    if exc.label is None:
        return exc
    path = blocks.sources.parts[exc.partition][0]
    earlier = [j for j in range(exc.partition) if blocks.sources.parts[j][0] == path]
    try:
        before = sum(_on_each(rows_read, blocks, earlier, scheduler))
    except Exception:  # (the earlier blocks cannot be read again: the partition's row)
        return exc
    return PartitionError(exc.partition, exc.row, exc.label, exc.reason,
                          source=os.path.basename(blocks.names[exc.partition]),
                          source_row=before + int(exc.label))  # fmt: skip


def _on_each(task: Callable[..., Any], blocks: Blocks, parts: Any, scheduler: Any) -> list[Any]:
    """``task(blocks, i, raw)`` of the partitions ``parts`` on the workers: a first read
    of a table's partitions (their columns, types or rows)."""
    dask = require_dask()
    layout = replace(blocks, raws=[])
    delayed = dask.delayed(task, pure=False)
    tasks = [delayed(layout, i, blocks.raws[i]) for i in parts]
    client = _client_of(scheduler)
    if client is None:
        return list(dask.compute(*tasks, scheduler=scheduler))
    futures = client.compute(tasks)
    try:  # (waiting in short sleeps, as _compute_on does: Ctrl-C lands here)
        while not all(future.done() for future in futures):
            time.sleep(_POLL)
        return list(client.gather(futures))
    finally:
        client.cancel(futures)


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
    progress: Progress | None = None,
    bad_rows: str = "error",
    on_bad_row: Callable[[BadRow], None] | None = None,
    table_rows: TableRows | None = None,
    **read_kw: Any,
) -> Any:
    """Read files with :func:`read` and :func:`fit` on them: the entry point of the CLI.

    Documents in CSV/TSV files are read as :func:`nbayes.io.read_texts` reads them:
    every field a string (``NA`` and ``null`` are words, an empty field an empty
    document), and a row whose label is empty has no label (an error).

    Parameters
    ----------
    estimator : nbayes estimator
    source : str or list of str
        Files, globs or URLs (CSV/TSV, JSON lines, Parquet).
    text_col : str or None, default="text"
        Column of the documents (an estimator of documents, such as TextClassifier);
        ignored by other estimators, which take every column but ``label_col`` as features.
    label_col : str, default="label"
    scheduler : str, default=None
        A dask.distributed scheduler address (``tcp://host:8786``) to connect to, or a
        local dask scheduler name ("sync", "threads", "processes").
    workers : int, default=None
        Start a local cluster of this many single-threaded worker processes for the fit
        and close it afterwards (ignored if ``scheduler`` is an address). The cluster runs
        in a process of its own, in a session of its own: Ctrl-C interrupts the fit
        (``KeyboardInterrupt``) without reaching the workers, and the cluster closes by
        itself; its log is not shown.
    split_every, retries, progress
        As in :func:`fit`.
    bad_rows : {"error", "skip"}, default="error"
        As for :func:`nbayes.io.read_texts`: ``"error"`` stops at the first bad row (a
        :class:`PartitionError`); ``"skip"`` leaves bad rows out and counts them: a
        missing text or label, a JSON line that is not a valid JSON object, a CSV/TSV
        record of the wrong width. Skipping, the workers read the files with the readers
        of :mod:`nbayes.io` (CSV/TSV and JSON lines in blocks, each Parquet file whole),
        and the model is that of ``read_texts(..., bad_rows="skip")``. What spoils more
        than a row is an error either way (ValueError): a missing column, a quote that
        never closes (or, in a file cut into blocks, a block that ends inside a quoted
        field), every row bad. An estimator of a table (GaussianNB, MixedNB ...): the
        workers read the files with :func:`nbayes.io.read_table` (in blocks too), whose
        bad rows are a CSV/TSV line with more fields than the header and a JSON line that
        is not a JSON object, and then leave out the rows ``table_rows`` names (by
        default, the rows without a label), named by their rows in the file (0-based,
        among the rows read); the columns are typed as pandas types each whole file (a
        first read of the partitions agrees on the types, where they follow from the
        rows: CSV typed, JSON lines).
    on_bad_row : callable, default=None
        With ``bad_rows="skip"``, called with a :class:`nbayes.io.BadRow` for each row
        skipped, numbered and named as ``read_texts`` does (the file, its row and line),
        in the files' order, once the fit is done (the bad rows travel from the
        workers). Without it, one :class:`~nbayes.exceptions.SkippedRowsWarning` counts
        them and names the first few.
    table_rows : TableRows, default=None
        Skipping the bad rows of a table: which rows are bad, and how the rows kept become
        the estimator's input (:class:`TableRows`; None: ``TableRows()``).
    **read_kw
        Passed to :func:`read` (``blocksize=``, ``format=`` ...). Skipping bad rows,
        ``format``, ``blocksize``, ``sep``, ``encoding``, ``compression``,
        ``storage_options`` and ``max_field_chars`` (as for ``read_texts``).

    Returns
    -------
    estimator
        The fitted clone.
    """
    from ._bad_rows import in_files, read_blocks, report
    from ._read import _format_of, read, same_file_columns, sources_of

    require_dask()
    if bad_rows not in BAD_ROWS:
        raise ValueError(f"bad_rows must be one of {BAD_ROWS}, got {bad_rows!r}.")
    if on_bad_row is not None and not callable(on_bad_row):
        raise TypeError(f"on_bad_row must be callable or None, got {type(on_bad_row).__name__}.")
    documents = takes_documents(estimator)
    first = source if isinstance(source, str) else source[0]
    fmt = read_kw.get("format") or _format_of(first)
    data: Any
    if table_rows is not None and (documents or bad_rows != "skip"):
        raise ValueError(
            "table_rows applies with bad_rows='skip' to estimators of a table; a "
            f"{type(estimator).__name__} with bad_rows={bad_rows!r} reads the files "
            "otherwise: leave it out."
        )
    if bad_rows == "skip":
        data = read_blocks(source, text_col or "text", label_col, read_kw)
        if not documents:
            data = replace(data, table=table_rows or TableRows())
    else:
        if documents and fmt in ("csv", "tsv"):
            # as the single-machine CSV reader: strings, an empty label missing
            read_kw.setdefault("dtype", str)
            read_kw.setdefault("keep_default_na", False)
            read_kw.setdefault("na_values", {label_col: [""]})
        # pandas' own types, as one process reads the files (dask's default makes strings
        # pyarrow's, whose missing value is NA: a MixedNB's model file said "string", not
        # "str", of pandas 3's strings)
        with require_dask().config.set({"dataframe.convert-string": False}):
            data = read(source, **read_kw)
    if not documents:  # (a table's files: one table, as one process reads them)
        sources = data.sources if isinstance(data, Blocks) else sources_of(data)
        if sources is not None:
            same_file_columns(sources, read_kw.get("storage_options"))
    args = (estimator, data, text_col if documents else None, label_col, None, split_every)
    if scheduler is not None and "://" in scheduler:
        from distributed import Client

        with Client(scheduler) as client:
            result = _fitted(*args, client, retries, progress)
    elif workers is not None:
        from distributed import Client

        from ._host import local_cluster

        with local_cluster(int(workers)) as address, Client(address) as client:
            result = _fitted(*args, client, retries, progress)
    else:
        result = _fitted(*args, scheduler, retries, progress)
    model = None if result is None else result.model()
    if isinstance(data, Blocks):
        found, invalid = in_files(data, {} if result is None else result.skipped or {})
        encoding = data.sources.encoding
        all_bad = None
        if data.table is not None:  # (as one process: the lines read first, then the rows)
            found = sorted(found, key=lambda row: row.line is None)
            all_bad = data.table.all_bad
        report(found, invalid, encoding, on_bad_row, model is not None, all_bad)
    if model is None:
        raise ValueError("Every partition is empty: nothing to learn from.")
    return model
