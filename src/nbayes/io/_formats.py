"""The rows of each file format :func:`nbayes.io.read_texts` reads: CSV/TSV, JSON lines,
Parquet and the documents of a class folder, each as ``(text, label)`` pairs, with
invalid bytes replaced by U+FFFD and counted (:class:`Decoding`)."""

from __future__ import annotations

import codecs
import csv
import gzip
import json
import warnings
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn, TextIO

from nbayes.exceptions import DecodingWarning

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
            + " Pass encoding=... (e.g. encoding='latin-1') if the files use another encoding."
        )
        warnings.warn(msg, DecodingWarning, stacklevel=3)


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


def csv_rows(path: Path, fmt: str, opts: Options, decoding: Decoding) -> Iterator[tuple[str, Any]]:
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


def jsonl_rows(path: Path, opts: Options, decoding: Decoding) -> Iterator[tuple[str, Any]]:
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


def parquet_rows(path: Path, opts: Options, decoding: Decoding) -> Iterator[tuple[str, Any]]:
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


def doc_rows(
    folder: Path, files: list[Path], opts: Options, decoding: Decoding
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
