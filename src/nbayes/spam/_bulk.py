"""Scoring many messages on several cores (:func:`classify_many`), and tokenizing the
messages a filter learns on several cores (:func:`count_many`, for
:meth:`SpamFilter.fit_stream`).

Reading and tokenizing mail is most of a verdict's cost, and it is pure Python: one
process scores a few thousand messages a second. :func:`classify_many` forks worker
processes that inherit the (read-only) filter and each parse, tokenize and score chunks of
messages, and yields the verdicts in the messages' order. A list (or tuple) of messages is
inherited too, and the workers are sent the bounds of their chunks; the messages of any
other iterable travel to the workers as they were given (bytes, paths,
:class:`~nbayes.mail.RawMail`). Verdicts come back.

Learning many messages (:func:`count_many`): each worker tokenizes and counts the chunks
it is given into a table of its own, and the tables are merged (added) at the end. The
messages travel to the workers, a few chunks ahead of them and no more.
"""

from __future__ import annotations

import functools
import gc
import itertools
import multiprocessing
import os
import pickle
import queue
import signal
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from nbayes.mail import MailTokenizer
from nbayes.spam._filter import MessageLike, SpamFilter, Verdict
from nbayes.spam._table import TokenTable

__all__ = ["classify_each", "classify_many", "count_many", "forks", "usable_cores"]

T = TypeVar("T")
E = TypeVar("E", bound=BaseException)

_WORKER_FILTER: SpamFilter | None = None
_WORKER_MESSAGES: Sequence[Any] = ()


def _init(spam_filter: SpamFilter, messages: Sequence[Any]) -> None:  # pragma: no cover
    global _WORKER_FILTER, _WORKER_MESSAGES  # (runs in the workers)
    _WORKER_FILTER = spam_filter
    _WORKER_MESSAGES = messages


def _scored(spam_filter: SpamFilter, chunk: list[Any]) -> list[tuple[str, float, float]]:
    """The verdicts of ``chunk`` as they travel back: (verdict, spamicity, log-odds)."""
    return [(v.verdict, v.spamicity, v.log_odds) for v in spam_filter.classify(chunk)]


def _each_scored(spam_filter: SpamFilter, raws: list[Any]) -> list[Verdict | Exception]:
    """The verdict of each message alone, or the error scoring it."""
    out: list[Verdict | Exception] = []
    for raw in raws:
        try:
            out.append(spam_filter.classify([raw])[0])
        except Exception as exc:
            out.append(exc)
    return out


def _counted(
    table: TokenTable, tokenizer: MailTokenizer, messages: list[Any], flags: list[bool]
) -> None:
    """``messages`` (their ``flags``: True for spam) learnt into ``table``."""
    SpamFilter._count_into(table, SpamFilter._token_sets_with(tokenizer, messages), flags)


def _score(chunk: list[Any]) -> list[tuple[str, float, float]]:  # pragma: no cover
    assert _WORKER_FILTER is not None
    return _scored(_WORKER_FILTER, chunk)


def _score_range(span: tuple[int, int]) -> list[tuple[str, float, float]]:  # pragma: no cover
    return _score(list(_WORKER_MESSAGES[span[0] : span[1]]))


def forks() -> bool:
    """Whether this system starts processes by fork (what the workers need: they inherit
    the filter instead of unpickling it)."""
    return "fork" in multiprocessing.get_all_start_methods()


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _count_worker(
    tokenizer: MailTokenizer, tasks: Any, results: Any, parent: int
) -> None:  # pragma: no cover
    """A worker of :func:`count_many` (runs in a forked process): learn each chunk of
    ``tasks`` until None, then put its table's columns (or the error) on ``results``. It
    ends by itself once its parent process is gone (killed, or ended by a SIGTERM: no
    worker is left behind counting for nobody)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _keep_shared()
    # this process neither puts tasks nor reads results: with its copies of those ends
    # closed, the parent's death ends the pipes (a read of a chunk the parent was writing
    # when it died would otherwise wait for the rest for ever)
    tasks._writer.close()
    results._reader.close()
    table = TokenTable()
    try:
        while (task := _next_task(tasks, parent)) is not None:
            messages, flags = pickle.loads(task)  # (pickled by the parent: see count_many)
            _counted(table, tokenizer, messages, flags)
        columns = (table.store.packed(), table.ham.tobytes(), table.spam.tobytes())
        out: tuple[str, Any] = ("table", (*columns, table.n_ham, table.n_spam))
    except _Orphaned:
        os._exit(1)
    except BaseException as exc:
        out = ("error", _travelling(exc))
    results.put(out)


def _keep_shared() -> None:  # pragma: no cover (runs in the workers)
    """Leave the objects inherited from the parent out of this worker's garbage
    collections (``gc.freeze``, as Python's documentation advises a process that forks
    without exec): a collection of the oldest generation visited each of them, the
    filter's hundreds of thousands of tokens and whatever else the parent holds, and wrote
    to their headers, copying their memory pages into the worker. It runs in O(1); the
    parent is untouched."""
    gc.freeze()


def _travelling(exc: E) -> E | RuntimeError:
    """``exc``, or its words as a RuntimeError when it cannot be pickled (travel back)."""
    try:
        pickle.dumps(exc)
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__}: {exc}")


class _Orphaned(Exception):
    """The worker's parent process is gone."""


def _next_task(tasks: Any, parent: int) -> Any:  # pragma: no cover
    while True:
        try:
            return tasks.get(timeout=1.0)
        except queue.Empty:
            if os.getppid() != parent:
                raise _Orphaned from None
        except (EOFError, OSError):  # the parent is gone, a chunk half written
            raise _Orphaned from None


def _map_worker(
    init: Callable[..., None],
    initargs: tuple[Any, ...],
    func: Callable[[Any], Any],
    tasks: Any,
    results: Any,
    parent: int,
) -> None:  # pragma: no cover
    """A worker of :func:`_in_order` (runs in a forked process): ``init(*initargs)``, then
    ``(index, func(arg))`` (or the error) for each ``(index, arg)`` of ``tasks`` until None.
    It ends by itself once its parent process is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _keep_shared()
    tasks._writer.close()  # (as _count_worker: the parent's death ends the pipes)
    results._reader.close()
    init(*initargs)
    try:
        while (task := _next_task(tasks, parent)) is not None:
            index, arg = pickle.loads(task)  # (pickled by the parent: see _in_order)
            try:
                out: tuple[str, int, Any] = ("result", index, func(arg))
            except BaseException as exc:
                out = ("error", index, _travelling(exc))
            results.put(out)
    except _Orphaned:
        os._exit(1)


def _in_order(
    n_jobs: int,
    init: Callable[..., None],
    initargs: tuple[Any, ...],
    func: Callable[[Any], Any],
    args: Iterable[Any],
    here: Callable[[Any], Any] | None = None,
) -> Iterator[Any]:
    """``func(arg)`` of each of ``args``, in order, computed by ``n_jobs`` forked processes
    that each ran ``init(*initargs)`` first (inherited, not pickled); ``args`` is read here,
    at most ``2 * n_jobs + 1`` ahead of the result yielded. An error of ``func`` is raised
    here, at its place; a worker that dies raises ChildProcessError.

    An ``arg`` that cannot be pickled (an open file among the messages) cannot travel to
    the workers: ``here(arg)`` is its result, computed in this process (its error raised
    at its place); without ``here``, the pickling error is. (Pickled by the queue's
    thread, it was dropped with a traceback on stderr, and its result waited for ever.)

    multiprocessing.Pool is not used: its terminate() can wait for ever (CPython issues
    73945 and 96995: its task thread, blocked writing to the workers it has just ended, is
    joined), and a stream closed early (``nbayes filter MODEL big.mbox | head``) ends the
    pool with tasks still in its pipe: once, in CI, the command sat 5 minutes there. Here,
    an early end kills the workers, and the pipe's read end is closed for the thread
    writing to it to end (its error, a broken pipe, is expected and kept quiet).
    """
    ctx = multiprocessing.get_context("fork")
    tasks: Any = ctx.Queue()
    tasks._ignore_epipe = True  # (read when its thread starts: a write no worker will read)
    results = ctx.Queue()
    workers = [
        ctx.Process(
            target=_map_worker,
            args=(init, initargs, func, tasks, results, os.getpid()),
            daemon=True,
        )
        for _ in range(n_jobs)
    ]
    done: dict[int, tuple[str, Any]] = {}

    def collect() -> None:
        """Wait for a result (a fifth of a second at most); raise if a worker died."""
        try:
            kind, index, payload = results.get(timeout=0.2)
            done[index] = (kind, payload)
        except queue.Empty:
            dead = [w.exitcode for w in workers if w.exitcode not in (None, 0)]
            if dead:
                raise ChildProcessError(
                    f"a process scoring the mail {_ended(dead[0])} before it was done"
                ) from None

    it = iter(args)
    sent = given = 0
    complete = False
    try:
        for w in workers:  # all forked before a put starts the queue's thread
            w.start()
        while True:
            while sent - given <= 2 * n_jobs and (arg := next(it, _END)) is not _END:
                try:
                    task = pickle.dumps((sent, arg), pickle.HIGHEST_PROTOCOL)
                except Exception as exc:  # (pickle raises TypeError, PicklingError, ...)
                    done[sent] = _computed_here(here, arg, exc)
                else:
                    tasks.put(task)
                sent += 1
            if given == sent:
                break
            while given not in done:
                collect()
            kind, payload = done.pop(given)
            given += 1
            if kind == "error":
                raise payload
            yield payload
        for _ in workers:
            tasks.put(None)
        complete = True
    finally:
        for w in workers:
            if not complete and w.is_alive():
                w.terminate()
            if w.pid is not None:
                w.join()
        if not complete:  # no worker reads on: the thread's pending write ends (EPIPE)
            tasks._reader.close()
        tasks.close()
        tasks.join_thread()
        results.close()


_END = object()


def _computed_here(here: Callable[[Any], Any] | None, arg: Any, exc: Exception) -> tuple[str, Any]:
    """The result of an ``arg`` of :func:`_in_order` that could not be pickled for the
    workers (``exc``): ``here(arg)``, or the error."""
    if here is None:
        return "error", exc
    try:
        return "result", here(arg)
    except Exception as error:
        return "error", error


def count_many(
    tokenizer: MailTokenizer, chunks: Iterable[tuple[list[Any], list[bool]]], n_jobs: int
) -> TokenTable:
    """The table of the messages of ``chunks`` (each a list of messages and their flags,
    True for spam), tokenized and counted by ``n_jobs`` forked processes, each into a
    table of its own, merged at the end (the counts of one table learning them all).

    ``chunks`` is read in this process (an error reading it is raised here, at its
    place), at most ``2 * n_jobs`` chunks ahead of the workers; an error in a worker is
    raised here, and no table is returned. Memory: each worker holds the table of the
    messages it counted (``n_jobs`` tables of up to the vocabulary's size).

    >>> chunks = [([b"Subject: hi\\n\\nlunch today"], [False]),
    ...           ([b"Subject: win\\n\\ncash now", b"cash prize"], [True, True])]
    >>> t = count_many(MailTokenizer(), chunks, 2)
    >>> t.counts("cash"), t.counts("lunch"), (t.n_ham, t.n_spam)
    ((0, 2), (1, 0), (1, 2))
    """
    ctx = multiprocessing.get_context("fork")
    tasks = ctx.Queue(maxsize=2 * n_jobs)
    results = ctx.Queue()
    workers: list[Any] = []
    got: list[tuple[str, Any]] = []

    def check(block: bool) -> None:
        """Collect what the workers put; raise a worker's error, or if one died."""
        try:
            got.append(results.get(timeout=0.2) if block else results.get_nowait())
        except queue.Empty:
            dead = [w.exitcode for w in workers if w.exitcode not in (None, 0)]
            if dead:
                raise ChildProcessError(
                    f"a process counting the mail {_ended(dead[0])} before it was done; "
                    "nothing was learnt"
                ) from None
        for kind, payload in got:
            if kind == "error":
                raise payload

    here = TokenTable()  # the chunks that cannot travel to the workers, counted here

    def put(task: Any) -> None:
        """Hand ``task`` to the workers, waiting while they are busy (not if they died). A
        chunk that cannot be pickled (an open file among its messages) is counted in this
        process: its error is the one a single process raises. (Pickled by the queue's
        thread, it was dropped with a traceback on stderr, and the filter learnt without
        it.)"""
        if task is not None:
            try:
                task = pickle.dumps(task, pickle.HIGHEST_PROTOCOL)
            except Exception:
                _counted(here, tokenizer, *task)
                return
        while True:
            try:
                tasks.put(task, timeout=0.2)
                break
            except queue.Full:
                check(block=False)
        check(block=False)

    # the first n_jobs chunks are read ahead: no more workers than chunks, all forked before
    # a put starts the queue's feeder thread (a fork beside a running thread is unsafe)
    it = iter(chunks)
    first = list(itertools.islice(it, n_jobs))
    complete = False
    try:
        for _ in first:
            workers.append(
                ctx.Process(
                    target=_count_worker,
                    args=(tokenizer, tasks, results, os.getpid()),
                    daemon=True,
                )
            )
            workers[-1].start()
        for chunk in itertools.chain(first, it):
            put(chunk)
        for _ in workers:
            put(None)  # (each worker then sends its table)
        while len(got) < len(workers):
            check(block=True)
        complete = True
    finally:
        for w in workers:
            if w.is_alive() and not complete:
                w.terminate()
            w.join()
        if not complete:  # a chunk may be left in the pipe: do not wait to flush it at exit
            tasks.cancel_join_thread()
        tasks.close()
        results.close()
    tables = [
        TokenTable.from_packed(
            blob, memoryview(offsets).cast("q"), array("q", ham), array("q", spam), n_ham, n_spam
        )
        for (blob, offsets), ham, spam, n_ham, n_spam in (payload for _, payload in got)
    ]
    if here.n_ham or here.n_spam:
        tables.append(here)
    if not tables:
        return TokenTable()
    tables.sort(key=len, reverse=True)
    for other in tables[1:]:
        tables[0].merge(other)
    return tables[0]


def _ended(exitcode: int) -> str:
    """How a worker ended, in words: its exit code, or the signal that killed it.

    >>> _ended(-9)
    'was killed by signal 9 (SIGKILL: out of memory, or killed by hand?)'
    >>> _ended(3)
    'ended with exit code 3'
    """
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = "an unknown signal"
        hint = ": out of memory, or killed by hand?" if -exitcode == signal.SIGKILL else ""
        return f"was killed by signal {-exitcode} ({name}{hint})"
    return f"ended with exit code {exitcode}"


def _spans(n: int, size: int, n_jobs: int) -> list[tuple[int, int]]:
    """The bounds of chunks of ``size`` messages of ``n``, the last ones smaller (a
    ``2 * n_jobs``-th of what is left, down to 8 messages), so that the workers finish
    together: no worker idles while another scores the last full chunk.

    >>> _spans(100, 32, 2)
    [(0, 25), (25, 44), (44, 58), (58, 69), (69, 77), (77, 85), (85, 93), (93, 100)]
    """
    spans = []
    start = 0
    while start < n:
        step = min(size, max(8, -(-(n - start) // (2 * n_jobs))))
        spans.append((start, min(start + step, n)))
        start += step
    return spans


def _chunks(messages: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(messages)
    while chunk := list(itertools.islice(it, size)):
        yield chunk


def classify_many(
    spam_filter: SpamFilter,
    messages: Iterable[MessageLike],
    *,
    n_jobs: int | None = None,
    chunk_size: int | None = None,
) -> Iterator[Verdict]:
    """The verdict of each message, in order, scored by ``n_jobs`` processes.

    Parameters
    ----------
    spam_filter : SpamFilter
        A fitted filter; the workers score with a copy of it as it is now.
    messages : iterable
        Read lazily, ``chunk_size`` at a time per worker (a mailbox of any size streams); a
        list or tuple is inherited by the workers whole.
    n_jobs : int, optional
        Worker processes (default, or -1: the usable cores); 1 scores in this process.
    chunk_size : int, optional
        Messages a worker is given at a time. Default: 512 of a list or tuple (only the
        chunks' bounds travel; long runs of one mailbox let a worker's remembered header
        tokens serve again: 5 % faster on the corpus than 128), whose last chunks are
        smaller, so that the workers finish together; 64 of other iterables (the
        messages themselves travel).

    Examples
    --------
    >>> mail = {
    ...     b"Subject: minutes\\n\\nproject meeting minutes": "ham",
    ...     b"Subject: build\\n\\nproject build failed": "ham",
    ...     b"Subject: free money\\n\\nclick here now": "spam",
    ...     b"Subject: free offer\\n\\nclick here for money": "spam",
    ... }
    >>> f = SpamFilter().fit(list(mail), list(mail.values()))
    >>> probe = [b"Subject: free\\n\\nclick here now for free money",
    ...          b"Subject: build\\n\\nmeeting minutes"]
    >>> [v.verdict for v in classify_many(f, probe, n_jobs=2)]
    ['spam', 'ham']
    """
    spam_filter._check_fitted()
    n_jobs = spam_filter._processes(-1 if n_jobs is None else n_jobs)  # as fit_stream takes it
    if chunk_size is None:
        chunk_size = 512 if isinstance(messages, list | tuple) else 64
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be an int >= 1 or None; got {chunk_size!r}")
    if n_jobs == 1 or not forks():
        for chunk in _chunks(messages, chunk_size):
            yield from spam_filter.classify(chunk)
        return
    if isinstance(messages, list | tuple):
        # the workers read the messages from their (forked) copy of the list: only the
        # chunks' bounds travel, not the messages, pickled by this process (which shares
        # the cores with the workers) and unpickled by them
        spans = _spans(len(messages), chunk_size, n_jobs)
        results = _in_order(n_jobs, _init, (spam_filter, messages), _score_range, spans)
    else:
        chunks = _chunks(messages, chunk_size)
        here = functools.partial(_scored, spam_filter)  # (a chunk that cannot travel)
        results = _in_order(n_jobs, _init, (spam_filter, ()), _score, chunks, here)
    for result in results:
        for verdict, spamicity, log_odds in result:
            yield Verdict(verdict, spamicity, log_odds)


def _init_each(spam_filter: SpamFilter) -> None:  # pragma: no cover
    global _WORKER_FILTER  # (runs in the workers)
    _WORKER_FILTER = spam_filter
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


def _score_each(raws: list[Any]) -> list[Verdict | Exception]:  # pragma: no cover
    """The verdict of each message, or the error scoring it (one that cannot travel back:
    its words, as a RuntimeError)."""
    assert _WORKER_FILTER is not None
    try:
        return list(_WORKER_FILTER.classify(raws))
    except Exception:  # which message: each alone
        each = _each_scored(_WORKER_FILTER, raws)
        return [_travelling(v) if isinstance(v, Exception) else v for v in each]


def classify_each(
    spam_filter: SpamFilter,
    items: Iterable[T],
    mail_of: Callable[[T], Any] | None = None,
    *,
    n_jobs: int | None = None,
    chunk_size: int = 64,
) -> Iterator[tuple[T, Verdict | Exception | None]]:
    """``(item, verdict)`` for each of ``items``, in order, scored by ``n_jobs`` forked
    processes: :func:`classify_many` for a stream in which a message may fail alone (a
    mail program's loop over a mailbox: ``nbayes filter MODEL big.mbox``).

    The message of an item is ``mail_of(item)`` (default: the item). Its verdict is a
    :class:`Verdict`, or the exception scoring it raised (returned in its place, not
    raised: the others still get theirs); an item whose ``mail_of`` is None (a note
    carried along in order, such as a file that could not be read) gets None.
    ``items`` is read in this process, at most ``2 * n_jobs`` chunks of ``chunk_size``
    messages ahead of the item yielded: a mailbox of any size streams. Ctrl-C is this
    process's to handle; the workers ignore it and end with the pool.

    >>> f = SpamFilter().fit(
    ...     [b"lunch at noon with the team", b"the team meeting notes", b"win free cash now",
    ...      b"free prize: claim now"], ["ham", "ham", "spam", "spam"])
    >>> items = [b"Subject: win free cash\\n\\nwin free cash now claim prize now", None,
    ...          b"team lunch notes"]
    >>> [v if v is None else v.verdict for _, v in classify_each(f, items, n_jobs=2)]
    ['spam', None, 'ham']
    """
    spam_filter._check_fitted()
    n_jobs = spam_filter._processes(-1 if n_jobs is None else n_jobs)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be an int >= 1; got {chunk_size!r}")
    get = (lambda x: x) if mail_of is None else mail_of
    it = iter(items)
    if n_jobs == 1 or not forks():
        for item in it:
            raw = get(item)
            if raw is None:
                yield item, None
                continue
            try:
                yield item, spam_filter.classify([raw])[0]
            except Exception as exc:
                yield item, exc
        return
    pending: deque[tuple[list[T], list[Any]]] = deque()  # (read here, in order)

    def raws() -> Iterator[list[Any]]:
        while chunk := list(itertools.islice(it, chunk_size)):
            mails = [get(x) for x in chunk]
            pending.append((chunk, mails))
            yield [m for m in mails if m is not None]

    here = functools.partial(_each_scored, spam_filter)  # (a chunk that cannot travel)
    for scored in _in_order(n_jobs, _init_each, (spam_filter,), _score_each, raws(), here):
        chunk, mails = pending.popleft()
        verdicts = iter(scored)
        for item, mail in zip(chunk, mails, strict=True):
            yield item, None if mail is None else next(verdicts)
