"""The one thread that touches the served model, with a time budget for each request.

Every request that reads or changes the model runs as a job on this thread, one at a time
and in the order they came, so a request never sees a model half updated, and the event
loop stays free: ``/health`` answers while a long prediction runs.

A read (``/predict``, ``/explain``, ``/info``) that runs longer than the budget
(``--max-seconds``) is stopped: its client gets 422 naming the limit and the flag, and the
thread is interrupted (an exception raised in it at its next Python instruction). A read
stopped in the middle may have left a cache of the model half built, so the model is
loaded again from its files (and its journal replayed) before the next job. Writes
(``/update``, ``/forget``, folds) are never interrupted: their size is bounded by
``--max-body``, and a write stopped half way is what the journal exists to prevent.

A small read (a few documents: :meth:`ModelRunner.read` with ``small=True``) runs on the
event loop's thread itself when the model thread is idle, under the same lock: handing it to
the thread and back cost more than the read (a one-document ``/predict`` is ~0.2 ms of
CPU), and it is too short to hold anything.

On shutdown (:meth:`ModelRunner.stop`) the reads already received get a short grace
(:data:`SHUTDOWN_GRACE` seconds) to finish; then the running read is interrupted and the
queued ones are refused (503): SIGTERM is honoured within seconds, whatever request is
running. Queued writes still run.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from nbayes.serve.inputs import ApiError

__all__ = ["SHUTDOWN_GRACE", "ModelRunner", "Stopped"]

#: on shutdown, the reads in flight may finish within this many seconds
SHUTDOWN_GRACE = 3.0

log = logging.getLogger("nbayes.serve")


class Stopped(BaseException):
    """Raised in the model thread to stop a read (over its budget, or at shutdown). A
    BaseException, so that no ``except Exception`` of the library swallows it."""


def _interrupt(thread_id: int) -> bool:
    """Raise :class:`Stopped` in the thread ``thread_id`` at its next instruction."""
    set_async_exc = getattr(ctypes, "pythonapi", None)
    if set_async_exc is None:  # pragma: no cover - not CPython
        return False
    n = ctypes.pythonapi.PyThreadState_SetAsyncExc(
        ctypes.c_ulong(thread_id), ctypes.py_object(Stopped)
    )
    return bool(n == 1)


class _Job:
    __slots__ = ("fn", "read", "future", "loop", "started", "done", "why")

    def __init__(self, fn: Callable[[], Any], read: bool, loop: asyncio.AbstractEventLoop) -> None:
        self.fn = fn
        self.read = read
        self.loop = loop
        self.future: asyncio.Future[Any] = loop.create_future()
        self.started: float | None = None
        self.done = False
        self.why: str | None = None  # why it was stopped: "budget" or "shutdown"


class ModelRunner:
    """Runs jobs on the model's thread (see the module).

    Parameters
    ----------
    max_seconds : float
        The budget of a read, in seconds (``--max-seconds``).
    reload : callable
        Loads the model again from its files (after a read was interrupted).
    """

    def __init__(self, max_seconds: float, reload: Callable[[], None]) -> None:
        self.max_seconds = float(max_seconds)
        self._reload = reload
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()  # guards _current and a job's state
        self._model = threading.Lock()  # held while a job runs (this thread, or inline)
        self._current: _Job | None = None
        self._dirty = False  # a read was interrupted: reload before the next job
        self.stopping = False
        self.interrupted = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._run, name="nbayes-model", daemon=True)
        self._thread.start()

    # ------------------------------------------------------------ the event loop's side
    async def read(self, fn: Callable[[], Any], small: Callable[[], bool] | None = None) -> Any:
        """Run ``fn`` on the model thread within the budget; its result. When the model
        thread is idle and ``small()`` says so (asked with the model's lock held), ``fn``
        runs here, on the event loop's thread."""
        if small is not None and not self.stopping and not self._dirty and self._jobs.empty():
            if self._model.acquire(blocking=False):
                try:
                    if small():
                        return fn()
                finally:
                    self._model.release()
        return await self._submit(fn, read=True)

    async def write(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the model thread (never interrupted); its result."""
        return await self._submit(fn, read=False)

    async def _submit(self, fn: Callable[[], Any], read: bool) -> Any:
        if self.stopping and read:
            raise ApiError(503, "The server is shutting down.")
        job = _Job(fn, read, asyncio.get_running_loop())
        self._loop = job.loop
        self._jobs.put(job)
        try:
            return await asyncio.shield(job.future)
        except asyncio.CancelledError:  # the client went away, or shutdown: stop a read
            if read:
                self._stop(job, "shutdown")
            raise

    def _started(self, job: _Job) -> None:
        """On the loop: a job started; arm its budget."""
        if job.read and not job.done:
            job.loop.call_later(self.max_seconds, self._stop, job, "budget")

    def _stop(self, job: _Job, why: str) -> None:
        """Stop a read: answer its client now and interrupt it if it runs."""
        with self._lock:
            if job.done or not job.read or job.why is not None:
                return  # at most one interruption per job
            job.why = why
            if self._current is job:
                _interrupt(self._thread.ident or 0)
                self.interrupted += 1
        if not job.future.done():
            job.future.set_exception(self._refusal(why))

    def _refusal(self, why: str | None) -> ApiError:
        if why == "budget":
            return ApiError(
                422,
                f"This request needs more than {self.max_seconds:g} s of computation (the "
                f"server's limit, --max-seconds {self.max_seconds:g}); it was stopped. Send "
                "fewer or shorter texts, or start the server with a larger --max-seconds.",
                limit="--max-seconds",
            )
        return ApiError(503, "The server is shutting down; this request was stopped.")

    def stop(self, grace: float = 0.0) -> None:
        """Shutdown: the reads received may finish within ``grace`` seconds (at most the
        budget); then the running one is interrupted and the queued ones are refused.
        Safe to call from a signal handler or another thread."""
        loop = self._loop
        if loop is None:  # nothing ever ran
            self.stopping = True
            return
        wait = min(max(grace, 0.0), self.max_seconds)

        def begin() -> None:
            if wait > 0:
                loop.call_later(wait, self._stop_all)
            else:
                self._stop_all()

        try:
            loop.call_soon_threadsafe(begin)
        except RuntimeError:  # the loop is closed
            self.stopping = True

    def _stop_all(self) -> None:
        """On the loop: interrupt the running read; the queued ones are refused."""
        self.stopping = True
        with self._lock:
            job = self._current
        if job is not None and job.read:
            self._stop(job, "shutdown")

    @property
    def dirty(self) -> bool:
        """Whether a read was stopped half way and the model not yet loaded again."""
        return self._dirty

    def close(self) -> None:
        """End the thread once the queued jobs have run."""
        self._jobs.put(None)

    # ------------------------------------------------------------ the model thread
    def _run(self) -> None:
        job: _Job | None = None
        while True:
            try:
                job = self._jobs.get()
                if job is None:
                    return
                with self._model:
                    result, error = self._one(job)
                # answered once the model is free: the client's next request (sent as soon
                # as it has this answer) then finds the model idle and can run inline
                self._deliver(job, result, error)
                job = None
            except Stopped:
                # the interruption of a read that landed just outside its function: the
                # job ends as if it had landed inside
                self._dirty = True
                with self._lock:
                    self._current = None
                    if job is not None:
                        job.done = True
                if job is not None:
                    self._deliver(job, None, self._refusal(job.why))
                job = None

    def _one(self, job: _Job) -> tuple[Any, BaseException | None]:
        """Run ``job`` (the model's lock held): its result and its error, to deliver."""
        if job.read and (self.stopping or job.future.done()):
            return None, self._refusal("shutdown" if self.stopping else job.why)
        if self._dirty and not self.stopping:  # (at shutdown the model is not used again)
            self._dirty = False
            try:
                self._reload()
            except Exception:  # reported by the next request that needs the model
                log.exception("nbayes serve: reloading the model after a stopped request")
        with self._lock:
            self._current = job
        job.started = time.monotonic()
        job.loop.call_soon_threadsafe(self._started, job)
        result: Any = None
        error: BaseException | None = None
        try:
            result = job.fn()
        except Stopped:
            error = self._refusal(job.why)
            self._dirty = True
        except BaseException as exc:  # delivered to the request's handler
            error = exc
        finally:
            with self._lock:
                self._current = None
                job.done = True
        return result, error

    def _deliver(self, job: _Job, result: Any, error: BaseException | None) -> None:
        def settle() -> None:
            if job.future.done():
                return
            if error is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(result)

        try:
            job.loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the loop is closed: nobody waits for the answer
            pass
