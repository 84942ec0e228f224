"""One writer per model file: an advisory lock on the model file itself.

:class:`ModelLock` takes ``flock(LOCK_EX | LOCK_NB)`` on the model file (opened read-only).
The lock is the file's identity, not its name: a symlink and a hard link reach the same
lock, and no lock file is left beside the model. Saving a model replaces its file (a new
file renamed over the old one), so the lock follows the file:

* the owner locks the new file before it renames it over the model
  (:meth:`ModelLock.follow`), so the name never points to a file nobody locks;
* a process that locked a file which has been replaced since it opened it lets go and
  tries the file the name now points to;
* the owner keeps the lock on the file it started with for as long as it runs (a hard link
  made before still names that file).

The lock belongs to the open file description: it is released when the owner closes it or
dies, however it dies (``kill -9`` included), and children forked after :meth:`acquire`
share it (it holds until the last of them exits). It is advisory: it keeps out the
processes that ask for it (``nbayes serve``, ``nbayes update``/``forget``), not a program
that writes the file without asking.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "spam.nbayes")
>>> with open(path, "wb") as f:
...     _ = f.write(b"model")
>>> with ModelLock(path, "serving spam.nbayes") as lock:
...     try:
...         ModelLock(path).acquire()
...     except LockedError as exc:
...         print("refused:", "is in use by another process" in str(exc))
refused: True
>>> ModelLock(path).acquire().release()   # free again
>>> sorted(os.listdir(os.path.dirname(path)))   # no lock file
['spam.nbayes']
"""

from __future__ import annotations

import fcntl
import os
import random
import time
from collections.abc import Callable
from typing import Any

__all__ = ["LockedError", "ModelLock", "follow_held", "holder_pid"]

#: seconds between a waiter's looks for the lock's holder (:meth:`ModelLock.acquire`)
LOOK_EVERY = 1.0

#: the locks this process holds, by the real path of their model file
_HELD: dict[str, ModelLock] = {}


def follow_held(target: str, new_file: str) -> None:
    """Called by whoever renames ``new_file`` over the model file ``target`` (its real
    path; :func:`nbayes.io._modelfile.write_model_file` does, for every save): a lock this
    process holds on ``target`` locks ``new_file`` first (:meth:`ModelLock.follow`), so
    that no other process can take the model between the rename and what its writer does
    next under the lock (such as removing the model's log of pending registrations, which
    another process's registration would otherwise have started anew and lost)."""
    lock = _HELD.get(target)
    if lock is not None and lock.locked:
        lock.follow(new_file)


class LockedError(RuntimeError):
    """Another process holds the model's lock."""


def _same_file(fd: int, path: str) -> bool:
    try:
        st = os.stat(path)
    except FileNotFoundError:  # between a save's renames
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


def holder_pid(path: str) -> int | None:
    """The process that holds the ``flock`` of the file at ``path``, from ``/proc/locks``
    (Linux); None when unknown (another system, or nobody holds it).

    ``/proc/locks`` names a file by its device and inode only, and an inode number is
    reused once a file is deleted: a process still holding the lock of a deleted model
    (a server whose folder was removed) would look like the holder of a new file with its
    number. A candidate counts only if it has this very file open (a link in
    ``/proc/PID/fd`` to a file that is not deleted); one whose descriptors cannot be
    read (another user's) is taken at its word."""
    try:
        st = os.stat(path)
        with open("/proc/locks") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    key = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    for line in lines:
        parts = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 08:01:5678 0 EOF" ("1: -> FLOCK ..." waits)
        if len(parts) >= 6 and parts[1] == "FLOCK" and parts[5] == key:
            try:
                pid = int(parts[4])
            except ValueError:
                continue
            if pid > 0 and _has_open(pid, st.st_dev, st.st_ino) is not False:
                return pid
    return None


def _has_open(pid: int, dev: int, ino: int) -> bool | None:
    """Whether process ``pid`` has the (not deleted) file ``(dev, ino)`` open; None when
    its descriptors cannot be read."""
    folder = f"/proc/{pid}/fd"
    try:
        fds = os.listdir(folder)
    except OSError:
        return None
    for fd in fds:
        try:
            st = os.stat(os.path.join(folder, fd))
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (dev, ino) and st.st_nlink > 0:
            return True
    return False


class ModelLock:
    """An exclusive, advisory lock on the model file at ``path`` (see the module).

    Parameters
    ----------
    path : str
        The model file (it must exist).
    owner : str, optional
        What holds it, for messages (``"nbayes serve"``).
    """

    def __init__(self, path: str | os.PathLike[str], owner: str = "") -> None:
        self.path = os.fspath(path)
        self.owner = owner
        self._first: int | None = None  # the file locked at acquire: kept
        self._current: int | None = None  # the file the model is now (after follow)

    @property
    def locked(self) -> bool:
        return self._first is not None

    def acquire(
        self, timeout: float = 0.0, refuse: Callable[[int | None], str | None] | None = None
    ) -> ModelLock:
        """Take the lock, waiting while other processes hold it; raise
        :class:`LockedError` once one process has held it for ``timeout`` seconds.

        The wait is for the holder, not for the queue: deliveries that arrive together
        each hold the lock for a moment, and one waiting behind eighty of them waits as
        long as the lock changes hands at least every ``timeout`` seconds (the holder is
        known from ``/proc/locks``; where it is not, ``timeout`` bounds the whole wait).
        Waiters try the lock every 10-100 ms (at random, so that they do not all wake at
        once), and look for its holder at once and then every :data:`LOOK_EVERY` seconds
        (a quarter of ``timeout`` if that is less): a try costs microseconds, a look reads
        ``/proc/locks`` and the holder's open files (before, each try looked, and 80
        deliveries at once spent 40 % of their CPU time waiting).

        ``refuse(pid)`` is asked at each look (``pid`` from :func:`holder_pid`, None if
        unknown): a message it returns is raised at once (e.g. the holder is a server,
        which will not let go).
        """
        if self._first is not None:
            return self
        timeout = max(0.0, timeout)
        now = time.monotonic()
        since = now  # when the holder last changed
        holder: int | None = None
        pid: int | None = None
        look = now  # when to look for the holder next
        every = min(LOOK_EVERY, timeout / 4) if timeout > 0 else LOOK_EVERY
        pause = 0.01
        while True:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                now = time.monotonic()
                # a look before giving up too: a hand-over since the last look would be
                # missed, and the old holder named (a review's)
                if now >= look or now - since >= timeout:
                    look = now + every
                    pid = holder_pid(self.path)
                    now = time.monotonic()
                    if pid is not None and pid != holder:
                        holder, since = pid, now
                    if refuse is not None:
                        message = refuse(pid)
                        if message is not None:
                            raise LockedError(message) from None
                if now - since >= timeout:
                    who = f" (process {pid})" if pid is not None else ""
                    held = (
                        f" has held it for {timeout:g} s" if holder is not None
                        else f" held it for the {timeout:g} s waited"
                    ) if timeout > 0 else " holds it"  # fmt: skip
                    raise LockedError(
                        f"{self.path!r} is in use by another process{who}, which{held}: "
                        "only one may change the model at a time. If it is stuck, stop it "
                        "(or use the one that is running)."
                    ) from None
                time.sleep(pause * (0.5 + random.random()))
                pause = min(pause * 1.5, 0.1)
                continue
            except BaseException:
                os.close(fd)
                raise
            if _same_file(fd, self.path):  # not replaced since it was opened
                self._first = fd
                _HELD[os.path.realpath(self.path)] = self
                return self
            os.close(fd)  # the file was replaced while we waited: lock the new one

    def follow(self, new_file: str, locked: int | None = None) -> int:
        """Lock ``new_file``, the file about to be renamed over the model (a fold or a
        save), so that the lock holds across the rename; the lock of the file it
        replaces is let go (but not the first one's). ``locked``: a descriptor of
        ``new_file`` that holds its ``flock`` already (a server's fold locks the file it
        writes): a duplicate of it is kept, the same lock. Returns the locked descriptor
        (kept by this lock; a worker process also hands it to its supervisor)."""
        if locked is not None:
            fd = os.dup(locked)  # (the same open file description: its flock)
        else:
            fd = os.open(new_file, os.O_RDONLY | os.O_CLOEXEC)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BaseException:
                os.close(fd)
                raise
        self.adopt(fd)
        return fd

    def adopt(self, fd: int) -> None:
        """Keep ``fd``, a descriptor of the model's current file already locked (by this
        process or another of the same server), in place of the previous current one."""
        if self._current is not None:
            os.close(self._current)
        self._current = fd

    def hold_the_file_at_the_path(self) -> bool:
        """Make the lock held the file now at the path's: if the file of the current
        descriptor is another (a server's worker died between its fold's rename and the
        handover of the new file's lock), lock the file at the path, without waiting, and
        keep it. False if something else holds that file's lock (a worker's fold about to
        hand it over); True if the lock is the path's file's."""
        fd = self._current if self._current is not None else self._first
        if fd is None or not os.path.exists(self.path) or _same_file(fd, self.path):
            return True  # (no file: nothing to lock)
        try:
            self.follow(self.path)  # (locked without waiting, and kept)
        except OSError:
            return False
        return True

    def release(self) -> None:
        """Let go of the lock (every file it holds)."""
        for fd in (self._current, self._first):
            if fd is not None:
                os.close(fd)
        self._first = self._current = None
        key = os.path.realpath(self.path)
        if _HELD.get(key) is self:
            del _HELD[key]

    def __enter__(self) -> ModelLock:
        return self.acquire()

    def __exit__(self, *exc: Any) -> None:
        self.release()
