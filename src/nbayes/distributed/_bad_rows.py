"""Bad rows skipped on the workers: ``fit_source(..., bad_rows="skip")`` and ``nbayes train
--workers N --bad-rows skip``.

Skipping, every partition is read on its worker by the readers of :mod:`nbayes.io` (not by
pandas), so that the rows skipped are those :func:`nbayes.io.read_texts` skips: a missing
text or label, an invalid JSON line, a CSV record of the wrong width. A CSV/TSV or JSON
lines file is read in dask's blocks (a CSV block after the file's header line), a Parquet
file whole. Each worker counts its block's rows, line breaks and bad rows, numbered from
the block's start (:class:`Skipped`); the client numbers them from the file's start, as the
readers do, from the counts of the file's earlier blocks (:func:`in_files`).

What spoils more than a row stops the fit, as it stops the readers: a missing column, a
quote that never closes (a block that ends inside a quoted field: a quote that never
closes, or a quoted field holding line breaks where the file was cut), every row bad.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import DecodingWarning
from ..io._opening import BadRows
from ..io.input_formats import is_compressed
from ..io.readers import BadRow, option_spelling, part_rows, skipped_text
from . import _read
from ._read import Sources, _format_of, _relative, cut

__all__ = ["BlockError", "Blocks", "Skipped", "in_files", "read_blocks", "read_part"]

#: what ``bad_rows=`` takes (as :func:`nbayes.io.read_texts`)
BAD_ROWS = ("error", "skip")

#: the options of :func:`nbayes.distributed.read` that skipping reads files with
READ_OPTIONS = frozenset({"format", "blocksize", "sep", "encoding", "compression",
                          "storage_options", "max_field_chars"})  # fmt: skip
#: the options ``fit_source`` sets for pandas (not used: the readers of nbayes.io read)
PANDAS_DEFAULTS = frozenset({"dtype", "keep_default_na", "na_values"})


@dataclass
class Blocks:
    """The partitions of files read for a fit that skips bad rows: where each comes from
    (:class:`Sources`), dask's delayed reads of the blocks' bytes (a Parquet file's path),
    and how the readers read them."""

    sources: Sources
    raws: list[Any]
    headers: dict[str, bytes]  # the header line of every CSV file read in several blocks
    text_col: str
    label_col: str
    max_field_chars: int | None = None
    names: list[str] = field(default_factory=list)  # each partition's file, as messages say
    spelling: dict[str, str] | None = None  # how advice names the options (the CLI's flags)
    #: a table's partitions (not documents): how they become rows (``_table_rows.TableRows``)
    table: Any = None
    #: a table's partitions' columns' types, agreed (``_table_rows.agreed``), if needed
    types: list[dict[str, tuple[str, Any]]] | None = None


@dataclass
class Skipped:
    """What a worker read of one partition: its rows (bad ones too), the line breaks of
    its block (the lines the readers counted), its bad rows ``(row, line, reason,
    message)`` numbered from the block's start, and whether bytes that are not valid in
    the encoding were replaced."""

    rows: int = 0
    lines: int = 0
    bad: list[tuple[int | None, int | None, str, str]] = field(default_factory=list)
    invalid_bytes: bool = False


class BlockError(ValueError):
    """An error of the readers in one partition (a missing column, a quote that never
    closes): the message numbers lines from the block's start."""

    def __init__(self, partition: int, message: str) -> None:
        self.partition = partition
        self.message = message
        super().__init__(message)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.partition, self.message))


# ------------------------------------------------------------------- the client
def read_blocks(
    source: str | Sequence[str], text_col: str, label_col: str, read_kw: dict[str, Any]
) -> Blocks:
    """The partitions of ``source`` for a fit that skips bad rows: CSV/TSV and JSON lines
    files in blocks as :func:`nbayes.distributed.read` cuts them (``blocksize``), Parquet
    files one per partition."""
    other = sorted(set(read_kw) - READ_OPTIONS - PANDAS_DEFAULTS)
    if other:
        raise TypeError(
            f"bad_rows='skip' reads the files with the readers of nbayes.io, which take no "
            f"{', '.join(other)}: the options are {', '.join(sorted(READ_OPTIONS))}."
        )
    kw = {k: v for k, v in read_kw.items() if k in READ_OPTIONS}
    first = source if isinstance(source, str) else source[0]
    fmt = kw.pop("format", None) or _format_of(str(first))
    codecs.lookup(kw.get("encoding") or "utf-8")  # LookupError for an unknown one, here
    max_field_chars = kw.pop("max_field_chars", None)
    if fmt not in ("csv", "tsv", "jsonl", "parquet"):
        raise ValueError(f"Unknown format {fmt!r}: use 'csv', 'tsv', 'jsonl' or 'parquet'.")
    if fmt == "parquet":
        sources, raws = _parquet_files(source, kw)
        headers: dict[str, bytes] = {}
    else:
        blocksize = kw.pop("blocksize", "auto")
        auto = isinstance(blocksize, str) and blocksize == "auto"
        if auto:
            blocksize = _read._AUTO_BLOCKSIZE
        if is_compressed(str(first)):
            blocksize = None
        layout = cut(source, fmt, blocksize, auto, kw)
        sources, raws = layout.sources, layout.blocks
        headers = _headers(sources, kw) if fmt in ("csv", "tsv") else {}
    names = [sources.name(path) for path, _, _ in sources.parts]
    spelling = option_spelling()
    return Blocks(
        sources, raws, headers, text_col, label_col, max_field_chars, names,
        None if spelling is None else dict(spelling),
    )  # fmt: skip


def _parquet_files(source: str | Sequence[str], kw: dict[str, Any]) -> tuple[Sources, list[Any]]:
    from fsspec.core import get_fs_token_paths

    fs, _, paths = get_fs_token_paths(source, storage_options=kw.get("storage_options"))
    paths = sorted(paths) if isinstance(source, str) else list(paths)
    if type(fs).__name__ != "LocalFileSystem":
        raise ValueError(
            "bad_rows='skip' reads Parquet files on the workers by their paths, as "
            "nbayes.io.read_texts does: copy them where every worker sees them at the same "
            "path, or leave bad_rows='error'."
        )
    sources = Sources("parquet", [(str(p), 0, 0) for p in paths], relative=_relative(source))
    return sources, [str(p) for p in paths]


def _headers(sources: Sources, kw: dict[str, Any]) -> dict[str, bytes]:
    """The header line (the first that is not blank) of every file cut into blocks."""
    from fsspec.core import url_to_fs

    headers = {}
    for path in sources.split:
        fs, _ = url_to_fs(path, **(kw.get("storage_options") or {}))
        with fs.open(path, "rb") as f:
            line = f.readline()
            # (a BOM on a blank first line is blank too: the readers skip both)
            while line and not line.removeprefix(codecs.BOM_UTF8).strip():
                line = f.readline()
        headers[path] = line if line.endswith(b"\n") else line + b"\n"
    return headers


def in_files(blocks: Blocks, reports: dict[int, Skipped]) -> tuple[list[BadRow], list[str]]:
    """The bad rows the workers skipped, numbered and named as the readers number and
    name them (the row and line in the file), in the files' order; and the files where
    bytes that are not valid in the encoding were replaced."""
    fmt = blocks.sources.format
    rows_before: dict[str, int] = {}
    lines_before: dict[str, int] = {}
    found: list[BadRow] = []
    invalid: list[str] = []
    for i, (path, block, _) in enumerate(blocks.sources.parts):
        report = reports.get(i, Skipped())
        name = blocks.names[i]
        rows, lines = rows_before.get(path, 0), lines_before.get(path, 0)
        if block > 0 and fmt in ("csv", "tsv"):
            lines -= 1  # (the block was read after the file's header line)
        for row, line, reason, message in report.bad:
            at_row = None if row is None else row + rows
            at_line = None if line is None else line + lines
            if block > 0:
                message = _renumbered(message, name, row, line, at_row, at_line)
            elif fmt == "parquet":
                message = message.replace(str(blocks.raws[i]), name, 1)
            found.append(BadRow(name, at_row, at_line, reason, message))
        if report.invalid_bytes and name not in invalid:
            invalid.append(name)
        rows_before[path] = rows_before.get(path, 0) + report.rows
        lines_before[path] = lines_before.get(path, 0) + report.lines
    return found, invalid


def _renumbered(
    message: str, name: str, row: int | None, line: int | None, at_row: int | None,
    at_line: int | None,
) -> str:  # fmt: skip
    """A reader's message about a row of a block, with the row and line in the file."""
    for old, new in (
        (f"{name}, row {row} (line {line})", f"{name}, row {at_row} (line {at_line})"),
        (f"{name}, line {line}", f"{name}, line {at_line}"),
        (f"{name}, row {row}:", f"{name}, row {at_row}:"),  # (a table's row the model refuses)
    ):
        if old in message:
            return message.replace(old, new, 1)
    return message


def report(
    bad: list[BadRow],
    invalid: list[str],
    encoding: str,
    on_bad_row: Callable[[BadRow], None] | None,
    learned: bool,
    all_bad: str | None = None,
) -> None:
    """Hand the bad rows to ``on_bad_row`` (else one :class:`SkippedRowsWarning`), as
    :func:`nbayes.io.read_texts` does; every row bad (``learned`` False) is an error (a
    table's: ``all_bad``, and the rows skipped)."""
    if invalid:
        files = ", ".join(invalid[:3]) + (f" and {len(invalid) - 3} more" if len(invalid) > 3
                                          else "")  # fmt: skip
        warnings.warn(
            f"Documents in {files} contained bytes that are not valid {encoding}; they were "
            "replaced by U+FFFD. Pass encoding=... if the files use another encoding.",
            DecodingWarning,
            stacklevel=3,
        )
    rows = BadRows("skip", on_bad_row)  # (counted, and handed on, as the readers do)
    for row in bad:
        rows.bad(row.message, row.source, row.reason, row.row, row.line)
    if bad and not learned and all_bad is not None:
        raise ValueError(f"{all_bad} {skipped_text(rows.count, rows.first)}.")
    if bad and not learned:
        raise rows.all_bad()
    rows.warn(partial=False)


def located(exc: BlockError, blocks: Blocks) -> ValueError:
    """A reader's error in a partition, with the lines of the file: a block that ends
    inside a quoted field, before the file's end, is either a quote that never closes or
    a quoted field holding line breaks where the file was cut (both said, with what to
    do)."""
    from ._where import _block_start

    path, block, offset = blocks.sources.parts[exc.partition]
    name = blocks.names[exc.partition]
    # (a missing column names the file's name alone, as the readers do)
    message = exc.message.replace(f" in {name};", f" in {os.path.basename(name)};", 1)
    if block == 0:
        return ValueError(message)
    try:
        with open(path, "rb") as f:
            lines = _block_start(f, offset)[0] - (1 if blocks.sources.format != "jsonl" else 0)
    except OSError:  # (not a file here: the lines of the block)
        return ValueError(f"{message} (Lines counted from the start of the block of "
                          f"partition {exc.partition}.)")  # fmt: skip
    message = re.sub(r"\bline (\d+)", lambda m: f"line {int(m.group(1)) + lines}", message)
    last = exc.partition + 1 >= len(blocks.sources.parts) or (
        blocks.sources.parts[exc.partition + 1][0] != path
    )
    if last or "never closes" not in message:
        return ValueError(message)
    opened = re.search(r", line (\d+):", message)
    return ValueError(
        f"{name}, line {opened.group(1) if opened else '?'}: a quote opens there and does "
        f"not close before the end of the block of partition {exc.partition}: either it "
        "never closes (close it, or double the quotes inside a quoted field), or the "
        "file's quoted fields hold line breaks, and it cannot be read in blocks (read it "
        "with blocksize=None, one partition per file; or split it into several files, or "
        "convert it to Parquet or JSON lines)."
    )


# ------------------------------------------------------------------ the workers
def read_part(blocks: Blocks, i: int, raw: Any) -> tuple[list[str], list[Any], Skipped]:
    """On a worker: the documents and labels of partition ``i`` (``raw``: its block's
    bytes, or a Parquet file's path), and what was skipped; a :class:`BlockError` for
    what spoils more than a row."""
    sources = blocks.sources
    path, block, _ = sources.parts[i]
    name = blocks.names[i]
    found = Skipped()

    def skip(row: BadRow) -> None:
        found.bad.append((row.row, row.line, row.reason, row.message))

    options: dict[str, Any] = {
        "on_bad_row": skip, "encoding": sources.encoding, "spelling": blocks.spelling,
    }  # fmt: skip
    if blocks.max_field_chars is not None:
        options["max_field_chars"] = blocks.max_field_chars
    if sources.format in ("csv", "tsv"):
        options["delimiter"] = sources.sep
    texts: list[str] = []
    labels: list[Any] = []
    try:
        if sources.format == "parquet":
            rows = part_rows(raw, "parquet", name, blocks.text_col, blocks.label_col, **options)
        else:
            head = blocks.headers.get(path, b"") if block > 0 else b""
            lines, found.invalid_bytes = _lines(head + bytes(raw), sources.encoding)
            found.lines = len(lines) - (1 if head else 0)
            rows = part_rows(
                lines, sources.format, name, blocks.text_col, blocks.label_col,
                again=lambda: iter(lines), keys_seen=block > 0, **options,
            )  # fmt: skip
        for text, label in rows:
            texts.append(text)
            labels.append(label)
    except ValueError as exc:
        raise BlockError(i, str(exc)) from None
    found.rows = len(texts) + len(found.bad)
    return texts, labels, found


def _lines(data: bytes, encoding: str) -> tuple[list[str], bool]:
    """The lines of ``data`` as the readers read a file's (a UTF-8 byte order mark
    removed, line breaks kept), and whether bytes were not valid in ``encoding`` (then
    replaced by U+FFFD)."""
    codec = "utf-8-sig" if codecs.lookup(encoding).name == "utf-8" else encoding
    try:
        text, invalid = data.decode(codec), False
    except UnicodeDecodeError:
        text, invalid = data.decode(codec, errors="replace"), True
    return list(io.StringIO(text, newline="")), invalid
