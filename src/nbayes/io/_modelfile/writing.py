"""Writing a model file: plain-JSON metadata and arrays, laid out canonically, written to a
temporary file next to the target and renamed over it once complete and synced."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
import os
import re
import secrets
import stat
import sys
import time
from collections.abc import Mapping
from typing import Any, BinaryIO

import numpy as np

from nbayes.io._durable import fsync_directory, keep_owner
from nbayes.io._modelfile.layout import (
    ALIGN,
    DTYPE_NAMES,
    DTYPES,
    FORMAT_NAME,
    FORMAT_VERSION,
    MAGIC,
    MAX_JSON_DEPTH,
    MAX_NDIM,
    PREFIX,
    PREFIX_SIZE,
    align,
)

__all__ = ["write_model_file", "write_model_stream"]


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
        ma = sys.modules.get("numpy.ma")  # (a masked array exists only if it is imported)
        if not isinstance(array, np.ndarray) or (ma and isinstance(array, ma.MaskedArray)):
            raise TypeError(
                f"arrays[{name!r}] must be a numpy.ndarray (not a masked array), "
                f"got {type(array).__module__}.{type(array).__qualname__}"
            )
        dt = array.dtype
        dtype_name = None
        if dt.fields is None and dt.subdtype is None:
            dtype_name = DTYPE_NAMES.get((dt.kind, dt.itemsize))
        if dtype_name is None:
            raise TypeError(
                f"arrays[{name!r}] has dtype {dt!r}, which a model file cannot store; "
                f"allowed: {', '.join(DTYPES)} (keep strings in the JSON metadata)"
            )
        if array.ndim > MAX_NDIM:
            raise ValueError(f"arrays[{name!r}] has {array.ndim} dimensions; at most 32")
        # C-contiguous little-endian; copies only when needed, keeps 0-d arrays 0-d
        data = np.asarray(array, dtype=DTYPES[dtype_name], order="C")
        prepared.append((name, dtype_name, data))
    return prepared


_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _escape_surrogates(text: str) -> str:
    """``text`` (JSON) with its lone surrogates written as ``\\uXXXX`` escapes, which UTF-8
    cannot encode but JSON reads back exactly (a label such as ``"a\\ud800"``).

    Two surrogate code points in a row, high then low, would be read back as the one
    character they pair into: such a string cannot be stored exactly (ValueError).
    """
    pair = _PAIR.search(text)
    if pair:
        raise ValueError(
            "metadata or an array name holds the surrogate code points "
            f"{pair.group()!r} in a row, which a model file would read back as the single "
            f"character {pair.group().encode('utf-16', 'surrogatepass').decode('utf-16')!r}; "
            "a string with lone surrogates is stored, a split surrogate pair is not: "
            "repair the string (e.g. s.encode('utf-16', 'surrogatepass').decode('utf-16'))"
        )
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _build_header(metadata: Any, prepared: list[tuple[str, str, np.ndarray]]) -> tuple[bytes, int]:
    """Return the padded header bytes and the data-section length."""
    entries = []
    end = 0
    for name, dtype_name, data in prepared:
        offset = align(end)
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
    data_nbytes = align(end)
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
    except UnicodeEncodeError:
        raw = _escape_surrogates(text).encode("utf-8")
    raw += b" " * ((-(PREFIX_SIZE + len(raw))) % ALIGN)
    return raw, data_nbytes


def _write_body(
    f: BinaryIO, header: bytes, prepared: list[tuple[str, str, np.ndarray]], data_nbytes: int
) -> None:
    """Write the whole file (prefix, header, data, digest) to ``f``."""
    hasher = hashlib.sha256()

    def put(chunk: bytes | memoryview) -> None:
        hasher.update(chunk)
        f.write(chunk)

    put(PREFIX.pack(MAGIC, FORMAT_VERSION, len(header)))
    put(header)
    end = 0
    for _name, _dtype_name, data in prepared:
        offset = align(end)
        if offset > end:
            put(bytes(offset - end))
        if data.nbytes:
            put(data.reshape(-1).view(np.uint8).data)
        end = offset + data.nbytes
    if data_nbytes > end:
        put(bytes(data_nbytes - end))
    f.write(hasher.digest())


def write_model_stream(
    f: BinaryIO, metadata: Mapping[str, Any], arrays: Mapping[str, np.ndarray]
) -> None:
    """Write the bytes of the model file holding ``metadata`` and ``arrays`` (as
    :func:`write_model_file` lays them out) to the binary file ``f``, from its position:
    no temporary file, no ``fsync``, no rename. For a writer that owns the file it writes
    and makes it durable itself (a server's fold writes the file it locked)."""
    if not isinstance(metadata, Mapping):
        raise TypeError(f"metadata must be a dict, not {type(metadata).__name__}")
    prepared = _prepare_arrays(arrays)
    header, data_nbytes = _build_header(_normalize_json(metadata, "metadata", 0), prepared)
    _write_body(f, header, prepared, data_nbytes)


def _follow_held(target: str, new_file: str) -> None:
    try:
        from nbayes.io.lock import follow_held
    except ImportError:  # pragma: no cover - no fcntl (Windows): no lock to follow
        return
    follow_held(target, new_file)


def existing_mode(path: str) -> int | None:
    """The permission bits of the file at ``path`` (None if there is none), which the file
    that replaces it gets too."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        return None


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


#: A temporary file untouched for this long is a save that died (kill -9, power loss): a
#: save in progress writes its file continuously, so it is always younger.
STALE_SECONDS = 600.0


def remove_stale_temporaries(directory: str, basename: str) -> list[str]:
    """Delete the temporary files that dead saves of ``basename`` left in ``directory``
    (named as :func:`_create_temp` names them, untouched for :data:`STALE_SECONDS`); return
    their paths. A save killed half-way leaves one as large as the model."""
    prefix = f".{basename[:100]}."
    removed: list[str] = []
    now = time.time()
    try:
        names = os.listdir(directory)
    except OSError:
        return removed
    for name in names:
        middle = name[len(prefix) : -len(".tmp")]
        if not (name.startswith(prefix) and name.endswith(".tmp") and len(middle) == 16):
            continue
        if any(c not in "0123456789abcdef" for c in middle):
            continue
        path = os.path.join(directory, name)
        try:
            if now - os.lstat(path).st_mtime > STALE_SECONDS:
                os.unlink(path)
                removed.append(path)
        except OSError:  # gone already, or not ours to remove
            continue
    return removed


def _writing_error(exc: OSError, target: str, size: int) -> OSError:
    """``exc`` (raised writing the temporary beside ``target``, or renaming it) said of the
    model file, not of a temporary file its user never made: "[Errno 28] No space left on
    device" named nothing, "[Errno 30] ..." a hidden ``.name.1234.tmp``."""
    reason = exc.strerror or str(exc)
    mb = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size:,} bytes"
    how = (
        f"a save writes the new model, {mb}, beside the old one and then renames it over "
        "it; the old file is unchanged" if os.path.exists(target) else
        f"a save writes the model, {mb}, in that folder under another name and then "
        "renames it"
    )  # fmt: skip
    said = type(exc)(f"cannot write the model file {target!r}: {reason.lower()} ({how})")
    said.errno = exc.errno  # (no strerror: str() is the sentence alone)
    return said


def _check_replaceable(target: str) -> None:
    """Refuse to save over what is no regular file: the save renames a new file over it,
    which would turn ``/dev/null`` (a device, as root), a FIFO or a socket into a file."""
    try:
        st = os.stat(target)
    except OSError:
        return  # (nothing there: a new file; or the write itself says why not)
    if not stat.S_ISREG(st.st_mode):
        kind = (
            "a character device" if stat.S_ISCHR(st.st_mode)
            else "a block device" if stat.S_ISBLK(st.st_mode)
            else "a FIFO" if stat.S_ISFIFO(st.st_mode)
            else "a socket" if stat.S_ISSOCK(st.st_mode)
            else "no regular file"
        )  # fmt: skip
        raise OSError(
            f"cannot write a model file to {target!r}: it is {kind}, which a save would "
            "replace with a file; give the path of a model file"
        )


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
        the file it points to is replaced and the link kept; a file replaced keeps its
        permission bits (a private model stays private).
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
    target = os.path.realpath(target)  # through a symlink: the link stays a link
    _check_replaceable(target)
    try:
        old: os.stat_result | None = os.stat(target)
    except OSError:
        old = None
    mode = None if old is None else stat.S_IMODE(old.st_mode)

    directory = os.path.dirname(target)
    if not os.path.isdir(directory):
        above = directory  # the nearest of its folders that exists: a folder, or a file
        while not os.path.exists(above) and os.path.dirname(above) != above:
            above = os.path.dirname(above)
        blocked = os.path.exists(above) and not os.path.isdir(above)
        said = (NotADirectoryError if blocked else FileNotFoundError)(
            f"cannot write the model file {target!r}: "
            + (f"{above!r} is a file, not a folder" if blocked else
               f"{directory!r} does not exist (create the folder first)")
        )  # fmt: skip
        said.errno = errno.ENOTDIR if blocked else errno.ENOENT
        raise said
    remove_stale_temporaries(directory, os.path.basename(target))
    tmp = None
    try:
        # inside the try: an interrupt right after the temporary is made removes it too
        fd, tmp = _create_temp(directory, os.path.basename(target))
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            keep_owner(fd, old)  # (root saving a user's model leaves it the user's)
            f = os.fdopen(fd, "wb")
        except BaseException:
            os.close(fd)
            raise
        with f:
            _write_body(f, header, prepared, data_nbytes)
            f.flush()
            os.fsync(f.fileno())
        _follow_held(target, tmp)  # (the writer's lock of the model, onto the new file)
        os.replace(tmp, target)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError) and exc.errno is not None:
            raise _writing_error(exc, target, len(header) + data_nbytes) from exc
        raise
    fsync_directory(directory)
