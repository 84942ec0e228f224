"""The write-ahead journal of a served model: what makes an acknowledged update durable.

The journal ``MODEL.journal`` sits beside the model file. It is a sequence of records,
each framed as ``length (4 bytes) · CRC-32 (4 bytes) · JSON``; the first names the model
file the others apply to (``{"op": "base", "sha256": ...}``, the digest of its bytes),
the others are ``update`` / ``forget`` requests (``{"op": "update", "texts": [...],
"labels": [...]}``) and fold markers. An update is acknowledged only after its record
is written and ``fdatasync``-ed; a record cut short by a crash was never acknowledged, and
recovery cuts it off.

Folding writes the model as it was after the update numbered ``seq`` (a snapshot:
:func:`nbayes.io.persist.snapshot`) into the model file, in an order that survives
``kill -9`` between any two steps; updates may go on being appended while the file is
written (:func:`write_folding`, then :meth:`Journal.replace_model`; :meth:`Journal.fold`
does both at once):

1. the snapshot is written to ``MODEL.folding`` (locked while it is written: one fold at a
   time, whichever process; fsync-ed), loaded again to check it, and hashed;
2. a ``fold-at`` record with the digest of ``MODEL.folding`` and the ``seq`` it holds is
   appended and fsync-ed;
3. ``MODEL.folding`` is renamed over ``MODEL`` (and the directory fsync-ed), and the
   model's lock follows it;
4. a new journal whose base is that digest and ``seq``, followed by the update records
   appended after that ``seq`` (copied as they are), replaces ``MODEL.journal``.

:func:`recover` reads the journal at start: when its base is the model's digest every
update record is replayed (a fold that stopped before step 3 changed nothing); when a
``fold-at`` record has the model's digest, the fold reached step 3 and only the updates
after its ``seq`` are replayed (those appended while it wrote the file included; a
``fold`` record, an earlier nbayes's, holds every update before it); otherwise the
model file was replaced while no server held it: a journal without updates is started
anew, one with updates makes the server refuse to start rather than lose or double them.

Several worker processes share one journal: each appends under an exclusive ``flock`` of
the journal file itself (the current one: a writer that locked a journal a fold has just
replaced lets go and locks the new one; a fold locks the new journal before it renames
it into place) after catching up with the records the others appended
(:meth:`Journal.catch_up`, which also follows the journal across a fold), so every worker
applies the same records in the same order. No lock file is left beside the model.

The base record counts the updates journaled before it (``"seq"``), so every worker
counts the same updates (``Journal.seq``) whichever folds it saw, and a worker that
follows the journal across a fold skips the updates copied into the new journal that it
has applied already. A ``serving`` record
(``{"op": "serving", "pid": ..., "url": ...}``, carried into the journal a fold starts)
says which server holds the model: ``nbayes update`` names it when it refuses.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, BinaryIO

from nbayes.io._durable import fsync_directory, keep_owner
from nbayes.io._records import damaged_after
from nbayes.io._records import frame as _frame
from nbayes.io._records import parse as _parse

__all__ = [
    "Folding",
    "Journal",
    "JournalBehind",
    "JournalError",
    "file_digest",
    "fold_under_way",
    "holds_updates",
    "journal_path",
    "journaled_updates",
    "locked",
    "pending_updates",
    "recover",
    "serving_record",
    "write_folding",
]


class JournalError(RuntimeError):
    """The journal does not fit the model file, or cannot be read."""


class JournalBehind(JournalError):
    """Other processes folded more than once since this one last read the journal: the
    updates of the journals in between are in the model file only; reload it
    (:meth:`Journal.reopen` under :meth:`Journal.writing`)."""


def file_digest(path: str) -> str:
    """SHA-256 of a file's bytes, in hex."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def journal_path(model_path: str) -> str:
    """The journal of a model file: beside the file itself (a symlink's target), so that
    every name of the model reaches the same journal."""
    return os.path.realpath(model_path) + ".journal"


def _is_update(record: dict[str, Any]) -> bool:
    return record.get("op") in ("update", "forget")


def _seq_at(records: list[dict[str, Any]], index: int) -> int:
    """The updates journaled up to and including ``records[index]``, counted from the
    journal's base (which counts the ones before it)."""
    base = records[0].get("seq", 0) if records else 0
    seq = base if isinstance(base, int) and base >= 0 else 0
    return seq + sum(map(_is_update, records[1 : index + 1]))


def _index_of_seq(records: list[dict[str, Any]], seq: Any, end: int) -> int | None:
    """The index of the record, at most ``end``, after which come the updates numbered
    above ``seq`` (the update numbered ``seq``, or the base); None if there is none."""
    at = _seq_at(records, 0)
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < at:
        return None
    if seq == at:
        return 0
    for j in range(1, min(end, len(records) - 1) + 1):
        if _is_update(records[j]):
            at += 1
            if at == seq:
                return j
    return None


#: the fold record: "fold-at" names the update (``seq``) up to which the folded file holds
#: them (those appended while it was written come after). An earlier nbayes wrote "fold",
#: of every update before the record, and reads only that: a journal of "fold-at" records
#: is, to it, a journal of another model file (it refuses to serve it, instead of skipping
#: the updates a fold's file lacks: a review's finding)
_FOLD_AT = "fold-at"
_FOLD_OPS = ("fold", _FOLD_AT)


def _start_of(records: list[dict[str, Any]], digest: str) -> int | None:
    """The index of the record after which the journal's updates apply to the model file
    of ``digest``: its base, or the last fold that wrote that file (the update its
    ``seq`` names: the updates appended while it wrote the file come after); None if
    neither."""
    for i in range(len(records) - 1, -1, -1):
        r = records[i]
        if r.get("op") in ("base", *_FOLD_OPS) and r.get("sha256") == digest:
            if r.get("op") == "base":
                if i != 0:
                    continue
                return 0
            if "seq" not in r:  # (an earlier nbayes's fold: of every update before it)
                return i
            at = _index_of_seq(records, r["seq"], i)
            if at is not None:
                return at
    return None


def _write_new(path: str, records: list[dict[str, Any]] | bytes, keep_locked: bool = False) -> int:
    """Write a complete journal atomically (its records, or their frames as bytes): a
    temporary file, fsync, rename, fsync dir.

    With ``keep_locked`` the new journal is locked (``flock``) before it is renamed into
    place and the locked descriptor is returned (the caller closes it): a writer that
    opens the journal after the rename waits for it. Else returns -1."""
    tmp = path + ".new"
    fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
    try:
        if keep_locked:
            fcntl.flock(fd, fcntl.LOCK_EX)
        data = records if isinstance(records, bytes) else b"".join(map(_frame, records))
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
        os.replace(tmp, path)
        fsync_directory(os.path.dirname(os.path.abspath(path)))
    except BaseException:
        os.close(fd)
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    if keep_locked:
        return fd
    os.close(fd)
    return -1


def _lock_current(path: str, create: bool = False) -> int:
    """Open the journal at ``path`` and ``flock`` it (waiting for other writers); if a fold
    replaced it meanwhile, let go and lock the new one. Returns the locked descriptor."""
    flags = os.O_RDONLY | os.O_CLOEXEC | (os.O_CREAT if create else 0)
    while True:
        fd = os.open(path, flags, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:  # between the renames of a fold
                same = False
        except BaseException:
            os.close(fd)
            raise
        if same:
            return fd
        os.close(fd)


@contextmanager
def locked(model_path: str) -> Iterator[None]:
    """Hold the journal's write lock (an exclusive ``flock`` of the journal itself)
    outside a :class:`Journal`: no other process appends or folds meanwhile. Not
    reentrant: do not call :meth:`Journal.writing` inside it. Creates an empty journal
    when there is none (:func:`recover` starts it)."""
    fd = _lock_current(journal_path(model_path), create=True)
    try:
        yield
    finally:
        os.close(fd)  # releases the lock


def serving_record(model_path: str) -> dict[str, Any] | None:
    """The last ``serving`` record of the model's journal (which server holds it), if any."""
    try:
        with open(journal_path(model_path), "rb") as f:
            records, _ = _parse(f.read())
    except OSError:
        return None
    found = [r for r in records if r.get("op") == "serving"]
    return found[-1] if found else None


def holds_updates(model_path: str) -> bool:
    """Whether the model's journal holds an ``update`` or ``forget`` record, whichever
    file it applies to (no digest of the model file computed: :func:`journaled_updates`
    says which the file lacks). OSError if it cannot be read."""
    try:
        with open(journal_path(model_path), "rb") as f:
            records, _ = _parse(f.read())
    except FileNotFoundError:
        return False
    return any(map(_is_update, records))


def pending_updates(model_path: str) -> int:
    """How many updates the model's journal holds that the model file lacks (0 without a
    journal; all of them with one of another model file)."""
    return len(journaled_updates(model_path)[0])


def _check_intact(path: str, data: bytes, ends: list[int], model_path: str) -> None:
    """JournalError if ``data`` (the journal at ``path``) is damaged after its intact
    records: its acknowledged updates after that point cannot be read, and cutting them
    off as a crash's record would lose them without a word."""
    end = ends[-1] if ends else 0
    if damaged_after(data, end):
        raise JournalError(
            f"The journal {path!r} is damaged at byte {end:,} ({len(data) - end:,} bytes "
            "after its last intact record: more than a record a crash cut short); the "
            "acknowledged updates after that byte cannot be read. Keep a copy of it, then "
            f"restore it, or move it away to serve {model_path!r} as it is (those updates "
            "are then lost)."
        )


def journaled_updates(model_path: str) -> tuple[list[dict[str, Any]], bool]:
    """The ``update`` and ``forget`` records of the model's journal that the model file
    lacks, in order (a record a crash cut short, never acknowledged, is not one), and
    whether they apply to the file: False when the journal belongs to another model file
    (then every update record it holds), or was replaced by a fold while it was read
    (read the model file and this again), or has no base record. Reads without a lock,
    as a running server appends. ``([], True)`` without a journal or an update in it (no
    digest computed). OSError if the journal cannot be read, JournalError if it is
    damaged (:func:`_check_intact`)."""
    try:
        with open(journal_path(model_path), "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return [], True
    records, ends = _parse(data)
    _check_intact(journal_path(model_path), data, ends, model_path)
    if not any(map(_is_update, records)):  # (no digest of the model file to compute)
        return [], True
    start = _start_of(records, file_digest(model_path))  # (None without a base record)
    if start is None:
        return [r for r in records if _is_update(r)], False
    return [r for r in records[start + 1 :] if _is_update(r)], True


def recover(model_path: str, journal_path: str | None = None) -> tuple[str, int]:
    """Make the journal of ``model_path`` fit the model file, before anything loads it.

    Cuts off a record torn by a crash, removes the leftovers of an unfinished fold,
    creates an empty journal if there is none (or starts one for a model file replaced
    while the journal held no update), and counts the updates to replay: those after
    the base record, or after the fold record of a fold that replaced the model file but
    was stopped before it started the new journal (:class:`Journal` reads from there).
    Call it with the model's lock held, and the journal's (:func:`locked`) if workers may
    be running: then it also finishes what a worker killed in a fold left.

    Returns
    -------
    (digest, n_records)
        The model file's SHA-256 and the number of update records to replay.

    Raises
    ------
    JournalError
        If the journal belongs to another model file (its updates would be lost or
        applied twice): the message says what to do.
    """
    model_path = os.path.realpath(model_path)
    path = journal_path or model_path + ".journal"
    _remove_unless_locked(model_path + ".folding")  # (a worker's fold may be writing it)
    if os.path.exists(path + ".new"):
        os.remove(path + ".new")
    digest = file_digest(model_path)
    data = b""
    if os.path.exists(path):
        with open(path, "rb") as f:
            data = f.read()
    records, ends = _parse(data)
    _check_intact(path, data, ends, model_path)
    if not records and len(data) < 256:
        # no journal, or an empty one (created by a lock before any record), or one
        # whose base record a crash cut short: it never held an update
        _write_new(path, [{"op": "base", "sha256": digest}])
        return digest, 0
    if not records or records[0].get("op") != "base":
        raise JournalError(
            f"The journal {path!r} is damaged (no base record). Move it away to start "
            f"from {model_path!r} as it is; the updates it may hold are then lost."
        )
    start = _start_of(records, digest)
    if start is None:
        updates = sum(map(_is_update, records))
        if not updates:  # nothing to lose: the journal of a replaced model file
            _write_new(path, [{"op": "base", "sha256": digest, "seq": _seq_at(records, 0)}])
            return digest, 0
        raise JournalError(
            f"The journal {path!r} does not belong to {model_path!r}: the model file "
            f"changed while no server held it (it has {updates} update(s) the model may "
            "lack). Restore the model file the journal was written for, or move the journal "
            "away to serve the model as it is."
        )
    if ends[-1] < len(data):  # a record torn by a crash: never acknowledged
        with open(path, "r+b") as f:
            f.truncate(ends[-1])
            f.flush()
            os.fsync(f.fileno())
    return digest, sum(map(_is_update, records[start + 1 :]))


def _remove_unless_locked(path: str) -> None:
    """Remove the file at ``path`` (a fold's leftover) unless a process holds its
    ``flock`` (a fold that writes it: :func:`write_folding`)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return
        if _names(fd, path):
            os.remove(path)
    finally:
        os.close(fd)


def fold_under_way(model_path: str) -> bool:
    """Whether a process is writing ``MODEL.folding`` (a fold under way: its ``flock``
    held), so that another fold now would only wait to find it so."""
    path = os.path.realpath(model_path) + ".folding"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # (releases what it took)
    return False


def _lock_soon(fd: int) -> bool:
    """``flock`` the file at ``fd`` if no fold holds it: a look (:func:`fold_under_way`,
    :func:`recover`) holds it for a moment only, a fold for its whole writing."""
    import time

    for pause in (0.002, 0.01, 0.05, 0.0):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            time.sleep(pause)
    return False


def _names(fd: int, path: str) -> bool:
    """Whether ``path`` names the file open at ``fd``."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return False
    own = os.fstat(fd)
    return (st.st_dev, st.st_ino) == (own.st_dev, own.st_ino)


@dataclass
class Folding:
    """A model file a fold wrote, checked and hashed, beside the model (``MODEL.folding``),
    not yet in its place (:func:`write_folding`): what the model was after the update
    numbered ``seq``. ``fd`` holds its ``flock`` (no other fold writes it meanwhile)."""

    path: str
    fd: int
    digest: str
    ino: int
    seq: int

    def discard(self) -> None:
        """Remove the file (if it is still this one) and let go of it."""
        if self.fd < 0:
            return
        try:
            if _names(self.fd, self.path):
                os.remove(self.path)
        except OSError:
            pass
        finally:
            os.close(self.fd)
            self.fd = -1


def write_folding(
    model_path: str, write: Callable[[BinaryIO], None], seq: int,
    check: Callable[[str], None] | None = None,
) -> Folding | None:  # fmt: skip
    """Step 1 of a fold (needs no lock of the journal: updates may be appended
    meanwhile): ``write(f)`` writes the model as it was after the update numbered ``seq``
    into ``MODEL.folding``, which is fsync-ed, given the model file's permission bits and
    owner, checked by ``check(path)`` (which raises if the file will not do) and hashed.

    ``MODEL.folding`` is written where it is, under an exclusive ``flock`` held until the
    fold ends: a process that finds it locked (another worker's fold under way) returns
    None, and :func:`recover` leaves it. If anything fails the file is removed and the
    error raised: the journal still holds every update."""
    from nbayes.io._modelfile.writing import existing_mode  # (numpy: not at import)

    path = os.path.realpath(model_path) + ".folding"
    mode = existing_mode(model_path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644 if mode is None else mode)
    try:
        if not _lock_soon(fd):
            os.close(fd)
            return None
        if not _names(fd, path):  # another fold's, renamed over the model meanwhile
            os.close(fd)
            return None
    except BaseException:
        os.close(fd)
        raise
    folding = Folding(path, fd, "", 0, seq)
    try:
        os.ftruncate(fd, 0)
        if mode is not None:  # the model keeps its permission bits (a private one too)
            os.fchmod(fd, mode)
            keep_owner(fd, os.stat(model_path))  # (and its owner, run as root)
        with os.fdopen(os.dup(fd), "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        if check is not None:
            check(path)
        folding.digest = file_digest(path)
        folding.ino = os.fstat(fd).st_ino  # (kept by the rename)
    except BaseException:
        folding.discard()
        raise
    return folding


class Journal:
    """One process's handle on the journal: catch up, append durably, fold.

    Parameters
    ----------
    model_path : str
    digest : str
        The model file's digest (from :func:`recover`): the journal's base must be it.
    """

    def __init__(self, model_path: str, digest: str) -> None:
        self.model_path = os.path.realpath(model_path)
        self.path = self.model_path + ".journal"
        self._fd = -1
        self._held: list[int] = []  # descriptors holding the write lock (see writing)
        self.serving: dict[str, Any] | None = None  # the last ``serving`` record read
        self._open(digest)

    def _open(self, digest: str, behind: bool = False, seen: int | None = None) -> None:
        """Read the journal from where its updates apply to the model file of ``digest``
        (its base, or the fold record of a fold that stopped before replacing it); with
        ``seen``, from after the update numbered ``seen`` (those up to it are applied: a
        new journal that a fold started holds copies of the updates appended while it
        wrote the model file)."""
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        records, ends = _parse(_read_all(fd))
        start = _start_of(records, digest)
        #: the SHA-256 of the model file the journal's updates apply to
        self.model_sha256 = digest
        at = start
        if start is not None and seen is not None and seen > _seq_at(records, start):
            at = _index_of_seq(records, seen, len(records) - 1)
        if start is None or at is None:
            os.close(fd)
            if behind:
                raise JournalBehind(f"The journal {self.path!r} was folded more than once.")
            raise JournalError(f"The journal {self.path!r} does not belong to this model file.")
        if self._fd >= 0:
            os.close(self._fd)
        self._fd = fd
        self._inode = os.fstat(fd).st_ino
        #: the inode of the model file a fold of this version wrote (None: not known)
        ino = records[0].get("ino") if start == 0 else None
        self.base_ino: int | None = ino if isinstance(ino, int) else None
        self._offset = ends[at]
        self._fold_seen: str | None = None
        #: the updates of this model's lineage the model file holds (its fold's seq)
        self.folded_seq = _seq_at(records, start)
        #: updates journaled in this model's lineage up to what this process has read
        self.seq = _seq_at(records, at)
        self.pending = self.seq - self.folded_seq  # (update records since the last fold)
        for r in records[: at + 1]:
            if r.get("op") == "serving":
                self.serving = r

    def reopen(self, digest: str) -> None:
        """Start over on the journal of the model file whose digest is ``digest`` (read
        inside :meth:`writing`, so that no fold comes between); :meth:`catch_up` then
        gives every update record of it."""
        self._open(digest)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # ------------------------------------------------------------------ reading
    def catch_up(self) -> list[dict[str, Any]]:
        """The update records appended since the last call (by this or another process),
        following the journal across folds; fold markers are skipped. Bytes after the
        last complete record (a record being written, or torn by a writer's crash) wait."""
        out: list[dict[str, Any]] = []
        while True:
            size = os.fstat(self._fd).st_size
            if size > self._offset:
                data = os.pread(self._fd, size - self._offset, self._offset)
                records, ends = _parse(data)
                if ends:
                    self._offset += ends[-1]
                for r in records:
                    op = r.get("op")
                    if op in _FOLD_OPS:
                        self._fold_seen = r.get("sha256")
                    elif op == "serving":
                        self.serving = r
                    elif _is_update(r):
                        out.append(r)
                        self.pending += 1
                        self.seq += 1
            try:
                inode = os.stat(self.path).st_ino
            except FileNotFoundError:  # between the renames of a fold: nothing new yet
                return out
            if inode == self._inode:
                return out
            # another process folded (it holds the write lock while it does, so the old
            # journal is complete): go on in the new one
            if os.fstat(self._fd).st_size > size:
                continue  # written to since: read that first
            digest = self._fold_seen
            if digest is None:
                raise JournalBehind(f"The journal {self.path!r} was replaced without a fold.")
            self._open(digest, behind=True, seen=self.seq)  # (its copies of what was read)

    @property
    def file_id(self) -> int:
        """The journal file's inode: it changes when a fold starts a new journal."""
        return self._inode

    def needs_catch_up(self) -> bool:
        """Whether another process appended or folded since the last :meth:`catch_up`
        (two ``stat`` calls: cheap enough before every request)."""
        if os.fstat(self._fd).st_size > self._offset:
            return True
        try:
            return os.stat(self.path).st_ino != self._inode
        except FileNotFoundError:
            return False

    # ------------------------------------------------------------------ writing
    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the write lock (other workers wait) for a catch-up, an append, a fold: an
        exclusive ``flock`` of the current journal file. Not reentrant. A journal removed
        meanwhile (by hand) is written again from the file this process holds open."""
        try:
            self._held.append(_lock_current(self.path))
        except FileNotFoundError:
            self._held.append(self._restore())
        try:
            yield
        finally:
            held, self._held = self._held, []
            for fd in held:
                os.close(fd)  # releases the lock

    def _restore(self) -> int:
        """The journal removed from its folder while this process holds it open: write it
        again (atomically) from the open file's records and lock it. The acknowledged
        updates in it would otherwise be lost at the next start, and every write and
        fold failed. Other workers hold the same removed file: its ``flock`` makes one of
        them restore it; the others then lock what it wrote."""
        fcntl.flock(self._fd, fcntl.LOCK_EX)
        try:
            if os.path.exists(self.path):  # another worker restored it meanwhile
                return _lock_current(self.path)
            data = _read_all(self._fd)
            _, ends = _parse(data)
            intact = data[: ends[-1]] if ends else b""  # (byte for byte: offsets hold)
            fd = _write_new(self.path, intact, keep_locked=True)
        finally:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
        import logging

        logging.getLogger("nbayes.serve").warning(
            "nbayes serve: the journal %s was removed while served; written again from the "
            "copy this server holds open (%d record(s))",
            self.path,
            len(ends),
        )
        new = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        os.close(self._fd)
        self._fd = new
        self._inode = os.fstat(new).st_ino
        self._offset = min(self._offset, len(intact))
        return fd

    def append(self, record: dict[str, Any] | bytes, op: str | None = None) -> None:
        """Write one record (or its :func:`frame`, with its ``op``) and ``fdatasync`` it
        (inside :meth:`writing`, caught up).

        If the write fails the journal is cut back to where it was and the error is
        raised: nothing of the record stays.
        """
        frame = record if isinstance(record, bytes) else _frame(record)
        if os.fstat(self._fd).st_size > self._offset:
            # caught up under the lock, so these bytes are a record a writer was killed
            # writing (never acknowledged): cut it off, or every later record would be
            # lost behind it
            os.ftruncate(self._fd, self._offset)
        before = self._offset
        try:
            written = os.write(self._fd, frame)
            if written != len(frame):
                raise OSError(f"short write to {self.path!r} ({written} of {len(frame)} bytes)")
            os.fdatasync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, before)
            except OSError:
                pass
            raise
        self._offset = before + len(frame)
        if isinstance(record, dict):
            op = record.get("op")
        if op in ("update", "forget"):
            self.pending += 1
            self.seq += 1
        elif op == "serving" and isinstance(record, dict):
            self.serving = record

    def fold(
        self, write: Callable[[BinaryIO], None], before_replace: Any = None,
        check: Callable[[str], None] | None = None,
    ) -> str | None:  # fmt: skip
        """Fold the journal into the model file at once (inside :meth:`writing`, caught
        up): :func:`write_folding` of the current model (``write(f)`` writes its file:
        every record applied), then :meth:`replace_model`. Returns the new model file's
        digest; None when another process's fold is under way (it folds these updates).
        If writing fails, nothing changed and the error is raised."""
        folding = write_folding(self.model_path, write, self.seq, check)
        if folding is None or not self.replace_model(folding, before_replace):
            return None
        return folding.digest

    def replace_model(self, folding: Folding, before_replace: Any = None) -> bool:
        """Steps 2 to 4 of a fold (inside :meth:`writing`, caught up): the ``fold-at`` record,
        the rename of ``folding`` over the model file, the new journal (the updates
        appended after ``folding.seq`` copied into it). ``before_replace(path, fd)``, if
        given, is called just after the rename with the model's path and a descriptor of
        the new file that holds its ``flock`` (the model's lock follows it there). Returns False,
        ``folding`` removed, when the model file holds its updates already (another
        process folded as far meanwhile). If a step before the ``fold-at`` record fails, the
        file is removed and the error raised: nothing changed."""
        try:
            if folding.seq <= self.folded_seq:
                folding.discard()
                return False
        except BaseException:
            folding.discard()
            raise
        self.append({"op": _FOLD_AT, "sha256": folding.digest, "seq": folding.seq})
        os.replace(folding.path, self.model_path)
        # the model's lock follows the new file only now that it is the model: handed
        # before the rename, a worker killed in between left the supervisor holding a lock
        # of MODEL.folding for good, which every later fold took for a fold under way (a
        # review's finding). Until then this process's descriptor holds the file's lock.
        if before_replace is not None:
            before_replace(self.model_path, folding.fd)
        fd, folding.fd = folding.fd, -1
        os.close(fd)  # (its lock: the model's own now, if before_replace took it)
        fsync_directory(os.path.dirname(self.model_path))
        from nbayes.io.pending import discard

        discard(self.model_path)  # (a spam filter's registrations: in the file now)
        self.start_new(folding.digest, ino=folding.ino, seq=folding.seq)
        return True

    def _updates_after(self, seq: int) -> bytes:
        """The records of the updates numbered above ``seq``, as the journal holds them
        (inside :meth:`writing`, caught up)."""
        data = _read_all(self._fd)
        records, ends = _parse(data)
        at = _index_of_seq(records, seq, len(records) - 1)
        if at is None:
            raise JournalError(f"The journal {self.path!r} holds no update numbered {seq}.")
        return b"".join(
            data[ends[k - 1] : ends[k]]
            for k in range(at + 1, len(records))
            if _is_update(records[k])
        )

    def drop_serving(self) -> None:
        """Rewrite the journal without its ``serving`` records, every other record kept
        (inside :meth:`writing`, caught up): the server stops without folding."""
        records, _ = _parse(_read_all(self._fd))
        kept = [r for r in records if r.get("op") != "serving"]
        if len(kept) == len(records):
            return
        self._held.append(_write_new(self.path, kept, keep_locked=True))
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CLOEXEC)
        os.close(self._fd)
        self._fd = fd
        self._inode = os.fstat(fd).st_ino
        self._offset = os.fstat(fd).st_size
        self.serving = None

    def start_new(
        self, digest: str, serving: bool = True, ino: int | None = None, seq: int | None = None
    ) -> None:
        """Replace the journal by one whose base is the model file of ``digest`` (inside
        :meth:`writing`, after that file replaced the model), keeping the ``serving``
        record (unless ``serving=False``). ``seq``: the updates that file holds (a fold's
        snapshot); the records of the updates after it are copied into the new journal
        (default: every update so far, none copied). ``ino``: the model file's inode,
        which the other workers then know it by (:attr:`base_ino`)."""
        seq = self.seq if seq is None else seq
        records: list[dict[str, Any]] = [{"op": "base", "sha256": digest, "seq": seq}]
        if ino is not None:
            records[0]["ino"] = ino
        if serving and self.serving is not None:
            records.append(self.serving)
        data = b"".join(map(_frame, records))
        if seq < self.seq:
            data += self._updates_after(seq)
        self._held.append(_write_new(self.path, data, keep_locked=True))
        self._open(digest, seen=self.seq)


def frame(record: dict[str, Any]) -> bytes:
    """A record as the journal writes it (:meth:`Journal.append` takes it): a request is
    framed before it is applied, so that one the journal cannot hold (lone surrogates,
    NaN) is refused before anything changes. Raises ValueError then."""
    return _frame(record)


def _read_all(fd: int) -> bytes:
    size = os.fstat(fd).st_size
    return os.pread(fd, size, 0) if size else b""
