"""``nbayes.io.read_table``: one table of features as a pandas DataFrame, the rows it
cannot read skipped as ``read_texts`` skips its own (the command line's table reader, and
the Dask workers', read through it)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

import nbayes.io
from nbayes.exceptions import SkippedRowsWarning
from nbayes.io import BadRow, read_table

pytest.importorskip("pandas")


def test_public_and_documented() -> None:
    assert "read_table" in nbayes.io.__all__ and nbayes.io.read_table is read_table
    assert "read_table" in (nbayes.io.__doc__ or "")


def test_csv_lines_with_more_fields_than_the_header(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("a,b,y\n1,2,x\n3,4,z,extra\n5,,x\n6\n")
    with pytest.raises(ValueError, match=r"t.csv, line 3: 4 fields, but the header has 3; "
                       r"check the quoting and the delimiter \(','\)\. Pass "
                       r"bad_rows='skip' to skip such rows\.$"):  # fmt: skip
        read_table(path, "csv")
    found: list[BadRow] = []
    frame = read_table(path, "csv", bad_rows="skip", on_bad_row=found.append)
    assert frame.to_numpy().tolist()[:2] == [["1", "2", "x"], ["5", "", "x"]]
    assert frame.to_numpy().tolist()[2] == ["6", "", ""]  # (a short line: empty cells)
    assert [str(b) for b in found] == ["t.csv line 3: 4 fields, the header has 3"]
    assert read_table(path, "csv", typed=True, bad_rows="skip", on_bad_row=found.append)[
        "a"
    ].tolist() == [1, 5, 6]


@pytest.mark.parametrize("zipped", [False, True])
def test_json_lines_that_are_no_objects(tmp_path: Path, zipped: bool) -> None:
    text = '{"a": 1, "y": "x"}\n\n{"a": 2, "y"\n[1, 2]\n{"a": 3.5, "y": null}\n'
    path = tmp_path / "t.jsonl.gz"
    path.write_bytes(gzip.compress(text.encode()) if zipped else text.encode())
    with pytest.warns(SkippedRowsWarning, match=r"^Skipped 2 bad rows \(t.jsonl.gz line 3: "
                      r"invalid JSON; t.jsonl.gz line 4: not a JSON object\)\.$"):  # fmt: skip
        frame = read_table(path, "jsonl", bad_rows="skip")
    assert frame["a"].tolist() == [1.0, 3.5] and frame["y"].tolist()[0] == "x"
    found: list[BadRow] = []
    lines = text.splitlines(keepends=True)
    read_table(lines, "jsonl", name="part", bad_rows="skip", on_bad_row=found.append)
    assert [(b.source, b.row, b.line, b.reason) for b in found] == [
        ("part", 1, 3, "invalid JSON"), ("part", 2, 4, "not a JSON object"),
    ]  # fmt: skip


def test_wrong_settings() -> None:
    with pytest.raises(ValueError, match="bad_rows must be one of"):
        read_table("t.csv", "csv", bad_rows="drop")
    with pytest.raises(ValueError, match="format must be one of"):
        read_table("t.txt", "lines")


@pytest.mark.parametrize("bad_rows", ["error", "skip"])
@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_gzip_is_told_by_the_first_bytes_not_the_name(
    tmp_path: Path, fmt: str, bad_rows: str
) -> None:
    """Every path reads a gzip file named without '.gz', and a plain file named '.gz' (as
    documented; pandas alone tells them by the name). Before, only JSON lines skipping bad
    rows did: the others raised UnicodeDecodeError or BadGzipFile."""
    text = {
        "csv": "a,y\n1,0\n2,1\n",
        "tsv": "a\ty\n1\t0\n2\t1\n",
        "jsonl": '{"a": 1, "y": 0}\n{"a": 2, "y": 1}\n',
    }[fmt]
    zipped = tmp_path / f"t.{fmt}"
    zipped.write_bytes(gzip.compress(text.encode()))
    plain = tmp_path / f"t2.{fmt}.gz"
    plain.write_text(text)
    for path in (zipped, plain):
        frame = read_table(path, fmt, typed=True, bad_rows=bad_rows)
        assert frame.shape == (2, 2) and frame["a"].tolist() == [1, 2], path


def test_lines_are_named_lines_not_by_their_text() -> None:
    """Lines without ``name=``: bad rows name them "<lines>" (before: the whole list)."""
    found: list[BadRow] = []
    lines = ["a,y\n", "1,0\n", "2,1,3\n"]
    read_table(lines, "csv", bad_rows="skip", on_bad_row=found.append)
    assert [str(b) for b in found] == ["<lines> line 3: 3 fields, the header has 2"]
    found.clear()
    read_table(['{"a": 1}\n', "[1]\n"], "jsonl", bad_rows="skip", on_bad_row=found.append)
    assert [str(b) for b in found] == ["<lines> line 2: not a JSON object"]
