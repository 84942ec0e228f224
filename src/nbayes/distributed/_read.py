"""Reading files as a dask DataFrame: CSV/TSV, JSON lines, Parquet, by their extension.

Text files are read in blocks of ``blocksize`` bytes, each block a partition that starts
after a line break. A CSV whose quoted fields hold line breaks (20 Newsgroups, e-mail
bodies) cannot be cut there safely: a block may start inside a quoted field, and its rows
are then misread (a ``ParserError``, or, when the quotes happen to pair up, wrong rows
without a word). So before a file is split, the start of it is read here: with the
default ``blocksize="auto"`` a file whose quoted fields hold line breaks is read as one
partition, and a ``blocksize`` given is refused for it, with the advice.

Every collection :func:`read` returns is remembered with where its partitions come from
(file, block, byte offset; :class:`Sources`), so that a fit on it names the file, row
and line of a bad row as the single-machine readers do.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..exceptions import NBayesWarning
from ..io.input_formats import COMPRESSION_SUFFIXES, is_compressed, of_path, table_formats
from ._inputs import require_dask

__all__ = ["QUOTED_SAMPLE", "Sources", "read", "same_file_columns", "sources_of"]

#: bytes read from the start of a CSV file that would be split into blocks, to look for
#: quoted fields holding line breaks
QUOTED_SAMPLE = 1 << 20

#: dask's usual block size, when ``blocksize="auto"``
_AUTO_BLOCKSIZE = "64MB"


def _format_of(source: str) -> str:
    found = of_path(source, tables_only=True, compressions=COMPRESSION_SUFFIXES)
    if found is None:
        raise ValueError(
            f"Cannot tell the format of {source!r} from its name: give format= one of {_TABLES}."
        )
    return found.name


_TABLES = ", ".join(repr(f.name) for f in table_formats())


# ------------------------------------------------------------------ provenance
@dataclass
class Sources:
    """Where the partitions of a collection read by :func:`read` come from.

    ``parts[i]`` is ``(path, block, offset)``: the file of partition ``i``, the number of
    its block in that file (0: the file's start, with the header) and the block's
    nominal byte offset (the block starts after the first line break from there on).
    """

    format: str
    parts: list[tuple[str, int, int]]
    sep: str = ","
    encoding: str = "utf-8"
    relative: bool = True  # the sources were given as relative paths: name them so
    split: list[str] = field(default_factory=list)  # the files read in several blocks

    def name(self, path: str) -> str:
        """``path`` as a message names it: relative to the working directory when the
        sources were given so (as the single-machine readers print them)."""
        if self.relative and os.path.isabs(path):
            try:
                return os.path.relpath(path)
            except ValueError:  # (another drive)
                return path
        return path


_REGISTRY: OrderedDict[str, Sources] = OrderedDict()
_REGISTRY_SIZE = 64


def _remember(frame: Any, sources: Sources) -> None:
    _REGISTRY[frame._name] = sources
    _REGISTRY.move_to_end(frame._name)
    while len(_REGISTRY) > _REGISTRY_SIZE:
        _REGISTRY.popitem(last=False)


def sources_of(frame: Any) -> Sources | None:
    """The :class:`Sources` of a collection :func:`read` returned (itself, not one derived
    from it: another collection's partitions may be other rows), or None."""
    name = getattr(frame, "_name", None)
    return None if name is None else _REGISTRY.get(name)


def _blocks(source: Any, blocksize: int | None, kw: dict[str, Any]) -> Any:
    """``(paths, offsets per file, blocks per file)`` as dask cuts the files: the blocks
    are dask's delayed reads of their bytes."""
    from dask.bytes import read_bytes

    storage = kw.get("storage_options") or {}
    _, values, paths = read_bytes(
        source, delimiter=b"\n", blocksize=blocksize, sample=False, include_path=True,
        compression=kw.get("compression", "infer"), **storage,
    )  # fmt: skip
    offsets = []
    for blocks in values:
        found = [re.match(r"read-block-(\d+)-", str(b.key)) for b in blocks]
        offsets.append([int(m.group(1)) if m else 0 for m in found])
    return [str(p) for p in paths], offsets, values


def _relative(source: str | Sequence[str]) -> bool:
    first = source if isinstance(source, str) else source[0]
    return "://" not in str(first) and not os.path.isabs(str(first))


# ------------------------------------------------------------- quoted line breaks
def quoted_line_break(head: bytes, sep: str, encoding: str = "utf-8") -> int | None:
    """The line where the first record holding a line break inside a quoted field ends,
    among the whole lines of ``head`` (the start of a CSV file); None if there is none.

    Read as Python's csv module (and pandas) read CSV: a quote opens a quoted field only
    at the start of a field, and is doubled inside one.

    >>> quoted_line_break(b'text,label\\n"one\\ntwo",a\\nthree,b\\n', ",")
    3
    >>> quoted_line_break(b'text,label\\nsaid 5" wide,a\\n"x, y",b\\n', ",") is None
    True
    """
    cut = head.rfind(b"\n")
    if cut < 0:
        return None
    text = head[: cut + 1].decode(_codec(encoding), errors="replace")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep, quotechar='"',
                        doublequote=True, strict=False)  # fmt: skip
    try:
        for record in reader:
            if any("\n" in f or "\r" in f for f in record):
                return reader.line_num
    except csv.Error:  # (a field over csv's limit: a quote that never closes, likely)
        return reader.line_num
    return None


def _codec(encoding: str) -> str:
    import codecs

    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return "utf-8"


def _check_split_files(
    source: Any, paths: list[str], blocks: list[list[int]], sep: str, kw: dict[str, Any]
) -> tuple[str, int] | None:
    """The first file to be split whose quoted fields hold line breaks (and the line of
    one), judged on its first :data:`QUOTED_SAMPLE` bytes; None if there is none."""
    from fsspec.core import url_to_fs

    first = source if isinstance(source, str) else source[0]
    fs, _ = url_to_fs(str(first), **(kw.get("storage_options") or {}))
    for path, offsets in zip(paths, blocks, strict=True):
        if len(offsets) < 2:
            continue
        with fs.open(path, "rb") as f:
            head = f.read(QUOTED_SAMPLE)
        line = quoted_line_break(head, sep, kw.get("encoding") or "utf-8")
        if line is not None:
            return path, line
    return None


class QuotedLineBreakWarning(NBayesWarning):
    """A CSV file is read as one partition: its quoted fields hold line breaks."""


# ---------------------------------------------------------------------- blocks
@dataclass
class Layout:
    """How text files are cut into partitions: the block size (None: a partition per
    file), where every partition comes from, and dask's delayed reads of its bytes."""

    size: int | None
    sources: Sources
    blocks: list[Any]


def cut(
    source: str | Sequence[str], fmt: str, blocksize: str | int | None, auto: bool,
    kw: dict[str, Any],
) -> Layout:  # fmt: skip
    """The blocks of CSV/TSV or JSON lines files of ``blocksize`` (None: one per file),
    each starting after a line break; a CSV file whose quoted fields hold line breaks is
    not cut (``auto``: with a :class:`QuotedLineBreakWarning`; else a ValueError). ``kw``:
    the options of :func:`read` (``sep``, ``encoding``, ``compression``,
    ``storage_options``)."""
    size = None if blocksize is None else _bytes(blocksize)
    paths, offsets, values = _blocks(source, size, kw)
    sep = kw.get("sep", "\t" if fmt == "tsv" else ",")
    if fmt in ("csv", "tsv") and size is not None:
        found = _check_split_files(source, paths, offsets, sep, kw)
        if found is not None:
            path, line = found
            path = Sources(fmt, [], relative=_relative(source)).name(path)
            if not auto:
                shown = _shown(blocksize or size)
                raise ValueError(
                    f"{path}: a quoted field holds a line break (the record ending at line "
                    f"{line}), so the file cannot be read in blocks of {shown}: a "
                    "block could start inside a quoted field, and its rows would be misread. "
                    "Pass blocksize=None (one partition per file), or split the file into "
                    "several files, or convert it to Parquet or JSON lines."
                )
            warnings.warn(
                f"{path}: a quoted field holds a line break (the record ending at line "
                f"{line}): read one partition per file, since a block could start inside a "
                "quoted field (split big files into several, or convert them to Parquet or "
                "JSON lines, to read them in parallel).",
                QuotedLineBreakWarning,
                stacklevel=3,
            )
            size = None
            paths, offsets, values = _blocks(source, None, kw)
    parts = [(p, b, o) for p, offs in zip(paths, offsets, strict=True) for b, o in enumerate(offs)]
    sources = Sources(
        fmt, parts, sep=sep, encoding=kw.get("encoding") or "utf-8", relative=_relative(source),
        split=[p for p, offs in zip(paths, offsets, strict=True) if len(offs) > 1],
    )  # fmt: skip
    return Layout(size, sources, [b for blocks in values for b in blocks])


# ------------------------------------------------------------------ a table's files
def same_file_columns(sources: Sources, storage_options: dict[str, Any] | None = None) -> None:
    """A ValueError, with what to do, unless the CSV/TSV or Parquet files of ``sources``
    have the same columns in the same order, as one process refuses other tables
    (:func:`nbayes.io.tables.same_columns`): their headers (schemas), read here before a
    fit (a worker reads its block with its own file's header, and the partitions' models
    then did not merge, or, the labels elsewhere, merged; dask joined Parquet files of
    other columns, the cells of a column missing from a file missing)."""
    from ..io.tables import same_columns

    paths = list(dict.fromkeys(path for path, _, _ in sources.parts))
    if sources.format not in ("csv", "tsv", "parquet") or len(paths) < 2:
        return
    columns = _parquet_columns if sources.format == "parquet" else _header
    same_columns([
        (sources.name(path), columns(path, sources, storage_options or {})) for path in paths
    ])  # fmt: skip


def _parquet_columns(path: str, sources: Sources, storage: dict[str, Any]) -> list[str]:
    """The columns of a Parquet file as pandas reads them (from its schema: a column that
    stores pandas' index is none)."""
    from ..io.tables import parquet_columns

    return parquet_columns(path, storage)


def _header(path: str, sources: Sources, storage: dict[str, Any]) -> list[str]:
    """The columns of a CSV/TSV file as pandas reads them: its first line that is not
    blank (a UTF-8 byte order mark removed), cut at the delimiter (fields quoted as the
    csv module and pandas quote them)."""
    from fsspec import open as fs_open

    codec = _codec(sources.encoding)
    codec = "utf-8-sig" if codec == "utf-8" else codec
    with fs_open(path, "rb", compression="infer", **storage) as f:
        line = b""
        for line in f:
            if line.strip() and line.strip() != codecs.BOM_UTF8:
                break
    text = line.decode(codec, errors="replace")
    return next(csv.reader([text], delimiter=sources.sep, quotechar='"', doublequote=True), [])


# ----------------------------------------------------------------------- read
def read(
    source: str | Sequence[str],
    *,
    format: str | None = None,
    blocksize: str | int | None = "auto",
    columns: Sequence[str] | None = None,
    **kw: Any,
) -> Any:
    """Read CSV/TSV, JSON lines or Parquet files (a path, glob or list) as a dask DataFrame.

    Parameters
    ----------
    source : str or list of str
        Path, glob (``data/*.csv``) or URL understood by fsspec.
    format : {"csv", "tsv", "jsonl", "parquet"}, default=None
        Taken from the file extension if not given (``.gz`` and the like are skipped).
    blocksize : "auto", str, int or None, default="auto"
        Bytes per partition of text formats; None: one partition per file (as for
        compressed files, which cannot be split). ``"auto"`` is 64 MB, except for CSV/TSV
        files whose quoted fields hold line breaks: read one partition per file (a
        :class:`QuotedLineBreakWarning` says so when that changes the partitions). A
        ``blocksize`` given is refused (ValueError) for such a file: a block could start
        inside a quoted field and its rows be misread. Whether a file's quoted fields hold
        line breaks is judged on its first MiB, and only for files large enough to be
        split (twice ``blocksize``): if they only appear later in a big file, pass
        ``blocksize=None``.
    columns : list of str, default=None
        Columns to read (all by default).
    **kw
        Passed to ``dask.dataframe.read_csv`` / ``read_json`` / ``read_parquet``.

    Returns
    -------
    dask.dataframe.DataFrame
        Remembered with the files its partitions come from: a fit on it names the file,
        row and line of a bad row (see :class:`PartitionError`).

    Raises
    ------
    ValueError
        The format is unknown, or a file to be split into blocks of ``blocksize`` holds
        line breaks inside quoted fields.
    """
    dask = require_dask()
    dd = dask.dataframe
    first = source if isinstance(source, str) else source[0]
    fmt = format or _format_of(first)
    auto = isinstance(blocksize, str) and blocksize == "auto"
    if auto:
        blocksize = _AUTO_BLOCKSIZE
    if is_compressed(str(first)):
        blocksize = None
    cols = None if columns is None else list(columns)
    if fmt == "parquet":
        return _parquet(dd, source, cols, kw)
    if fmt not in ("csv", "tsv", "jsonl"):
        raise ValueError(f"Unknown format {fmt!r}: use {_TABLES}.")
    layout = cut(source, fmt, blocksize, auto, kw)
    size, sep = layout.size, layout.sources.sep
    if fmt in ("csv", "tsv"):
        kw["sep"] = sep
        frame = dd.read_csv(source, blocksize=size, usecols=cols, **kw)
    else:
        try:  # (dask reads the first block here, for the columns' types)
            frame = dd.read_json(source, lines=True, blocksize=size, **kw)
        except ValueError as exc:
            from ._where import json_advice

            advice = json_advice(exc, layout.sources)
            if advice is None:
                raise
            raise advice from None
        frame = frame if cols is None else frame[cols]
    _remember(frame, layout.sources)
    return frame


#: Parquet files read one by one by dask (their partitions named by file) up to this many;
#: more are read a file a partition, by pandas (a call of dask's per file costs 15 ms, and
#: dask's concat of hundreds of frames nests too deep for some of its computations)
_PARQUET_FILES = 256


def _parquet(
    dd: Any, source: str | Sequence[str], cols: list[str] | None, kw: dict[str, Any]
) -> Any:
    """Parquet files read file by file, their partitions remembered with their file (a bad
    row is then named by its file and row, not "partition 0, row 3"): up to
    :data:`_PARQUET_FILES` files by dask (by file and row group), more a file a partition
    (:func:`_parquet_files`). The columns of several files are of the dtypes of pandas'
    concat of the files, as one process reads them (:func:`_concat_dtypes`), then of
    ``kw["dtype"]`` (``DataFrame.astype``'s argument), if given."""
    from fsspec.core import get_fs_token_paths

    dtype = kw.pop("dtype", None)
    storage = kw.get("storage_options") or {}
    try:
        _, _, paths = get_fs_token_paths(source, storage_options=storage)
    except Exception:  # (let dask say what is wrong with the source)
        paths = []
    own = bool(set(kw) - {"storage_options"})  # (dask's options: as dask reads the files)
    if not paths or any("://" in str(p) for p in ([source] if isinstance(source, str) else source)):
        return _astype(dd.read_parquet(source, columns=cols, **kw), dtype)
    paths = [str(p) for p in paths]
    if len(paths) > _PARQUET_FILES:
        if own:
            return _astype(dd.read_parquet(source, columns=cols, **kw), dtype)
        concat = _concat_dtypes(paths, cols, storage)
        frame = _parquet_files(dd, paths, cols, storage, concat)
        parts = [(p, 0, 0) for p in paths]
    else:
        frames = [dd.read_parquet(p, columns=cols, **kw) for p in paths]
        parts = [
            (p, k, 0) for p, f in zip(paths, frames, strict=True) for k in range(f.npartitions)
        ]
        concat = {} if own or len(paths) < 2 else _concat_dtypes(paths, cols, storage)
        if concat:  # (a categorical column and strings: dask's concat failed, "a bug")
            frames = [_cast_parts(f, concat) for f in frames]
        frame = frames[0] if len(frames) == 1 else dd.concat(frames)
    frame = _astype(frame, dtype)
    _remember(frame, Sources("parquet", parts, relative=_relative(source)))
    return frame


def _cast_parts(frame: Any, concat: dict[str, Any]) -> Any:
    """``frame`` (a dask DataFrame) with every partition's columns of ``concat``'s dtypes."""
    meta = _as_concatenated(frame._meta, concat)
    return frame.map_partitions(_as_concatenated, dtypes=concat, meta=meta)


def _astype(frame: Any, dtype: Any) -> Any:
    """``frame`` (a dask DataFrame) cast to ``dtype`` (``DataFrame.astype``'s argument: a
    dtype, or ``{column: dtype}``); None: as it is."""
    if dtype is None:
        return frame
    return frame.map_partitions(_cast_to, dtype=dtype, meta=_cast_to(frame._meta, dtype))


def _cast_to(table: Any, dtype: Any) -> Any:
    if isinstance(dtype, dict):
        dtype = {column: d for column, d in dtype.items() if column in table.columns}
    return table.astype(dtype) if dtype else table


def _as_concatenated(table: Any, dtypes: dict[str, Any]) -> Any:
    """``table`` (a file's rows, or a part of them) with its columns of ``dtypes`` (those
    of pandas' concat of the files) where they are of others."""
    changed = {
        column: dtype
        for column, dtype in dtypes.items()
        if column in table.columns and table[column].dtype != dtype
    }
    return table.astype(changed) if changed else table


def _concat_dtypes(
    paths: list[str], cols: list[str] | None, storage: dict[str, Any]
) -> dict[str, Any]:
    """The dtypes of pandas' concat of the Parquet files ``paths`` read whole (as one
    process concatenates them: int32 and int64 are int64, bool and int64 objects, a
    categorical column and strings objects, integers and nulls objects ...), of the
    columns whose dtype may differ from file to file; {} if none may (or the files have
    other columns: refused before a fit).

    A column's dtype in a file follows from the file's schema unless it has missing values
    (pandas reads integers with nulls as floats), is of Parquet's null type or a
    categorical one (its categories are the file's values): such columns, and those of
    another dtype in some file, are read from every file (:func:`._table_rows._concatenated`
    of a row of each, as the workers skipping bad rows type them)."""
    from ._table_rows import _concatenated, _sample

    layouts = [_parquet_layout(path, cols, storage) for path in paths]
    names = layouts[0][0]
    if any(layout[0] != names for layout in layouts):
        return {}
    suspects = [
        column
        for column in names
        if any(column in unsure for _, _, unsure in layouts)
        or len({str(dtypes[column]) for _, dtypes, _ in layouts}) > 1
    ]
    if not suspects:
        return {}
    samples = [_sample(_parquet_file(path, suspects, storage)) for path in paths]
    return _concatenated(samples)


def _parquet_layout(
    path: str, cols: list[str] | None, storage: dict[str, Any]
) -> tuple[list[str], dict[str, Any], set[str]]:
    """A Parquet file's columns (of ``cols``), their dtypes as pandas reads a file of its
    schema, and the columns whose dtype may be another in the file's rows: those with a
    missing value (or whose statistics do not tell), of the null type, or categorical."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from fsspec import open as fs_open

    with fs_open(path, "rb", **storage) as f:
        found = pq.ParquetFile(f)
        schema, metadata = found.schema_arrow, found.metadata
    index = (schema.pandas_metadata or {}).get("index_columns", [])
    names = [n for n in schema.names if n not in index and (cols is None or n in cols)]
    leaves: dict[str, list[Any]] = {}
    for g in range(metadata.num_row_groups):
        group = metadata.row_group(g)
        for j in range(group.num_columns):
            chunk = group.column(j)
            leaves.setdefault(chunk.path_in_schema, []).append(chunk.statistics)
    unsure = set()
    for name in names:
        kind = schema.field(name).type
        stats = leaves.get(name, [] if metadata.num_row_groups == 0 else [None])
        nulls = any(s is None or not s.has_null_count or s.null_count > 0 for s in stats)
        if nulls or pa.types.is_null(kind) or pa.types.is_dictionary(kind):
            unsure.add(name)
    return names, dict(_schema_frame(schema, names).dtypes), unsure


def _schema_frame(schema: Any, cols: list[str] | None) -> Any:
    """An empty pandas DataFrame of a Parquet schema, as pandas reads a file of it."""
    import pyarrow.parquet as pq

    empty = io.BytesIO()
    pq.write_table(schema.empty_table(), empty)
    empty.seek(0)
    return _parquet_file(empty, cols, {})


def _parquet_files(
    dd: Any, paths: list[str], cols: list[str] | None, storage: dict[str, Any],
    concat: dict[str, Any],
) -> Any:  # fmt: skip
    """Parquet files as a dask DataFrame of a partition per file, each read whole by
    pandas, as one process reads it (its columns typed from the first file's schema, or of
    ``concat``: the dtypes of pandas' concat of the files, :func:`_concat_dtypes`)."""
    import pyarrow.parquet as pq
    from fsspec import open as fs_open

    with fs_open(paths[0], "rb", **storage) as f:
        schema = pq.read_schema(f)
    meta = _as_concatenated(_schema_frame(schema, cols), concat)
    return dd.from_map(_parquet_file, paths, columns=cols, storage=storage, concat=concat,
                       meta=meta, label="read-parquet-file")  # fmt: skip


def _parquet_file(
    path: Any, columns: list[str] | None, storage: dict[str, Any],
    concat: dict[str, Any] | None = None,
) -> Any:  # fmt: skip
    """One Parquet file, as pandas reads it (a partition of :func:`_parquet_files`), its
    columns of ``concat``'s dtypes (:func:`_concat_dtypes`)."""
    import pandas as pd

    table = pd.read_parquet(path, columns=columns, storage_options=storage or None)
    return _as_concatenated(table, concat) if concat else table


def _bytes(blocksize: str | int) -> int:
    from dask.utils import parse_bytes

    return int(parse_bytes(blocksize)) if isinstance(blocksize, str) else int(blocksize)


def _shown(blocksize: str | int) -> str:
    return blocksize if isinstance(blocksize, str) else f"{int(blocksize):,} bytes"
