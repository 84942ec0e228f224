"""Messages learnt by a saved spam filter but not yet written into its file: ``MODEL.pending``.

A registration (``nbayes filter MODEL --register spam``, or a sure verdict of
``--update``) rewrote the whole model file: 0.4 s and 145 MB for a filter of 700k tokens,
the model's lock held all along, so that deliveries with ``--update`` waited in turn for
it. Learning is adding counts, so a registration now appends the token sets it learns to
the log ``MODEL.pending`` beside the model file and ``fdatasync``-s it: its cost does not
grow with the model. Every reader of the model file applies the log as it opens it
(:func:`nbayes.load`, ``nbayes filter``, ``explain``, ``eval``, ``serve``), so a
registration counts from the moment it is acknowledged. When the log grows past
:data:`FOLD_BYTES`, the registration that grows it folds it: the model file is written
with every message of the log learnt (atomically, as :func:`nbayes.save` writes it), then
the log is removed. Unlearning and corrections fold at once.

The log is framed records (:mod:`nbayes.io._records`). The first names the model file the
others apply to: ``{"op": "base", "digest": ...}``, the SHA-256 stored at the end of that
file (its identity; nothing is hashed to read it). Each other record is one registration:
``{"op": "learn", "spam": true, "sets": [["subject:free", ...], ...]}``, the token sets of
the messages it learnt, as :meth:`~nbayes.spam.SpamFilter.partial_fit` takes them.

What keeps it exact:

* only a process holding the model's lock (:class:`~nbayes.io.lock.ModelLock`) appends
  or folds;
* a record is acknowledged after its ``fdatasync``; one cut short by a crash was never
  acknowledged and ends the log (it is cut off by the next append);
* a log whose base is not the model file's digest is ignored: the file was replaced
  since (a fold that stopped before removing the log, a save by ``nbayes.save`` or
  ``nbayes train``, which learnt or discarded what it held); the next registration
  starts a new one, and a save removes it.

Copy the log with the model file (or fold it first, ``nbayes filter MODEL --fold``): a
copy of the model file alone lacks the messages still pending.
"""

from __future__ import annotations

import errno
import os
import stat
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any

from nbayes.exceptions import ModelFileError
from nbayes.io._records import frame, parse

__all__ = [
    "FOLD_BYTES",
    "Pending",
    "append",
    "discard",
    "learn_record",
    "pending_counts",
    "pending_path",
    "read_pending",
]

#: a registration that grows the log past this many bytes folds it into the model file.
#: A message's record takes 4-10 KB, so the log holds ~50-120 messages; reading a full log
#: costs a verdict ~10 ms, a fold ~0.3 s: at 512 KiB a delivery with --update pays ~5 ms
#: of each on average (benchmarks/bench_deliveries.py)
FOLD_BYTES = 1 << 19
_SUFFIX = ".pending"


def pending_path(model_path: str | os.PathLike[str]) -> str:
    """The log of a model file: beside the file itself (a symlink's target), so that
    every name of the model reaches the same log."""
    return os.path.realpath(model_path) + _SUFFIX


class Pending:
    """The messages a model file's log holds (those of a log whose base is the file),
    in the order they were learnt: ``records``, each ``(spam, token sets)``; ``size``,
    the bytes of the log's intact records."""

    def __init__(self, records: list[tuple[bool, list[list[str]]]], size: int) -> None:
        self.records = records
        self.size = size

    def __len__(self) -> int:
        return sum(len(sets) for _, sets in self.records)

    def counts(self) -> tuple[int, int]:
        """The messages pending: ``(ham, spam)``."""
        spam = sum(len(sets) for is_spam, sets in self.records if is_spam)
        return len(self) - spam, spam

    def deltas(self) -> tuple[Counter[str], Counter[str]]:
        """How many pending ham and spam messages each token is in."""
        ham: Counter[str] = Counter()
        spam: Counter[str] = Counter()
        for is_spam, sets in self.records:
            (spam if is_spam else ham).update(chain.from_iterable(sets))
        return ham, spam

    def learn_into(self, model: Any) -> None:
        """Learn the pending messages into ``model`` (a SpamFilter loaded from the file),
        record by record, as the registrations would have."""
        ham_label, spam_label = model.classes_.tolist()
        for is_spam, sets in self.records:
            label = spam_label if is_spam else ham_label
            model.partial_fit([frozenset(s) for s in sets], [label] * len(sets))


def learn_record(sets: Sequence[Iterable[str]], *, spam: bool) -> dict[str, Any]:
    """The record of one registration: the messages' token ``sets`` learnt as spam (or
    ham)."""
    return {"op": "learn", "spam": bool(spam), "sets": [sorted(s) for s in sets]}


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ModelFileError(f"cannot read {path!r}, the model's pending messages: {exc}") from exc


def _bad(path: str, what: str) -> ModelFileError:
    return ModelFileError(
        f"{path!r}, the model's pending messages, {what} (a file nbayes did not write): move "
        "it away to use the model without them"
    )


def _is_base(record: dict[str, Any], digest: bytes) -> bool:
    return record.get("op") == "base" and record.get("digest") == digest.hex()


def read_pending(model_path: str | os.PathLike[str], digest: bytes) -> Pending:
    """The messages pending for the model file whose stored digest is ``digest`` (none
    when there is no log, or its base is another file).

    Raises
    ------
    ModelFileError
        If the log cannot be read, or holds a record nbayes does not write.
    """
    path = pending_path(model_path)
    data = _read(path)
    if not data:
        return Pending([], 0)
    records, ends = parse(data)
    if not records or not _is_base(records[0], digest):
        return Pending([], 0)
    out: list[tuple[bool, list[list[str]]]] = []
    for r in records[1:]:
        sets = r.get("sets")
        if (
            r.get("op") != "learn"
            or type(r.get("spam")) is not bool
            or type(sets) is not list
            or not all(type(s) is list and set(map(type, s)) <= _STR for s in sets)
        ):
            raise _bad(path, f"holds a record that is not a registration ({str(r)[:80]})")
        out.append((r["spam"], sets))
    return Pending(out, ends[-1])


_STR = {str}


def pending_counts(model_path: str | os.PathLike[str]) -> tuple[int, int]:
    """The messages pending for a model file, ``(ham, spam)`` (``nbayes info``'s): those of
    a log whose base is the digest stored at the file's end now."""
    from nbayes.io._modelfile.layout import DIGEST_SIZE

    try:
        with open(model_path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            digest = os.pread(f.fileno(), DIGEST_SIZE, max(size - DIGEST_SIZE, 0))
    except OSError:
        return 0, 0
    return read_pending(model_path, digest).counts()


def append(model_path: str | os.PathLike[str], digest: bytes, record: dict[str, Any]) -> int:
    """Append ``record`` to the log of the model file whose stored digest is ``digest``,
    durably (``fdatasync``), starting a new log when there is none or its base is another
    file, and cutting off a record a crash left unfinished. The caller holds the model's
    lock. Returns the log's size in bytes."""
    path = pending_path(model_path)
    data = frame(record, ascii_only=True)  # (ValueError before anything is written)
    try:
        return _append(model_path, path, digest, data)
    except OSError as exc:
        raise OSError(
            exc.errno,
            f"cannot write {path!r}, the model's log of registrations "
            f"({exc.strerror or exc}); nothing was learnt",
        ) from exc


def _append(model_path: str | os.PathLike[str], path: str, digest: bytes, data: bytes) -> int:
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return _start(model_path, path, digest, data)
    try:
        size = os.fstat(fd).st_size
        records, ends = parse(os.pread(fd, size, 0) if size else b"")
        if not records or not _is_base(records[0], digest):
            os.close(fd)
            fd = -1
            return _start(model_path, path, digest, data)
        end = ends[-1]
        if end != size:  # (a record cut short: never acknowledged)
            os.ftruncate(fd, end)
        try:
            if os.pwrite(fd, data, end) != len(data):
                raise OSError(errno.ENOSPC, "a short write (is the disk full?)")
            os.fdatasync(fd)
        except BaseException:  # not acknowledged: not left to count later either
            try:
                os.ftruncate(fd, end)
            except OSError:
                pass
            raise
        return end + len(data)
    finally:
        if fd >= 0:
            os.close(fd)


def _start(model_path: str | os.PathLike[str], path: str, digest: bytes, data: bytes) -> int:
    """A new log of ``data``, written beside and renamed into place (a crash leaves the
    old log or the new one, never half of one), with the model file's permission bits
    (the tokens of a private model's mail are as private)."""
    from nbayes.io._durable import fsync_directory

    content = frame({"op": "base", "digest": digest.hex()}) + data
    mode = stat.S_IMODE(os.stat(model_path).st_mode)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, mode)
            if os.write(fd, content) != len(content):
                raise OSError(errno.ENOSPC, "a short write (is the disk full?)")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_directory(os.path.dirname(path) or ".")
    return len(content)


def discard(model_path: str | os.PathLike[str]) -> None:
    """Remove the model file's log, if it is one (a model file written since makes it
    stale: what it held is in that file, or was replaced with it)."""
    path = pending_path(model_path)
    try:
        with open(path, "rb") as f:
            head = f.read(512)  # (a base record takes ~90 bytes)
    except OSError:
        return
    records, _ = parse(head)
    if not records or records[0].get("op") != "base":  # (not a log: not ours to remove)
        return
    try:
        os.unlink(path)
    except OSError:
        pass
