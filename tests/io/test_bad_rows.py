"""``read_texts(..., bad_rows="skip")``: bad rows left out, counted and reported; what
spoils more than a row is still an error; the default is unchanged."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from nbayes.exceptions import SkippedRowsWarning
from nbayes.io import read_texts
from nbayes.io.readers import BadRow


def _all(source, **kw):
    texts, labels, starts = [], [], []
    for chunk in read_texts(source, **kw):
        texts += chunk.texts
        labels += chunk.labels or []
        starts.append((chunk.start_row, len(chunk)))
    return texts, labels, starts


def _jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def dirty_jsonl(tmp_path: Path) -> Path:
    return _jsonl(
        tmp_path / "d.jsonl",
        [
            json.dumps({"text": "alpha apple", "label": "x"}),
            '{"text": "broken", "label"',  # invalid JSON (line 2)
            json.dumps({"text": None, "label": "y"}),  # null text (line 3)
            json.dumps({"text": "b", "label": None}),  # null label (line 4)
            "[1, 2]",  # not an object (line 5)
            json.dumps({"label": "y"}),  # no text key (line 6)
            json.dumps({"text": "cherry cake", "label": "y"}),
            json.dumps({"text": 5, "label": "y"}),  # not a string (line 8)
            json.dumps({"text": "date apple", "label": "x"}),
        ],
    )


def test_default_is_still_an_error(dirty_jsonl: Path) -> None:
    with pytest.raises(ValueError, match=r"line 2: invalid JSON.*bad_rows='skip'"):
        _all(dirty_jsonl)
    with pytest.raises(ValueError, match="bad_rows must be one of"):
        read_texts(dirty_jsonl, bad_rows="ignore")


def test_jsonl_skip_counts_and_reports(dirty_jsonl: Path) -> None:
    seen: list[BadRow] = []
    texts, labels, starts = _all(dirty_jsonl, bad_rows="skip", on_bad_row=seen.append)
    assert texts == ["alpha apple", "cherry cake", "date apple"] and labels == ["x", "y", "x"]
    assert [(b.line, b.reason) for b in seen] == [
        (2, "invalid JSON"),
        (3, "missing text"),
        (4, "missing label"),
        (5, "not a JSON object"),
        (6, "no key 'text'"),
        (8, "text not a string"),
    ]
    assert str(seen[0]) == "d.jsonl line 2: invalid JSON"
    assert "invalid JSON" in seen[0].message and seen[0].row == 1
    # skipped rows still count: chunks never span one, start_row stays the file's row
    assert starts == [(0, 1), (6, 1), (8, 1)]


def test_skip_without_callback_warns_once(dirty_jsonl: Path) -> None:
    with pytest.warns(SkippedRowsWarning, match=r"Skipped 6 bad rows \(d.jsonl line 2: "):
        texts, _, _ = _all(dirty_jsonl, bad_rows="skip")
    assert len(texts) == 3


def test_every_row_bad_is_an_error(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "bad.jsonl", ["{oops", json.dumps({"text": None, "label": 1})])
    with pytest.raises(ValueError, match=r"No documents: every row was bad\. Skipped 2"):
        _all(path, bad_rows="skip", on_bad_row=lambda b: None)


def test_a_wrong_key_is_not_a_bad_row(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "k.jsonl", [json.dumps({"body": "a", "label": "x"})] * 3)
    with pytest.raises(ValueError, match="Column 'text' not found"):
        _all(path, bad_rows="skip")


def test_csv_skip(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text(
        'text,label\nfine,x\ntoo,many,fields\nno label,\n"multi\nline",y\nlast,x\n',
        encoding="utf-8",
    )
    seen: list[BadRow] = []
    texts, labels, starts = _all(path, bad_rows="skip", on_bad_row=seen.append, chunk_size=10)
    assert texts == ["fine", "multi\nline", "last"] and labels == ["x", "y", "x"]
    assert [(b.row, b.line, b.reason) for b in seen] == [
        (1, 3, "3 field(s), the header has 2"),
        (2, 4, "missing label"),
    ]
    assert starts == [(0, 1), (3, 2)]
    with pytest.raises(ValueError, match=r"row 1 \(line 3\): 3 field\(s\)"):
        _all(path)


def test_csv_missing_column_and_unclosed_quote_stay_errors(tmp_path: Path) -> None:
    path = tmp_path / "c.csv"
    path.write_text("body,label\na,x\n", encoding="utf-8")
    with pytest.raises(ValueError, match="Column 'text' not found"):
        _all(path, bad_rows="skip")
    path.write_text('text,label\na,x\n"never closes,y\nb,x\nc,y\n', encoding="utf-8")
    with pytest.raises(ValueError, match="never closes"):
        _all(path, bad_rows="skip")
    # on the last line (before, the label 'y\n' was read without a word)
    path.write_text('text,label\na,x\nb,"y\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"c\.csv, line 3: a quote opens there and never "
                       r"closes \(the rest of the file, 1 line, would be one field\)"):  # fmt: skip
        _all(path, bad_rows="skip")


def test_gzip_corruption_stays_an_error(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl.gz"
    data = gzip.compress(("\n".join([json.dumps({"text": "a", "label": "x"})] * 2000)).encode())
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a valid gzip file or is truncated"):
        _all(path, bad_rows="skip")


def test_parquet_skip(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "n.parquet"
    table = pa.table({"text": ["a", None, "b", "c"], "label": ["x", "y", None, "y"]})
    pq.write_table(table, path)
    seen: list[BadRow] = []
    texts, labels, starts = _all(path, bad_rows="skip", on_bad_row=seen.append)
    assert texts == ["a", "c"] and labels == ["x", "y"]
    assert [(b.row, b.line, b.reason) for b in seen] == [
        (1, None, "missing text"),
        (2, None, "missing label"),
    ]
    assert starts == [(0, 1), (3, 1)]
    with pytest.raises(ValueError, match=r"row 1: missing text \(null\)"):
        _all(path)


def test_training_with_skip_equals_training_without_the_rows(
    tmp_path: Path, dirty_jsonl: Path
) -> None:
    from nbayes.text import TextClassifier

    clean = _jsonl(
        tmp_path / "clean.jsonl",
        [
            json.dumps({"text": t, "label": y})
            for t, y in [("alpha apple", "x"), ("cherry cake", "y"), ("date apple", "x")]
        ],
    )

    def fit(source, **kw):
        chunks = ((c.texts, c.labels) for c in read_texts(source, chunk_size=2, **kw))
        return TextClassifier().fit_chunks(chunks)

    skipped = fit(dirty_jsonl, bad_rows="skip", on_bad_row=lambda b: None)
    whole = fit(clean)
    assert skipped.classes_.tolist() == whole.classes_.tolist()
    assert skipped.get_feature_names_out().tolist() == whole.get_feature_names_out().tolist()
    docs = ["apple cake", "date", "cherry cherry alpha"]
    assert (skipped.predict_proba(docs) == whole.predict_proba(docs)).all()
