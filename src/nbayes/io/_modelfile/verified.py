"""Model files whose SHA-256 digest was checked, remembered by their identity on disk.

``nbayes filter`` runs once per delivered message; checking the digest of a 30 MB model
each time costs more CPU than scoring the message (~20 ms of hashing and the page faults
of reading every page of the file). Once a file's digest has matched, its identity is
written to a small record in the user's cache directory: the device and inode, the size,
the modification and the status-change times in nanoseconds, and the digest stored at
the file's end. A later reading of the same file skips the hashing when every one of
these is unchanged.

What that trusts is the kernel's ``st_ctime``: any write to the file, any ``chmod`` or
``utime`` (a forger resetting the modification time) sets it to the current time, and no
unprivileged program can set it back; a file replaced by a rename (as ``nbayes.save``
does) has a new inode. So a file that was changed in any way since it was checked is
hashed again, and refused if its digest does not match. The kernel keeps those times in
ticks of a few milliseconds, so a file changed within :data:`RACY_SECONDS` of its check
could keep the times it had: such a file is not recorded (it is hashed each time until
it has been left alone that long; git's index does the same). What the record cannot see
is damage that bypasses the file system (a disk's bit rot under an unchanged inode): a
full load (:func:`nbayes.load`, ``nbayes info``, every command that writes the model
file) always hashes the whole file; a registration that appends to the model's log of
pending messages (:mod:`nbayes.io.pending`) checks it as ``nbayes filter`` does. The
digest is a checksum, not a signature: whoever can write the model file (or this record)
could write a valid model anyway.

The record's directory: ``$NBAYES_CACHE_DIR`` if set (``off`` turns the record off:
every reading hashes the file), else ``$XDG_CACHE_HOME/nbayes``, else
``~/.cache/nbayes``. A record that cannot be read or written is ignored (the file is
hashed, as without it).
"""

from __future__ import annotations

import os
import time

__all__ = [
    "ENV", "MAX_ENTRIES", "RACY_SECONDS", "identity", "is_verified", "record_path", "remember",
]  # fmt: skip

#: the environment variable naming the record's directory (``off``: no record)
ENV = "NBAYES_CACHE_DIR"
#: the record keeps the most recently checked files, at most this many
MAX_ENTRIES = 64
#: a file changed less than this many seconds before its check is not recorded
RACY_SECONDS = 2.0
_NAME = "verified-models"


def record_path() -> str | None:
    """The record's file, or None when it is off (or no directory can be named)."""
    where = os.environ.get(ENV)
    if where is not None:
        return None if where.strip().lower() in ("", "off") else os.path.join(where, _NAME)
    base = os.environ.get("XDG_CACHE_HOME") or ""
    if not os.path.isabs(base):  # (the XDG spec: a relative value is ignored)
        home = os.path.expanduser("~")
        if home == "~":
            return None
        base = os.path.join(home, ".cache")
    return os.path.join(base, "nbayes", _NAME)


def identity(st: os.stat_result, digest: bytes) -> str:
    """One line of the record: the file's identity on disk and its stored digest."""
    return f"{st.st_dev} {st.st_ino} {st.st_size} {st.st_mtime_ns} {st.st_ctime_ns} {digest.hex()}"


def _lines(path: str) -> list[str]:
    try:
        with open(path, encoding="ascii") as f:
            return f.read(1 << 16).splitlines()
    except (OSError, ValueError):  # absent, unreadable, not ASCII: as if empty
        return []


def is_verified(st: os.stat_result, digest: bytes) -> bool:
    """Whether the file of ``st``, ending with ``digest``, was checked and is unchanged."""
    path = record_path()
    return path is not None and identity(st, digest) in _lines(path)


def remember(st: os.stat_result, digest: bytes) -> None:
    """Record that the file of ``st`` had the digest ``digest`` (which matched): written
    to a temporary file renamed over the record, so that a reader never sees half a
    record; two writers at once may lose one entry (that file is hashed once more)."""
    path = record_path()
    changed = max(st.st_ctime_ns, st.st_mtime_ns)
    if path is None or time.time_ns() - changed < RACY_SECONDS * 1e9:
        return
    line = identity(st, digest)
    # the entry of an older version of the same file (same device and inode) is dropped
    same_file = line.split(" ", 2)[:2]
    kept = [ln for ln in _lines(path) if ln.split(" ", 2)[:2] != same_file]
    kept = [*kept[-(MAX_ENTRIES - 1) :], line]
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        with open(tmp, "w", encoding="ascii") as f:
            f.write("\n".join(kept) + "\n")
        os.replace(tmp, path)
    except OSError:  # a read-only home, a full disk: no record, the file is hashed next time
        try:
            os.unlink(tmp)
        except OSError:
            pass
