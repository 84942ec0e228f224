"""Stream labelled (or unlabelled) text documents from files, in bounded memory.

The one public entry point is :func:`read_texts`; it yields :class:`TextChunk`
objects of at most ``chunk_size`` documents each, from CSV/TSV, JSON lines,
Parquet (all optionally gzip-compressed, except Parquet) or from a folder per
class (``root/<label>/<document>``, as 20 Newsgroups and aclImdb ship).

Which files a source names is decided in :mod:`nbayes.io._sources`; the rows of each
file format are read in :mod:`nbayes.io._formats`, from files opened by
:mod:`nbayes.io._opening`.
"""

from __future__ import annotations

import codecs
import contextlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nbayes.io import input_formats
from nbayes.io._formats import doc_rows
from nbayes.io._meter import Meter
from nbayes.io._opening import (
    BAD_ROWS,
    BadRow,
    BadRows,
    Decoding,
    Options,
    Stream,
    check_text_file,
    open_stream,
    option_names,
    option_spelling,
    skipped_text,
)
from nbayes.io._sources import Unit, resolve
from nbayes.io.input_formats import by_name, row_reader

__all__ = [
    "BAD_ROWS",
    "BadRow",
    "TextChunk",
    "check_text_file",
    "documents_are_named",
    "option_names",
    "option_spelling",
    "part_rows",
    "read_texts",
    "skipped_text",
    "SUPPORTED_FORMATS",
]

#: Formats understood by :func:`read_texts` (values of its ``format`` parameter): tables,
#: plain text with one document per line, and plain text that is one document.
SUPPORTED_FORMATS = input_formats.names()

#: Default upper bound on the length of one CSV field, in characters (16 Mi: a hundred
#: times the longest document of 20 Newsgroups). It bounds what a quote that never closes
#: makes the reader buffer (Python's csv holds a field as 4 bytes per character).
_DEFAULT_MAX_FIELD_CHARS = 16 * 1024 * 1024


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
        folder (``root/<label>``); ``"<stdin>"`` (or the file object's name) for
        an open file.
    start_row : int
        0-based index, within ``source``, of the first document of the chunk:
        the data row (header excluded, blank lines not counted) of a table, or
        the position of the file in the sorted listing of a class folder.  Rows
        skipped with ``bad_rows="skip"`` are counted too, and a chunk never
        spans one: its documents are the rows ``start_row, start_row + 1, ...``.
    files : list of str or None
        For documents that are files (a class folder, a plain-text file): the path
        of each; None for the rows of a table.
    share : float or None
        The share of the call's input read once this chunk was: by bytes, the files'
        sizes on disk (a gzip file's compressed size), and within the file being read its
        position (rows of a Parquet file, files of a class folder); None when reading an
        open stream, whose size is not known. For a progress bar: it grows with each
        chunk, up to 1.0 (reading ahead makes it run a little before the rows).
    ids : list or None
        With ``id_col``: each document's value in that column (a key to join answers
        on), None where a row has none; else None.
    """

    texts: list[str]
    labels: list[Any] | None
    source: str
    start_row: int
    files: list[str] | None = None
    share: float | None = None
    ids: list[Any] | None = None

    def __len__(self) -> int:
        return len(self.texts)

    def names(self) -> list[str]:
        """A name for each document: its file, else ``source:row`` (0-based row)."""
        if self.files is not None:
            return list(self.files)
        return [f"{self.source}:{self.start_row + i}" for i in range(len(self.texts))]


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
    bad_rows: str = "error",
    on_bad_row: Callable[[BadRow], None] | None = None,
    id_col: str | None = None,
) -> Iterator[TextChunk]:
    """Read text documents (and their labels) chunk by chunk.

    Memory stays bounded: at any time the reader holds about one chunk of
    documents plus one I/O buffer, whatever the size of the files.

    Parameters
    ----------
    source : str, os.PathLike, open file or sequence of them
        A file, a folder, a glob pattern (``"data/*.csv.gz"``, sorted matches;
        ``**`` recurses), an open file (text, or binary decoded with
        ``encoding``; e.g. ``sys.stdin.buffer``) or a list of any of these, read
        in order.  The format of a file follows from its extension (see
        ``SUPPORTED_FORMATS``): a plain-text file (``.txt``, ``.text``, ``.eml``
        or no extension) is one document; gzip compression is detected from the
        magic bytes, and a trailing ``.gz`` is ignored when choosing the format.
        The format of an open file follows from its first line: a JSON object
        (JSON lines), a CSV or TSV header that names ``text_col``, else one
        document per line.  A folder that has sub-folders is a
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
    format : {"csv", "tsv", "jsonl", "parquet", "lines", "document"} or None
        Force the format of every file instead of inferring it: ``"lines"`` reads
        one document per line (blank lines skipped), ``"document"`` a whole file
        as one document. These two have no labels (give ``label_col=None``).

        .. versionchanged:: 0.4
           ``"lines"`` and ``"document"``, and open files as sources.
    delimiter : str or None
        CSV field delimiter; default ``","`` for csv and ``"\\t"`` for tsv.
        Quoting follows RFC 4180 in both (``"`` quotes, doubled inside).
    encoding : str, default "utf-8"
        Text encoding of CSV/TSV/JSON lines/plain-text files and of binary
        Parquet text columns.  A UTF-8 byte order mark at the start of a file is
        removed.  Invalid bytes never stop reading: they are replaced by U+FFFD
        and one :class:`~nbayes.exceptions.DecodingWarning` per call reports how
        many documents were affected and the first one.
    max_field_chars : int, default 16 Mi
        Longest CSV field accepted (a guard against an unbalanced quote reading
        a whole file into one field: the error names the line where the quote
        opened).  Python's ``csv.field_size_limit`` is
        raised to this value only while a record is being parsed and restored
        right after, so the process-wide setting is left unchanged (another
        thread parsing CSV at the same instant could observe the raised limit).
    bad_rows : {"error", "skip"}, default "error"
        What a bad row does: ``"error"`` stops with a ValueError naming it;
        ``"skip"`` leaves it out, counts it and goes on (for dirty dumps).  The
        bad rows are a missing text (``null`` or absent) or label (``null``,
        absent, or an empty CSV field), a JSON line that is not valid JSON or
        not an object, a text that is not a string, and a CSV/TSV record whose
        number of fields differs from the header's.  What spoils more than a row
        is an error either way: a file that cannot be read, a missing column (in
        JSON lines: a key that no record before had), a quote that never closes
        (or a field over ``max_field_chars``), a corrupt gzip stream, an unknown
        format.  Invalid bytes are never bad rows (see ``encoding``); plain text
        and class folders have none.  Skipped rows still count in row numbers
        (``TextChunk.start_row``).  If every row was bad, the call raises
        ValueError ("no documents") instead of yielding nothing.

        .. versionadded:: 0.5
    on_bad_row : callable or None, default None
        With ``bad_rows="skip"``, called with a :class:`BadRow` (``source``,
        ``row``, ``line``, ``reason``, ``message``) for each row skipped, as it
        is read.  Without it, one :class:`~nbayes.exceptions.SkippedRowsWarning`
        per call, after the last chunk, counts them and names the first few.
    id_col : str or None, default None
        A column (key) of a table to carry beside each document (``TextChunk.ids``): a
        key to join answers on. The column must exist (in JSON lines, in the first
        record); a row without a value there (an empty CSV field, ``null``, a later JSON
        record without the key) is no bad row: its id is the empty string (CSV/TSV) or
        None. Plain text and class folders have no columns: their documents are named by
        their files (``TextChunk.files``) and lines, and ``id_col`` is a ValueError there.

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
        JSON line; a corrupt gzip stream (with ``bad_rows="skip"``, only what
        spoils more than a row, and a source of bad rows only).
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
    if id_col is not None and not isinstance(id_col, str):
        raise TypeError(f"id_col must be a str or None, got {type(id_col).__name__}.")
    codecs.lookup(encoding)  # LookupError for an unknown encoding, right away
    if max_field_chars < 1:
        raise ValueError(f"max_field_chars must be positive, got {max_field_chars!r}.")
    if bad_rows not in BAD_ROWS:
        raise ValueError(f"bad_rows must be one of {BAD_ROWS}, got {bad_rows!r}.")
    if on_bad_row is not None and not callable(on_bad_row):
        raise TypeError(f"on_bad_row must be callable or None, got {type(on_bad_row).__name__}.")

    units = list(resolve(source, format))
    opts = Options(
        meter=Meter.of_units(units),
        text_col=text_col,
        label_col=label_col,
        chunk_size=chunk_size,
        max_chunk_chars=max_chunk_chars,
        delimiter=delimiter,
        encoding=encoding,
        max_field_chars=max_field_chars,
        bad_rows=BadRows(bad_rows, on_bad_row),
        id_col=id_col,
    )
    return _generate(units, opts)


def _no_columns_for_ids(name: str, kind: str, fmt: str) -> ValueError:
    """``id_col`` of plain text or a class folder, which have no columns."""
    option = (option_spelling() or {}).get("id_col", "id_col").split()[0]
    what = "a folder of documents" if kind == "docs" else f"plain text ({fmt})"
    return ValueError(
        f"{name!r} is {what}: it has no column for {option} to name (its documents are "
        "named by their files and lines). Give the ids in a column of a table (CSV/TSV, "
        "JSON lines, Parquet)."
    )


def documents_are_named(
    source: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], format: str | None = None
) -> bool:
    """Whether :func:`read_texts` of ``source`` reads documents that are files, or rows of
    more than one table (so that a document is named by its file, or ``file:row``, as
    :meth:`TextChunk.names` names it), rather than the rows of one table (named by their
    row numbers): known from the sources, before a row is read (a command that writes an
    answer per document as it reads them chooses its column so; tests/cli/test_cli.py's
    ``test_predict_answers_a_chunk_at_a_time_as_before``)."""
    units = list(resolve(source, format))
    files = sum(1 for kind, _, extra in units if kind == "docs" or extra == "document")
    return files > 0 or len(units) > 1


def _generate(units: list[Unit], opts: Options) -> Iterator[TextChunk]:
    decoding = Decoding()
    skipped = opts.bad_rows
    found = False
    try:
        for kind, path, extra in units:
            opts.meter.next_unit()
            rows: Iterator[tuple[Any, ...]]
            files: list[str] | None = None
            if kind == "stream":
                path, extra = open_stream(path, extra, opts)
                if not by_name(extra).streamable:
                    raise ValueError(f"A {extra} file cannot be read from a stream; give its path.")
            if kind == "docs":
                rows = doc_rows(path, extra, opts, decoding)
                files = [str(p) for p in extra]
            else:
                rows = row_reader(extra)(path, opts, decoding)
                if extra == "document":
                    files = [str(path)]
            name = path.name if kind == "stream" else str(path)
            if opts.id_col is not None and (kind == "docs" or not by_name(extra).table):
                raise _no_columns_for_ids(name, kind, extra)
            for chunk in _chunks(rows, name, opts, files):
                found = True
                yield chunk
    except GeneratorExit:
        # The consumer stopped early: report what was seen so far.
        decoding.warn(opts.encoding, partial=True)
        skipped.warn(partial=True)
        raise
    if skipped.count and not found:  # skipping never makes bad data look empty
        raise skipped.all_bad()
    # Reported once per call, after the last chunk.
    decoding.warn(opts.encoding, partial=False)
    skipped.warn(partial=False)


def _chunks(
    rows: Iterable[tuple[Any, ...]], source: str, opts: Options, files: list[str] | None = None
) -> Iterator[TextChunk]:
    labelled = opts.label_col is not None
    size, budget = opts.chunk_size, opts.max_chunk_chars
    skipped = opts.bad_rows
    seen = skipped.count
    carried = opts.id_col is not None
    texts: list[str] = []
    labels: list[Any] = []
    ids: list[Any] = []
    start = 0
    chars = 0

    def chunk() -> TextChunk:
        names = None if files is None else files[start : start + len(texts)]
        return TextChunk(texts, labels if labelled else None, source, start, names,
                         opts.meter.share(), ids if carried else None)  # fmt: skip

    for row in rows:
        if skipped.count != seen:  # rows skipped before this one: a chunk never spans them
            if texts:
                yield chunk()
                start += len(texts)
                texts, labels, ids, chars = [], [], [], 0
            start += skipped.count - seen
            seen = skipped.count
        text = row[0]
        texts.append(text)
        if labelled:
            labels.append(row[1])
        if carried:
            ids.append(row[2])
        if budget is not None:
            chars += len(text)
        if len(texts) >= size or (budget is not None and chars >= budget):
            yield chunk()
            start += len(texts)
            texts, labels, ids, chars = [], [], [], 0
    if texts:
        yield chunk()


def part_rows(
    part: str | os.PathLike[str] | Iterable[str],
    format: str,
    name: str,
    text_col: str = "text",
    label_col: str | None = "label",
    *,
    on_bad_row: Callable[[BadRow], None],
    delimiter: str | None = None,
    encoding: str = "utf-8",
    max_field_chars: int = _DEFAULT_MAX_FIELD_CHARS,
    again: Callable[[], Iterable[str]] | None = None,
    keys_seen: bool = False,
    spelling: Mapping[str, str] | None = None,
) -> Iterator[tuple[Any, ...]]:
    """The ``(text, label)`` rows of one table, or of a part of one, read as
    :func:`read_texts` reads them with ``bad_rows="skip"``: each bad row is handed to
    ``on_bad_row``, what spoils more than a row raises ValueError. For readers of files in
    parts (:mod:`nbayes.distributed` reads a big file in blocks, on its workers).

    Parameters
    ----------
    part : path or iterable of str
        A file of the table format ``format``, or the lines of a part of one (with their
        line breaks; a CSV/TSV part starts with the header line), already decoded.
    name : str
        The table as messages name it.
    again : callable, default=None
        The lines of ``part`` once more, from the first (a part in memory): then a quote
        that never closes is found where it opens, as in a file.
    keys_seen : bool, default=False
        JSON lines: the part does not start the file, and a record before it had the
        keys, so that a key missing is a bad row (not a wrong ``text_col``).
    spelling : mapping, default=None
        How advice names the options (as :func:`option_names`; None: as Python does).

    Row and line numbers (in messages and :class:`BadRow`) count from the start of
    ``part``; no row at all is no error, and no warning is given.
    """
    opts = Options(
        text_col=text_col,
        label_col=label_col,
        chunk_size=1,
        max_chunk_chars=None,
        delimiter=delimiter,
        encoding=encoding,
        max_field_chars=max_field_chars,
        bad_rows=BadRows("skip", on_bad_row),
        keys_seen=keys_seen,
    )
    if isinstance(part, (str, os.PathLike)):
        source: Any = Path(part)
    else:
        source = Stream(name, iter(part), again)
    with option_names(spelling) if spelling is not None else contextlib.nullcontext():
        yield from row_reader(format)(source, opts, Decoding())
