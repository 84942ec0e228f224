"""Tests of nbayes.io.read_texts (all data is generated in tmp_path)."""

from __future__ import annotations

import csv
import gzip
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from nbayes.exceptions import DecodingWarning
from nbayes.io import SUPPORTED_FORMATS, TextChunk, read_texts

# 20 rows with the awkward cases: commas, doubled quotes, embedded LF, CRLF
# inside a field, tabs, non-ASCII, an empty document.
ROWS: list[tuple[str, str]] = [
    (f"document {i}, with a comma" if i % 3 else f'she said "hi"\nand left {i}', f"c{i % 3}")
    for i in range(20)
]
ROWS[4] = ("", "c1")
ROWS[5] = ("tab\there and\r\nCRLF inside", "c2")
ROWS[6] = ("héllo wörld — ünïcode ✓ 🙂", "c0")


def write_csv(path: Path, rows: list[tuple[str, str]], delimiter: str = ",") -> Path:
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, delimiter=delimiter, lineterminator="\r\n")
        w.writerow(["text", "label"])
        w.writerows(rows)
    return path


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    return path


def gzip_file(path: Path) -> Path:
    out = path.with_name(path.name + ".gz")
    out.write_bytes(gzip.compress(path.read_bytes()))
    return out


def read_all(source: Any, **kw: Any) -> tuple[list[str], list[Any] | None]:
    texts: list[str] = []
    labels: list[Any] | None = None
    for chunk in read_texts(source, **kw):
        assert isinstance(chunk, TextChunk)
        assert len(chunk) > 0
        texts.extend(chunk.texts)
        if chunk.labels is not None:
            labels = (labels or []) + chunk.labels
    return texts, labels


TEXTS = [t for t, _ in ROWS]
LABELS = [lab for _, lab in ROWS]


# --------------------------------------------------------------------------- formats


def test_csv_round_trip(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "d.csv", ROWS)
    assert read_all(path) == (TEXTS, LABELS)


def test_tsv_and_explicit_delimiter(tmp_path: Path) -> None:
    tsv = write_csv(tmp_path / "d.tsv", ROWS, delimiter="\t")
    assert read_all(tsv) == (TEXTS, LABELS)
    semi = write_csv(tmp_path / "d.csv", ROWS, delimiter=";")
    assert read_all(semi, delimiter=";") == (TEXTS, LABELS)


def test_str_path_and_pathlike(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "d.csv", ROWS)
    assert read_all(str(path)) == read_all(path)


@pytest.mark.parametrize("ext", [".jsonl", ".ndjson"])
def test_jsonl(tmp_path: Path, ext: str) -> None:
    records = [{"text": t, "label": i % 2, "extra": [1, 2]} for i, t in enumerate(TEXTS)]
    path = write_jsonl(tmp_path / f"d{ext}", records)
    texts, labels = read_all(path)
    assert texts == TEXTS
    assert labels == [i % 2 for i in range(20)]  # JSON values, not strings


def test_jsonl_blank_lines_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_bytes(b'{"text": "a", "label": "x"}\r\n\r\n  \n{"text": "b", "label": "y"}')
    assert read_all(path) == (["a", "b"], ["x", "y"])


def test_parquet(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table({"id": list(range(20)), "text": TEXTS, "label": list(range(20))})
    path = tmp_path / "d.parquet"
    pq.write_table(table, path, row_group_size=6)
    texts, labels = read_all(path, chunk_size=4)
    assert texts == TEXTS
    assert labels == list(range(20))  # Arrow values
    chunks = list(read_texts(path, chunk_size=4))
    assert [c.start_row for c in chunks] == [0, 4, 8, 12, 16]
    assert all(len(c) == 4 for c in chunks)


def test_parquet_binary_column_and_invalid_utf8(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = pa.table(
        {"text": pa.array([b"ok", b"bad \xff byte"], pa.binary()), "label": ["a", "b"]}
    )
    path = tmp_path / "d.parquet"
    pq.write_table(table, path)
    with pytest.warns(DecodingWarning, match="1 document"):
        texts, _ = read_all(path)
    assert texts == ["ok", "bad \ufffd byte"]


def test_parquet_missing_column_and_nulls(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"body": ["a"], "label": ["x"]}), path)
    with pytest.raises(ValueError, match="Column 'text' not found in d.parquet; .*'body', 'label'"):
        read_all(path)
    pq.write_table(pa.table({"text": ["a", "b"], "label": ["x", None]}), path)
    with pytest.raises(ValueError, match=r"d.parquet, row 1: missing label"):
        read_all(path)
    assert read_all(path, label_col=None) == (["a", "b"], None)


def test_parquet_without_pyarrow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "d.parquet"
    path.write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r"pip install 'nbayes\[parquet\]'"):
        read_all(path)


# --------------------------------------------------------------------------- gzip


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl"])
def test_gzip_variants(tmp_path: Path, kind: str) -> None:
    if kind == "jsonl":
        plain = write_jsonl(tmp_path / "d.jsonl", [{"text": t, "label": lab} for t, lab in ROWS])
    else:
        plain = write_csv(tmp_path / f"d.{kind}", ROWS, delimiter="\t" if kind == "tsv" else ",")
    gz = gzip_file(plain)
    assert gz.name.endswith(f".{kind}.gz")
    assert read_all(gz) == (TEXTS, LABELS)


def test_gzip_detected_by_magic_bytes(tmp_path: Path) -> None:
    plain = write_csv(tmp_path / "d.csv", ROWS)
    disguised = tmp_path / "disguised.csv"
    disguised.write_bytes(gzip.compress(plain.read_bytes()))
    assert read_all(disguised) == (TEXTS, LABELS)


def test_truncated_gzip(tmp_path: Path) -> None:
    big = write_csv(tmp_path / "d.csv", ROWS * 50)
    data = gzip.compress(big.read_bytes())
    bad = tmp_path / "bad.csv.gz"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="bad.csv.gz.*gzip"):
        read_all(bad)


# --------------------------------------------------------------------------- CSV details


def test_multiline_quoted_fields_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes(
        b'text,label\r\n"line one\nline two\r\nline ""three""",a\r\nplain,b\r\n"x,y",c\r\n'
    )
    assert read_all(path) == (
        ['line one\nline two\r\nline "three"', "plain", "x,y"],
        ["a", "b", "c"],
    )


def test_field_over_one_megabyte(tmp_path: Path) -> None:
    big = ('word, "quoted"\n' * 200_000)[:3_000_000]
    path = write_csv(tmp_path / "d.csv", [("small", "a"), (big, "b"), ("after", "c")])
    before = csv.field_size_limit()
    texts, labels = read_all(path)
    assert texts == ["small", big, "after"]
    assert labels == ["a", "b", "c"]
    assert csv.field_size_limit() == before  # the global limit is restored


def test_field_size_guard(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('text,label\n"unbalanced quote,a\n' + "x" * 5000 + "\n", encoding="utf-8")
    before = csv.field_size_limit()
    with pytest.raises(
        ValueError, match="line 2: a quote opens there.*1,000 characters.*max_field_chars="
    ):
        read_all(path, max_field_chars=1000)
    assert csv.field_size_limit() == before


def test_bom_is_stripped(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes(b"\xef\xbb\xbftext,label\r\nhello,a\r\n")
    assert read_all(path) == (["hello"], ["a"])
    jl = tmp_path / "d.jsonl"
    jl.write_bytes(b'\xef\xbb\xbf{"text": "hi", "label": "b"}\n')
    assert read_all(jl) == (["hi"], ["b"])


@pytest.mark.parametrize("name", ["d.csv", "d.jsonl", "d.csv.gz"])
def test_files_that_are_no_text_of_the_encoding_say_what_they_are(
    tmp_path: Path, name: str
) -> None:
    # they were read as garbage: "Column 'text' not found ... the columns are: '��t\x00e...'",
    # with advice to pass another delimiter (a data engineer's trial)
    import bz2
    import lzma

    text = (
        "text,label\nhello there,a\n"
        if "csv" in name
        else '{"text": "hello there", "label": "a"}\n'
    )
    path = tmp_path / name

    def write(data: bytes) -> None:
        path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)

    for data, said in [
        (text.encode("utf-16"), "is UTF-16 text .*encoding='utf-16'"),
        (text.encode("utf-16-le"), "is UTF-16 text"),  # (no byte order mark)
        (text.encode("utf-32"), "is UTF-32 text"),
        (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
            "is not a text file: it holds NUL",
        ),
        (lzma.compress(text.encode()), "compressed with xz.*decompress it first"),
        (bz2.compress(text.encode()), "compressed with bzip2"),
    ]:
        write(data)
        with pytest.raises(ValueError, match=said):
            read_all(path)
    write(text.encode("utf-16"))  # told, it reads
    assert read_all(path, encoding="utf-16") == (["hello there"], ["a"])


def test_a_column_named_twice_is_refused(tmp_path: Path) -> None:
    # the first (CSV) or the last (JSON lines) was read without a word: a data engineer's trial
    csv_path = tmp_path / "d.csv"
    csv_path.write_text("text,label,label\nhello world,ham,spam\n")
    with pytest.raises(ValueError, match=r"header names the column 'label' 2 times \(columns 2, 3"):
        read_all(csv_path)
    assert read_all(csv_path, label_col=None) == (["hello world"], None)  # (not read: no matter)
    jl = tmp_path / "d.jsonl"
    jl.write_text('{"text": "hello", "label": "ham", "label": "spam"}\n')
    with pytest.raises(ValueError, match="first record names the key 'label' 2 times"):
        read_all(jl)
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq_path = tmp_path / "d.parquet"
    pq.write_table(pa.table([["a"], ["x"], ["y"]], names=["text", "label", "label"]), pq_path)
    with pytest.raises(ValueError, match="schema names the column 'label' 2 times"):
        read_all(pq_path)


def test_blank_lines_skipped_and_wrong_field_count(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("text,label\na,x\n\nb,y\n\n", encoding="utf-8")
    chunks = list(read_texts(path))
    assert (chunks[0].texts, chunks[0].labels) == (["a", "b"], ["x", "y"])
    path.write_text("text,label\na,x\nb,y,z\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"d.csv, row 1 \(line 3\): 3 field\(s\).*header has 2"):
        read_all(path)


def test_column_order_and_other_columns(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("id,label,body\n1,x,first\n2,y,second\n", encoding="utf-8")
    assert read_all(path, text_col="body") == (["first", "second"], ["x", "y"])


# --------------------------------------------------------------------------- decoding


def test_invalid_utf8_one_warning_with_counts(tmp_path: Path) -> None:
    a = tmp_path / "a.csv"
    a.write_bytes(b'text,label\ngood,x\nbad \xff here,x\n"multi\nline \xc3\x28",y\nfine,y\n')
    b = tmp_path / "b.jsonl"
    b.write_bytes(b'{"text": "ok", "label": 1}\n{"text": "caf\xe9", "label": 2}\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        texts, labels = read_all([a, b])
    assert len(caught) == 1
    w = caught[0]
    assert issubclass(w.category, DecodingWarning)
    msg = str(w.message)
    assert "3 document(s) in 2 file(s)" in msg
    assert "row 1 (line 3) of" in msg and "a.csv" in msg
    assert texts == ["good", "bad \ufffd here", "multi\nline \ufffd(", "fine", "ok", "caf\ufffd"]
    assert labels == ["x", "x", "y", "y", 1, 2]
    assert w.filename == __file__  # points at the caller


def test_invalid_utf8_pytest_warns(tmp_path: Path) -> None:
    path = tmp_path / "a.csv.gz"
    path.write_bytes(gzip.compress(b"text,label\n\xff\xfe,a\n"))
    with pytest.warns(DecodingWarning, match=r"1 document\(s\) in 1 file\(s\)"):
        texts, _ = read_all(path)
    assert texts == ["\ufffd\ufffd"]


def test_latin1_encoding(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_bytes("text,label\ncafé crème,a\n".encode("latin-1"))
    assert read_all(path, encoding="latin-1") == (["café crème"], ["a"])


def test_utf16_encoding(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_bytes('text,label\n"two\nlines ✓",a\n'.encode("utf-16"))
    assert read_all(path, encoding="utf-16") == (["two\nlines ✓"], ["a"])


def test_literal_replacement_character_is_not_counted(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("text,label\nalready \ufffd here,a\n", encoding="utf-8")
    assert read_all(path) == (["already \ufffd here"], ["a"])  # no warning (warnings are errors)


def test_early_close_still_reports(tmp_path: Path) -> None:
    path = tmp_path / "a.csv"
    path.write_bytes(b"text,label\n\xff,a\nb,b\nc,c\n")
    gen = read_texts(path, chunk_size=1)
    with pytest.warns(DecodingWarning, match="before the reader was closed"):
        next(gen)
        gen.close()


# --------------------------------------------------------------------------- errors


def test_missing_column_message(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "reviews.csv", ROWS)
    with pytest.raises(ValueError) as info:
        read_all(path, text_col="txt")
    assert str(info.value) == (
        "Column 'txt' not found in reviews.csv; the columns are: 'text', 'label'. "
        "Pass text_col=... to choose."
    )
    with pytest.raises(ValueError, match="Column 'y' not found.*Pass label_col"):
        read_all(path, label_col="y")
    jl = write_jsonl(tmp_path / "r.jsonl", [{"body": "a", "label": 1}])
    with pytest.raises(ValueError, match="Column 'text' not found in r.jsonl; the keys .*'body'"):
        read_all(jl)


def test_missing_label_and_text(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text("text,label\na,x\nb,\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"d.csv, row 1 \(line 3\): missing label"):
        read_all(path)
    assert read_all(path, label_col=None) == (["a", "b"], None)
    jl = write_jsonl(tmp_path / "d.jsonl", [{"text": "a", "label": 1}, {"text": None, "label": 2}])
    with pytest.raises(ValueError, match=r"d.jsonl, row 1 \(line 2\).*missing text"):
        read_all(jl)
    jl = write_jsonl(tmp_path / "d.jsonl", [{"text": "a", "label": 1}, {"text": "b"}])
    with pytest.raises(ValueError, match=r"row 1 \(line 2\): no key 'label' \(missing label\)"):
        read_all(jl)
    jl = write_jsonl(tmp_path / "d.jsonl", [{"text": "a", "label": None}])
    with pytest.raises(ValueError, match=r"row 0 \(line 1\): missing label"):
        read_all(jl)


def test_empty_text_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_text('text,label\n,a\n"",b\n', encoding="utf-8")
    assert read_all(path) == (["", ""], ["a", "b"])


def test_invalid_json(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('{"text": "a", "label": 1}\n{"text": oops}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"d.jsonl, line 2: invalid JSON"):
        read_all(path)
    path.write_text('["text", "a"]\n', encoding="utf-8")
    with pytest.raises(ValueError, match="expected a JSON object"):
        read_all(path)


def test_header_only_and_empty_file(tmp_path: Path) -> None:
    header = tmp_path / "h.csv"
    header.write_text("text,label\r\n", encoding="utf-8")
    assert list(read_texts(header)) == []
    empty = tmp_path / "e.csv"
    empty.write_bytes(b"")
    assert list(read_texts(empty)) == []
    assert list(read_texts(tmp_path / "e.csv", format="jsonl")) == []
    # The header is still checked.
    with pytest.raises(ValueError, match="Column 'txt' not found"):
        list(read_texts(header, text_col="txt"))


def test_nonexistent_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.csv"
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        read_texts(missing)  # raised at the call, before iterating
    with pytest.raises(FileNotFoundError, match=r"No file matches the pattern .*\*.zzz"):
        read_texts(str(tmp_path / "*.zzz"))


def test_unknown_extension(tmp_path: Path) -> None:
    path = tmp_path / "data.xlsx"
    path.write_bytes(b"whatever")
    with pytest.raises(ValueError, match=r"data.xlsx.*\.csv, \.tsv.*\.jsonl.*\.parquet.*format="):
        read_texts(path)
    gz = tmp_path / "data.parquet.gz"
    gz.write_bytes(b"")
    with pytest.raises(ValueError, match="Parquet"):
        read_texts(gz)
    # format= overrides the extension.
    txt = tmp_path / "data.txt"
    txt.write_text("text,label\na,b\n", encoding="utf-8")
    assert read_all(txt, format="csv") == (["a"], ["b"])
    assert set(SUPPORTED_FORMATS) == {"csv", "tsv", "jsonl", "parquet", "lines", "document"}


@pytest.mark.parametrize(
    "kwargs",
    [
        {"chunk_size": 0},
        {"chunk_size": 1.5},
        {"max_chunk_chars": 0},
        {"format": "xml"},
        {"delimiter": ",,"},
        {"max_field_chars": 0},
    ],
)
def test_bad_arguments(tmp_path: Path, kwargs: dict[str, Any]) -> None:
    path = write_csv(tmp_path / "d.csv", ROWS)
    with pytest.raises(ValueError):
        read_texts(path, **kwargs)


def test_bad_encoding_and_source_types(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "d.csv", ROWS)
    with pytest.raises(LookupError):
        read_texts(path, encoding="no-such-codec")
    with pytest.raises(TypeError):
        read_texts(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="empty list"):
        read_texts([])


# --------------------------------------------------------------------------- sources


def make_class_folder(root: Path) -> dict[str, list[str]]:
    docs = {
        "neg": ["awful", "boring film", "bad \xe9"],
        "pos": ["great", "loved it\nsecond line"],
        "zzz": [],
    }
    for label, texts in docs.items():
        (root / label).mkdir(parents=True)
        for i, t in enumerate(texts):
            # Names sort lexically: 10 before 2 would break a numeric order.
            (root / label / f"{i}_{label}.txt").write_text(t, encoding="utf-8")
    (root / "pos" / ".hidden.txt").write_text("ignored", encoding="utf-8")
    (root / "README.txt").write_text("ignored: loose files at the root", encoding="utf-8")
    (root / ".git").mkdir()
    (root / "pos" / "nested").mkdir()
    (root / "pos" / "nested" / "deep.txt").write_text("ignored", encoding="utf-8")
    return docs


def test_folder_per_class(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    docs = make_class_folder(root)
    texts, labels = read_all(root)
    assert texts == docs["neg"] + docs["pos"]
    assert labels == ["neg"] * 3 + ["pos"] * 2
    chunks = list(read_texts(root, chunk_size=2))
    assert [(Path(c.source).name, c.start_row, len(c)) for c in chunks] == [
        ("neg", 0, 2),
        ("neg", 2, 1),
        ("pos", 0, 2),
    ]
    assert read_all(root, label_col=None) == (texts, None)
    # A single class folder: the label is its name.
    assert read_all(root / "neg") == (docs["neg"], ["neg"] * 3)


def test_folder_per_class_gzip_and_invalid_bytes(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    (root / "a").mkdir(parents=True)
    (root / "a" / "1.txt.gz").write_bytes(gzip.compress(b"zipped"))
    (root / "a" / "2.txt").write_bytes(b"caf\xe9")
    (root / "a" / "3.txt").write_bytes(b"\xef\xbb\xbfbom")
    with pytest.warns(DecodingWarning, match=r"1 document.*2\.txt"):
        texts, labels = read_all(root)
    assert texts == ["zipped", "caf\ufffd", "bom"]
    assert read_all(root, encoding="latin-1")[0][1] == "café"


def test_folder_of_tables(tmp_path: Path) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    write_csv(folder / "b.csv", ROWS[10:])
    gzip_file(write_csv(tmp_path / "a.csv", ROWS[:10])).rename(folder / "a.csv.gz")
    assert read_all(folder) == (TEXTS, LABELS)
    (folder / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ValueError, match="mixes tables"):
        read_texts(folder)


def test_glob_and_list_of_paths(tmp_path: Path) -> None:
    for i in range(4):
        write_csv(tmp_path / f"part{i}.csv", ROWS[5 * i : 5 * i + 5])
    assert read_all(str(tmp_path / "part*.csv")) == (TEXTS, LABELS)
    paths = [tmp_path / f"part{i}.csv" for i in (3, 0)]
    assert read_all(paths) == (TEXTS[15:] + TEXTS[:5], LABELS[15:] + LABELS[:5])
    mixed = [str(tmp_path / "part[12].csv"), tmp_path / "part3.csv"]
    assert read_all(mixed)[0] == TEXTS[5:]
    chunks = list(read_texts(str(tmp_path / "*.csv"), chunk_size=3))
    # Chunks never span two files.
    assert [(Path(c.source).name, c.start_row, len(c)) for c in chunks][:3] == [
        ("part0.csv", 0, 3),
        ("part0.csv", 3, 2),
        ("part1.csv", 0, 3),
    ]


def test_mixed_formats_in_a_list(tmp_path: Path) -> None:
    a = write_csv(tmp_path / "a.csv", ROWS[:10])
    b = write_jsonl(tmp_path / "b.jsonl.gz", [{"text": t, "label": lab} for t, lab in ROWS[10:]])
    assert read_all([a, b]) == (TEXTS, LABELS)


# --------------------------------------------------------------------------- chunking


@pytest.mark.parametrize("kind", ["csv", "jsonl", "parquet", "folder"])
@pytest.mark.parametrize("chunk_size", [1, 2, 7, 20, 10_000])
def test_chunk_boundaries(tmp_path: Path, kind: str, chunk_size: int) -> None:
    if kind == "csv":
        source: Path = write_csv(tmp_path / "d.csv", ROWS)
    elif kind == "jsonl":
        source = write_jsonl(tmp_path / "d.jsonl", [{"text": t, "label": lab} for t, lab in ROWS])
    elif kind == "parquet":
        pa = pytest.importorskip("pyarrow")
        pq = pytest.importorskip("pyarrow.parquet")
        source = tmp_path / "d.parquet"
        pq.write_table(pa.table({"text": TEXTS, "label": LABELS}), source, row_group_size=3)
    else:
        source = tmp_path / "one_class"
        source.mkdir()
        for i, t in enumerate(TEXTS):
            (source / f"{i:03d}.txt").write_text(t, encoding="utf-8", newline="")
    chunks = list(read_texts(source, chunk_size=chunk_size))
    assert [len(c) for c in chunks[:-1]] == [chunk_size] * (len(chunks) - 1)
    assert 1 <= len(chunks[-1]) <= chunk_size
    assert [c.start_row for c in chunks] == list(range(0, 20, chunk_size))
    assert [t for c in chunks for t in c.texts] == TEXTS
    if kind != "folder":
        assert [lab for c in chunks for lab in (c.labels or [])] == LABELS


def test_max_chunk_chars(tmp_path: Path) -> None:
    rows = [("x" * 10, "a")] * 10
    path = write_csv(tmp_path / "d.csv", rows)
    chunks = list(read_texts(path, max_chunk_chars=25))
    assert [len(c) for c in chunks] == [3, 3, 3, 1]
    big = write_csv(tmp_path / "big.csv", [("y" * 100, "a"), ("z", "b")])
    assert [len(c) for c in read_texts(big, max_chunk_chars=10)] == [1, 1]


def test_text_chunk_is_frozen(tmp_path: Path) -> None:
    chunk = next(read_texts(write_csv(tmp_path / "d.csv", ROWS)))
    with pytest.raises(AttributeError):
        chunk.texts = []  # type: ignore[misc]


def test_streaming_is_lazy(tmp_path: Path) -> None:
    """The reader must not parse past the chunk it yields (bounded memory)."""
    path = tmp_path / "d.csv"
    # A valid first part, then a malformed record far down: the first chunks are
    # produced before the error is reached.
    good = "".join(f"doc {i},a\n" for i in range(1000))
    path.write_text("text,label\n" + good + "bad,row,here\n", encoding="utf-8")
    gen = read_texts(path, chunk_size=100)
    first = next(gen)
    assert first.texts[0] == "doc 0" and len(first) == 100
    with pytest.raises(ValueError, match="row 1000"):
        list(gen)


@pytest.mark.parametrize("name", ["big.csv", "big.jsonl.gz"])
def test_bounded_memory(tmp_path: Path, name: str) -> None:
    import tracemalloc

    doc = "lorem ipsum dolor sit amet " * 40  # ~1 kB per document
    path = tmp_path / name
    if name.endswith(".csv"):
        write_csv(path, [(doc, "a")] * 8000)  # ~8.7 MB
    else:
        write_jsonl(path, [{"text": doc, "label": "a"}] * 8000)
    tracemalloc.start()
    try:
        n = sum(len(c) for c in read_texts(path, chunk_size=100))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert n == 8000
    assert peak < 2_000_000  # ~100 documents of 1 kB plus buffers, not the whole file


# ------------------------------------------------------- issue 14.8, issue 15.9 and 15.10


def test_a_quote_that_never_closes_is_named_where_it_opens(tmp_path: Path) -> None:
    """The error names the line of the opening quote, not one 200,000 lines later, and
    the reader stops at max_field_chars (default 16 Mi characters, not 256 Mi)."""
    path = tmp_path / "d.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write("text,label\nfine,a\n")
        f.write('"never closed,b\n')
        f.write("more text here,a\n" * 200_000)
    with pytest.raises(ValueError, match=r"d\.csv, line 3: a quote opens there and never closes"):
        read_all(path)
    with pytest.raises(ValueError, match=r"line 3: a quote opens there and is still open 1,000 "):
        read_all(path, max_field_chars=1000)
    from nbayes.io.readers import _DEFAULT_MAX_FIELD_CHARS

    assert _DEFAULT_MAX_FIELD_CHARS <= 16 * 1024 * 1024
    # a quote opened in the second field of a record, after a multi-line first field
    other = tmp_path / "e.csv"
    other.write_text('text,label\n"two\nlines",ok\nx,"open\n' + "y,z\n" * 10, encoding="utf-8")
    with pytest.raises(ValueError, match=r"line 4: a quote opens there and never closes"):
        read_all(other)
    # a long, legitimate multi-line last field is no error
    fine = tmp_path / "f.csv"
    fine.write_text(
        'text,label\n"a ""quoted"" word\n' + "line\n" * 1000 + '",ok\n', encoding="utf-8"
    )
    assert read_all(fine)[1] == ["ok"]


def test_open_files_and_plain_text(tmp_path: Path) -> None:
    import io

    lines = io.BytesIO("first doc\n\nsecond caf\xe9\n".encode("latin-1"))
    chunks = list(read_texts(lines, label_col=None, encoding="latin-1"))
    assert chunks[0].texts == ["first doc", "second café"] and chunks[0].source == "<stream>"
    table = io.StringIO("id,text,label\n1,a,x\n2,b,y\n")
    assert read_all(table) == (["a", "b"], ["x", "y"])
    jsonl = io.StringIO('{"text": "a", "label": 1}\n')
    assert read_all(jsonl) == (["a"], [1])
    with pytest.raises(ValueError, match=r"^<stream>, line 2: invalid JSON"):
        read_all(io.StringIO('{"text": "a", "label": 1}\n{oops\n'))
    doc = tmp_path / "mail.eml"
    doc.write_text("Subject: hi\n\nbody", encoding="utf-8")
    (chunk,) = read_texts(doc, label_col=None)
    assert chunk.texts == ["Subject: hi\n\nbody"] and chunk.files == [str(doc)]
    with pytest.raises(ValueError, match="no labels.*label_col=None"):
        read_all(doc)
    (chunk,) = read_texts(doc, label_col=None, format="lines")
    assert chunk.texts == ["Subject: hi", "body"] and chunk.files is None
    assert chunk.names() == [f"{doc}:0", f"{doc}:1"]


def test_advice_names_the_callers_options(tmp_path: Path) -> None:
    from nbayes.io.readers import option_names

    path = tmp_path / "d.csv"
    path.write_text("body,label\na,b\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"Pass text_col=\.\.\. to choose"):
        read_all(path)
    with option_names({"text_col": "--text-col NAME"}):
        with pytest.raises(ValueError, match=r"Pass --text-col NAME to choose\.$") as info:
            read_all(path)
    assert "text_col" not in str(info.value)
    xlsx = tmp_path / "d.xlsx"
    xlsx.write_bytes(b"x")
    with option_names({}), pytest.raises(ValueError) as info:
        read_texts(xlsx)
    assert "format=" not in str(info.value) and "Pass" not in str(info.value)


# --------------------------------------------------------------------------- progress


def test_chunks_tell_the_share_of_the_input_read(tmp_path: Path) -> None:
    """Each chunk says how much of the call's input is read (by bytes: a progress bar's
    percentage), near the share of its rows, growing to 1.0; an open stream has none."""
    import random

    rng = random.Random(0)
    words = [f"w{i}" for i in range(2000)]
    rows = [(" ".join(rng.choices(words, k=20)), f"c{i % 2}") for i in range(3000)]
    csv_path = write_csv(tmp_path / "d.csv", rows)
    jsonl = write_jsonl(tmp_path / "d.jsonl", [{"text": t, "label": y} for t, y in rows])
    folder = tmp_path / "by_class"
    for i, (t, y) in enumerate(rows[:300]):
        (folder / y).mkdir(parents=True, exist_ok=True)
        (folder / y / f"{i:04}.txt").write_text(t)
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    parquet = tmp_path / "d.parquet"
    pq.write_table(pa.table({"text": [t for t, _ in rows], "label": [y for _, y in rows]}),
                   parquet, row_group_size=700)  # fmt: skip
    sources: list[Any] = [csv_path, gzip_file(csv_path), jsonl, parquet, folder, [csv_path, jsonl]]
    for source in sources:
        chunks = list(read_texts(source, chunk_size=250 if source != folder else 25))
        shares = [c.share for c in chunks]
        assert all(s is not None for s in shares), source
        assert shares == sorted(shares) and shares[-1] == 1.0, (source, shares)
        n = sum(len(c) for c in chunks)
        read = 0
        for c in chunks:  # near the share of the documents read (reading runs ahead)
            read += len(c)
            assert abs(c.share - read / n) < 0.12, (source, c.share, read / n)
    import io

    assert [c.share for c in read_texts(io.StringIO("a\nb\n"), label_col=None)] == [None]


# ------------------------------------------------------------------------------- id_col


def test_id_col_carries_a_column_beside_each_document(tmp_path: Path) -> None:
    """``id_col``: a key to join answers on, from CSV, JSON lines and Parquet, aligned with
    the documents across chunks and skipped rows; a row without one has an empty id."""
    csv_path = tmp_path / "in.csv"
    csv_path.write_text('id,text\na1,hello there\n,no id\n"c,3",x,extra\nd4,last\n')
    chunks = list(read_texts(csv_path, label_col=None, id_col="id", chunk_size=1,
                             bad_rows="skip", on_bad_row=lambda row: None))  # fmt: skip
    assert [(c.start_row, c.texts, c.ids) for c in chunks] == [
        (0, ["hello there"], ["a1"]), (1, ["no id"], [""]), (3, ["last"], ["d4"]),
    ]  # fmt: skip
    assert all(c.ids is None for c in read_texts(csv_path, label_col=None, bad_rows="skip",
                                                 on_bad_row=lambda row: None))  # fmt: skip
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text('{"id": 7, "text": "a", "label": "x"}\n{"text": "b", "label": "y"}\n'
                     '{"id": null, "text": "c", "label": "x"}\n')  # fmt: skip
    (chunk,) = read_texts(jsonl, id_col="id")
    assert chunk.ids == [7, None, None] and chunk.labels == ["x", "y", "x"]
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    parquet = tmp_path / "in.parquet"
    pq.write_table(pa.table({"text": ["a", "b"], "uid": [10, None]}), parquet)
    assert [c.ids for c in read_texts(parquet, label_col=None, id_col="uid")] == [[10, None]]


def test_id_col_must_name_a_column_of_a_table(tmp_path: Path) -> None:
    csv_path = tmp_path / "in.csv"
    csv_path.write_text("id,text\na1,hello\n")
    with pytest.raises(ValueError, match=r"Column 'key' not found in .*in.csv; the columns "
                       r"are: 'id', 'text'\. Pass id_col=\.\.\. to choose"):  # fmt: skip
        list(read_texts(csv_path, label_col=None, id_col="key"))
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text('{"text": "a"}\n{"text": "b", "key": 1}\n')
    with pytest.raises(ValueError, match="Column 'key' not found in in.jsonl; the keys of"):
        list(read_texts(jsonl, label_col=None, id_col="key"))
    twice = tmp_path / "twice.csv"
    twice.write_text("id,text,id\n1,a,2\n")
    with pytest.raises(ValueError, match="names the column 'id' 2 times"):
        list(read_texts(twice, label_col=None, id_col="id"))
    plain = tmp_path / "plain.txt"
    plain.write_text("one\ntwo\n")
    with pytest.raises(ValueError, match=r"plain text \(lines\): it has no column for id_col"):
        list(read_texts(plain, label_col=None, id_col="id", format="lines"))
    folder = tmp_path / "docs" / "spam"
    folder.mkdir(parents=True)
    (folder / "a.txt").write_text("free")
    with pytest.raises(ValueError, match="a folder of documents: it has no column for id_col"):
        list(read_texts(tmp_path / "docs", id_col="id"))
    with pytest.raises(TypeError, match="id_col must be a str or None"):
        read_texts(csv_path, id_col=3)  # type: ignore[arg-type]
