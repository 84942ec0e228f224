"""The rows of each file format :func:`nbayes.io.read_texts` reads: CSV/TSV, JSON lines,
Parquet, plain text (one document per line, or per file) and the documents of a class
folder, each as ``(text, label)`` pairs, with invalid bytes replaced by U+FFFD and counted
(:class:`Decoding`); an open file (standard input) is read as any of the line formats.

A bad row (a missing text or label, an invalid JSON line, a CSV record of the wrong width)
goes to ``opts.bad_rows`` (:class:`~nbayes.io._opening.BadRows`): an error, or skipped and
counted; the readers count it as a data row either way, so row numbers stay the file's.
What spoils a whole file (a missing column, a quote that never closes, a corrupt gzip
stream, a file that cannot be read) is an error in every mode.

Advice in messages names the reader's options as the caller spells them: ``text_col=...``
for Python, ``--text-col NAME`` where the command line set its flags' names
(:func:`option_names`)."""

from __future__ import annotations

import contextlib
import csv
import gzip
import itertools
import json
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

from nbayes.io._meter import Meter
from nbayes.io._opening import (
    _ERRORS,
    _MARK,
    BadRows,
    Decoding,
    Options,
    Stream,
    _gzip_guard,
    _is_gzip,
    _open_text,
    _read_bytes,
    _text_encoding,
    pass_option,
    python_caller,
)


def _columns_text(names: Sequence[str]) -> str:
    return ", ".join(repr(n) for n in names) if names else "(none)"


def _name(path: Path | Stream) -> str:
    return path.name


def _missing_column(
    which: str, name: str, path: Path | Stream, names: Sequence[str], what: str
) -> NoReturn:
    other = next((d for d in ";|\t" if len(names) == 1 and d in names[0]), None)
    hint = ""
    if other is not None:
        hint = f" Its one column's name holds {other!r}: the file's fields are separated by it."
        hint += pass_option("delimiter", "to read it so", other) or (
            " (save it as CSV, or as TSV for tabs)."
        )
    raise ValueError(
        f"Column {name!r} not found in {_name(path)}; the {what} are: {_columns_text(names)}."
        + hint
        + pass_option(which, "to choose")
    )


def _refuse_twice(
    which: str, name: str, path: Path | Stream, names: Sequence[str], where: str = "header"
) -> None:
    """A header (or a JSON-lines file's first record) that names the column read twice:
    which one holds the texts (or labels)? (The first, or the last key, was read without
    a word: a join's export trained on the wrong column; a data engineer's trial.)"""
    at = [i + 1 for i, n in enumerate(names) if n == name]
    if len(at) > 1:
        what = "key" if where == "first record" else "column"
        raise ValueError(
            f"{_name(path)}'s {where} names the {what} {name!r} {len(at)} times "
            f"({what}s {', '.join(map(str, at))} of {len(names)}): rename the ones not meant."
            + pass_option(which, f"to read another {what}")
        )


# --------------------------------------------------------------------------- CSV / TSV


def csv_rows(
    path: Path | Stream, fmt: str, opts: Options, decoding: Decoding
) -> Iterator[tuple[Any, ...]]:
    delimiter = opts.delimiter or ("\t" if fmt == "tsv" else ",")
    limit = opts.max_field_chars
    src = _name(path) if isinstance(path, Stream) else str(path)
    with _open_text(path, opts.encoding, newline="") as f:
        opts.meter.watch(f)
        reader = csv.reader(f, delimiter=delimiter, quotechar='"', doublequote=True,
                            strict=False)  # fmt: skip
        line_no = 0  # the last line of the record next_record returned
        ahead: list[tuple[list[str] | None, int, int]] = []  # a record read ahead

        def read_one() -> tuple[list[str] | None, int, int]:
            start = reader.line_num + 1  # the record's first line
            old = csv.field_size_limit(limit)
            try:
                rec = next(reader, None)
            except csv.Error as e:
                if "field larger than field limit" in str(e):
                    raise _unclosed(path, src, delimiter, start, reader.line_num, opts) from None
                raise ValueError(f"{src}, line {reader.line_num}: malformed record: {e}") from None
            except (gzip.BadGzipFile, EOFError, zlib.error) as e:
                raise _gzip_guard(path, e) from None
            finally:
                csv.field_size_limit(old)
            return rec, start, reader.line_num

        def next_record() -> list[str] | None:
            nonlocal line_no
            rec, start, end = ahead.pop() if ahead else read_one()
            # (a field that ends with its line break: a quote open at the end of the input)
            if rec and (end > start or rec[-1].endswith(("\n", "\r"))):
                # A quote that never closes makes the rest of the file one field (Python's
                # csv ends it at the end of the file without a word): a record of several
                # lines that is the last is read again to tell where a quote opened.
                following = read_one()
                if following[0] is None and _may_swallow(rec[-1], path):
                    opened = _open_quote(path, delimiter, start, end, opts.encoding)
                    if opened is not None:
                        raise ValueError(
                            f"{src}, line {opened}: a quote opens there and never closes (the "
                            f"rest of the file, {_lines(end - opened + 1)}, would be one "
                            "field); close it, or double the quotes inside a quoted field."
                        )
                ahead.append(following)
            line_no = end
            return rec

        header = next_record()
        while header == []:  # leading blank lines
            header = next_record()
        if header is None:
            return
        if _MARK in "".join(header):
            header = [h.replace(_MARK, "\ufffd") for h in header]
        if opts.text_col not in header:
            _missing_column("text_col", opts.text_col, path, header, "columns")
        _refuse_twice("text_col", opts.text_col, path, header)
        ti = header.index(opts.text_col)
        label_col = opts.label_col
        li = -1
        if label_col is not None:
            if label_col not in header:
                _missing_column("label_col", label_col, path, header, "columns")
            _refuse_twice("label_col", label_col, path, header)
            li = header.index(label_col)
        ii = -1
        if opts.id_col is not None:
            if opts.id_col not in header:
                _missing_column("id_col", opts.id_col, path, header, "columns")
            _refuse_twice("id_col", opts.id_col, path, header)
            ii = header.index(opts.id_col)
        width = len(header)
        row_i = 0
        while True:
            rec = next_record()
            if rec is None:
                return
            if not rec:
                continue  # blank line
            if len(rec) != width:
                opts.bad_rows.bad(
                    f"{src}, row {row_i} (line {line_no}): {len(rec)} field(s), but the "
                    f"header has {width}; check the quoting and the delimiter ({delimiter!r}).",
                    src, f"{len(rec)} field(s), the header has {width}", row_i, line_no,
                )  # fmt: skip
                row_i += 1
                continue
            text = rec[ti]
            label: Any = rec[li] if li >= 0 else None
            if li >= 0 and label == "":
                opts.bad_rows.bad(
                    f"{src}, row {row_i} (line {line_no}): missing label.",
                    src, "missing label", row_i, line_no,
                )  # fmt: skip
                row_i += 1
                continue
            if _MARK in text or (li >= 0 and _MARK in label):
                decoding.record(src, f"row {row_i} (line {line_no}) of {src}")
                text = text.replace(_MARK, "\ufffd")
                if li >= 0:
                    label = label.replace(_MARK, "\ufffd")
            if ii >= 0:
                yield text, label, rec[ii].replace(_MARK, "\ufffd")
            else:
                yield text, label
            row_i += 1


def _lines(n: int) -> str:
    return f"{n:,} line" + ("" if n == 1 else "s")


def _unclosed(
    path: Path | Stream, src: str, delimiter: str, start: int, stop: int, opts: Options
) -> ValueError:
    """The error of a field longer than ``opts.max_field_chars``: where its quote opened
    (a quote that never closes, almost always), found by reading the record again."""
    opened = _open_quote(path, delimiter, start, stop, opts.encoding)
    first = start if opened is None else opened
    what = (
        "the record that starts there is still going"
        if opened is None
        else ("a quote opens there and is still open")
    )
    return ValueError(
        f"{src}, line {first}: {what} {opts.max_field_chars:,} characters later "
        f"({stop - first + 1:,} lines, to line {stop}): is a closing quote missing? (Inside a "
        "quoted field, double a quote.)"
        + pass_option("max_field_chars", "to read longer documents")
    )


def _may_swallow(last_field: str, path: Path | Stream) -> bool:
    """Whether the last record of a file may be a quote that never closed: Python's csv
    then keeps the file's last line break in the field (a closed quoted field ends before
    it); a file without a final line break may be one too."""
    if last_field.endswith(("\n", "\r")):
        return True
    if isinstance(path, Stream) or _is_gzip(path):
        return True
    with open(path, "rb") as f:
        f.seek(0, 2)
        if f.tell() == 0:
            return False
        f.seek(-1, 2)
        return f.read(1) not in (b"\n", b"\r")


def _open_quote(
    path: Path | Stream, delimiter: str, start: int, stop: int, encoding: str
) -> int | None:
    """The line where the quote that is still open at line ``stop`` opened, reading the
    record that starts at line ``start`` again as Python's csv reads it (a quote opens a
    quoted field only at the start of a field; doubled inside it); None if no quote is
    open there, or for a stream that cannot be read again (standard input)."""
    if isinstance(path, Stream) and path.again is None:
        return None
    opened, inside, field_start = None, False, True
    text = (
        contextlib.nullcontext(path.again())
        if isinstance(path, Stream) and path.again is not None
        else _open_text(path, encoding, newline="")
    )
    with text as f:
        for n, line in enumerate(itertools.islice(f, start - 1, stop), start):
            if not inside:
                field_start = True  # a new record
            p, end = 0, len(line)
            while p < end:
                if inside:
                    q = line.find('"', p)
                    if q < 0:
                        break
                    if line.startswith('"', q + 1):
                        p = q + 2
                        continue
                    inside, field_start, p = False, False, q + 1
                elif field_start and line.startswith('"', p):
                    inside, opened, p = True, n, p + 1
                else:
                    q = line.find(delimiter, p)
                    if q < 0:
                        break
                    field_start, p = True, q + 1
    return opened if inside else None


# --------------------------------------------------------------------------- JSON lines


def _numbered_lines(
    path: Path | Stream, encoding: str, errors: str = _ERRORS, meter: Meter | None = None
) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a (possibly gzip-compressed) text file, from 1 (its
    position told to ``meter``)."""
    with _open_text(path, encoding, newline=None, errors=errors) as f:
        if meter is not None:
            meter.watch(f)
        lines = iter(f)
        line_no = 0
        while True:
            try:
                line = next(lines, "")
            except (gzip.BadGzipFile, EOFError, zlib.error) as e:
                raise _gzip_guard(path, e) from None
            if not line:
                return
            line_no += 1
            yield line_no, line


_FIRST_KEYS = "keys of the first record"


def _missing_key(
    which: str,
    key: str,
    what: str,
    obj: dict[str, Any],
    path: Path | Stream,
    row: int,
    line: int,
    opts: Options,
    confirmed: bool,
) -> None:
    """A JSON-lines record without the text's (or label's) key: before any record had the
    keys (``confirmed``), the key is taken for a wrong name, and the option names the keys
    there are (an error, skipping or not); later, a bad row, whose row and line say where."""
    if not confirmed:
        _missing_column(which, key, path, list(obj), _FIRST_KEYS)
    src = _name(path) if isinstance(path, Stream) else str(path)
    opts.bad_rows.bad(
        f"{src}, row {row} (line {line}): no key {key!r} (missing {what}).",
        src, f"no key {key!r}", row, line,
    )  # fmt: skip


def json_objects(
    path: Path | Stream, encoding: str, bad_rows: BadRows, errors: str = _ERRORS,
    name: str | None = None, meter: Meter | None = None,
) -> Iterator[tuple[int, int, str, dict[str, Any]]]:  # fmt: skip
    """``(row, line number, line, object)`` of each line of a JSON lines file (gzip too)
    that is a JSON object (invalid bytes marked, unless ``errors="strict"``); blank lines
    are skipped, and a line that is not valid JSON, or not an object, is a bad row of
    ``bad_rows`` (counted as a row: ``row`` counts from 0 over the lines that are not
    blank), named ``name`` (default: the file's); its position told to ``meter``."""
    src = name if name is not None else _name(path) if isinstance(path, Stream) else str(path)
    loads = json.loads
    row_i = -1
    for line_no, line in _numbered_lines(path, encoding, errors, meter):
        if line.isspace():
            continue
        row_i += 1
        try:
            obj = loads(line.replace(_MARK, "\ufffd") if _MARK in line else line)
        except json.JSONDecodeError as e:
            message = f"{src}, line {line_no}: invalid JSON: {e}"
            bad_rows.bad(message, src, "invalid JSON", row_i, line_no)
            continue
        if not isinstance(obj, dict):
            message = f"{src}, line {line_no}: expected a JSON object, got {type(obj).__name__}."
            bad_rows.bad(message, src, "not a JSON object", row_i, line_no)
            continue
        yield row_i, line_no, line, obj


def jsonl_rows(path: Path | Stream, opts: Options, decoding: Decoding) -> Iterator[tuple[Any, ...]]:
    src = _name(path) if isinstance(path, Stream) else str(path)
    text_col, label_col, id_col = opts.text_col, opts.label_col, opts.id_col
    bad_rows = opts.bad_rows
    confirmed = opts.keys_seen  # a record had the keys: a key missing later is a bad row
    checked = False
    for row_i, line_no, line, obj in json_objects(path, opts.encoding, bad_rows, meter=opts.meter):
        bad = _MARK in line
        if text_col not in obj:
            _missing_key("text_col", text_col, "text", obj, path, row_i, line_no, opts,
                         confirmed)  # fmt: skip
            continue
        label = None
        if label_col is not None:
            if label_col not in obj:
                _missing_key("label_col", label_col, "label", obj, path, row_i, line_no, opts,
                             confirmed)  # fmt: skip
                continue
            label = obj[label_col]
        if not checked:  # the first record's keys, once: a key twice keeps its last value
            keys = [k for k, _ in json.loads(line.replace(_MARK, "\ufffd"), object_pairs_hook=list)]
            _refuse_twice("text_col", text_col, path, keys, "first record")
            if label_col is not None:
                _refuse_twice("label_col", label_col, path, keys, "first record")
            if id_col is not None:  # (later records may lack it: an empty id)
                if id_col not in obj and not confirmed:
                    _missing_column("id_col", id_col, path, list(obj), _FIRST_KEYS)
                _refuse_twice("id_col", id_col, path, keys, "first record")
            checked = True
        confirmed = True
        text = obj[text_col]
        if not isinstance(text, str):
            what = "missing text (null)" if text is None else f"got {type(text).__name__}"
            message = f"{src}, row {row_i} (line {line_no}): the text must be a string; {what}."
            reason = "missing text" if text is None else "text not a string"
            bad_rows.bad(message, src, reason, row_i, line_no)
            continue
        if label_col is not None and label is None:
            message = f"{src}, row {row_i} (line {line_no}): missing label (null)."
            bad_rows.bad(message, src, "missing label", row_i, line_no)
            continue
        if isinstance(label, (list, dict)):  # one label a row: a class is one value
            kind = "a list" if isinstance(label, list) else "an object"
            message = (
                f"{src}, row {row_i} (line {line_no}): the label must be one string, number "
                f"or boolean; got {kind}, {json.dumps(label)[:60]}."
            )
            bad_rows.bad(message, src, "label not one value", row_i, line_no)
            continue
        if bad:
            decoding.record(src, f"row {row_i} (line {line_no}) of {src}")
        if id_col is not None:
            yield text, label, obj.get(id_col)
        else:
            yield text, label


# --------------------------------------------------------------------------- Parquet


def parquet_rows(path: Path, opts: Options, decoding: Decoding) -> Iterator[tuple[Any, ...]]:
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
        _refuse_twice("text_col", opts.text_col, path, names, "schema")
        if opts.label_col is not None:
            if opts.label_col not in names:
                _missing_column("label_col", opts.label_col, path, names, "columns")
            _refuse_twice("label_col", opts.label_col, path, names, "schema")
            if opts.label_col != opts.text_col:
                columns.append(opts.label_col)
        if opts.id_col is not None:
            if opts.id_col not in names:
                _missing_column("id_col", opts.id_col, path, names, "columns")
            _refuse_twice("id_col", opts.id_col, path, names, "schema")
            if opts.id_col not in columns:
                columns.append(opts.id_col)
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
        n_rows = pf.metadata.num_rows
        for batch in pf.iter_batches(batch_size=batch_size, columns=columns):
            opts.meter.counted(row_i + batch.num_rows, n_rows)
            raw_texts = batch.column(opts.text_col).to_pylist()
            labels: list[Any] | None = None
            if opts.label_col is not None:
                labels = batch.column(opts.label_col).to_pylist()
            ids = None if opts.id_col is None else batch.column(opts.id_col).to_pylist()
            for j, text in enumerate(raw_texts):
                if text is None:
                    message = f"{src}, row {row_i + j}: missing text (null)."
                    opts.bad_rows.bad(message, src, "missing text", row_i + j, None)
                    continue
                if labels is not None and labels[j] is None:
                    message = f"{src}, row {row_i + j}: missing label (null)."
                    opts.bad_rows.bad(message, src, "missing label", row_i + j, None)
                    continue
                if labels is not None and isinstance(labels[j], (list, dict)):
                    message = (f"{src}, row {row_i + j}: the label must be one string, number "
                               f"or boolean; got a {type(labels[j]).__name__}.")  # fmt: skip
                    opts.bad_rows.bad(message, src, "label not one value", row_i + j, None)
                    continue
                if is_binary:
                    try:
                        text = text.decode(_text_encoding(opts.encoding))
                    except UnicodeDecodeError:
                        text = text.decode(opts.encoding, errors="replace")
                        decoding.record(src, f"row {row_i + j} of {src}")
                label = None if labels is None else labels[j]
                if ids is not None:
                    yield text, label, ids[j]
                else:
                    yield text, label
            row_i += len(raw_texts)


# --------------------------------------------------------------------------- plain text


def _no_labels(path: Path | Stream, what: str) -> ValueError:
    label = " Pass label_col=None to read it without labels." if python_caller() else ""
    stdin = isinstance(path, Stream) and path.name == "<stdin>"
    return ValueError(
        f"{'Standard input' if stdin else repr(str(path))} is plain text ({what}): it has "
        "no labels. Give labelled data as a CSV/TSV/JSON lines file with a label column, or "
        f"as a folder per class (root/<label>/<file>).{label}"
    )


def line_rows(path: Path | Stream, opts: Options, decoding: Decoding) -> Iterator[tuple[Any, ...]]:
    """One document per line (blank lines skipped), without labels."""
    if opts.label_col is not None:
        raise _no_labels(path, "one document per line")
    src = _name(path) if isinstance(path, Stream) else str(path)
    for line_no, line in _numbered_lines(path, opts.encoding, meter=opts.meter):
        text = line.rstrip("\r\n")
        if not text.strip():
            continue
        if _MARK in text:
            decoding.record(src, f"line {line_no} of {src}")
            text = text.replace(_MARK, "\ufffd")
        yield text, None


def document_rows(
    path: Path | Stream, opts: Options, decoding: Decoding
) -> Iterator[tuple[Any, ...]]:
    """The whole file as one document, without a label."""
    if opts.label_col is not None:
        raise _no_labels(path, "one document")
    if isinstance(path, Stream):
        text = "".join(path.lines)
        if _MARK in text:
            decoding.record(path.name, path.name)
            text = text.replace(_MARK, "\ufffd")
        yield text, None
        return
    yield from doc_rows(path.parent, [path], opts, decoding)


# --------------------------------------------------------------------------- folders


def doc_rows(
    folder: Path, files: list[Path], opts: Options, decoding: Decoding
) -> Iterator[tuple[Any, ...]]:
    label = folder.name if opts.label_col is not None else None
    strict_encoding = _text_encoding(opts.encoding)
    for i, path in enumerate(files):
        data = _read_bytes(path)
        opts.meter.counted(i + 1, len(files))
        try:
            text = data.decode(strict_encoding)
        except UnicodeDecodeError:
            text = data.decode(strict_encoding, errors="replace")
            decoding.record(str(path), f"the file {str(path)!r}")
        yield text, label
