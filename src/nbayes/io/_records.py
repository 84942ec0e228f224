"""Framed JSON records, as the logs beside a model file hold them: ``length (4 bytes) ·
CRC-32 (4 bytes) · JSON``, little-endian. A record cut short by a crash, or damaged, ends
the log where it starts (its writer never said it was written).

>>> data = frame({"op": "base"}) + frame({"op": "learn", "n": 1})
>>> parse(data + data[:5])  # (a record cut short)
([{'op': 'base'}, {'op': 'learn', 'n': 1}], [21, 49])
"""

from __future__ import annotations

import json
import struct
import zlib
from typing import Any

__all__ = ["FRAME", "damaged_after", "frame", "parse"]

FRAME = struct.Struct("<II")
#: a record larger than this is corruption, not a request (bodies are limited far below)
_MAX_RECORD = 1 << 31


def frame(record: dict[str, Any], *, ascii_only: bool = False) -> bytes:
    """A record's bytes. Raises ValueError (before anything is written) for a record
    JSON or UTF-8 cannot hold: NaN or infinite numbers, lone surrogates (which
    ``ascii_only`` writes as JSON's ``\\udxxx`` escapes instead)."""
    try:
        payload = json.dumps(
            record, ensure_ascii=ascii_only, separators=(",", ":"), allow_nan=False
        )
        data = payload.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"the record holds text that is not valid Unicode ({exc.reason})"
        ) from None
    return FRAME.pack(len(data), zlib.crc32(data)) + data


def parse(data: bytes, start: int = 0) -> tuple[list[dict[str, Any]], list[int]]:
    """The complete, intact records of ``data[start:]``, and where each one ends."""
    records: list[dict[str, Any]] = []
    ends: list[int] = []
    pos = start
    while pos + FRAME.size <= len(data):
        length, crc = FRAME.unpack_from(data, pos)
        end = pos + FRAME.size + length
        if length > _MAX_RECORD or end > len(data):
            break
        payload = data[pos + FRAME.size : end]
        if zlib.crc32(payload) != crc:
            break
        try:
            record = json.loads(payload)
        except ValueError:
            break
        if not isinstance(record, dict):
            break
        records.append(record)
        ends.append(end)
        pos = end
    return records, ends


def damaged_after(data: bytes, end: int) -> bool:
    """Whether ``data`` after its intact records (up to ``end``) holds more than one record
    cut short. A writer cuts a record its predecessor was killed writing before it
    appends, so the bytes after the last intact record are at most the start of one
    record; anything else is damage (a bad disk, a copy gone wrong), and the records after
    it are lost to :func:`parse`, not records that were never written. Two tells: the
    record's length fits in ``data`` with bytes after it, or an intact record starts
    further on (a damaged length that reads as longer than what is left).

    >>> data = frame({"op": "base"}) + frame({"op": "learn"}) + frame({"op": "learn"})
    >>> damaged_after(data[:30], 21), damaged_after(data[:31] + b"x" + data[32:], 21)
    (False, True)
    >>> damaged_after(data[:21] + b"\\xff\\xff\\xff\\x7f" + data[25:], 21)  # (the length)
    True
    """
    if len(data) - end < FRAME.size:
        return False
    length, _ = FRAME.unpack_from(data, end)
    if end + FRAME.size + length < len(data):
        return True
    return _intact_record_from(data, end + 1)


def _intact_record_from(data: bytes, start: int) -> bool:
    """Whether an intact record starts at or after ``start``: a frame whose payload (a
    JSON object, so it starts with ``{``) fits in ``data`` and matches its checksum."""
    pos = data.find(b"{", start + FRAME.size)
    while pos != -1:
        head = pos - FRAME.size
        length, crc = FRAME.unpack_from(data, head)
        if 0 < length <= len(data) - pos and zlib.crc32(data[pos : pos + length]) == crc:
            return True
        pos = data.find(b"{", pos + 1)
    return False
