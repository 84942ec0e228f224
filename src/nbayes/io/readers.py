"""Stream labelled (or unlabelled) text documents from files, in bounded memory.

The one public entry point is :func:`read_texts`; it yields :class:`TextChunk`
objects of at most ``chunk_size`` documents each, from CSV/TSV, JSON lines,
Parquet (all optionally gzip-compressed, except Parquet) or from a folder per
class (``root/<label>/<document>``, as 20 Newsgroups and aclImdb ship).
"""

from __future__ import annotations

import codecs
import csv
import gzip
import json
import os
import warnings
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TextIO

from nbayes.exceptions import DecodingWarning

__all__ = ["TextChunk", "read_texts", "SUPPORTED_FORMATS"]

#: Formats understood by :func:`read_texts` (values of its ``format`` parameter).
SUPPORTED_FORMATS = ("csv", "tsv", "jsonl", "parquet")

_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_SUPPORTED_TEXT = (
    "supported are .csv, .tsv, .tab, .jsonl, .ndjson, .parquet, .pq, the gzip-compressed "
    ".csv.gz, .tsv.gz, .jsonl.gz, .ndjson.gz, and a folder per class (root/<label>/<file>)"
)
_GZIP_MAGIC = b"\x1f\x8b"
_GLOB_CHARS = frozenset("*?[")

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

#: Default upper bound on the length of one CSV field, in characters.  It
#: protects against an unbalanced quote swallowing the rest of a huge file.
_DEFAULT_MAX_FIELD_CHARS = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class TextChunk:
    """A batch of documents read by :func:`read_texts`.

    Attributes
    ----------
    texts : list of str
        The documents, in file order.
    labels : list or None
        One label per document (``str`` for CSV/TSV and folders, the JSON value
        for JSON lines, the Arrow value as a Python object for Parquet), or
        ``None`` when read with ``label_col=None``.
    source : str
        The file the documents come from; for a folder per class, the class
        folder (``root/<label>``).
    start_row : int
        0-based index, within ``source``, of the first document of the chunk:
        the data row (header excluded, blank lines not counted) of a table, or
        the position of the file in the sorted listing of a class folder.
    """

    texts: list[str]
    labels: list[Any] | None
    source: str
    start_row: int

    def __len__(self) -> int:
        return len(self.texts)


@dataclass
class _Decoding:
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
            + " Pass encoding=... (e.g. encoding='latin-1') if the files use another encoding."
        )
        warnings.warn(msg, DecodingWarning, stacklevel=3)


def read_texts(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    text_col: str = "text",
    label_col: str | None = "label",
    *,
    chunk_size: int = 10_000,
    max_chunk_chars: int | None = None,
    format: str | None = None,
    delimiter: str | None = None,
    encoding: str = "utf-8",
    max_field_chars: int = _DEFAULT_MAX_FIELD_CHARS,
) -> Iterator[TextChunk]:
    """Read text documents (and their labels) chunk by chunk.

    Memory stays bounded: at any time the reader holds about one chunk of
    documents plus one I/O buffer, whatever the size of the files.

    Parameters
    ----------
    source : str, os.PathLike or sequence of them
        A file, a folder, a glob pattern (``"data/*.csv.gz"``, sorted matches;
        ``**`` recurses) or a list of any of these, read in order.  The format
        of a file follows from its extension (see ``SUPPORTED_FORMATS``); gzip
        compression is detected from the magic bytes, and a trailing ``.gz`` is
        ignored when choosing the format.  A folder that has sub-folders is a
        *folder per class*: every regular file of ``root/<label>/`` (sorted,
        hidden files skipped, no deeper recursion) is one document labelled
        ``<label>``; files directly in ``root`` are ignored (aclImdb keeps
        metadata there).  A folder without sub-folders is read as a folder of
        tables when all its files have table extensions, otherwise as one class
        whose label is the folder's name.
    text_col : str, default "text"
        Column (CSV/TSV/Parquet) or key (JSON lines) holding the documents.
        Ignored for class folders.
    label_col : str or None, default "label"
        Column or key holding the labels; ``None`` reads unlabelled data
        (``TextChunk.labels`` is ``None``).
    chunk_size : int, default 10_000
        Maximum number of documents per chunk.  Chunks never span two
        sources, so the last chunk of each file may be shorter.
    max_chunk_chars : int or None, default None
        Optional budget: a chunk is also closed as soon as its texts total at
        least this many characters (a chunk always holds at least one document).
    format : {"csv", "tsv", "jsonl", "parquet"} or None
        Force the format of every file instead of inferring it from extensions.
    delimiter : str or None
        CSV field delimiter; default ``","`` for csv and ``"\\t"`` for tsv.
        Quoting follows RFC 4180 in both (``"`` quotes, doubled inside).
    encoding : str, default "utf-8"
        Text encoding of CSV/TSV/JSON lines/plain-text files and of binary
        Parquet text columns.  A UTF-8 byte order mark at the start of a file is
        removed.  Invalid bytes never stop reading: they are replaced by U+FFFD
        and one :class:`~nbayes.exceptions.DecodingWarning` per call reports how
        many documents were affected and the first one.
    max_field_chars : int, default 256 Mi
        Longest CSV field accepted (a guard against an unbalanced quote reading
        a whole file into one field).  Python's ``csv.field_size_limit`` is
        raised to this value only while a record is being parsed and restored
        right after, so the process-wide setting is left unchanged (another
        thread parsing CSV at the same instant could observe the raised limit).

    Yields
    ------
    TextChunk
        Non-empty chunks of documents; a source without data rows (header
        only, or an empty file) yields nothing.

    Raises
    ------
    FileNotFoundError
        A path does not exist or a glob pattern matches nothing (raised at the
        call, before iterating).
    ValueError
        Unknown format; a missing column (the message lists the existing
        ones); a missing label (``null``, absent, or an empty CSV field) or a
        missing text (``null`` or absent; an empty string is kept as an empty
        document) in a row, naming the file and row; a malformed CSV record or
        JSON line; a corrupt gzip stream.
    ImportError
        A Parquet file is read and pyarrow is not installed.

    Notes
    -----
    Row numbers in messages are the 0-based data-row indices used by
    ``TextChunk.start_row``; line numbers are 1-based physical lines.  Blank
    lines of CSV/TSV and JSON lines files are skipped.  A CSV record whose
    number of fields differs from the header's is an error (it usually betrays
    a quoting problem).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> path = folder / "reviews.csv"
    >>> _ = path.write_text('text,label\\n"Great, loved it",pos\\nBoring,neg\\nMeh,neg\\n')
    >>> for chunk in read_texts(path, chunk_size=2):
    ...     print(chunk.start_row, chunk.texts, chunk.labels)
    0 ['Great, loved it', 'Boring'] ['pos', 'neg']
    2 ['Meh'] ['neg']
    >>> [c.texts for c in read_texts(path, label_col=None)]
    [['Great, loved it', 'Boring', 'Meh']]
    """
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
    if max_chunk_chars is not None and (
        isinstance(max_chunk_chars, bool)
        or not isinstance(max_chunk_chars, int)
        or max_chunk_chars < 1
    ):
        raise ValueError(
            f"max_chunk_chars must be None or a positive integer, got {max_chunk_chars!r}."
        )
    if format is not None and format not in SUPPORTED_FORMATS:
        raise ValueError(f"format must be None or one of {SUPPORTED_FORMATS}, got {format!r}.")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1):
        raise ValueError(f"delimiter must be a single character, got {delimiter!r}.")
    if not isinstance(text_col, str):
        raise TypeError(f"text_col must be a str, got {type(text_col).__name__}.")
    if label_col is not None and not isinstance(label_col, str):
        raise TypeError(f"label_col must be a str or None, got {type(label_col).__name__}.")
    codecs.lookup(encoding)  # LookupError for an unknown encoding, right away
    if max_field_chars < 1:
        raise ValueError(f"max_field_chars must be positive, got {max_field_chars!r}.")

    units = list(_resolve(source, format))
    opts = _Options(
        text_col=text_col,
        label_col=label_col,
        chunk_size=chunk_size,
        max_chunk_chars=max_chunk_chars,
        delimiter=delimiter,
        encoding=encoding,
        max_field_chars=max_field_chars,
    )
    return _generate(units, opts)


@dataclass(frozen=True)
class _Options:
    text_col: str
    label_col: str | None
    chunk_size: int
    max_chunk_chars: int | None
    delimiter: str | None
    encoding: str
    max_field_chars: int


# A unit of work: ("table", path, format) or ("docs", folder, [files]).
_Unit = tuple[str, Path, Any]


def _generate(units: list[_Unit], opts: _Options) -> Iterator[TextChunk]:
    decoding = _Decoding()
    try:
        for kind, path, extra in units:
            rows: Iterator[tuple[str, Any]]
            if kind == "docs":
                rows = _doc_rows(path, extra, opts, decoding)
            elif extra == "parquet":
                rows = _parquet_rows(path, opts, decoding)
            elif extra == "jsonl":
                rows = _jsonl_rows(path, opts, decoding)
            else:
                rows = _csv_rows(path, extra, opts, decoding)
            yield from _chunks(rows, str(path), opts)
    except GeneratorExit:
        # The consumer stopped early: report what was seen so far.
        decoding.warn(opts.encoding, partial=True)
        raise
    # Reported once per call, after the last chunk.
    decoding.warn(opts.encoding, partial=False)


def _chunks(rows: Iterable[tuple[str, Any]], source: str, opts: _Options) -> Iterator[TextChunk]:
    labelled = opts.label_col is not None
    size, budget = opts.chunk_size, opts.max_chunk_chars
    texts: list[str] = []
    labels: list[Any] = []
    start = 0
    chars = 0
    for text, label in rows:
        texts.append(text)
        if labelled:
            labels.append(label)
        if budget is not None:
            chars += len(text)
        if len(texts) >= size or (budget is not None and chars >= budget):
            yield TextChunk(texts, labels if labelled else None, source, start)
            start += len(texts)
            texts, labels, chars = [], [], 0
    if texts:
        yield TextChunk(texts, labels if labelled else None, source, start)


# --------------------------------------------------------------------------- sources


def _has_glob(s: str) -> bool:
    return any(c in _GLOB_CHARS for c in s)


def _resolve(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], fmt: str | None
) -> Iterator[_Unit]:
    if isinstance(source, (str, os.PathLike)):
        items: Sequence[str | os.PathLike[str]] = [source]
    elif isinstance(source, Sequence) and not isinstance(source, (bytes, bytearray)):
        items = source
        if not items:
            raise ValueError("source is an empty list; give at least one path.")
    else:
        raise TypeError(
            "source must be a path (str or os.PathLike), a glob pattern or a list of paths, "
            f"got {type(source).__name__}."
        )
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise TypeError(f"Each source must be a str or os.PathLike, got {type(item).__name__}.")
        path = Path(item)
        if path.exists():
            yield from _resolve_path(path, fmt)
        elif isinstance(item, str) and _has_glob(item):
            import glob

            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                raise FileNotFoundError(f"No file matches the pattern {item!r}.")
            for m in matches:
                yield from _resolve_path(Path(m), fmt)
        else:
            raise FileNotFoundError(f"No such file or directory: {os.fspath(item)!r}")


def _format_of(path: Path, fmt: str | None) -> str:
    if fmt is not None:
        return fmt
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
        if suffixes and _EXTENSIONS.get(suffixes[-1]) == "parquet":
            raise ValueError(
                f"Cannot read {str(path)!r}: Parquet files are compressed internally and "
                "cannot be read gzip-compressed; decompress the file first."
            )
    found = _EXTENSIONS.get(suffixes[-1]) if suffixes else None
    if found is None:
        raise ValueError(
            f"Cannot tell the format of {str(path)!r} from its extension; {_SUPPORTED_TEXT}. "
            "Pass format='csv', 'tsv', 'jsonl' or 'parquet' to choose."
        )
    return found


def _visible(entries: Iterable[os.DirEntry[str]]) -> list[os.DirEntry[str]]:
    return sorted((e for e in entries if not e.name.startswith(".")), key=lambda e: e.name)


def _resolve_path(path: Path, fmt: str | None) -> Iterator[_Unit]:
    if not path.is_dir():
        yield ("table", path, _format_of(path, fmt))
        return
    with os.scandir(path) as it:
        entries = _visible(it)
    subdirs = [e for e in entries if e.is_dir()]
    files = [e for e in entries if e.is_file()]
    if subdirs:
        for sub in subdirs:
            with os.scandir(sub.path) as it:
                docs = [Path(e.path) for e in _visible(it) if e.is_file()]
            yield ("docs", Path(sub.path), docs)
        return
    tables = [f for f in files if _is_table_name(f.name)]
    if fmt is not None or (files and len(tables) == len(files)):
        for f in files:
            yield ("table", Path(f.path), _format_of(Path(f.path), fmt))
    elif not tables:
        yield ("docs", path, [Path(f.path) for f in files])
    else:
        raise ValueError(
            f"The folder {str(path)!r} mixes tables ({tables[0].name!r}, ...) and other files; "
            "give the tables (a list or a glob pattern) or a folder per class."
        )


def _is_table_name(name: str) -> bool:
    suffixes = [s.lower() for s in Path(name).suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes = suffixes[:-1]
    return bool(suffixes) and suffixes[-1] in _EXTENSIONS


# --------------------------------------------------------------------------- opening


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == _GZIP_MAGIC


def _open_text(path: Path, encoding: str, newline: str | None) -> TextIO:
    """Open a (possibly gzip-compressed) file as text, marking invalid bytes."""
    enc = _text_encoding(encoding)
    if _is_gzip(path):
        return gzip.open(path, "rt", encoding=enc, errors=_ERRORS, newline=newline)
    return open(path, encoding=enc, errors=_ERRORS, newline=newline)


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


def _gzip_guard(path: Path, exc: BaseException) -> ValueError:
    return ValueError(f"{str(path)!r} is not a valid gzip file or is truncated: {exc}")


def _columns_text(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names) if names else "(none)"


def _missing_column(which: str, name: str, path: Path, names: Sequence[str], what: str) -> NoReturn:
    raise ValueError(
        f"Column {name!r} not found in {path.name}; the {what} are: {_columns_text(names)}. "
        f"Pass {which}=... to choose."
    )


# --------------------------------------------------------------------------- CSV / TSV


def _csv_rows(
    path: Path, fmt: str, opts: _Options, decoding: _Decoding
) -> Iterator[tuple[str, Any]]:
    delimiter = opts.delimiter or ("\t" if fmt == "tsv" else ",")
    limit = opts.max_field_chars
    src = str(path)
    with _open_text(path, opts.encoding, newline="") as f:
        reader = csv.reader(f, delimiter=delimiter, quotechar='"', doublequote=True, strict=False)

        def next_record() -> list[str] | None:
            old = csv.field_size_limit(limit)
            try:
                return next(reader, None)
            except csv.Error as e:
                if "field larger than field limit" in str(e):
                    raise ValueError(
                        f"{src}, line {reader.line_num}: a field is longer than "
                        f"max_field_chars={limit} characters; is a quote unbalanced?"
                    ) from None
                raise ValueError(f"{src}, line {reader.line_num}: malformed record: {e}") from None
            except (gzip.BadGzipFile, EOFError, zlib.error) as e:
                raise _gzip_guard(path, e) from None
            finally:
                csv.field_size_limit(old)

        header = next_record()
        while header == []:  # leading blank lines
            header = next_record()
        if header is None:
            return
        if _MARK in "".join(header):
            header = [h.replace(_MARK, "\ufffd") for h in header]
        if opts.text_col not in header:
            _missing_column("text_col", opts.text_col, path, header, "columns")
        ti = header.index(opts.text_col)
        label_col = opts.label_col
        li = -1
        if label_col is not None:
            if label_col not in header:
                _missing_column("label_col", label_col, path, header, "columns")
            li = header.index(label_col)
        width = len(header)
        row_i = 0
        while True:
            rec = next_record()
            if rec is None:
                return
            if not rec:
                continue  # blank line
            if len(rec) != width:
                raise ValueError(
                    f"{src}, row {row_i} (line {reader.line_num}): {len(rec)} field(s), but the "
                    f"header has {width}; check the quoting and the delimiter ({delimiter!r})."
                )
            text = rec[ti]
            label: Any = rec[li] if li >= 0 else None
            if _MARK in text or (li >= 0 and _MARK in label):
                decoding.record(src, f"row {row_i} (line {reader.line_num}) of {src}")
                text = text.replace(_MARK, "\ufffd")
                if li >= 0:
                    label = label.replace(_MARK, "\ufffd")
            if li >= 0 and label == "":
                raise ValueError(f"{src}, row {row_i} (line {reader.line_num}): missing label.")
            yield text, label
            row_i += 1


# --------------------------------------------------------------------------- JSON lines

_FIRST_KEYS = "keys of the first record"


def _jsonl_rows(path: Path, opts: _Options, decoding: _Decoding) -> Iterator[tuple[str, Any]]:
    src = str(path)
    text_col, label_col = opts.text_col, opts.label_col
    loads = json.loads
    row_i = 0
    with _open_text(path, opts.encoding, newline=None) as f:
        line_no = 0
        while True:
            try:
                line = f.readline()
            except (gzip.BadGzipFile, EOFError, zlib.error) as e:
                raise _gzip_guard(path, e) from None
            if not line:
                return
            line_no += 1
            if line.isspace():
                continue
            bad = _MARK in line
            if bad:
                line = line.replace(_MARK, "\ufffd")
            try:
                obj = loads(line)
            except json.JSONDecodeError as e:
                raise ValueError(f"{src}, line {line_no}: invalid JSON: {e}") from None
            if not isinstance(obj, dict):
                raise ValueError(
                    f"{src}, line {line_no}: expected a JSON object, got {type(obj).__name__}."
                )
            if text_col not in obj:
                if row_i == 0:
                    _missing_column("text_col", text_col, path, list(obj), _FIRST_KEYS)
                raise ValueError(
                    f"{src}, row {row_i} (line {line_no}): no key {text_col!r} (missing text)."
                )
            text = obj[text_col]
            if not isinstance(text, str):
                what = "missing text (null)" if text is None else f"got {type(text).__name__}"
                raise ValueError(
                    f"{src}, row {row_i} (line {line_no}): the text must be a string; {what}."
                )
            label = None
            if label_col is not None:
                if label_col not in obj:
                    if row_i == 0:
                        _missing_column("label_col", label_col, path, list(obj), _FIRST_KEYS)
                    raise ValueError(
                        f"{src}, row {row_i} (line {line_no}): "
                        f"no key {label_col!r} (missing label)."
                    )
                label = obj[label_col]
                if label is None:
                    raise ValueError(f"{src}, row {row_i} (line {line_no}): missing label (null).")
            if bad:
                decoding.record(src, f"row {row_i} (line {line_no}) of {src}")
            yield text, label
            row_i += 1


# --------------------------------------------------------------------------- Parquet


def _parquet_rows(path: Path, opts: _Options, decoding: _Decoding) -> Iterator[tuple[str, Any]]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        raise ImportError(
            f"Reading the Parquet file {str(path)!r} requires pyarrow: "
            "pip install 'nbayes[parquet]' (or pip install pyarrow)."
        ) from e
    src = str(path)
    with pq.ParquetFile(path) as pf:
        names = list(pf.schema_arrow.names)
        columns = [opts.text_col]
        if opts.text_col not in names:
            _missing_column("text_col", opts.text_col, path, names, "columns")
        if opts.label_col is not None:
            if opts.label_col not in names:
                _missing_column("label_col", opts.label_col, path, names, "columns")
            if opts.label_col != opts.text_col:
                columns.append(opts.label_col)
        text_type = pf.schema_arrow.field(opts.text_col).type
        if pa.types.is_dictionary(text_type):
            text_type = text_type.value_type
        is_binary = pa.types.is_binary(text_type) or pa.types.is_large_binary(text_type)
        if not (is_binary or pa.types.is_string(text_type) or pa.types.is_large_string(text_type)):
            raise ValueError(
                f"{src}: column {opts.text_col!r} has type {text_type}; expected strings."
            )
        row_i = 0
        batch_size = max(1, min(opts.chunk_size, 65_536))
        for batch in pf.iter_batches(batch_size=batch_size, columns=columns):
            raw_texts = batch.column(opts.text_col).to_pylist()
            labels: list[Any] | None = None
            if opts.label_col is not None:
                labels = batch.column(opts.label_col).to_pylist()
            for j, text in enumerate(raw_texts):
                if text is None:
                    raise ValueError(f"{src}, row {row_i + j}: missing text (null).")
                if is_binary:
                    try:
                        text = text.decode(_text_encoding(opts.encoding))
                    except UnicodeDecodeError:
                        text = text.decode(opts.encoding, errors="replace")
                        decoding.record(src, f"row {row_i + j} of {src}")
                label = None
                if labels is not None:
                    label = labels[j]
                    if label is None:
                        raise ValueError(f"{src}, row {row_i + j}: missing label (null).")
                yield text, label
            row_i += len(raw_texts)


# --------------------------------------------------------------------------- folders


def _doc_rows(
    folder: Path, files: list[Path], opts: _Options, decoding: _Decoding
) -> Iterator[tuple[str, Any]]:
    label = folder.name if opts.label_col is not None else None
    strict_encoding = _text_encoding(opts.encoding)
    for path in files:
        data = _read_bytes(path)
        try:
            text = data.decode(strict_encoding)
        except UnicodeDecodeError:
            text = data.decode(strict_encoding, errors="replace")
            decoding.record(str(path), f"the file {str(path)!r}")
        yield text, label
