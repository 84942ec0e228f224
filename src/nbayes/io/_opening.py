"""Opening the files :func:`nbayes.io.read_texts` reads: text with invalid bytes marked
(and counted, :class:`Decoding`), gzip detected, open files (standard input) with their
format told from the first line; the reader's options (:class:`Options`) and how advice
names them (``text_col=...`` for Python, ``--text-col NAME`` where the command line set its
flags' names: :func:`option_names`); the rows skipped with ``bad_rows="skip"``
(:class:`BadRows`)."""

from __future__ import annotations

import codecs
import contextlib
import csv
import gzip
import io
import itertools
import json
import os
import shlex
import warnings
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nbayes.exceptions import DecodingWarning, SkippedRowsWarning
from nbayes.io._meter import Meter

_GZIP_MAGIC = b"\x1f\x8b"

# A decoding error handler that marks every invalid byte sequence with a lone
# surrogate.  A strict decoder never produces lone surrogates (they are invalid
# in UTF-8 and the other standard codecs), so the marker can only come from an
# error; it is replaced by U+FFFD once the affected row has been counted.
_MARK = "\udcfd"
_ERRORS = "nbayes.io.mark"


def _mark_invalid(exc: UnicodeError) -> tuple[str, int]:
    if isinstance(exc, UnicodeDecodeError):
        return _MARK, exc.end
    raise exc


codecs.register_error(_ERRORS, _mark_invalid)


# ------------------------------------------------------------------- naming the options

#: option -> how the caller spells it (``--text-col NAME``); unset: Python's ``text_col=...``
_NAMES: ContextVar[Mapping[str, str] | None] = ContextVar("nbayes_reader_names", default=None)


@contextlib.contextmanager
def option_names(names: Mapping[str, str]) -> Iterator[None]:
    """Within this block, advice names the options as ``names`` spells them: e.g.
    ``{"text_col": "--text-col NAME", "encoding": "--encoding NAME"}`` for a command line.
    An option missing from ``names`` is not one the caller has: advice about it is left
    out. (A context variable: other threads and tasks keep their own spelling.)"""
    token = _NAMES.set(dict(names))
    try:
        yield
    finally:
        _NAMES.reset(token)


def option_spelling() -> Mapping[str, str] | None:
    """How advice names the options here (:func:`option_names`); None: as Python does."""
    return _NAMES.get()


def python_caller() -> bool:
    """Whether advice is for a Python caller (no :func:`option_names` in effect)."""
    return _NAMES.get() is None


def advice(option: str, example: str | None = None) -> str:
    """``option`` as the caller spells it: ``encoding='latin-1'`` (Python) or
    ``--encoding latin-1`` (where :func:`option_names` names the flag ``--encoding NAME``),
    the value as a shell reads it (``--delimiter ';'``, ``--delimiter tab``: a bare ``;``
    ended the command pasted, a raw tab was lost).

    >>> with option_names({"delimiter": "--delimiter CHAR"}):
    ...     advice("delimiter", ";"), advice("delimiter", "\\t"), advice("delimiter", "|")
    ("--delimiter ';'", '--delimiter tab', "--delimiter '|'")
    """
    names = _NAMES.get()
    if names is None:
        return f"{option}={example!r}" if example is not None else f"{option}=..."
    spelled = names.get(option)
    if spelled is None:
        return ""
    if example is None:
        return spelled
    return f"{spelled.split()[0]} {'tab' if example == chr(9) else shlex.quote(example)}"


def pass_option(option: str, why: str, example: str | None = None) -> str:
    """`` Pass text_col=... to choose.`` (empty where the caller has no such option)."""
    spelled = advice(option, example)
    return f" Pass {spelled} {why}." if spelled else ""


@dataclass(frozen=True)
class Options:
    """The settings of one :func:`~nbayes.io.read_texts` call (checked there)."""

    text_col: str
    label_col: str | None
    chunk_size: int
    max_chunk_chars: int | None
    delimiter: str | None
    encoding: str
    max_field_chars: int
    bad_rows: BadRows = field(default_factory=lambda: BadRows())
    #: a column (key) of each row to carry beside its text (:attr:`TextChunk.ids`), or None
    id_col: str | None = None
    #: JSON lines: a record before had the text's and label's keys (a part of a file that
    #: does not start it), so that a key missing is a bad row, not a wrong column name
    keys_seen: bool = False
    #: how far the call has read (:attr:`~nbayes.io.TextChunk.share`)
    meter: Meter = field(default_factory=Meter)


@dataclass
class Decoding:
    """Counts the documents that contained invalid bytes during one call."""

    rows: int = 0
    sources: set[str] = field(default_factory=set)
    first: str = ""

    def record(self, source: str, where: str) -> None:
        self.rows += 1
        self.sources.add(source)
        if not self.first:
            self.first = where

    def warn(self, encoding: str, partial: bool) -> None:
        if not self.rows:
            return
        n_src = len(self.sources)
        msg = (
            f"{self.rows} document(s) in {n_src} file(s) contained bytes that are not valid "
            f"{encoding}; they were replaced by U+FFFD. The first is {self.first}."
            + (" (Counted in the part read before the reader was closed.)" if partial else "")
            + pass_option("encoding", "if the files use another encoding", "latin-1")
        )
        warnings.warn(msg, DecodingWarning, stacklevel=3)


# --------------------------------------------------------------------------- bad rows

#: what ``bad_rows=`` takes: stop at the first bad row, or skip (and count) them
BAD_ROWS = ("error", "skip")

#: how many skipped rows a summary names
_SHOWN = 3


@dataclass(frozen=True, slots=True)
class BadRow:
    """A row that ``read_texts(..., bad_rows="skip")`` skipped.

    Attributes
    ----------
    source : str
        The file (``"<stdin>"`` for standard input).
    row : int or None
        0-based data row, as ``TextChunk.start_row`` counts them (bad rows count too).
    line : int or None
        1-based physical line where the row starts (None for Parquet).
    reason : str
        What is wrong, in a few words: ``"invalid JSON"``, ``"missing label"``, ...
    message : str
        The error ``bad_rows="error"`` raises for this row.
    """

    source: str
    row: int | None
    line: int | None
    reason: str
    message: str

    def __str__(self) -> str:
        name = Path(self.source).name or self.source
        where = f"line {self.line}" if self.line is not None else f"row {self.row}"
        return f"{name} {where}: {self.reason}"


def skipped_text(count: int, first: Iterable[Any]) -> str:
    """``Skipped 3 bad rows (a.jsonl line 11: invalid JSON; ...)``: ``count`` rows, the
    first few of them named."""
    shown = list(first)[:_SHOWN]
    more = "; ..." if count > len(shown) else ""
    plural = "" if count == 1 else "s"
    return f"Skipped {count:,} bad row{plural} ({'; '.join(map(str, shown))}{more})"


@dataclass
class BadRows:
    """The bad rows of one call: an error (``policy="error"``), or skipped, counted and
    handed to ``on_bad_row`` (``"skip"``)."""

    policy: str = "error"
    on_bad_row: Callable[[BadRow], None] | None = None
    count: int = 0
    first: list[BadRow] = field(default_factory=list)

    def bad(
        self, message: str, source: str, reason: str, row: int | None, line: int | None
    ) -> None:
        """A bad row: raise ValueError(``message``), or, skipping, count it (the caller
        then goes on with the next row)."""
        if self.policy != "skip":
            end = "" if message.endswith(".") else "."
            raise ValueError(message + end + pass_option("bad_rows", "to skip such rows", "skip"))
        found = BadRow(source, row, line, reason, message)
        self.count += 1
        if len(self.first) < _SHOWN:
            self.first.append(found)
        if self.on_bad_row is not None:
            self.on_bad_row(found)

    def all_bad(self) -> ValueError:
        """The error of a read whose every row was bad (skipping never makes bad data look
        empty)."""
        return ValueError(
            f"No documents: every row was bad. {skipped_text(self.count, self.first)}; "
            f"the first: {self.first[0].message}"
        )

    def warn(self, partial: bool) -> None:
        """One SkippedRowsWarning for the rows skipped, unless ``on_bad_row`` took them."""
        if not self.count or self.on_bad_row is not None:
            return
        msg = (
            skipped_text(self.count, self.first)
            + "."
            + (" (Counted in the part read before the reader was closed.)" if partial else "")
        )
        warnings.warn(msg, SkippedRowsWarning, stacklevel=3)


# --------------------------------------------------------------------------- opening


@dataclass(repr=False)
class Stream:
    """An open file (standard input) read as one table: its lines as text, the first one
    already read to tell the format (:func:`open_stream`). Messages name it by its name
    (``str(stream)``: ``<stdin>``), never by its lines.

    >>> s = Stream("<stdin>", iter(["text,label"]))
    >>> s, str(s)
    (Stream('<stdin>'), '<stdin>')
    """

    name: str
    lines: Iterator[str]
    #: its lines once more, from the first, where they can be read again (a block of a
    #: file in memory): a quote that never closes is then found where it opens
    again: Callable[[], Iterable[str]] | None = None

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Stream({self.name!r})"


def open_stream(obj: Any, fmt: str | None, opts: Options) -> tuple[Stream, str]:
    """The lines of the open file ``obj`` (text, or binary decoded with ``opts.encoding``,
    invalid bytes marked) and its format: ``fmt``, or else told from the first line (a
    JSON object: jsonl; a CSV or TSV header holding ``opts.text_col``: csv or tsv; anything
    else: lines, one document per line)."""
    name = str(getattr(obj, "name", "<stream>"))
    name = "<stdin>" if name in ("<stdin>", "0") else name
    text: Iterable[str]
    if isinstance(obj, io.TextIOBase):
        text = obj
    else:
        text = io.TextIOWrapper(obj, encoding=_text_encoding(opts.encoding), errors=_ERRORS,
                                newline="")  # fmt: skip
    it = iter(text)
    if fmt is not None:
        return Stream(name, it), fmt
    first = next(it, "")
    lines = itertools.chain([first], it)
    return Stream(name, lines), _sniff(first, opts)


def _sniff(first: str, opts: Options) -> str:
    line = first.strip("\r\n\ufeff")
    if line.lstrip().startswith("{"):
        with contextlib.suppress(ValueError):
            if isinstance(json.loads(line), dict):
                return "jsonl"
    for delimiter, fmt in ((opts.delimiter or ",", "csv"), ("\t", "tsv")):
        try:
            fields = next(csv.reader([line], delimiter=delimiter), [])
        except csv.Error:  # (a field over the csv module's limit: a document, no header)
            continue
        if opts.text_col in fields:
            return fmt
    return "lines"


def _is_gzip(path: Path | Stream) -> bool:
    if isinstance(path, Stream):
        return False
    with open(path, "rb") as f:
        return f.read(2) == _GZIP_MAGIC


def _open_text(
    path: Path | Stream, encoding: str, newline: str | None, errors: str = _ERRORS
) -> Any:
    """Open a (possibly gzip-compressed) file as text, marking invalid bytes (or as
    ``errors`` says; a stream: its lines, as they are)."""
    if isinstance(path, Stream):
        return contextlib.nullcontext(path.lines)
    enc = _text_encoding(encoding)
    packed = _is_gzip(path)
    try:
        check_text_file(path, encoding, packed)
    except _GzipCutShort:
        pass  # (reading says so, with the line)
    if packed:
        return gzip.open(path, "rt", encoding=enc, errors=errors, newline=newline)
    return open(path, encoding=enc, errors=errors, newline=newline)


_SNIFF_BYTES = 4096
#: the magic bytes of compressions nbayes does not read (gzip it does), and the tool
#: that decompresses them
_OTHER_COMPRESSIONS = (
    (b"\xfd7zXZ\x00", "xz", "xz -d"),
    (b"BZh", "bzip2", "bunzip2"),
    (b"\x28\xb5\x2f\xfd", "zstd", "zstd -d"),
    (b"PK\x03\x04", "zip", "unzip"),
    (b"7z\xbc\xaf\x27\x1c", "7-Zip", "7z x"),
)


class _GzipCutShort(ValueError):
    """A gzip stream that ends (or breaks) within the bytes :func:`check_text_file` reads."""


def check_text_file(
    path: str | os.PathLike[str], encoding: str = "utf-8", packed: bool | None = None
) -> None:
    """:func:`_check_text_bytes` of a file's first bytes (decompressed, for gzip:
    ``packed``, found from the file if None): a ValueError if the file is no text of
    ``encoding`` (:func:`_open_text` asks before reading; so does a reader that is not
    nbayes's, ``nbayes train --workers``, whose Dask workers read with pandas)."""
    p = Path(path)
    opener: Any = gzip.open if (_is_gzip(p) if packed is None else packed) else open
    try:
        with opener(p, "rb") as f:
            head = f.read(_SNIFF_BYTES)
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise _GzipCutShort(str(_gzip_guard(p, e))) from None
    _check_text_bytes(p, head, encoding)


def _check_text_bytes(path: Path, head: bytes, encoding: str) -> None:
    """A ValueError saying what a file is when its first bytes show it is no text of
    ``encoding``: another compression than gzip, UTF-16 or UTF-32 read as an 8-bit
    encoding, or a binary file (NUL bytes). Such files were read as garbage: a "column not
    found" error listing mojibake names, with advice to change the delimiter (a trial)."""
    for magic, name, tool in _OTHER_COMPRESSIONS:
        if head.startswith(magic):
            raise ValueError(
                f"{str(path)!r} is compressed with {name}, which nbayes does not read (gzip "
                f"it does): decompress it first (e.g. `{tool}`)."
            )
    codec = codecs.lookup(encoding).name
    if codec.startswith(("utf-16", "utf-32")):
        return
    wide = None
    if head.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        wide = "utf-32"
    elif head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        wide = "utf-16"
    elif b"\x00" in head:
        even, odd = head[0::2], head[1::2]
        if head and (even.count(0) > 0.4 * len(even) or odd.count(0) > 0.4 * len(odd)):
            wide = "utf-16"  # (text of mostly ASCII characters, every other byte NUL)
        else:
            raise ValueError(
                f"{str(path)!r} is not a text file: it holds NUL bytes (a binary file, or text "
                f"in an encoding nbayes was not told).{pass_option('encoding', 'if it is text')}"
            )
    if wide is not None:
        raise ValueError(
            f"{str(path)!r} is {wide.upper()} text (read as {encoding}, its column names and "
            f"texts would be garbage).{pass_option('encoding', 'to read it', wide)}"
        )


def _read_bytes(path: Path) -> bytes:
    if _is_gzip(path):
        try:
            with gzip.open(path, "rb") as f:
                return f.read()
        except (gzip.BadGzipFile, EOFError, zlib.error) as e:
            raise _gzip_guard(path, e) from None
    return path.read_bytes()


def _text_encoding(encoding: str) -> str:
    # Strip a UTF-8 byte order mark at the start of a file.
    return "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding


def _gzip_guard(path: Path | Stream, exc: BaseException) -> ValueError:
    return ValueError(f"{str(path)!r} is not a valid gzip file or is truncated: {exc}")
