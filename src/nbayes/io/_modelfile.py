"""The nbayes model-file container: named arrays plus JSON metadata in one safe file.

A model is saved as **one** file holding named numpy arrays ("tensors") and a JSON
object of metadata (nbayes version, model type, hyperparameters, classes,
vocabulary, ...). Nothing is ever unpickled: loading a file only parses JSON and
copies raw bytes into freshly allocated numeric arrays, so a hostile file cannot
execute code, and every structural claim it makes is checked against the real file
size *before* memory is allocated for it.

On-disk layout (format version 1)
---------------------------------
All integers are unsigned little-endian. ``P = 20`` is the size of the fixed prefix.

========================  ==========  ====================================================
offset                    size        content
========================  ==========  ====================================================
0                         8           magic ``b"\\x89NBAYES\\n"`` (:data:`MAGIC`)
8                         4           format version, ``uint32`` (:data:`FORMAT_VERSION`)
12                        8           header length ``H``, ``uint64``
20                        ``H``       header: UTF-8 JSON object, right-padded with ASCII
                                      spaces so that ``P + H`` is a multiple of 64
``D = P + H``             ``N``       data section: the raw array bytes (see below)
``D + N``                 32          SHA-256 digest of bytes ``[0, D + N)``
========================  ==========  ====================================================

The file ends right after the digest; its size is exactly ``P + H + N + 32``.
The magic starts with a non-ASCII byte (a text file never matches; 7-bit mangling
is detected) and ends with ``\\n`` (newline translation is detected).

The header JSON object has exactly these keys (unknown keys are rejected: any new
key means a new format version):

``"format"``
    The string ``"nbayes-model"`` (:data:`FORMAT_NAME`).
``"format_version"``
    Integer, equal to the version in the prefix.
``"data_nbytes"``
    Integer ``N``, the length of the data section.
``"arrays"``
    A list (in the caller's order) of objects with exactly the keys

    * ``"name"``: string, unique in the file;
    * ``"dtype"``: one of ``"bool"``, ``"int8"``, ``"int16"``, ``"int32"``,
      ``"int64"``, ``"uint8"``, ``"uint16"``, ``"uint32"``, ``"uint64"``,
      ``"float32"``, ``"float64"`` (bytes on disk are little-endian; bool is one
      byte, ``0`` or ``1``);
    * ``"shape"``: list of at most 32 non-negative integers (``[]`` for 0-d);
    * ``"offset"``: integer, start of the array bytes relative to ``D``;
    * ``"nbytes"``: integer, ``prod(shape) * itemsize``.

    The layout is canonical: the first array starts at offset 0, each next one at
    the end of the previous one rounded up to a multiple of 64, and ``N`` is the end
    of the last one rounded up to a multiple of 64 (``N = 0`` without arrays).
    Every padding byte in the data section is zero. Arrays are stored in C order.
``"metadata"``
    The caller's JSON object. It must be plain JSON: objects with string keys,
    arrays, strings, integers, finite floats, ``true``/``false``/``null``, nested at
    most :data:`MAX_JSON_DEPTH` levels. ``NaN`` and ``Infinity`` are *not* allowed
    (standard JSON has no spelling for them; keep non-finite values in arrays,
    where they are raw IEEE-754 bytes). Duplicate object keys are rejected.

Reading checks, in this order: the magic, the version (a newer one is reported as
such before anything else is parsed), the header length against the file size
(before the header is read), the JSON (strict UTF-8, plain JSON, no duplicate keys,
bounded nesting), the header schema and every type in it, the dtype whitelist, that
``prod(shape) * itemsize == nbytes``, the canonical offsets, that the total size is
exactly ``P + H + N + 32`` (before any array is allocated), the zero padding, that
bool bytes are 0 or 1, and finally the digest. So no allocation exceeds a small
multiple of the real file size; ``max_bytes`` bounds that size. Every failure is a
:class:`~nbayes.exceptions.ModelFileError`; when the digest does not match either,
the message says the file was damaged (checksum mismatch) rather than badly written.

The SHA-256 digest detects accidental corruption (truncation, bit rot, partial
copies). It is not a signature: it does not prove who wrote the file.

Compatibility: a reader accepts every format version from 1 up to its own
:data:`FORMAT_VERSION`; a file of a newer version is rejected with a message naming
the version it needs.

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> tmp = tempfile.TemporaryDirectory()
>>> path = os.path.join(tmp.name, "model.nbayes")
>>> write_model_file(path, {"model": "MultinomialNB", "alpha": 1.0},
...                  {"feature_count": np.arange(6.0).reshape(2, 3)})
>>> metadata, arrays = read_model_file(path)
>>> metadata
{'model': 'MultinomialNB', 'alpha': 1.0}
>>> arrays["feature_count"]
array([[0., 1., 2.],
       [3., 4., 5.]])
>>> tmp.cleanup()
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import reprlib
import secrets
import stat
import struct
from collections.abc import Mapping
from typing import Any, BinaryIO, NoReturn

import numpy as np

from nbayes.exceptions import ModelFileError

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAGIC",
    "MAX_JSON_DEPTH",
    "read_model_file",
    "write_model_file",
]

MAGIC: bytes = b"\x89NBAYES\n"
"""The 8 bytes every nbayes model file starts with."""

FORMAT_NAME: str = "nbayes-model"
"""Value of the ``"format"`` key of the header."""

FORMAT_VERSION: int = 1
"""The newest model-file format version this nbayes reads and the one it writes."""

MAX_JSON_DEPTH: int = 64
"""Maximum nesting depth of the metadata JSON (the metadata object itself is depth 1)."""

_PREFIX = struct.Struct("<8sIQ")  # magic, format version, header length
_PREFIX_SIZE = _PREFIX.size  # 20
_DIGEST_SIZE = 32  # SHA-256
_ALIGN = 64
_MAX_NDIM = 32
_MAX_UINT32 = 2**32 - 1

# dtype name on disk -> little-endian numpy dtype
_DTYPES: dict[str, np.dtype[Any]] = {
    name: np.dtype(name).newbyteorder("<")
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float32",
        "float64",
    )
}
# (kind, itemsize) -> dtype name; identifies an allowed dtype whatever its byte order
_DTYPE_NAMES: dict[tuple[str, int], str] = {
    (dt.kind, dt.itemsize): name for name, dt in _DTYPES.items()
}
_HEADER_KEYS = frozenset({"format", "format_version", "data_nbytes", "arrays", "metadata"})
_ENTRY_KEYS = frozenset({"name", "dtype", "shape", "offset", "nbytes"})


def _align(n: int) -> int:
    return -(-n // _ALIGN) * _ALIGN


# --------------------------------------------------------------------------------------
# writing
# --------------------------------------------------------------------------------------


def _normalize_json(value: Any, where: str, depth: int) -> Any:
    """Return a plain-JSON copy of ``value`` or raise ``TypeError``/``ValueError``."""
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return value if type(value) is str else str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(
                f"{where} is {value!r}: model-file metadata must be plain JSON, which has "
                "no NaN or infinity; store non-finite values in an array instead"
            )
        return float.__float__(value)
    if depth >= MAX_JSON_DEPTH:
        raise ValueError(f"{where}: metadata is nested deeper than {MAX_JSON_DEPTH} levels")
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(
                    f"{where} has the key {key!r} of type {type(key).__name__}: "
                    "metadata object keys must be str"
                )
            out[str(key)] = _normalize_json(item, f"{where}[{key!r}]", depth + 1)
        return out
    if isinstance(value, list | tuple):
        return [_normalize_json(item, f"{where}[{i}]", depth + 1) for i, item in enumerate(value)]
    hint = ""
    if isinstance(value, np.generic | np.ndarray):
        hint = "; convert numpy values with .item() or .tolist()"
    raise TypeError(
        f"{where} is of type {type(value).__module__}.{type(value).__qualname__}, which is not "
        f"plain JSON (dict with str keys, list, tuple, str, int, finite float, bool, None){hint}"
    )


def _prepare_arrays(arrays: Mapping[str, np.ndarray]) -> list[tuple[str, str, np.ndarray]]:
    """Validate ``arrays``; return ``(name, dtype name, C-contiguous little-endian array)``."""
    if not isinstance(arrays, Mapping):
        raise TypeError(f"arrays must be a mapping of str to numpy arrays, not {type(arrays)}")
    prepared = []
    for name, array in arrays.items():
        if not isinstance(name, str):
            raise TypeError(f"array names must be str, got {name!r}")
        if not isinstance(array, np.ndarray) or isinstance(array, np.ma.MaskedArray):
            raise TypeError(
                f"arrays[{name!r}] must be a numpy.ndarray (not a masked array), "
                f"got {type(array).__module__}.{type(array).__qualname__}"
            )
        dt = array.dtype
        dtype_name = None
        if dt.fields is None and dt.subdtype is None:
            dtype_name = _DTYPE_NAMES.get((dt.kind, dt.itemsize))
        if dtype_name is None:
            raise TypeError(
                f"arrays[{name!r}] has dtype {dt!r}, which a model file cannot store; "
                f"allowed: {', '.join(_DTYPES)} (keep strings in the JSON metadata)"
            )
        if array.ndim > _MAX_NDIM:
            raise ValueError(f"arrays[{name!r}] has {array.ndim} dimensions; at most 32")
        # C-contiguous little-endian; copies only when needed, keeps 0-d arrays 0-d
        data = np.asarray(array, dtype=_DTYPES[dtype_name], order="C")
        prepared.append((name, dtype_name, data))
    return prepared


def _build_header(metadata: Any, prepared: list[tuple[str, str, np.ndarray]]) -> tuple[bytes, int]:
    """Return the padded header bytes and the data-section length."""
    entries = []
    end = 0
    for name, dtype_name, data in prepared:
        offset = _align(end)
        entries.append(
            {
                "name": name,
                "dtype": dtype_name,
                "shape": [int(n) for n in data.shape],
                "offset": offset,
                "nbytes": int(data.nbytes),
            }
        )
        end = offset + int(data.nbytes)
    data_nbytes = _align(end)
    header = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "data_nbytes": data_nbytes,
        "arrays": entries,
        "metadata": metadata,
    }
    text = json.dumps(header, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            "metadata or an array name contains a string that is not valid Unicode "
            f"(a lone surrogate?): {exc}"
        ) from None
    raw += b" " * ((-(_PREFIX_SIZE + len(raw))) % _ALIGN)
    return raw, data_nbytes


def _write_body(
    f: BinaryIO, header: bytes, prepared: list[tuple[str, str, np.ndarray]], data_nbytes: int
) -> None:
    """Write the whole file (prefix, header, data, digest) to ``f``."""
    hasher = hashlib.sha256()

    def put(chunk: bytes | memoryview) -> None:
        hasher.update(chunk)
        f.write(chunk)

    put(_PREFIX.pack(MAGIC, FORMAT_VERSION, len(header)))
    put(header)
    end = 0
    for _name, _dtype_name, data in prepared:
        offset = _align(end)
        if offset > end:
            put(bytes(offset - end))
        if data.nbytes:
            put(data.reshape(-1).view(np.uint8).data)
        end = offset + data.nbytes
    if data_nbytes > end:
        put(bytes(data_nbytes - end))
    f.write(hasher.digest())


def _create_temp(directory: str, basename: str) -> tuple[int, str]:
    """Create a new, empty temporary file next to the target; return ``(fd, path)``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    while True:
        tmp = os.path.join(directory, f".{basename[:100]}.{secrets.token_hex(8)}.tmp")
        try:
            # mode 0o666 filtered by the umask, like a file created with open(path, "wb")
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:  # pragma: no cover - 64 random bits collided
            continue


def _fsync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable where the OS supports it (POSIX)."""
    if os.name != "posix":  # pragma: no cover
        return
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems cannot fsync a directory
        pass
    finally:
        os.close(fd)


def write_model_file(
    path: str | os.PathLike[str],
    metadata: Mapping[str, Any],
    arrays: Mapping[str, np.ndarray],
) -> None:
    """Atomically write a model file holding ``metadata`` and ``arrays``.

    The file is first written to a new temporary file in the same directory,
    flushed and ``fsync``-ed, then renamed over ``path`` with :func:`os.replace`
    (and the directory is ``fsync``-ed where supported). If anything fails, the
    temporary file is removed and an existing file at ``path`` is left untouched.

    Parameters
    ----------
    path : str or os.PathLike
        Destination file. Its directory must exist. If ``path`` is a symbolic link,
        the link itself is replaced by the new file.
    metadata : Mapping[str, Any]
        Plain-JSON object: str keys; values ``dict``/``list``/``tuple``/``str``/
        ``int``/finite ``float``/``bool``/``None``, nested at most
        :data:`MAX_JSON_DEPTH` levels. Tuples are written as JSON arrays and so read
        back as lists; ``float`` and ``int`` subclasses are read back as ``float``
        and ``int``.
    arrays : Mapping[str, numpy.ndarray]
        Named arrays of dtype bool, int8/16/32/64, uint8/16/32/64, float32 or
        float64 (any byte order, any memory layout, any number of dimensions up to
        32, empty and 0-d included). Their order is preserved.

    Raises
    ------
    TypeError
        If ``metadata`` is not plain JSON, or an array is not a numpy array or has
        an unsupported dtype (object, str, complex, float16, datetime, structured...).
    ValueError
        If ``metadata`` holds NaN or infinity, is nested too deeply or holds a
        string that is not valid Unicode.
    OSError
        If the file cannot be written (the old file, if any, is then untouched).
    """
    target = os.fspath(path)
    if not isinstance(target, str):
        raise TypeError(f"path must be a str or os.PathLike[str], got {path!r}")
    if not isinstance(metadata, Mapping):
        raise TypeError(f"metadata must be a dict, not {type(metadata).__name__}")
    plain_metadata = _normalize_json(metadata, "metadata", 0)
    prepared = _prepare_arrays(arrays)
    header, data_nbytes = _build_header(plain_metadata, prepared)
    if os.path.isdir(target):
        raise IsADirectoryError(f"cannot write a model file to {target!r}: it is a directory")

    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = _create_temp(directory, os.path.basename(target))
    try:
        try:
            f = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            raise
        with f:
            _write_body(f, header, prepared, data_nbytes)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


# --------------------------------------------------------------------------------------
# reading
# --------------------------------------------------------------------------------------


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
        return all(_check_metadata_depth(item, depth + 1) for item in items)
    return True


class _Reader:
    """Reads a model file from a binary stream, validating every claim it makes."""

    def __init__(self, f: BinaryIO, size: int, name: str) -> None:
        self.f = f
        self.size = size
        self.name = name
        self.hasher = hashlib.sha256()
        self.pos = 0
        self.diagnose = False  # on failure, check the digest to tell damage from bad writers

    def fail(self, message: str) -> NoReturn:
        if self.diagnose:
            self.diagnose = False
            if self.digest_matches() is False:
                message = (
                    "file is corrupted (SHA-256 checksum mismatch: it was damaged or modified "
                    f"after it was written); the first problem found: {message}"
                )
        raise ModelFileError(f"{self.name}: {message}")

    def digest_matches(self) -> bool | None:
        """Stream the whole file through SHA-256 (1 MiB at a time); None if impossible."""
        if self.size < _PREFIX_SIZE + _DIGEST_SIZE:
            return False
        try:
            self.f.seek(0)
            hasher = hashlib.sha256()
            remaining = self.size - _DIGEST_SIZE
            while remaining > 0:
                chunk = self.f.read(min(remaining, 1 << 20))
                if not chunk:
                    return False
                hasher.update(chunk)
                remaining -= len(chunk)
            return self.f.read(_DIGEST_SIZE) == hasher.digest()
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
        self.hasher.update(data)
        return data

    def read_into(self, buf: np.ndarray, what: str) -> None:
        """Fill the 1-d uint8 array ``buf`` from the stream."""
        view = buf.data
        filled = 0
        while filled < len(view):
            got = self.f.readinto(view[filled:])  # type: ignore[attr-defined]
            if not got:
                self.pos += filled
                self.truncated(what)
            filled += got
        self.pos += filled
        self.hasher.update(view)

    def read(self, max_bytes: int | None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        size = self.size
        if max_bytes is not None and size > max_bytes:
            self.fail(f"file is {size} bytes, more than max_bytes={max_bytes}; not loading it")
        if size == 0:
            self.fail("file is empty (0 bytes): not an nbayes model file")
        head = self.f.read(_PREFIX_SIZE)
        magic = head[: len(MAGIC)]
        if magic != MAGIC[: len(magic)]:
            self.fail(f"not an nbayes model file: {_describe_start(head)}")
        if len(head) < _PREFIX_SIZE:
            self.pos = len(head)
            self.truncated("fixed-size prefix")
        self.pos = _PREFIX_SIZE
        self.hasher.update(head)
        _, version, header_len = _PREFIX.unpack(head)
        if version > FORMAT_VERSION:
            self.fail(
                f"this file needs nbayes model-file format version {version}; this nbayes "
                f"reads up to version {FORMAT_VERSION}: upgrade nbayes (if no newer nbayes "
                "wrote this file, it is corrupted)"
            )
        if version < 1:
            self.fail(f"file is corrupted: invalid format version {version}")
        self.diagnose = True
        room = size - _PREFIX_SIZE - _DIGEST_SIZE
        if header_len > room:
            self.fail(
                f"file is truncated or corrupted: the header claims {header_len} bytes but "
                f"the {size}-byte file has room for at most {max(room, 0)}"
            )
        if (_PREFIX_SIZE + header_len) % _ALIGN:
            self.fail(
                f"file is corrupted: header length {header_len} does not end the header "
                f"on a multiple of {_ALIGN} bytes"
            )
        raw = self.read_exact(header_len, "JSON header")
        header = self.parse_header(raw)
        metadata, entries, data_nbytes = self.check_header(header, version)

        expected = _PREFIX_SIZE + header_len + data_nbytes + _DIGEST_SIZE
        if expected > size:
            self.fail(
                f"file is truncated: the header describes {_short(expected)} bytes but the file "
                f"has only {size}"
            )
        if expected < size:
            self.fail(
                f"file is corrupted: {size - expected} unexpected bytes after the end of the "
                f"model data ({expected} bytes)"
            )

        arrays: dict[str, np.ndarray] = {}
        end = 0
        for name, dtype_name, shape, offset, nbytes in entries:
            label = _short(name)
            self.skip_padding(offset - end)
            try:
                array = np.empty(shape, dtype=_DTYPES[dtype_name])
            except (ValueError, OverflowError) as exc:  # zero-size array with an absurd shape
                self.fail(f"array {label} has an unusable shape {_short(list(shape))}: {exc}")
            flat = array.reshape(-1).view(np.uint8)
            if nbytes:
                self.read_into(flat, f"data of array {label}")
            if dtype_name == "bool" and nbytes and int(flat.max()) > 1:
                self.fail(f"file is corrupted: bool array {label} holds bytes other than 0/1")
            if not array.dtype.isnative:  # pragma: no cover - big-endian hosts only
                array = array.astype(array.dtype.newbyteorder("="))
            arrays[name] = array
            end = offset + nbytes
        self.skip_padding(data_nbytes - end)

        digest = self.hasher.digest()
        stored = self.f.read(_DIGEST_SIZE)
        self.pos += len(stored)
        if len(stored) != _DIGEST_SIZE:
            self.truncated("SHA-256 checksum")
        if self.f.read(1):
            self.fail("file is corrupted: it grew while being read, or has trailing bytes")
        if stored != digest:
            self.fail(
                "file is corrupted: SHA-256 checksum mismatch (the content was modified or "
                "damaged after it was written)"
            )
        return metadata, arrays

    def skip_padding(self, n: int) -> None:
        if n and any(self.read_exact(n, "padding in the data section")):
            self.fail("file is corrupted: non-zero padding bytes in the data section")

    def parse_header(self, raw: bytes) -> Any:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.fail(f"file is corrupted: the header is not valid UTF-8 ({exc.reason})")
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
        if keys != _HEADER_KEYS:
            missing = sorted(_HEADER_KEYS - keys)
            extra = sorted(keys - _HEADER_KEYS)
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
            if not isinstance(entry, dict) or set(entry) != _ENTRY_KEYS:
                self.fail(
                    bad + f"{where} must be an object with exactly the keys {sorted(_ENTRY_KEYS)}"
                )
            name = entry["name"]
            if not isinstance(name, str):
                self.fail(bad + f"{where}: the name must be a string, not {_short(name)}")
            where = f"array {_short(name)}"
            if name in names:
                self.fail(bad + f"two arrays are named {_short(name)}")
            names.add(name)
            dtype_name = entry["dtype"]
            if not isinstance(dtype_name, str) or dtype_name not in _DTYPES:
                self.fail(
                    bad + f"{where} has dtype {_short(dtype_name)}; allowed: {', '.join(_DTYPES)}"
                )
            shape = entry["shape"]
            if (
                not isinstance(shape, list)
                or len(shape) > _MAX_NDIM
                or not all(_is_int(n) and n >= 0 for n in shape)
            ):
                self.fail(
                    bad + f"{where}: the shape must be a list of at most {_MAX_NDIM} "
                    f"non-negative integers, not {_short(shape)}"
                )
            offset, nbytes = entry["offset"], entry["nbytes"]
            if not _is_int(offset) or not _is_int(nbytes) or offset < 0 or nbytes < 0:
                self.fail(bad + f"{where}: offset and nbytes must be non-negative integers")
            expected_nbytes = math.prod(shape) * _DTYPES[dtype_name].itemsize
            if nbytes != expected_nbytes:
                self.fail(
                    bad + f"{where}: nbytes is {_short(nbytes)} but shape {_short(shape)} of "
                    f"{dtype_name} needs {_short(expected_nbytes)}"
                )
            if offset != _align(end):
                self.fail(
                    bad
                    + f"{where}: offset {_short(offset)} should be {_align(end)} (arrays must be "
                    f"stored in order, {_ALIGN}-byte aligned, without overlap or gaps)"
                )
            end = offset + nbytes
            if end > data_nbytes:
                self.fail(
                    bad + f"{where} ends at {_short(end)}, past the data section "
                    f"({_short(data_nbytes)})"
                )
            entries.append((name, dtype_name, tuple(shape), offset, nbytes))
        if data_nbytes != _align(end):
            self.fail(
                bad + f'"data_nbytes" is {_short(data_nbytes)}, expected {_short(_align(end))}'
            )
        return metadata, entries, data_nbytes


def _read_stream(
    f: BinaryIO, size: int, name: str, max_bytes: int | None = None
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read a model file of ``size`` bytes from the start of the binary stream ``f``."""
    return _Reader(f, size, name).read(max_bytes)


def read_model_file(
    path: str | os.PathLike[str], *, max_bytes: int | None = None
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
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
        native-byte-order arrays with the stored dtype and shape.

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
            size = os.fstat(f.fileno()).st_size
            return _read_stream(f, size, name, max_bytes)
    except FileNotFoundError as exc:
        raise ModelFileError(f"{name} does not exist") from exc
    except OSError as exc:
        raise ModelFileError(f"cannot read {name}: {exc.strerror or exc}") from exc
