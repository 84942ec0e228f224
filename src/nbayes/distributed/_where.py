"""Where a failure of a distributed fit is, in the files it read: a bad row as the
single-machine readers name it (file, row, line), and a CSV block that would not parse.

A worker knows its partition, not the file around it: a :class:`PartitionError` names the
partition and the row in it. For a collection of :func:`nbayes.distributed.read`, the
client knows the file and block of every partition (:class:`Sources`), and finds, once a
fit failed, the row's number in its file (counting the rows of the file's earlier blocks
on the cluster) and its line (reading the file again here, from the block's start).
"""

from __future__ import annotations

import csv
import io
import os
import re
from collections.abc import Sequence
from typing import Any

from ..io._opening import pass_option
from ._inputs import MISSING_LABEL, BlocksDisagreeError, PartitionError
from ._read import Sources, _codec

__all__ = ["cut_inside_quotes", "locate", "parse_advice"]

_CHUNK = 1 << 24


def locate(exc: PartitionError, data: Any, sources: Sources, scheduler: Any) -> Exception:
    """``exc`` with the file, row and line of its bad row (``exc`` if its partition is
    not one of ``sources``); a ValueError instead if the partition is a block of a CSV
    file that starts inside a quoted field (its first rows are the rest of a field)."""
    i = exc.partition
    if exc.source is not None or not 0 <= i < len(sources.parts):
        return exc
    path, block, offset = sources.parts[i]
    name = sources.name(path)
    if sources.format in ("csv", "tsv") and block > 0:
        cut = _cut_inside_quotes(path, [offset])
        if cut is not None:
            return _cut_error(name, i, cut[1], exc.reason)
    reason = exc.reason
    if sources.format in ("csv", "tsv") and reason == MISSING_LABEL:
        reason = "missing label"  # an empty field: a CSV has no null (the CSV reader's words)
    if exc.row is None:
        return PartitionError(i, None, exc.label, reason, source=name)
    source_row: int | None = exc.row
    if block > 0:
        try:
            before = data.partitions[i - block : i].map_partitions(len)
            source_row = exc.row + int(before.compute(scheduler=scheduler).sum())
        except Exception:  # (the earlier blocks cannot be read again: the partition's row)
            source_row = None
    text = sources.format != "parquet"  # (a Parquet file has rows, no lines)
    line = None if source_row is None or not text else _line(sources, path, block, offset, exc.row)
    return PartitionError(
        i, exc.row, exc.label, reason, source=name, source_row=source_row, line=line
    )


def _cut_inside_quotes(path: str, offsets: Sequence[int]) -> tuple[int, int] | None:
    """``(k, line)`` for the first of the blocks of ``path`` at ``offsets`` (increasing)
    that starts inside a quoted field, ``offsets[k]``, and the line it starts at; None if
    none does (or the file cannot be read here). Inside means an odd number of quotes
    before the block: fields are quoted, and quotes doubled inside them, as the csv module
    and pandas write them. One pass over the file, up to the last of the blocks."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            lines = quotes = done = 0
            for k, offset in enumerate(offsets):
                if offset < done:  # (inside the line the previous block starts after)
                    continue
                more, start, more_quotes = _block_start(f, offset - done)
                lines, quotes, done = lines + more, quotes + more_quotes, done + start
                f.seek(done)
                if quotes % 2:
                    return k, lines + 1
    except OSError:
        return None
    return None


def _line(sources: Sources, path: str, block: int, offset: int, row: int) -> int | None:
    """The line of ``path`` where row ``row`` of the block ``block`` (at ``offset``) ends,
    reading the file from the block's start as dask cut it; None if it cannot be read
    here (a remote file)."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            lines_before, start, _ = _block_start(f, offset) if block > 0 else (0, 0, 0)
            f.seek(start)
            text = io.TextIOWrapper(f, encoding=_codec(sources.encoding), errors="replace",
                                    newline="")  # fmt: skip
            if sources.format == "jsonl":
                return _jsonl_line(text, row, lines_before)
            return _csv_line(text, row, lines_before, sources.sep, header=block == 0)
    except (OSError, csv.Error, UnicodeError):
        return None


def _block_start(f: Any, offset: int) -> tuple[int, int, int]:
    """``(line breaks before the block, its first byte, quotes before it)``: a block of
    dask starts after the first line break at or after its offset
    (``fsspec.utils.read_block``)."""
    count = done = quotes = 0
    while done < offset:
        chunk = f.read(min(_CHUNK, offset - done))
        if not chunk:
            break
        count += chunk.count(b"\n")
        quotes += chunk.count(b'"')
        done += len(chunk)
    while True:
        chunk = f.read(1 << 16)
        if not chunk:
            return count, done, quotes
        k = chunk.find(b"\n")
        if k >= 0:
            return count + 1, done + k + 1, quotes + chunk.count(b'"', 0, k)
        count += chunk.count(b"\n")
        quotes += chunk.count(b'"')
        done += len(chunk)


def _csv_line(text: Any, row: int, lines_before: int, sep: str, header: bool) -> int | None:
    old = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)
    try:
        reader = csv.reader(text, delimiter=sep, quotechar='"', doublequote=True, strict=False)
        n = -1
        for record in reader:
            if not record:
                continue  # a blank line (no row, for pandas as for the CSV reader)
            if header:
                header = False
                continue
            n += 1
            if n == row:
                return lines_before + reader.line_num
    finally:
        csv.field_size_limit(old)
    return None


def _jsonl_line(text: Any, row: int, lines_before: int) -> int | None:
    n = -1
    for k, line in enumerate(text, 1):
        if not line.strip():
            continue
        n += 1
        if n == row:
            return lines_before + k
    return None


def _cut_error(name: str, partition: int, line: int, what: str) -> ValueError:
    return ValueError(
        f"{name}: partition {partition}, the block of the file from line {line}, starts "
        "inside a quoted field: the file's quoted fields hold line breaks, so it cannot be "
        f"read in blocks (its rows are misread; here: {what.strip().rstrip('.')}). Read it "
        "with blocksize=None (one partition per file), or split it into several files, or "
        "convert it to Parquet or JSON lines."
    )


def cut_inside_quotes(exc: BaseException, sources: Sources) -> ValueError | None:
    """For an error of a fit on ``sources`` (e.g. pandas' ``ParserError``): the first
    block of a CSV file cut into blocks that starts inside a quoted field, said so; None
    if there is none."""
    if sources.format not in ("csv", "tsv"):
        return None
    for path in sources.split:
        blocks = [(i, o) for i, (p, b, o) in enumerate(sources.parts) if p == path and b > 0]
        cut = _cut_inside_quotes(path, [o for _, o in blocks])
        if cut is not None:
            return _cut_error(sources.name(path), blocks[cut[0]][0], cut[1], str(exc))
    return None


def parse_advice(exc: BaseException, sources: Sources | None) -> BaseException | None:
    """A pandas ``ParserError`` of a CSV block, with what to do (None for other errors):
    a block that starts inside a quoted field holding line breaks is misread."""
    try:
        from pandas.errors import ParserError
    except ImportError:  # pragma: no cover - pandas comes with dask.dataframe
        return None
    if not isinstance(exc, ParserError):
        return json_advice(exc, sources) or blocks_advice(exc, sources)
    if sources is not None and not sources.split:  # no file cut into blocks: the file
        return _width_advice(exc, sources)  # itself is malformed
    if sources is not None:
        found = cut_inside_quotes(exc, sources)
        if found is not None:
            return found
    files = "the CSV files" if sources is None else _listed(sources, sources.split)
    return ParserError(
        f"{str(exc).strip()}. A block of {files} could not be parsed: if quoted fields hold "
        "line breaks, a block can start inside one. Read the files with blocksize=None "
        "(one partition per file: nbayes.distributed.read(..., blocksize=None)), or split "
        "them into several files, or convert them to Parquet or JSON lines."
    )


def _listed(sources: Sources, paths: Sequence[str]) -> str:
    """``paths`` as a message names them: the first three, and how many more."""
    names = ", ".join(sources.name(p) for p in paths[:3])
    return names + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def _files(sources: Sources) -> str:
    """The files of ``sources`` as a message names them: the one, or one of them."""
    paths = list(dict.fromkeys(p for p, _, _ in sources.parts))
    return _listed(sources, paths) if len(paths) == 1 else f"one of {_listed(sources, paths)}"


def _width_advice(exc: BaseException, sources: Sources) -> BaseException | None:
    """pandas' "Expected 2 fields in line 41, saw 3" in the words of the local readers
    (it was the error alone: "Error tokenizing data. C error: ...")."""
    from pandas.errors import ParserError

    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
    if m is None:
        return None
    header, line, seen = m.groups()
    return ParserError(
        f"{_files(sources)}, line {line}: {seen} field(s), but the header has {header}; check "
        f"the quoting and the delimiter ({sources.sep!r})."
        + pass_option("bad_rows", "to skip such rows", "skip")
    )


#: how dask's CSV reader says that blocks of a file read a column as other types
_DASK_DTYPES = "Mismatched dtypes found in `pd.read_csv`"
#: how dask says that blocks of a file hold other columns than its first block
_DASK_COLUMNS = "The columns in the computed data do not match the columns in the provided"


def blocks_advice(exc: BaseException, sources: Sources | None) -> BlocksDisagreeError | None:
    """dask's mismatched dtypes ("add dtype={...} to the call to read_csv") or mismatched
    columns ("... the provided metadata": JSON lines whose keys come in another order, or
    only in later rows) of the blocks of one file, with what to do; None for other errors.

    >>> said = ["Mismatched dtypes found in `pd.read_csv`.", "| Column | Found | Expected |",
    ...         "| size   | str   | int64    |"]
    >>> str(blocks_advice(ValueError(chr(10).join(said)), None)).split(": ", 1)[1].split(";")[0]
    'size (int64 in one block, str in another)'
    >>> blocks_advice(ValueError("something else"), None) is None
    True
    """
    text = str(exc)
    data = "the data" if sources is None else _files(sources)
    if _DASK_DTYPES in text:
        cells = [
            [c.strip() for c in line.strip().strip("|").split("|")]
            for line in text.splitlines()
            if line.startswith("|")
        ]
        columns = [
            f"{c[0]} ({c[2]} in one block, {c[1]} in another)"
            for c in cells
            if len(c) == 3 and c[0] != "Column"
        ]
        which = f": {', '.join(columns[:5])}" if columns else ""
        return BlocksDisagreeError(
            f"The workers read some columns of {data} as other types in different blocks{which}; "
            "each block is typed from its own rows."
            + pass_option(
                "bad_rows", "to type every column from the whole file, as one process does", "skip"
            )  # fmt: skip
        )
    if _DASK_COLUMNS in text:
        detail = text.partition("metadata.")[2].strip()
        return BlocksDisagreeError(
            "The workers read other columns, or the columns in another order, in different "
            f"blocks of {data}{' (' + detail + ')' if detail else ''}; each block takes them "
            "from its own rows."
            + pass_option(
                "bad_rows",
                "to take each file's columns as one process reads "
                "them: every key, in the order of the first row that has it",
                "skip",
            )  # fmt: skip
        )
    return None


def json_advice(exc: BaseException, sources: Sources | None) -> BaseException | None:
    """dask's "An error occurred while calling the read_json method ... Original Message:
    ..." of a line that is no JSON, said as the local readers say it (without the line:
    pandas does not tell it)."""
    text = str(exc)
    if sources is None or sources.format != "jsonl" or "read_json" not in text:
        return None
    original = text.partition("Original Message:")[2].strip() or text
    return ValueError(
        f"{_files(sources)}: a line is not valid JSON ({original})."
        + pass_option("bad_rows", "to skip such lines (the workers then name it)", "skip")
    )
