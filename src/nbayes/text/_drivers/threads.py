"""Threads for the compiled kernels: how many, how the documents are cut into spans, and
waiting for workers so that Ctrl-C stops them (kernel threads block signals; the main
thread wakes every 0.1 s and tells the workers through :func:`nbayes._native.cancel`).
"""

from __future__ import annotations

import os
import signal
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

import numpy as np

import nbayes._native as _native

__all__ = ["PARALLEL_MIN_CHARS", "Team", "default_threads", "hand_off"]

_POOL: ThreadPoolExecutor | None = None
#: Below this many characters one thread is faster than two (thread start, merge).
PARALLEL_MIN_CHARS = 1 << 20


def default_threads() -> int:
    """Threads for the kernels: ``NBAYES_NUM_THREADS`` if set, else one per usable core."""
    env = os.environ.get("NBAYES_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, cores)


def _chunks(lengths: np.ndarray, n_threads: int | None, pieces: int = 1) -> list[tuple[int, int]]:
    """Document spans of about equal text: ``pieces`` per thread (a single span when one
    thread is used)."""
    n = lengths.shape[0]
    k = default_threads() if n_threads is None else max(1, int(n_threads))
    total = int(lengths.sum())
    if n_threads is None and total < PARALLEL_MIN_CHARS:
        k = 1
    if k > 1:
        k *= pieces
    k = max(1, min(k, n))
    if k == 1:
        return [(0, n)]
    cum = np.cumsum(lengths)
    cuts = np.searchsorted(cum, total * np.arange(1, k) / k).tolist()
    bounds = [0, *sorted(set(min(max(c, 1), n - 1) for c in cuts)), n]
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


def _quiet_thread() -> None:
    """Kernel threads leave signals to the main thread (where Python handles them), so
    that Ctrl-C wakes the main thread's wait instead of a worker."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)


_SIGNALS = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGALRM", "SIGUSR1",
                                         "SIGUSR2") if hasattr(signal, n)}  # fmt: skip


def _pool() -> ThreadPoolExecutor:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=max(2, default_threads()),
                                   thread_name_prefix="nbayes-kernel",
                                   initializer=_quiet_thread)  # fmt: skip
    return _POOL


def _join(futures: list[Any]) -> list[Any]:
    """The futures' results; on Ctrl-C (or any error) the running kernels are told to
    stop, every future is waited for, and the error is raised. The wait wakes up every
    0.1 s so that Python runs its signal handlers promptly."""
    try:
        pending = set(futures)
        while pending:
            _, pending = wait(pending, timeout=0.1, return_when=FIRST_EXCEPTION)
            if any(f.done() and f.exception() is not None for f in futures):
                break
        return [f.result() for f in futures]
    except BaseException:
        _native.cancel()
        for f in futures:
            f.cancel()
        for f in futures:
            try:
                f.result()
            except BaseException:  # noqa: S110 - the first error is the one raised
                pass
        raise
    finally:
        _native.reset_cancel()


def _map(fn: Any, items: list[Any]) -> list[Any]:
    """``[fn(i) for i in items]``, in the kernel threads when there is more than one."""
    if len(items) == 1:
        return [fn(items[0])]
    pool = _pool()
    return _join([pool.submit(fn, item) for item in items])


def _join_rows(parts: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One set of CSR pieces from consecutive row spans."""
    if len(parts) == 1:
        return parts[0]
    offsets = np.cumsum([0] + [int(p[0][-1]) for p in parts[:-1]])
    indptr = np.concatenate(
        [parts[0][0]] + [p[0][1:] + off for p, off in zip(parts[1:], offsets[1:], strict=True)]
    )
    return indptr, np.concatenate([p[1] for p in parts]), np.concatenate([p[2] for p in parts])


class Team:
    """The kernel threads of one hand-off (:func:`hand_off`): the documents' ``spans``, how
    many ``workers`` take them, and the pool's calls for the job's phases."""

    __slots__ = ("spans", "workers")

    def __init__(self, spans: list[tuple[int, int]], workers: int) -> None:
        self.spans = spans
        self.workers = workers

    def map(self, fn: Any, items: list[Any]) -> list[Any]:
        """``[fn(i) for i in items]``, in the kernel threads when there is more than one."""
        return _map(fn, items)

    def submit(self, fn: Any, *args: Any) -> Any:
        """``fn(*args)`` in a kernel thread (its future)."""
        return _pool().submit(fn, *args)

    @staticmethod
    def rows(parts: list[Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One set of CSR pieces from the consecutive spans' pieces."""
        return _join_rows(parts)


def hand_off(job: Any, lengths: np.ndarray, n_threads: int | None = None, pieces: int = 1) -> Any:
    """``job(team)``: one batch's parallel work handed to the kernel threads at once.

    ``lengths`` are the documents' sizes (spans of about equal text: ``pieces`` per thread,
    one span when one thread is used; ``n_threads`` None: :func:`default_threads` for
    inputs of at least :data:`PARALLEL_MIN_CHARS`). The job runs every phase of the batch
    (counting per span, merging, filling) through the :class:`Team` it is given."""
    spans = _chunks(lengths, n_threads, pieces)
    threads = default_threads() if n_threads is None else max(1, int(n_threads))
    return job(Team(spans, max(1, min(len(spans), threads))))
