"""An advisory lock on a file beside a model: one process (tree) owns the model at a time.

:class:`FileLock` takes ``flock(LOCK_EX | LOCK_NB)`` on a lock file (created if needed,
never deleted: deleting it would let two processes lock two different files). The lock
belongs to the open file description, so it is released when the owner closes it or
dies, however it dies (``kill -9`` included), and children forked after :meth:`acquire`
share it: the lock stays held until the last of them exits.

The lock is advisory: it keeps out the processes that ask for it (a second ``nbayes
serve`` on the same model), not a program that writes the file without asking.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "spam.nbayes.lock")
>>> with FileLock(path, "serving spam.nbayes") as lock:
...     try:
...         FileLock(path).acquire()
...     except LockedError as exc:
...         print("refused:", "serving spam.nbayes" in str(exc))
refused: True
>>> FileLock(path).acquire().release()   # free again
"""

from __future__ import annotations

import fcntl
import os
import time
from typing import Any

__all__ = ["FileLock", "LockedError"]


class LockedError(RuntimeError):
    """Another process holds the lock."""


class FileLock:
    """An exclusive, non-blocking advisory lock on ``path``.

    Parameters
    ----------
    path : str
        The lock file (created if it does not exist).
    owner : str, optional
        Written into the lock file once locked (with the process id), so that the error
        another process gets says who holds it.
    """

    def __init__(self, path: str | os.PathLike[str], owner: str = "") -> None:
        self.path = os.fspath(path)
        self.owner = owner
        self._fd: int | None = None

    @property
    def locked(self) -> bool:
        return self._fd is not None

    def acquire(self, timeout: float = 0.0) -> FileLock:
        """Take the lock, waiting up to ``timeout`` seconds (polling every 50 ms) while
        another process has it; then raise :class:`LockedError`, naming the holder."""
        if self._fd is not None:
            return self
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        deadline = time.monotonic() + max(0.0, timeout)
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise
                    time.sleep(0.05)
        except BlockingIOError:
            holder = _read_holder(fd)
            os.close(fd)
            waited = f" (waited {timeout:g} s)" if timeout > 0 else ""
            raise LockedError(
                f"{self.path!r} is locked by another process{holder}{waited}: only one may "
                "change the model at a time. Stop it first (or use the one that is running)."
            ) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {self.owner}\n".encode())
        self._fd = fd
        return self

    def release(self) -> None:
        """Release the lock (the lock file stays)."""
        if self._fd is not None:
            fd, self._fd = self._fd, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> FileLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()


def _read_holder(fd: int) -> str:
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    pid, _, what = text.partition(" ")
    if not pid.isdigit():
        return ""
    return f" (process {pid}{', ' + what if what else ''})"
