"""Reading a model file: every claim of the header checked against the real file size
before anything is allocated, the arrays copied into fresh numpy arrays (or, with
``raw=True``, into arrays of the standard library's :mod:`array`, numpy not imported), the
digest compared; every failure a :class:`~nbayes.exceptions.ModelFileError` saying what is
wrong."""

from __future__ import annotations

import json
import math
import os
import reprlib
import stat
import sys
from array import array as StdArray
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn

from nbayes.exceptions import ModelFileError
from nbayes.io._modelfile.layout import (
    ALIGN,
    DIGEST_SIZE,
    ENTRY_KEYS,
    FORMAT_NAME,
    FORMAT_VERSION,
    HEADER_KEYS,
    ITEMSIZES,
    MAGIC,
    MAX_JSON_DEPTH,
    MAX_NDIM,
    PREFIX,
    PREFIX_SIZE,
    TYPECODES,
    align,
)

if TYPE_CHECKING:
    import numpy as np

__all__ = ["read_model_file"]

#: what the file's own checksum says of a damaged file
_MISMATCH = "SHA-256 checksum mismatch (the content was modified or damaged after it was written)"
#: what to do with a damaged file: it cannot be repaired, only replaced
_REPLACE = "Restore it from a backup or a good copy, or train the model again."


def _damaged(name: str, message: str) -> ModelFileError:
    """The error of the file ``name`` (``model file 'm.nbayes'``): ``message``, and for a
    corrupted or truncated file, what to do."""
    if message.startswith(("file is corrupted", "file is truncated")):
        message = f"{message}. {_REPLACE}"
    return ModelFileError(f"{name}: {message}")


def _describe_start(head: bytes) -> str:
    """A short human description of a file that is not an nbayes model file."""
    shown = repr(head[:16]) + ("..." if len(head) > 16 else "")
    known = [
        (b"\x80", "a Python pickle, which nbayes never loads"),
        (b"PK\x03\x04", "a zip archive"),
        (b"\x93NUMPY", "a numpy .npy file"),
        (b"\x1f\x8b", "gzip-compressed; decompress it first"),
        (b"\x89HDF", "an HDF5 file"),
        (b"{", "JSON text"),
    ]
    for prefix, what in known:
        if head.startswith(prefix):
            return f"it starts with {shown} (looks like {what})"
    return f"it starts with {shown}"


class _ShortRepr(reprlib.Repr):
    """``repr`` of untrusted values for error messages: short, and safe for huge ints."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = self.maxlong = 60
        self.maxlevel = 3

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:
            return f"{'-' if x < 0 else ''}<{x.bit_length()}-bit integer>"
        return super().repr_int(x, level)


_short = _ShortRepr().repr


def _pairs_to_dict(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:  # pragma: no branch
            if key in seen:
                raise ValueError(f"duplicate key {_short(key)} in a JSON object")
            seen.add(key)
    return result


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:40]!r} overflows to infinity")
    return value


def _parse_constant(text: str) -> NoReturn:
    raise ValueError(f"{text} is not plain JSON")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_metadata_depth(value: Any, depth: int) -> bool:
    """Whether a JSON value found ``depth`` containers deep keeps within ``MAX_JSON_DEPTH``."""
    if isinstance(value, dict | list):
        if depth >= MAX_JSON_DEPTH:
            return False
        items = value.values() if isinstance(value, dict) else value
        if not _CONTAINERS.intersection(map(type, items)):  # a list of a million terms:
            return True  # one pass in C, not a call per term (1.5 s of an NBSVM's load)
        return all(_check_metadata_depth(item, depth + 1) for item in items)
    return True


#: the types of JSON's containers as ``json.loads`` makes them
_CONTAINERS = frozenset({dict, list})


class ReadArrays(dict[str, Any]):
    """The arrays of :func:`read_model_file`, name -> array, and the SHA-256 digest
    stored at the end of the file they were read from (:attr:`digest`) and its
    modification time (:attr:`mtime_ns`): the file's :attr:`identity`, which a spam
    filter's log of pending registrations names (:mod:`nbayes.io.pending`)."""

    digest: bytes = b""
    mtime_ns: int = 0

    @property
    def identity(self) -> tuple[bytes, int]:
        return self.digest, self.mtime_ns


class RawArrays(ReadArrays):
    """The arrays of ``read_model_file(..., raw=True)``: name -> ``(dtype name, shape,
    items)``. With ``verify_later=True`` the file's digest is being checked by a thread
    while the caller goes on: :meth:`verify` waits for it (and raises
    :class:`~nbayes.exceptions.ModelFileError` if the file is damaged); use nothing of the
    arrays for an answer before it returns."""

    _thread: Any = None
    _error: BaseException | None = None

    def start(self, check: Any) -> None:
        import threading

        def run() -> None:
            try:
                check()
            except BaseException as exc:  # re-raised by verify()
                self._error = exc

        self._thread = threading.Thread(target=run, name="nbayes-digest", daemon=True)
        self._thread.start()

    def verify(self) -> None:
        """Wait for the digest check (at once if it was made while reading)."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            raise self._error


def _sha256() -> Any:
    import hashlib  # (its import loads OpenSSL: a few ms a reading that skips it saves)

    return hashlib.sha256()


class _Reader:
    """Reads a model file from a binary stream, validating every claim it makes."""

    def __init__(
        self, f: BinaryIO, size: int, name: str, st: os.stat_result | None = None,
        cached: bool = False,
    ) -> None:  # fmt: skip
        self.f = f
        self.size = size
        self.name = name
        #: the running digest of what was read; None while a raw, mapped reading may skip
        #: it (``cached_check``: the mapped view is hashed from its start when needed)
        self.hasher: Any = None if cached else _sha256()
        self.pos = 0
        self.diagnose = False  # on failure, check the digest to tell damage from bad writers
        self.later = False  # raw, mapped: check the digest in a thread (RawArrays.verify)
        self.st = st  # the file's identity (fstat of the stream), for the verified record
        self.cached = cached  # skip the digest of a file the record says was checked

    def update(self, data: Any) -> None:
        if self.hasher is not None:
            self.hasher.update(data)

    def fail(self, message: str) -> NoReturn:
        if self.diagnose:
            self.diagnose = False
            if self.digest_matches() is False:  # damaged, not badly written: say so once
                first = message.removeprefix("file is corrupted: ")
                message = f"file is corrupted: {_MISMATCH}; the first problem found: {first}"
        raise _damaged(self.name, message)

    def digest_matches(self) -> bool | None:
        """Stream the whole file through SHA-256 (1 MiB at a time); None if impossible."""
        if self.size < PREFIX_SIZE + DIGEST_SIZE:
            return False
        try:
            self.f.seek(0)
            hasher = _sha256()
            remaining = self.size - DIGEST_SIZE
            while remaining > 0:
                chunk = self.f.read(min(remaining, 1 << 20))
                if not chunk:
                    return False
                hasher.update(chunk)
                remaining -= len(chunk)
            return self.f.read(DIGEST_SIZE) == hasher.digest()
        except (OSError, ValueError):  # pragma: no cover - unseekable or closed stream
            return None

    def truncated(self, what: str) -> NoReturn:
        self.fail(
            f"file is truncated: it ends at byte {self.pos} in the middle of the {what} "
            "(an interrupted copy or download?)"
        )

    def read_exact(self, n: int, what: str) -> bytes:
        """Read exactly ``n`` bytes (``n`` was already checked against the file size)."""
        data = self.f.read(n)
        self.pos += len(data)
        if len(data) != n:
            self.truncated(what)
        self.update(data)
        return data

    def read_into(self, buf: Any, what: str) -> None:
        """Fill the writable buffer ``buf`` (a 1-d uint8 numpy array, or any) from the
        stream."""
        view = memoryview(buf).cast("B")
        filled = 0
        while filled < len(view):
            got = self.f.readinto(view[filled:])  # type: ignore[attr-defined]
            if not got:
                self.pos += filled
                self.truncated(what)
            filled += got
        self.pos += filled
        self.update(view)

    def read(
        self, max_bytes: int | None, header_only: bool = False, raw: bool = False
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The metadata and the arrays, every claim checked and the checksum verified;
        ``header_only``: the metadata of the checked header, no arrays read and nothing
        verified by the checksum (which covers the whole file); ``raw``: each array as
        ``(dtype name, shape, array.array of its items in C order)``, numpy not
        imported."""
        size = self.size
        if max_bytes is not None and size > max_bytes:
            self.fail(f"file is {size} bytes, more than max_bytes={max_bytes}; not loading it")
        if size == 0:
            self.fail("file is empty (0 bytes): not an nbayes model file")
        head = self.f.read(PREFIX_SIZE)
        magic = head[: len(MAGIC)]
        if magic != MAGIC[: len(magic)]:
            self.fail(f"not an nbayes model file: {_describe_start(head)}")
        if len(head) < PREFIX_SIZE:
            self.pos = len(head)
            self.truncated("fixed-size prefix")
        self.pos = PREFIX_SIZE
        self.update(head)
        _, version, header_len = PREFIX.unpack(head)
        if version > FORMAT_VERSION:
            self.fail(
                f"this file needs nbayes model-file format version {version}; this nbayes "
                f"reads up to version {FORMAT_VERSION}: upgrade nbayes (if no newer nbayes "
                "wrote this file, it is corrupted)"
            )
        if version < 1:
            self.fail(f"file is corrupted: invalid format version {version}")
        self.diagnose = True
        room = size - PREFIX_SIZE - DIGEST_SIZE
        if header_len > room:
            self.diagnose = False  # the sizes say it all (no checksum of the whole file)
            self.fail(
                f"file is truncated or corrupted: the header claims {header_len} bytes but "
                f"the {size}-byte file has room for at most {max(room, 0)}"
            )
        if (PREFIX_SIZE + header_len) % ALIGN:
            self.fail(
                f"file is corrupted: header length {header_len} does not end the header "
                f"on a multiple of {ALIGN} bytes"
            )
        text = self.read_exact(header_len, "JSON header")
        self.check_header_cost(text)
        header = self.parse_header(text)
        del text
        metadata, entries, data_nbytes = self.check_header(header, version)

        expected = PREFIX_SIZE + header_len + data_nbytes + DIGEST_SIZE
        if expected != size:
            # the sizes from the header say it all: no checksum of a (maybe huge, sparse)
            # file to diagnose, nothing read beyond the header
            self.diagnose = False
        if expected > size:
            self.fail(
                f"file is corrupted: truncated, the header describes {_short(expected)} bytes "
                f"but the file has only {size} (an interrupted copy or download?)"
            )
        if expected < size:
            self.fail(
                f"file is corrupted: {size - expected} unexpected bytes after the end of the "
                f"model data ({expected} bytes)"
            )
        if header_only:
            return metadata, {}
        if raw and sys.byteorder == "little":
            mapped = self.mapped(entries, data_nbytes)
            if mapped is not None:
                return metadata, mapped
        if self.hasher is None:  # (not mapped after all: hash what was read so far)
            self.hasher = _sha256()
            self.f.seek(0)
            self.hasher.update(self.f.read(self.pos))

        arrays: dict[str, Any] = {}
        end = 0
        for name, dtype_name, shape, offset, nbytes in entries:
            self.skip_padding(offset - end)
            arrays[name] = (self.raw_array if raw else self.numpy_array)(
                name, dtype_name, shape, nbytes
            )
            end = offset + nbytes
        self.skip_padding(data_nbytes - end)

        digest = self.hasher.digest()
        stored = self.f.read(DIGEST_SIZE)
        self.pos += len(stored)
        if len(stored) != DIGEST_SIZE:
            self.truncated("SHA-256 checksum")
        if self.f.read(1):
            self.fail("file is corrupted: it grew while being read, or has trailing bytes")
        if stored != digest:
            self.diagnose = False  # (the mismatch is the diagnosis)
            self.fail(f"file is corrupted: {_MISMATCH}")
        out = RawArrays(arrays) if raw else ReadArrays(arrays)
        out.digest = stored
        out.mtime_ns = 0 if self.st is None else self.st.st_mtime_ns
        return metadata, out

    def numpy_array(
        self, name: str, dtype_name: str, shape: tuple[int, ...], nbytes: int
    ) -> np.ndarray:
        import numpy as np

        from nbayes.io._modelfile.layout import DTYPES

        label = _short(name)
        try:
            array = np.empty(shape, dtype=DTYPES[dtype_name])
        except (ValueError, OverflowError) as exc:  # zero-size array with an absurd shape
            self.fail(f"array {label} has an unusable shape {_short(list(shape))}: {exc}")
        flat = array.reshape(-1).view(np.uint8)
        if nbytes:
            self.read_into(flat, f"data of array {label}")
        if dtype_name == "bool" and nbytes and int(flat.max()) > 1:
            self.fail(f"file is corrupted: bool array {label} holds bytes other than 0/1")
        if not array.dtype.isnative:  # pragma: no cover - big-endian hosts only
            array = array.astype(array.dtype.newbyteorder("="))
        return array

    def mapped(
        self, entries: list[tuple[str, str, tuple[int, ...], int, int]], data_nbytes: int
    ) -> dict[str, Any] | None:
        """``raw`` arrays as views of the file mapped in memory (no copy: opening a model
        of 30 MB costs its checksum only); None if the stream cannot be mapped."""
        import mmap

        try:
            mm = mmap.mmap(self.f.fileno(), 0, access=mmap.ACCESS_READ)
        except (AttributeError, OSError, ValueError):  # not a file: read it instead
            return None
        view = memoryview(mm)
        if len(view) != self.size:
            self.fail("file is corrupted: it changed while being read")
        start = self.pos
        data = view[start : start + data_nbytes]
        arrays: dict[str, Any] = {}
        end = 0
        for name, dtype_name, shape, offset, nbytes in entries:
            if any(data[end:offset]):
                self.fail("file is corrupted: non-zero padding bytes in the data section")
            items: Any = data[offset : offset + nbytes]
            if TYPECODES[dtype_name] != "B":
                items = items.cast(TYPECODES[dtype_name])
            if dtype_name == "bool" and nbytes and max(items) > 1:
                self.fail(
                    f"file is corrupted: bool array {_short(name)} holds bytes other than 0/1"
                )
            arrays[name] = (dtype_name, shape, items)
            end = offset + nbytes
        if any(data[end:data_nbytes]):
            self.fail("file is corrupted: non-zero padding bytes in the data section")
        stored = view[start + data_nbytes : start + data_nbytes + DIGEST_SIZE].tobytes()
        out = RawArrays(arrays)
        out.digest = stored
        out.mtime_ns = 0 if self.st is None else self.st.st_mtime_ns
        st = self.st
        if self.cached and st is not None:
            from nbayes.io._modelfile import verified

            if verified.is_verified(st, stored):  # checked before, unchanged since
                return out
        hasher, name, cached = self.hasher, self.name, self.cached
        covered = data if hasher is not None else view[: start + data_nbytes]

        def check() -> None:
            h = hasher if hasher is not None else _sha256()
            h.update(covered)  # (hashlib lets other threads run meanwhile)
            if stored != h.digest():
                raise _damaged(name, f"file is corrupted: {_MISMATCH}")
            if cached and st is not None:
                from nbayes.io._modelfile import verified

                verified.remember(st, stored)

        if self.later:
            out.start(check)
        else:
            check()
        return out

    def raw_array(
        self, name: str, dtype_name: str, shape: tuple[int, ...], nbytes: int
    ) -> tuple[str, tuple[int, ...], StdArray[Any]]:
        label = _short(name)
        items = StdArray(TYPECODES[dtype_name])
        if items.itemsize != ITEMSIZES[dtype_name]:  # pragma: no cover - exotic C ints
            self.fail(f"array {label}: this platform has no {dtype_name} of the standard array")
        items.frombytes(bytes(nbytes))  # zeros, overwritten below
        if nbytes:
            self.read_into(items, f"data of array {label}")
        if dtype_name == "bool" and nbytes and max(items) > 1:
            self.fail(f"file is corrupted: bool array {label} holds bytes other than 0/1")
        if sys.byteorder != "little" and items.itemsize > 1:  # pragma: no cover
            items.byteswap()
        return dtype_name, shape, items

    def skip_padding(self, n: int) -> None:
        if n and any(self.read_exact(n, "padding in the data section")):
            self.fail("file is corrupted: non-zero padding bytes in the data section")

    def check_header_cost(self, raw: bytes) -> None:
        """Refuse a header whose parsed JSON would take more memory than the file can
        justify (before parsing it): see :func:`header_cost`, :data:`HEADER_COST_PER_BYTE`."""
        cost = header_cost(raw)
        budget = HEADER_COST_PER_BYTE * self.size + HEADER_COST_SLACK
        if cost > budget:
            self.fail(
                f"file is corrupted or hostile: its JSON header would take about {cost} bytes "
                f"of memory to read, more than {HEADER_COST_PER_BYTE}x the file size "
                f"({self.size} bytes) allows; nbayes never writes such a header"
            )

    def parse_header(self, raw: bytes) -> Any:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.fail(f"file is corrupted: the header is not valid UTF-8 ({exc.reason})")
        # (nbayes writes the header's object and at most MAX_JSON_DEPTH levels of metadata
        # in it, which check_header says; far deeper is refused here, on every Python, and
        # RecursionError below is the interpreter's own limit)
        if nested_deeper_than(raw, _MAX_HEADER_DEPTH):
            self.fail(
                "file is corrupted or hostile: the JSON header is nested too deeply (more "
                f"than {_MAX_HEADER_DEPTH} levels)"
            )
        try:
            return json.loads(
                text,
                object_pairs_hook=_pairs_to_dict,
                parse_float=_parse_float,
                parse_constant=_parse_constant,
            )
        except RecursionError:
            self.fail("file is corrupted or hostile: the JSON header is nested too deeply")
        except ValueError as exc:  # JSONDecodeError, huge ints, our hooks
            self.fail(f"file is corrupted: the header is not valid plain JSON ({exc})")

    def check_header(
        self, header: Any, version: int
    ) -> tuple[dict[str, Any], list[tuple[str, str, tuple[int, ...], int, int]], int]:
        """Validate the header schema; return ``(metadata, entries, data_nbytes)``."""
        bad = "file is corrupted: invalid header: "
        if not isinstance(header, dict):
            self.fail(bad + f"expected a JSON object, got {type(header).__name__}")
        keys = set(header)
        if keys != HEADER_KEYS:
            missing = sorted(HEADER_KEYS - keys)
            extra = sorted(keys - HEADER_KEYS)
            self.fail(bad + f"missing keys {missing}, unexpected keys {extra}")
        if header["format"] != FORMAT_NAME:
            self.fail(bad + f'"format" is {_short(header["format"])}, expected {FORMAT_NAME!r}')
        if not _is_int(header["format_version"]) or header["format_version"] != version:
            self.fail(
                bad + f'"format_version" is {_short(header["format_version"])} but the file '
                f"prefix says {version}"
            )
        data_nbytes = header["data_nbytes"]
        if not _is_int(data_nbytes) or data_nbytes < 0:
            self.fail(
                bad + f'"data_nbytes" must be a non-negative integer, not {_short(data_nbytes)}'
            )
        metadata = header["metadata"]
        if not isinstance(metadata, dict):
            self.fail(bad + f'"metadata" must be a JSON object, not {type(metadata).__name__}')
        if not _check_metadata_depth(metadata, 0):
            self.fail(bad + f'"metadata" is nested deeper than {MAX_JSON_DEPTH} levels')
        table = header["arrays"]
        if not isinstance(table, list):
            self.fail(bad + f'"arrays" must be a JSON array, not {type(table).__name__}')

        entries = []
        names: set[str] = set()
        end = 0
        for i, entry in enumerate(table):
            where = f'"arrays"[{i}]'
            if not isinstance(entry, dict) or set(entry) != ENTRY_KEYS:
                self.fail(
                    bad + f"{where} must be an object with exactly the keys {sorted(ENTRY_KEYS)}"
                )
            name = entry["name"]
            if not isinstance(name, str):
                self.fail(bad + f"{where}: the name must be a string, not {_short(name)}")
            where = f"array {_short(name)}"
            if name in names:
                self.fail(bad + f"two arrays are named {_short(name)}")
            names.add(name)
            dtype_name = entry["dtype"]
            if not isinstance(dtype_name, str) or dtype_name not in ITEMSIZES:
                self.fail(
                    bad + f"{where} has dtype {_short(dtype_name)}; allowed: {', '.join(ITEMSIZES)}"
                )
            shape = entry["shape"]
            if (
                not isinstance(shape, list)
                or len(shape) > MAX_NDIM
                or not all(_is_int(n) and n >= 0 for n in shape)
            ):
                self.fail(
                    bad + f"{where}: the shape must be a list of at most {MAX_NDIM} "
                    f"non-negative integers, not {_short(shape)}"
                )
            offset, nbytes = entry["offset"], entry["nbytes"]
            if not _is_int(offset) or not _is_int(nbytes) or offset < 0 or nbytes < 0:
                self.fail(bad + f"{where}: offset and nbytes must be non-negative integers")
            expected_nbytes = math.prod(shape) * ITEMSIZES[dtype_name]
            if nbytes != expected_nbytes:
                self.fail(
                    bad + f"{where}: nbytes is {_short(nbytes)} but shape {_short(shape)} of "
                    f"{dtype_name} needs {_short(expected_nbytes)}"
                )
            if offset != align(end):
                self.fail(
                    bad
                    + f"{where}: offset {_short(offset)} should be {align(end)} (arrays must be "
                    f"stored in order, {ALIGN}-byte aligned, without overlap or gaps)"
                )
            end = offset + nbytes
            if end > data_nbytes:
                self.fail(
                    bad + f"{where} ends at {_short(end)}, past the data section "
                    f"({_short(data_nbytes)})"
                )
            entries.append((name, dtype_name, tuple(shape), offset, nbytes))
        if data_nbytes != align(end):
            self.fail(
                bad + f'"data_nbytes" is {_short(data_nbytes)}, expected {_short(align(end))}'
            )
        return metadata, entries, data_nbytes


#: The memory the parsed header may take, per byte of the file (plus a slack for small
#: files). The densest header nbayes writes, the vocabulary of a text model, takes about
#: 60 bytes per short term in Python against at least 30 bytes per term in the file (its
#: JSON and three counts); a hostile header of empty objects ``{},`` would take 25 times
#: its 3 bytes, and is refused before it is parsed.
HEADER_COST_PER_BYTE = 3
HEADER_COST_SLACK = 1 << 20
_CHUNK = 1 << 16
#: the deepest header read at all (:func:`nested_deeper_than`)
_MAX_HEADER_DEPTH = 2 * MAX_JSON_DEPTH
#: the most a byte of JSON can add to :func:`header_cost`'s estimate: a ',' or ':' outside
#: strings (10 or 40) and the scalar it may start (32), itself (1); a string takes at least
#: its 2 quotes for 49 + 27; a '{' or '[' 64 + 1
_MAX_COST_PER_BYTE = 80


def header_cost(raw: bytes) -> int:
    """An upper estimate of the bytes of Python objects ``json.loads(raw)`` makes, found
    without parsing, by counting tokens 64 KiB at a time (numpy). CPython 3.11+ on 64
    bits: an object or array takes 64 bytes, a list item 10 (its pointer), an object
    member 40 (its slot), a number 32 (plus its digits), a string 49 plus its length (76
    if it is not ASCII)."""
    if _MAX_COST_PER_BYTE * len(raw) <= HEADER_COST_SLACK:
        # no header this short can cost more than the slack every file is allowed: the
        # count below (and numpy) is not needed
        return _MAX_COST_PER_BYTE * len(raw)
    import numpy as np

    quotes = containers = commas = colons = inside = high = 0
    size = 0
    for a, q, outside in _chunks_outside_strings(raw):
        size += len(a)
        quotes += int(np.count_nonzero(q))
        inside += len(a) - int(np.count_nonzero(outside))
        high += int(np.count_nonzero(a >= 0x80))
        containers += int(np.count_nonzero(((a == 0x7B) | (a == 0x5B)) & outside))
        commas += int(np.count_nonzero((a == 0x2C) & outside))
        colons += int(np.count_nonzero((a == 0x3A) & outside))
    strings = quotes // 2
    scalars = max(0, commas + colons + 1 - strings)
    outside_bytes = size - inside
    return (
        64 * containers + 10 * commas + 40 * colons + 32 * scalars + outside_bytes
        + 49 * strings + 27 * min(strings, high) + inside
    )  # fmt: skip


def _chunks_outside_strings(raw: bytes) -> Iterator[tuple[Any, Any, Any]]:
    """JSON text ``raw`` 64 KiB at a time as uint8 arrays, with where its quotes are and
    which bytes are outside strings (escaped backslashes and quotes removed first: every
    '"' left opens or closes a string)."""
    import numpy as np

    text = raw.replace(b"\\\\", b"").replace(b'\\"', b"") if b"\\" in raw else raw
    state = np.uint8(0)
    for start in range(0, len(text), _CHUNK):
        a = np.frombuffer(text, np.uint8, min(_CHUNK, len(text) - start), start)
        q = a == 0x22
        parity = np.bitwise_xor.accumulate(q.view(np.uint8)) ^ state
        state = parity[-1]
        yield a, q, ~(parity.view(bool) | q)


def nested_deeper_than(raw: bytes, limit: int) -> bool:
    """Whether JSON text ``raw`` opens more than ``limit`` objects and arrays at once,
    found without parsing it (whether ``json.loads`` raises RecursionError on a deep
    header depends on the Python version: 5,000 levels did on 3.11, not on 3.13).

    >>> nested_deeper_than(b'{"a": [[1]], "b": "[[[["}', 3), nested_deeper_than(b"[[[[]]]]", 3)
    (False, True)
    """
    if raw.count(b"{") + raw.count(b"[") <= limit:  # (in C: most headers stop here)
        return False
    import numpy as np

    depth = 0
    for a, _, outside in _chunks_outside_strings(raw):
        step = (((a == 0x7B) | (a == 0x5B)) & outside).view(np.int8) - (
            ((a == 0x7D) | (a == 0x5D)) & outside
        ).view(np.int8)
        levels = np.cumsum(step, dtype=np.int64) + depth
        if int(levels.max()) > limit:
            return True
        depth = int(levels[-1])
    return False


def _read_stream(
    f: BinaryIO,
    size: int,
    name: str,
    max_bytes: int | None = None,
    header_only: bool = False,
    raw: bool = False,
    verify_later: bool = False,
    st: os.stat_result | None = None,
    cached_check: bool = False,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read a model file of ``size`` bytes from the start of the binary stream ``f``."""
    reader = _Reader(f, size, name, st, cached=cached_check and raw and st is not None)
    reader.later = verify_later
    return reader.read(max_bytes, header_only, raw)


def read_model_header(
    path: str | os.PathLike[str], *, max_bytes: int | None = None
) -> dict[str, Any]:
    """The metadata of a model file's header, checked as :func:`read_model_file` checks
    it, without reading the arrays: nothing is verified by the checksum yet (it covers
    the whole file), so use it to decide how to read the file, never as its content."""
    return read_model_file(path, max_bytes=max_bytes, header_only=True)[0]


def read_model_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int | None = None,
    header_only: bool = False,
    raw: bool = False,
    verify_later: bool = False,
    cached_check: bool = False,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Read a model file written by :func:`write_model_file`.

    Every field is validated before it is used, and no allocation exceeds what the
    real file size can justify, so truncated, corrupted and hostile files raise
    :class:`~nbayes.exceptions.ModelFileError` rather than anything else.

    Parameters
    ----------
    path : str or os.PathLike
        The model file.
    max_bytes : int, optional
        Refuse files larger than this many bytes (before reading anything). The
        memory a load needs is proportional to the file size; use this to bound it
        for untrusted files.

    Returns
    -------
    metadata : dict
        The metadata JSON object.
    arrays : dict[str, numpy.ndarray]
        The arrays, in their stored order: fresh, writeable, C-contiguous,
        native-byte-order arrays with the stored dtype and shape. With ``raw=True``, each
        is ``(dtype name, shape, items)`` with ``items`` a flat sequence of the values in C
        order (a read-only :class:`memoryview` of the file mapped in memory, or an
        :class:`array.array`), and numpy is not imported: the same checks, for a program
        that must start fast (``nbayes filter``). The mapping lasts as long as a view of
        it; the file is only ever replaced (renamed over), never changed in place. With
        ``verify_later=True`` too, the arrays (a :class:`RawArrays`) come back while a
        thread checks the digest: call their ``verify()`` before answering from them.
        With ``raw=True`` and ``cached_check=True``, a file whose digest matched before
        and that is unchanged since (same device, inode, size, modification and
        status-change times, and stored digest: :mod:`nbayes.io._modelfile.verified`) is
        not hashed again, and a file whose digest matches now is recorded; every other
        check is made as always.

    Raises
    ------
    ModelFileError
        If the file does not exist, is a directory or not a regular file, cannot be
        read, is larger than ``max_bytes``, is not an nbayes model file, is of a
        newer format version, or is truncated, corrupted or malformed. For errors of
        the operating system the original ``OSError`` is the ``__cause__``.
    """
    if max_bytes is not None and (not _is_int(max_bytes) or max_bytes < 0):
        raise ValueError(f"max_bytes must be None or a non-negative int, got {max_bytes!r}")
    source = os.fspath(path)
    if not isinstance(source, str):
        raise TypeError(f"path must be a str or os.PathLike[str], got {path!r}")
    name = f"model file {source!r}"
    try:
        st = os.stat(source)
        if stat.S_ISDIR(st.st_mode):
            raise ModelFileError(f"{name} is a directory, not a model file")
        if not stat.S_ISREG(st.st_mode):
            raise ModelFileError(f"{name} is not a regular file")
        with open(source, "rb") as f:
            st = os.fstat(f.fileno())
            return _read_stream(
                f, st.st_size, name, max_bytes, header_only, raw, verify_later, st, cached_check
            )
    except FileNotFoundError as exc:
        raise ModelFileError(f"{name} does not exist") from exc
    except OSError as exc:
        raise ModelFileError(f"cannot read {name}: {exc.strerror or exc}") from exc
