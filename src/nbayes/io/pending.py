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
others apply to: ``{"op": "base", "digest": ..., "mtime_ns": ...}``, the SHA-256 stored at
the end of that file and its modification time (its identity; nothing is hashed to read
it). Each other record is one registration:
``{"op": "learn", "spam": true, "sets": [["subject:free", ...], ...]}``, the token sets of
the messages it learnt, as :meth:`~nbayes.spam.SpamFilter.partial_fit` takes them.

What keeps it exact:

* only a process holding the model's lock (:class:`~nbayes.io.lock.ModelLock`) appends
  or folds;
* a record is acknowledged after its ``fdatasync``; one cut short by a crash was never
  acknowledged and ends the log (it is cut off by the next append);
* a log whose base is not the model file as it is is ignored: the file was replaced
  since (a fold that stopped before removing the log, a save by ``nbayes.save`` or
  ``nbayes train``, which learnt or discarded what it held, or a file copied over the
  model: ``cp clean.nbayes MODEL`` starts without them); the next registration starts a
  new one (saying how many messages the old one held), and a save removes it;
* a reader takes the log's bytes before it reads the model file (:func:`snapshot`): a
  fold in between leaves a file that holds them, under another identity;
* a fold's writer moves its lock onto the new file before renaming it over the model
  (:func:`nbayes.io.lock.follow_held`), so that no registration takes the new model and
  starts a log in the moment before the fold removes the old one.

Copy the log with the model file, with their times (``cp -p``, ``rsync -a``), or fold it
first (``nbayes filter MODEL --fold``): a copy of the model file alone lacks the messages
still pending, and a model file restored with a new modification time starts without
them. A hard link is another name of the same file but not of its log: each name gets a
log of its own (use a symbolic link; the log is found beside the file it points to).
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
from nbayes.io._records import damaged_after, frame, parse

__all__ = [
    "FOLD_BYTES",
    "SUFFIX",
    "Identity",
    "Pending",
    "append",
    "discard",
    "learn_record",
    "pending_counts",
    "pending_path",
    "read_pending",
    "snapshot",
]

#: a registration that grows the log past this many bytes folds it into the model file.
#: A message's record takes 4-10 KB, so the log holds ~50-120 messages; reading a full log
#: costs a verdict ~10 ms, a fold ~0.3 s: at 512 KiB a delivery with --update pays ~5 ms
#: of each on average (benchmarks/bench_deliveries.py)
FOLD_BYTES = 1 << 19
#: the log's name: the model file's, and this
SUFFIX = ".pending"


#: a model file's identity as its log names it: the SHA-256 digest stored at its end and
#: its modification time in nanoseconds (``ReadArrays.identity``)
Identity = tuple[bytes, int]


def pending_path(model_path: str | os.PathLike[str]) -> str:
    """The log of a model file: beside the file itself (a symlink's target), so that
    every name of the model reaches the same log."""
    return os.path.realpath(model_path) + SUFFIX


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


def snapshot(model_path: str | os.PathLike[str]) -> bytes | None:
    """The log's bytes (None when there is none), read *before* the model file: a fold
    that comes between the two readings leaves a model file that holds what this snapshot
    holds, and another identity (its log is then ignored, never lost nor counted twice);
    read after, a fold's removal of the log would lose its messages for this reading.

    Raises ModelFileError if the log cannot be read."""
    path = pending_path(model_path)
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ModelFileError(
            f"cannot read {path!r}, the model's pending registrations: {exc.strerror or exc}"
            f"{_whose(path, exc)}"
        ) from exc


def _whose(path: str, exc: OSError) -> str:
    """Advice for a log this user may not read or write: whose it is, and what mends it."""
    if exc.errno not in (errno.EACCES, errno.EPERM):
        return ""
    try:
        import pwd

        owner = pwd.getpwuid(os.stat(path).st_uid).pw_name
    except (OSError, KeyError, ImportError):
        return ""
    model = path[: -len(SUFFIX)]
    return (
        f"; it belongs to {owner}: run nbayes as {owner}, or have {owner} write it into the "
        f"model (`nbayes filter {model} --fold`)"
    )


def _bad(path: str, what: str) -> ModelFileError:
    return ModelFileError(
        f"{path!r}, the model's pending messages, {what} (a file nbayes did not write): move "
        "it away to use the model without them"
    )


def _parse_log(path: str, data: bytes) -> tuple[list[dict[str, Any]], list[int]]:
    """The log's intact records and where each ends. A last record cut short (a crash
    while appending it: never acknowledged) ends the log; a record that does not check
    before the last is damage, refused (every registration after it would be lost)."""
    records, ends = parse(data)
    end = ends[-1] if ends else 0
    if damaged_after(data, end):
        raise _bad(path, f"is damaged at byte {end:,} (before its last record)")
    return records, ends


def _base(identity: Identity) -> dict[str, Any]:
    digest, mtime_ns = identity
    return {"op": "base", "digest": digest.hex(), "mtime_ns": mtime_ns}


def _is_base(record: dict[str, Any], identity: Identity) -> bool:
    return record == _base(identity)


def read_pending(
    model_path: str | os.PathLike[str], identity: Identity, data: bytes | None = None
) -> Pending:
    """The messages pending for the model file of ``identity`` (its stored digest and
    modification time): none when there is no log, or its base is another file (a file
    written since, or copied over the model: ``cp clean.nbayes MODEL`` starts without
    them). ``data``: the log's :func:`snapshot`, taken before the model file was read
    (else it is read now: under the model's lock only).

    Raises
    ------
    ModelFileError
        If the log cannot be read, or holds a record nbayes does not write.
    """
    path = pending_path(model_path)
    if data is None:
        data = snapshot(model_path)
    if not data:
        return Pending([], 0)
    records, ends = _parse_log(path, data)
    if not records or not _is_base(records[0], identity):
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
    a log whose base is the file as it is now (the digest stored at its end, its
    modification time)."""
    from nbayes.io._modelfile.layout import DIGEST_SIZE

    data = snapshot(model_path)  # (first: see snapshot)
    try:
        with open(model_path, "rb") as f:
            st = os.fstat(f.fileno())
            digest = os.pread(f.fileno(), DIGEST_SIZE, max(st.st_size - DIGEST_SIZE, 0))
    except OSError:
        return 0, 0
    return read_pending(model_path, (digest, st.st_mtime_ns), data).counts()


def append(
    model_path: str | os.PathLike[str], identity: Identity, record: dict[str, Any]
) -> tuple[int, int]:
    """Append ``record`` to the log of the model file of ``identity``, durably
    (``fdatasync``), starting a new log when there is none or its base is another file,
    and cutting off a record a crash left unfinished. The caller holds the model's lock.
    Returns the log's size in bytes, and how many messages a log of another file held
    (replaced: they were not counted for this file, and are dropped now)."""
    path = pending_path(model_path)
    data = frame(record, ascii_only=True)  # (ValueError before anything is written)
    try:
        return _append(model_path, path, identity, data)
    except OSError as exc:
        raise OSError(
            exc.errno,
            f"cannot write {path!r}, the model's log of registrations "
            f"({exc.strerror or exc}){_whose(path, exc)}; nothing was learnt",
        ) from exc


def _append(
    model_path: str | os.PathLike[str], path: str, identity: Identity, data: bytes
) -> tuple[int, int]:
    fd = -1
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        old = b""
    except PermissionError:  # (a log this user may not write: written anew beside it)
        old = snapshot(model_path) or b""
    else:
        size = os.fstat(fd).st_size
        old = os.pread(fd, size, 0) if size else b""
    try:
        records, ends = _parse_log(path, old)
        if not records or not _is_base(records[0], identity):  # (none, or another file's)
            return _start(model_path, path, frame(_base(identity)) + data), _held(records)
        end = ends[-1]
        if fd < 0:
            return _start(model_path, path, old[:end] + data), 0
        if end != len(old):  # (a record cut short: never acknowledged)
            os.ftruncate(fd, end)
        try:
            _write_all(fd, data, end)
            os.fdatasync(fd)
        except BaseException:  # not acknowledged: not left to count later either
            try:
                os.ftruncate(fd, end)
            except OSError:
                pass
            raise
        return end + len(data), 0
    finally:
        if fd >= 0:
            os.close(fd)


def _held(records: list[dict[str, Any]]) -> int:
    """The messages the records of a log hold (a log of another file, replaced)."""
    return sum(len(r["sets"]) for r in records[1:] if isinstance(r.get("sets"), list))


def _write_all(fd: int, data: bytes, offset: int) -> None:
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        if n <= 0:  # pragma: no cover - a file system that writes nothing and says so
            raise OSError(errno.ENOSPC, "nothing was written (is the disk full?)")
        view, offset = view[n:], offset + n


def _start(model_path: str | os.PathLike[str], path: str, content: bytes) -> int:
    """A log of ``content``, written beside and renamed into place (a crash leaves the
    old log or the new one, never half of one), with the model file's permission bits
    and the owner's write bit (the tokens of a private model's mail are as private; the
    next registration appends) and, where this process may give them (root), the model's
    owner and group: a registration run as root must not leave a log its user cannot
    read or append to. Temporaries that killed registrations left are removed."""
    from nbayes.io._durable import fsync_directory, keep_owner

    model = os.stat(model_path)
    tmp = f"{path}.{os.getpid()}.tmp"
    _remove_orphans(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.fchmod(fd, stat.S_IMODE(model.st_mode) | stat.S_IWUSR)
            keep_owner(fd, model)
            _write_all(fd, content, 0)
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


def _remove_orphans(path: str) -> None:
    """The temporaries ``PATH.PID.tmp`` of processes that no longer run (killed while
    starting a log)."""
    import glob

    for tmp in glob.glob(glob.escape(path) + ".*.tmp"):
        pid = tmp[len(path) + 1 : -len(".tmp")]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        except OSError:  # (alive, another user's)
            pass


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
