"""``fit_source(..., bad_rows="skip")`` and ``nbayes train --workers N --bad-rows skip``:
the rows that ``read_texts(..., bad_rows="skip")`` skips are skipped on the workers, in
files cut into several blocks, named by file, row and line as the reader names them, and
the model is the reader's; what spoils more than a row still stops the fit. Before, the
workers stopped at the first bad row, and the command line refused ``--bad-rows skip``
with ``--workers``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from nbayes import distributed as nbd  # noqa: E402
from nbayes.cli import main  # noqa: E402
from nbayes.exceptions import SkippedRowsWarning  # noqa: E402
from nbayes.io import read_texts  # noqa: E402
from nbayes.io.persist import load  # noqa: E402
from nbayes.text.classifier import TextClassifier  # noqa: E402

WORDS = ["free", "win", "money", "lunch", "today", "meeting", "offer", "hello", "report"]
#: small blocks: the bad rows fall in different partitions of a file
BLOCK = 8_000


def _rows(seed: int, n: int) -> list[tuple[str, str]]:
    rng = np.random.default_rng(seed)
    return [(" ".join(rng.choice(WORDS, 5)), str(rng.choice(["ham", "spam"]))) for _ in range(n)]


def _csv(path: Path, rows: list[tuple[str, str]], bad: dict[int, str]) -> Path:
    """A CSV of ``rows``, with the lines ``bad`` (data row -> line) in their place."""
    lines = ["text,label"] + [bad.get(i, f"{t},{y}") for i, (t, y) in enumerate(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _reader(path: Path | str, **kw: Any) -> tuple[TextClassifier, list[Any]]:
    """The model of the rows read_texts keeps, and the rows it skips."""
    skipped: list[Any] = []
    texts: list[str] = []
    labels: list[Any] = []
    for chunk in read_texts(str(path), bad_rows="skip", on_bad_row=skipped.append, **kw):
        texts += chunk.texts
        labels += chunk.labels or []
    return TextClassifier().fit(texts, labels), skipped


def _dask(path: Path | str, **kw: Any) -> tuple[TextClassifier, list[Any]]:
    skipped: list[Any] = []
    model = nbd.fit_source(TextClassifier(), str(path), scheduler="sync", bad_rows="skip",
                           on_bad_row=skipped.append, **kw)  # fmt: skip
    return model, skipped


def _same(a: Any, b: Any) -> None:
    assert a.vocabulary_ == b.vocabulary_
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.class_count_, b.class_count_)
    np.testing.assert_array_equal(a.feature_count_, b.feature_count_)


def test_csv_rows_of_the_wrong_width_and_without_a_label(tmp_path: Path) -> None:
    rows = _rows(0, 3000)
    bad = {40: "one field only", 1300: "a,b,c", 2100: "no label,", 2950: "x,y,z,w"}
    path = _csv(tmp_path / "d.csv", rows, bad)
    assert nbd.read(str(path), blocksize=BLOCK).npartitions >= 5
    single, skipped = _reader(path)
    dist, found = _dask(path, blocksize=BLOCK)
    _same(single, dist)
    assert found == skipped and [b.row for b in found] == sorted(bad)
    assert [(b.line, b.reason) for b in found] == [
        (42, "1 field(s), the header has 2"), (1302, "3 field(s), the header has 2"),
        (2102, "missing label"), (2952, "4 field(s), the header has 2"),
    ]  # fmt: skip
    assert found[1].message.startswith(f"{path}, row 1300 (line 1302): 3 field(s), but the "
                                       "header has 2;")  # fmt: skip


def test_a_bom_on_a_blank_first_line(tmp_path: Path) -> None:
    # the blank line after the BOM was taken for the header: every later block read its
    # first row as the columns, "Column 'text' not found" (a review)
    rows = _rows(3, 600)
    path = tmp_path / "bom.csv"
    body = "".join(f"{t},{y}\n" for t, y in rows)
    path.write_bytes(b"\xef\xbb\xbf\ntext,label\n" + body.encode())
    assert nbd.read(str(path), blocksize=2_000).npartitions >= 3
    single, skipped = _reader(path)
    dist, found = _dask(path, blocksize=2_000)
    _same(single, dist)
    assert found == skipped == []


def test_tsv_with_crlf_and_a_delimiter(tmp_path: Path) -> None:
    """Line ends CRLF, a TSV and a ';' CSV: the lines are the reader's."""
    rows = _rows(1, 2000)
    lines = ["text\tlabel"] + [f"{t}\t{y}" for t, y in rows]
    lines[700] = "no tab here"
    lines[1800] = "missing\t"
    path = tmp_path / "d.tsv"
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    single, skipped = _reader(path)
    dist, found = _dask(path, blocksize=BLOCK)
    _same(single, dist)
    assert found == skipped and [b.line for b in found] == [701, 1801]
    semi = tmp_path / "s.csv"
    semi.write_text("text;label\n" + "".join(f"{t};{y}\n" for t, y in rows[:900]) + "x;y;z\n")
    single, skipped = _reader(semi, delimiter=";")
    dist, found = _dask(semi, blocksize=BLOCK, sep=";")
    _same(single, dist)
    assert found == skipped and len(found) == 1


def test_json_lines_invalid_not_objects_and_missing(tmp_path: Path) -> None:
    records = [json.dumps({"text": t, "label": y}) for t, y in _rows(2, 3000)]
    records[10] = '{"text": "cut short", "label"'
    records[900] = "[1, 2]"
    records[1700] = json.dumps({"text": None, "label": "ham"})
    records[2300] = json.dumps({"text": "no label"})  # (a key missing after the first block)
    records[2800] = json.dumps({"text": "null label", "label": None})
    path = tmp_path / "d.jsonl"
    path.write_text("\n".join(records) + "\n\n", encoding="utf-8")
    single, skipped = _reader(path)
    dist, found = _dask(path, blocksize=BLOCK)
    _same(single, dist)
    assert found == skipped
    assert [(b.line, b.reason) for b in found] == [
        (11, "invalid JSON"), (901, "not a JSON object"), (1701, "missing text"),
        (2301, "no key 'label'"), (2801, "missing label"),
    ]  # fmt: skip


def test_parquet_null_text_and_label(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    for i in range(2):
        rows = _rows(3 + i, 200)
        texts: list[Any] = [t for t, _ in rows]
        labels: list[Any] = [y for _, y in rows]
        texts[50 + i] = None
        labels[120] = None
        pq.write_table(pa.table({"text": texts, "label": labels}), tmp_path / f"p{i}.parquet")
    single, skipped = _reader(tmp_path / "*.parquet")
    dist, found = _dask(tmp_path / "*.parquet")
    _same(single, dist)
    assert found == skipped and [(Path(b.source).name, b.row, b.line) for b in found] == [
        ("p0.parquet", 50, None), ("p0.parquet", 120, None), ("p1.parquet", 51, None),
        ("p1.parquet", 120, None),
    ]  # fmt: skip


def test_several_files_and_a_warning_without_on_bad_row(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.chdir(tmp_path)
    for i in range(3):
        _csv(tmp_path / f"p{i}.csv", _rows(10 + i, 1200), {300 * i + 5: "bad"})
    single, skipped = _reader("p*.csv")
    with pytest.warns(SkippedRowsWarning) as caught:
        dist = nbd.fit_source(TextClassifier(), "p*.csv", scheduler="sync", bad_rows="skip",
                              blocksize=BLOCK)  # fmt: skip
    _same(single, dist)
    assert len(caught) == 1 and str(caught[0].message) == (
        "Skipped 3 bad rows (p0.csv line 7: 1 field(s), the header has 2; p1.csv line 307: "
        "1 field(s), the header has 2; p2.csv line 607: 1 field(s), the header has 2)."
    )
    assert [b.source for b in skipped] == ["p0.csv", "p1.csv", "p2.csv"]


# -------------------------------------------------------------- what still stops
def _local_error(path: Path, **kw: Any) -> str:
    with pytest.raises(ValueError) as info:
        _reader(path, **kw)
    return str(info.value)


def test_a_missing_column_stops(tmp_path: Path) -> None:
    path = _csv(tmp_path / "d.csv", _rows(20, 2000), {})
    with pytest.raises(ValueError) as info:
        _dask(path, blocksize=BLOCK, text_col="body")
    assert str(info.value) == _local_error(path, text_col="body")
    assert str(info.value).startswith("Column 'body' not found in")


@pytest.mark.parametrize("where", ["start", "last block", "middle"])
def test_a_quote_that_never_closes_stops(tmp_path: Path, monkeypatch: Any, where: str) -> None:
    """Found in the start of the file read before it is cut: one partition, the reader's
    error. Later (only the first 2,000 bytes looked at): in the last block, the reader's
    error; in another, the block ends inside a quoted field, which is said, with both
    causes and what to do."""
    from nbayes.distributed import _read

    rows = _rows(21, 2000)
    row = {"start": 10, "last block": 1990, "middle": 1000}[where]
    path = _csv(tmp_path / "d.csv", rows, {row: f'"{rows[row][0]},{rows[row][1]}'})
    local = _local_error(path)
    assert local.startswith(f"{path}, line {row + 2}: a quote opens there and never closes")
    monkeypatch.setattr(_read, "_AUTO_BLOCKSIZE", BLOCK)
    if where == "start":
        with pytest.warns(nbd.QuotedLineBreakWarning), pytest.raises(ValueError) as info:
            _dask(path)
        assert str(info.value) == local
        return
    monkeypatch.setattr(_read, "QUOTED_SAMPLE", 2000)
    with pytest.raises(ValueError) as info:
        _dask(path)
    if where == "last block":
        assert str(info.value) == local
    else:  # (or a quoted field holding line breaks where the file was cut)
        assert str(info.value).startswith(f"{path}, line {row + 2}: a quote opens there and "
                                          "does not close before the end of the block")  # fmt: skip
        assert "blocksize=None" in str(info.value)


def test_every_row_bad_stops(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"text": "a", "label"\n' * 3000)
    with pytest.raises(ValueError) as info:
        _dask(path, blocksize=BLOCK)
    assert str(info.value) == _local_error(path)
    assert str(info.value).startswith("No documents: every row was bad. Skipped 3,000 bad rows")


def test_the_readers_options(tmp_path: Path) -> None:
    """(An estimator of a table skips too: test_skipping_table_rows.py.)"""
    path = _csv(tmp_path / "d.csv", _rows(22, 10), {})
    with pytest.raises(TypeError, match=r"take no usecols"):
        nbd.fit_source(TextClassifier(), str(path), scheduler="sync", bad_rows="skip",
                       usecols=["text"])  # fmt: skip
    with pytest.raises(ValueError, match=r"bad_rows must be one of"):
        nbd.fit_source(TextClassifier(), str(path), scheduler="sync", bad_rows="drop")


# ------------------------------------------------------------------ command line
def test_cli_note_and_model(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    """The note of the single-process run, even with -q, and the same model file."""
    from nbayes.distributed import _read

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_read, "_AUTO_BLOCKSIZE", BLOCK)  # several blocks
    _csv(tmp_path / "d.csv", _rows(30, 3000), {40: "bad", 1300: "a,b,c", 2100: "none,"})
    note = (
        "Skipped 3 bad rows (d.csv line 42: 1 field(s), the header has 2; d.csv line 1302: 3 "
        "field(s), the header has 2; d.csv line 2102: missing label).\n"
    )
    for model, dask in (("one.nbayes", []), ("dask.nbayes", ["--dask-scheduler", "sync"])):
        code = main(["train", "d.csv", "-o", model, "--bad-rows", "skip", "-q", *dask])
        out, err = capsys.readouterr()
        assert code == 0 and err == note, err
    assert Path("one.nbayes").read_bytes() == Path("dask.nbayes").read_bytes()
    _same(load("one.nbayes"), load("dask.nbayes"))
    _csv(tmp_path / "e.csv", _rows(31, 3000), {2100: "none,"})  # (pandas reads it so)
    code = main(["train", "e.csv", "-o", "e.nbayes", "--dask-scheduler", "sync"])
    err = capsys.readouterr().err
    assert code == 1 and err.endswith(
        "Error: e.csv, row 2100 (line 2102): missing label. Pass --bad-rows skip to skip such "
        "rows (the workers then read the data as this process would), or clean the data "
        "first.\n"
    ), err
    errors = []  # a missing column: the words of this process, with its flags
    for dask in ([], ["--dask-scheduler", "sync"]):
        code = main(["train", "d.csv", "-o", "e.nbayes", "--text-col", "body", "--bad-rows",
                     "skip", "-q", *dask])  # fmt: skip
        errors.append(capsys.readouterr().err)
        assert code == 1
    assert errors[0] == errors[1] and "Pass --text-col NAME to choose" in errors[0]
