"""One table of input formats: read_texts, the command line and Dask tell formats alike."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from nbayes.cli._common import DATA_FORMATS
from nbayes.cli._tables import read_table
from nbayes.cli._ui import UI, CLIError
from nbayes.distributed._read import _format_of as dask_format_of
from nbayes.io import SUPPORTED_FORMATS, read_texts
from nbayes.io.input_formats import FORMATS, by_name, of_path, row_reader, table_formats

ROWS = [("free money now", "spam"), ("lunch at noon", "ham")]


def _write(path: Path, fmt: str) -> Path:
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        body = f"text{sep}label\n" + "".join(f"{t}{sep}{lab}\n" for t, lab in ROWS)
    elif fmt == "jsonl":
        body = "".join(json.dumps({"text": t, "label": lab}) + "\n" for t, lab in ROWS)
    elif fmt == "lines":
        body = "".join(t + "\n" for t, _ in ROWS)
    elif fmt == "document":
        body = ROWS[0][0]
    else:
        import pandas as pd

        pd.DataFrame(ROWS, columns=["text", "label"]).to_parquet(path)
        return path
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(body.encode()))
    else:
        path.write_text(body)
    return path


def test_every_front_end_offers_the_tables_formats() -> None:
    assert SUPPORTED_FORMATS == DATA_FORMATS == tuple(f.name for f in FORMATS)
    assert {f.name for f in table_formats()} == {"csv", "tsv", "jsonl", "parquet"}


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f.extensions], ids=lambda f: f.name)
def test_each_extension_means_its_format_everywhere(tmp_path: Path, fmt: object) -> None:
    assert hasattr(fmt, "extensions")
    for ext in fmt.extensions:  # type: ignore[attr-defined]
        name = f"data{ext}" if ext else "data"
        assert of_path(name) is fmt
        path = _write(tmp_path / name, fmt.name)  # type: ignore[attr-defined]
        labelled = fmt.labelled  # type: ignore[attr-defined]
        chunks = list(read_texts(path, label_col="label" if labelled else None))
        texts = [t for c in chunks for t in c.texts]
        assert texts[0] == ROWS[0][0]
        if fmt.table:  # type: ignore[attr-defined]
            assert dask_format_of(str(path)) == fmt.name  # type: ignore[attr-defined]
            frame = read_table(UI(quiet=True), [str(path)])
            assert frame["text"].tolist() == [t for t, _ in ROWS]
            assert [lab for c in chunks for lab in (c.labels or [])] == ["spam", "ham"]


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_gzip_tables_are_read_by_every_reader(tmp_path: Path, fmt: str) -> None:
    ext = by_name(fmt).extensions[0]
    path = _write(tmp_path / f"data{ext}.gz", fmt)
    assert of_path(path) is by_name(fmt)
    assert [t for c in read_texts(path) for t in c.texts] == [t for t, _ in ROWS]
    assert read_table(UI(quiet=True), [str(path)])["label"].tolist() == ["spam", "ham"]


def test_unknown_and_refused_names_give_advice(tmp_path: Path) -> None:
    assert of_path("photo.png") is None and of_path("a.csv.bz2") is None
    assert dask_format_of("a.csv.bz2") == "csv"  # Dask reads bz2 itself
    with pytest.raises(ValueError, match="Unknown format 'xml': use one of 'csv', 'tsv'"):
        by_name("xml")
    with pytest.raises(ValueError, match="Cannot tell the format.*format="):
        list(read_texts(tmp_path / "x.png") if (tmp_path / "x.png").touch() is None else [])
    with pytest.raises(ValueError, match="cannot be read gzip-compressed"):
        (tmp_path / "t.parquet.gz").write_bytes(b"")
        list(read_texts(tmp_path / "t.parquet.gz"))
    with pytest.raises(CLIError, match=r"tables are \.csv, \.tsv, \.tab, \.jsonl"):
        (tmp_path / "t.txt").write_text("x")
        read_table(UI(quiet=True), [str(tmp_path / "t.txt")])


def test_row_readers_take_path_options_and_decoding() -> None:
    for fmt in FORMATS:
        assert callable(row_reader(fmt.name)) and fmt.reader.__name__
