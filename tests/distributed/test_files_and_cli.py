"""nbayes.distributed on files, and ``nbayes train --workers``, as a trial found them.

* A bad row is named as the single-machine readers name it: file, row, line, what is
  wrong, what to do; on the command line in one line, without the workers' log.
* A CSV whose quoted fields hold line breaks is not cut into blocks: ``blocksize="auto"``
  reads it one partition per file, a ``blocksize`` given is refused, and a block found to
  start inside a quoted field is said to, instead of a misleading bad row.
* CSV documents are read by ``fit_source`` (and so ``--workers``) as the readers read
  them ("NA" is a word, an empty label missing), table labels as the CLI reads them.
* The fit reports its progress (partitions, rows), to a callback and on the command line.
* Ctrl-C during ``train --workers`` ends with the one closing line: no worker's
  traceback, no leaked semaphores, no process left.
* A text model predicts on a one-column frame without ``text_col``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

from nbayes import GaussianNB  # noqa: E402
from nbayes import distributed as nbd  # noqa: E402
from nbayes.cli import main  # noqa: E402
from nbayes.io import read_texts  # noqa: E402
from nbayes.io.persist import load  # noqa: E402
from nbayes.text.classifier import TextClassifier  # noqa: E402

WORDS = ["free", "win", "money", "lunch", "today", "meeting", "offer", "hello", "report"]


def _docs(seed: int, n: int, lines: int = 1) -> pd.DataFrame:
    """Documents of ``lines`` lines each (a line break inside a quoted CSV field)."""
    rng = np.random.default_rng(seed)
    texts = ["\n".join(" ".join(rng.choice(WORDS, 5)) for _ in range(lines)) for _ in range(n)]
    return pd.DataFrame({"text": texts, "label": rng.choice(np.array(["ham", "spam"]), n)})


def _local_problem(path: str) -> str:
    """The single-machine reader's error for ``path``, without its advice (a reader can
    skip bad rows; a distributed fit cannot)."""
    with pytest.raises(ValueError) as info:
        for _ in read_texts(path):
            pass
    return str(info.value).split(" Pass ")[0]


def _single(df: pd.DataFrame) -> TextClassifier:
    return TextClassifier().fit(df["text"].tolist(), df["label"].to_numpy())


def _same_text_model(a: Any, b: Any) -> None:
    assert a.vocabulary_ == b.vocabulary_
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_array_equal(a.class_count_, b.class_count_)
    np.testing.assert_array_equal(a.feature_count_, b.feature_count_)


# ----------------------------------------------------------------- a bad row
def test_bad_row_named_as_the_reader_names_it(tmp_path: Path, monkeypatch: Any) -> None:
    """A null label in row 17 of the third CSV part, whose documents span lines: the
    error names the file (as given: relative), the row and the line as read_texts does,
    and says what to do; before, "Bad data in partition 2, row 17 (index 17): boolean
    value of NA is ambiguous"."""
    monkeypatch.chdir(tmp_path)
    for i in range(3):
        part = _docs(i, 30, lines=2)
        if i == 2:
            part.loc[17, "label"] = None
        part.to_csv(f"p{i}.csv", index=False)
    with pytest.raises(nbd.PartitionError) as info:
        nbd.fit(TextClassifier(), nbd.read("p*.csv"), text_col="text", label_col="label",
                scheduler="sync")  # fmt: skip
    err = info.value
    assert err.problem == _local_problem("p2.csv") == "p2.csv, row 17 (line 37): missing label."
    assert (err.source, err.source_row, err.line, err.partition, err.row) == (
        "p2.csv", 17, 37, 2, 17,
    )  # fmt: skip
    assert str(err).startswith(err.problem + " Drop the rows without a label")


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_bad_row_in_a_later_block_of_a_file(tmp_path: Path, fmt: str) -> None:
    """A file read in several blocks: the row is counted from the file's start (the
    earlier blocks' rows counted on the cluster) and its line found from the block's."""
    df = _docs(3, 3000)
    df.loc[2500, "label"] = None
    path = tmp_path / f"big.{fmt}"
    if fmt == "csv":
        df.to_csv(path, index=False)
        with open(path, "a", encoding="utf-8") as f:  # blank lines are no rows
            f.write("\n")
    else:
        df.to_json(path, orient="records", lines=True)
    data = nbd.read(str(path), blocksize=20_000)
    assert data.npartitions >= 4
    with pytest.raises(nbd.PartitionError) as info:
        nbd.fit(TextClassifier(), data, text_col="text", label_col="label", scheduler="sync")
    err = info.value
    assert err.partition > 0 and err.row < 2500
    assert err.problem == _local_problem(str(path))  # the absolute path, as given
    assert (err.source_row, err.line) == (2500, 2502 if fmt == "csv" else 2501)


def test_missing_text_and_labels_of_every_kind() -> None:
    """A missing label (or document) is refused as such in frames, bags and arrays."""
    df = _docs(4, 20)
    df["text"] = df["text"].astype(object)
    df.loc[12, "text"] = None
    with pytest.raises(nbd.PartitionError, match=r"partition 1, row 2 \(index 12\): missing "
                       r"text \(null\)\. Drop the rows without a document"):  # fmt: skip
        nbd.fit(TextClassifier(), dd.from_pandas(df, npartitions=2), label_col="label",
                scheduler="sync")  # fmt: skip
    bag = dask.bag.from_sequence([("free win", "spam"), ("hello", None)], npartitions=1)
    with pytest.raises(nbd.PartitionError, match=r"partition 0, row 1: missing label"):
        nbd.fit(TextClassifier(), bag, scheduler="sync")
    X = dask.array.from_array(np.ones((6, 2)), chunks=3)
    y = dask.array.from_array(np.array([0.0, 1.0, 0.0, 1.0, np.nan, 1.0]), chunks=3)
    with pytest.raises(nbd.PartitionError, match=r"row 1 \(index 4\): missing label") as info:
        nbd.fit(GaussianNB(), (X, y), scheduler="sync")
    assert (info.value.partition, info.value.row, info.value.label) == (1, 1, 4)


def test_fit_source_reads_documents_as_the_readers_do(tmp_path: Path) -> None:
    """ "NA" and "null" are words and an empty field an empty document, as read_texts reads
    a CSV (pandas made them missing: the fit failed), and a numeric label is the same
    class as the reader's; an empty label is missing."""
    path = tmp_path / "d.csv"
    path.write_text(
        "text,label\nfree money now,1\nNA,0\nnull offer,1\n,0\nhello lunch today,0\n"
        '"win\nmoney",1\n',
        encoding="utf-8",
    )
    docs, labels = [], []
    for chunk in read_texts(str(path)):
        docs += chunk.texts
        labels += chunk.labels
    single = TextClassifier().fit(docs, labels)
    dist = nbd.fit_source(TextClassifier(), str(path), scheduler="sync")
    _same_text_model(single, dist)
    assert "na" in dist.vocabulary_ and "null" in dist.vocabulary_
    path.write_text("text,label\nfree money,1\nhello,\n", encoding="utf-8")
    with pytest.raises(nbd.PartitionError, match=r"d\.csv, row 1 \(line 3\): missing label\."):
        nbd.fit_source(TextClassifier(), str(path), scheduler="sync")


# --------------------------------------------------------- quoted line breaks
def _multiline_csv(path: Path, seed: int = 5, n: int = 400) -> pd.DataFrame:
    df = _docs(seed, n, lines=3)
    df.to_csv(path, index=False)
    return df


def test_a_given_blocksize_is_refused_for_quoted_line_breaks(tmp_path: Path) -> None:
    """20 Newsgroups read with blocksize="4MB" failed with a raw ParserError (or, blocks
    lining up, could misread rows without a word): refused, with what to do."""
    path = tmp_path / "ng.csv"
    df = _multiline_csv(path)
    assert os.path.getsize(path) > 2 * 10_000
    with pytest.raises(
        ValueError,
        match=r"ng\.csv: a quoted field holds a line break \(the "
        r"record ending at line 4\).*blocks of 10,000 bytes.*blocksize=None",
    ):
        nbd.read(str(path), blocksize=10_000)  # fmt: skip
    whole = nbd.read(str(path), blocksize=None)
    assert whole.npartitions == 1
    dist = nbd.fit(TextClassifier(), whole, text_col="text", label_col="label", scheduler="sync")
    _same_text_model(_single(df), dist)


def test_auto_blocksize_reads_quoted_line_breaks_one_file_a_partition(
    tmp_path: Path, monkeypatch: Any
) -> None:
    from nbayes.distributed import _read

    monkeypatch.setattr(_read, "_AUTO_BLOCKSIZE", 10_000)  # the files are "big"
    parts = [_multiline_csv(tmp_path / f"p{i}.csv", seed=i) for i in range(2)]
    (tmp_path / "flat.csv").write_text("text,label\n" + "free money,spam\n" * 2000)
    flat = nbd.read(str(tmp_path / "flat.csv"))  # no line break in a field: blocks
    assert flat.npartitions > 2
    with pytest.warns(nbd.QuotedLineBreakWarning, match=r"p0\.csv: a quoted field holds a "
                      "line break.*one partition per file"):  # fmt: skip
        data = nbd.read(str(tmp_path / "p*.csv"))
    assert data.npartitions == 2
    dist = nbd.fit(TextClassifier(), data, text_col="text", label_col="label", scheduler="sync")
    _same_text_model(_single(pd.concat(parts, ignore_index=True)), dist)


def test_a_block_starting_inside_a_quoted_field_is_said_so(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """Line breaks in quoted fields only after the start read to check: the blocks are
    cut, and one starting inside a quoted field reads the rest of the field as rows (a
    "missing label" at its row 0, or pandas' "EOF inside string"); the error says what
    happened and what to do."""
    from nbayes.distributed import _read

    path = tmp_path / "late.csv"
    df = pd.concat([_docs(6, 300), _docs(7, 600, lines=3)], ignore_index=True)
    df.to_csv(path, index=False)
    monkeypatch.setattr(_read, "QUOTED_SAMPLE", 2000)
    data = nbd.read(str(path), blocksize=8000)
    with pytest.raises(
        ValueError,
        match=r"late\.csv: partition \d+, the block of the file "
        r"from line \d+, starts inside a quoted field.*blocksize=None",
    ) as info:
        nbd.fit(TextClassifier(), data, text_col="text", label_col="label", scheduler="sync")
    assert not isinstance(info.value, nbd.PartitionError)
    line = int(str(info.value).split("from line ")[1].split(",")[0])
    with open(path, encoding="utf-8") as f:  # that line is inside a quoted field indeed
        before = "".join(f.readline() for _ in range(line - 1))
    assert before.count('"') % 2 == 1


def test_a_parser_error_of_a_block_says_what_to_do(tmp_path: Path) -> None:
    from pandas.errors import ParserError

    from nbayes.distributed._read import Sources
    from nbayes.distributed._where import parse_advice

    raw = ParserError("Error tokenizing data. C error: Expected 2 fields in line 44, saw 3\n")
    split = Sources(
        "csv", [("/d/a.csv", 0, 0), ("/d/a.csv", 1, 9)], relative=False, split=["/d/a.csv"]
    )  # (not here: no file to look into)
    advice = parse_advice(raw, split)
    assert isinstance(advice, ParserError)
    assert str(advice).startswith("Error tokenizing data. C error: Expected 2 fields in line "
                                  "44, saw 3. A block of /d/a.csv could not be parsed")  # fmt: skip
    assert "blocksize=None" in str(advice)
    assert "blocksize=None" in str(parse_advice(raw, None))  # dask's own read_csv
    whole = Sources("csv", [("/d/a.csv", 0, 0)], relative=False)
    # not cut: the file itself is malformed, said as the local readers say it
    assert str(parse_advice(raw, whole)) == (
        "/d/a.csv, line 44: 3 field(s), but the header has 2; check the quoting and the "
        "delimiter (','). Pass bad_rows='skip' to skip such rows."
    )
    assert parse_advice(ValueError("x"), split) is None


# ------------------------------------------------------------------- predict
def test_predict_infers_the_text_column() -> None:
    df = _docs(8, 60)
    clf = _single(df)
    want = clf.predict(df["text"].tolist())
    one = dd.from_pandas(df[["text"]].rename(columns={"text": "body"}), npartitions=3)
    got = nbd.predict(clf, one).compute(scheduler="sync")
    np.testing.assert_array_equal(got.to_numpy(), want)
    proba = nbd.predict_proba(clf, one).compute(scheduler="sync")
    np.testing.assert_allclose(proba.to_numpy(), clf.predict_proba(df["text"].tolist()))
    named = dd.from_pandas(df.assign(id=range(60)), npartitions=2)  # "text", as the readers
    got = nbd.predict(clf, named).compute(scheduler="sync")
    np.testing.assert_array_equal(got.to_numpy(), want)
    two = dd.from_pandas(df.rename(columns={"text": "body"}).assign(id=1), npartitions=2)
    with pytest.raises(ValueError, match=r"pass text_col.*\['body', 'label', 'id'\]"):
        nbd.predict(clf, two)
    fitted = nbd.fit(TextClassifier(), dd.from_pandas(df.rename(columns={"text": "body"}),
                     npartitions=2), label_col="label", scheduler="sync")  # fmt: skip
    _same_text_model(clf, fitted)  # the one column besides the labels


# ------------------------------------------------------------------ progress
def test_progress_reports_partitions_and_rows() -> None:
    df = _docs(9, 90)
    calls: list[tuple[int, int, int]] = []
    dist = nbd.fit(TextClassifier(), dd.from_pandas(df, npartitions=3), text_col="text",
                   label_col="label", scheduler="sync",
                   progress=lambda *a: calls.append(a))  # fmt: skip
    _same_text_model(_single(df), dist)
    assert calls[0] == (0, 3, 0) and calls[-1] == (3, 3, 90)
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)


def test_cli_progress_and_table_labels(tmp_path: Path, capsys: Any, monkeypatch: Any) -> None:
    """``train --dask-scheduler/--workers -v`` shows the partitions learned and their
    documents (before: nothing for a minute); on a log (stderr no terminal) a line every
    few seconds. A table's labels are strings, as in one process."""
    from nbayes.cli import train

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(train._DaskProgress, "EVERY", 0.0)
    for i in range(3):
        _docs(i, 40).to_csv(f"p{i}.csv", index=False)
    code = main(["train", "p*.csv", "-o", "m.nbayes", "--dask-scheduler", "sync", "-v"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "Training on Dask: 3/3 partitions, 120 documents\n" in err
    assert "Training on Dask: 3 partitions in " in err
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.normal(size=(60, 3)), columns=["a", "b", "c"])
    table["y"] = rng.integers(0, 2, 60)
    table.to_csv("t.csv", index=False)
    assert main(["train", "t.csv", "-o", "one.nbayes", "--model", "gaussian", "--label-col",
                 "y", "-q"]) == 0  # fmt: skip
    assert main(["train", "t.csv", "-o", "dask.nbayes", "--model", "gaussian", "--label-col",
                 "y", "-q", "--dask-scheduler", "sync"]) == 0  # fmt: skip
    one, dist = load("one.nbayes"), load("dask.nbayes")
    assert one.classes_.tolist() == dist.classes_.tolist() == ["0", "1"]
    np.testing.assert_allclose(dist.theta_, one.theta_, rtol=1e-12)


# ------------------------------------------------ a local cluster of its own
def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pids: set[int]) -> set[int]:
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.add(pid)
        except OSError:
            pass
    return alive


linux = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")


def test_cli_workers_refuse_what_they_would_misread_before_starting(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    """A data engineer's trial, with --workers only: a CSV beside a Parquet file said
    "Error: UnicodeDecodeError", a .csv beside a .csv.gz "set blocksize=None", a folder per
    class "No such file", UTF-16 and empty files pandas' words without the file. Each is
    said before a worker starts, naming the file and what to do."""
    import gzip

    monkeypatch.chdir(tmp_path)
    _docs(0, 20).to_csv("a.csv", index=False)
    _docs(1, 20).to_parquet("b.parquet")
    Path("c.csv.gz").write_bytes(gzip.compress(Path("a.csv").read_bytes()))
    Path("u.csv").write_bytes(Path("a.csv").read_text().encode("utf-16"))
    Path("e.csv").write_bytes(b"")
    (tmp_path / "byclass" / "ham").mkdir(parents=True)
    (tmp_path / "byclass" / "ham" / "1.txt").write_text("hello")
    for data, said in [
        (["a.csv", "b.parquet"], "one format and compression at a time ('a.csv' is csv, "
                                 "'b.parquet' parquet)"),
        (["a.csv", "c.csv.gz"], "('c.csv.gz' is compressed, 'a.csv' not)"),
        (["byclass"], "'byclass' is a folder: --workers reads tables"),
        (["u.csv"], "'u.csv' is UTF-16 text (read as utf-8, its column names and texts would "
                    "be garbage). Pass --encoding utf-16 to read it."),
        (["a.csv", "e.csv"], "'e.csv' is empty: leave it out of DATA."),
        (["a.csv", "z*.csv"], "No such file: 'z*.csv' (Dask reads files and glob patterns)."),
    ]:  # fmt: skip
        code = main(["train", *data, "-o", "m.nbayes", "--workers", "2", "-q"])
        err = capsys.readouterr().err
        assert code == 1 and err.startswith("Error: ") and said in err, err
        assert len(err.strip().splitlines()) == 1 and "Training on Dask" not in err
    assert not Path("m.nbayes").exists()


@pytest.mark.slow
def test_cli_workers_cannot_read_a_gzip_file_cut_short(
    tmp_path: Path, capfd: Any, monkeypatch: Any
) -> None:
    import gzip

    monkeypatch.chdir(tmp_path)
    whole = gzip.compress(_docs(0, 200).to_csv(index=False).encode())
    Path("t.csv.gz").write_bytes(whole[: len(whole) // 2])  # cut in its first 4 KB: said at once
    code = main(["train", "t.csv.gz", "-o", "m.nbayes", "--workers", "2", "-q"])
    err = capfd.readouterr().err
    assert code == 1 and "'t.csv.gz' is not a valid gzip file or is truncated" in err, err
    whole = gzip.compress(_docs(0, 20_000).to_csv(index=False).encode())
    Path("t.csv.gz").write_bytes(whole[: len(whole) // 2])  # later: only reading shows it
    code = main(["train", "t.csv.gz", "-o", "m.nbayes", "--workers", "2", "-q"])
    err = capfd.readouterr().err
    assert code == 1 and "Dask's workers could not read DATA (EOFError" in err, err
    assert "without --workers reads the same files and names the file and line" in err
    assert "a bug in nbayes" not in err


@pytest.mark.slow
def test_cli_workers_bad_row_is_one_line(tmp_path: Path, capfd: Any, monkeypatch: Any) -> None:
    """Before: the workers' "distributed.worker - ERROR - Compute Failed" block and its
    traceback, then "Bad data in partition 2, row 17 (index 17): boolean value of NA is
    ambiguous". Now the line of the single-machine run, and what to do."""
    monkeypatch.chdir(tmp_path)
    for i in range(3):
        part = _docs(i, 30)
        if i == 2:
            part.loc[17, "label"] = None
        part.to_csv(f"p{i}.csv", index=False)
    code = main(["train", "p*.csv", "-o", "m.nbayes", "--workers", "2", "-q"])
    out, err = capfd.readouterr()
    assert code == 1
    assert err == (
        "Error: p2.csv, row 17 (line 19): missing label. Pass --bad-rows skip to skip such "
        "rows (the workers then read the data as this process would), or clean the data "
        "first.\n"
    )
    assert not Path("m.nbayes").exists()


@pytest.mark.slow
@linux
def test_fit_source_on_workers_reports_progress_and_leaves_nothing(tmp_path: Path) -> None:
    frames = [_docs(i, 50) for i in range(4)]
    for i, frame in enumerate(frames):
        frame.to_csv(tmp_path / f"p{i}.csv", index=False)
    calls: list[tuple[int, int, int]] = []
    before = _descendants(os.getpid())
    dist = nbd.fit_source(TextClassifier(), str(tmp_path / "p*.csv"), workers=1,
                          progress=lambda *a: calls.append(a))  # fmt: skip
    _same_text_model(_single(pd.concat(frames, ignore_index=True)), dist)
    assert calls[-1] == (4, 4, 200)
    assert not _alive(_descendants(os.getpid()) - before)  # the cluster is closed


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """About 40 MB of CSV in 4 files: seconds of counting for 2 workers."""
    import random

    root = tmp_path_factory.mktemp("corpus")
    rng = random.Random(0)
    words = [f"w{i}" for i in range(50_000)]
    for part in range(4):
        with open(root / f"p{part}.csv", "w", encoding="utf-8") as f:
            f.write("text,label\n")
            for i in range(50_000):
                f.write(" ".join(rng.choices(words, k=30)) + (",spam\n" if i % 3 else ",ham\n"))
    return root


@pytest.mark.slow
@linux
def test_ctrl_c_during_train_on_workers(tmp_path: Path, corpus: Path) -> None:
    """Ctrl-C, which a terminal sends to its foreground process group: before, the
    workers (in that group) each printed a KeyboardInterrupt traceback, the client "Task
    exception was never retrieved", and the resource tracker "12 leaked semaphore
    objects". Now the one closing line of any interrupted command, and the cluster (in a
    session of its own) closes by itself."""
    model = tmp_path / "m.nbayes"
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "nbayes", "train", str(corpus / "p*.csv"), "-o", str(model),
             "--workers", "2", "--ngrams", "1-2"],
            stdout=subprocess.DEVNULL, stderr=err, start_new_session=True,  # a job's group
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and proc.poll() is None:
            if len(_descendants(proc.pid)) >= 3:  # workers (and a resource tracker) started
                break
            time.sleep(0.2)
        time.sleep(2.0)  # the fit runs
        workers = _descendants(proc.pid)
        assert proc.poll() is None, log.read_text()
        os.killpg(proc.pid, signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = log.read_text()
    assert proc.returncode in (-signal.SIGINT, 130), text
    assert text.splitlines()[-1] == "Interrupted: no model file was changed.", text
    for noise in ("Traceback", "KeyboardInterrupt", "leaked semaphore", "never retrieved",
                  "distributed."):  # fmt: skip
        assert noise not in text, text
    assert not model.exists()
    deadline = time.monotonic() + 40
    while _alive(workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(workers)  # nothing left running


def test_a_row_of_the_wrong_width_and_a_line_not_json_are_said_as_locally(
    tmp_path: Path, capsys: Any, monkeypatch: Any
) -> None:
    """Without --bad-rows skip, a file read in one block with a row of three fields was
    pandas' "Error tokenizing data. C error: Expected 2 fields in line 41, saw 3", and a
    line not JSON dask's "An error occurred while calling the read_json method ..." (a
    helper's finding): both in the local readers' words, with what to do."""
    monkeypatch.chdir(tmp_path)
    lines = _docs(0, 60).to_csv(index=False).splitlines()
    lines.insert(40, "a,b,c")
    Path("w.csv").write_text("\n".join(lines) + "\n")
    Path("j.jsonl").write_text('{"text": "free cash", "label": "spam"}\n{not json\n')
    code = main(["train", "w.csv", "-o", "m.nbayes", "--dask-scheduler", "sync", "-q"])
    err = capsys.readouterr().err
    assert code == 1 and err == (
        "Error: w.csv, line 41: 3 field(s), but the header has 2; check the quoting and the "
        "delimiter (','). Pass --bad-rows skip to skip such rows.\n"
    )
    code = main(["train", "j.jsonl", "-o", "m.nbayes", "--dask-scheduler", "sync", "-q"])
    err = capsys.readouterr().err
    assert code == 1 and err.startswith("Error: j.jsonl: a line is not valid JSON (")
    assert err.endswith("Pass --bad-rows skip to skip such lines (the workers then name it).\n")
    with pytest.raises(ValueError, match=r"a line is not valid JSON .* Pass bad_rows='skip'"):
        nbd.fit_source(TextClassifier(), "j.jsonl", scheduler="sync")


def test_a_bad_row_of_parquet_files_is_named_by_its_file_and_row(tmp_path: Path) -> None:
    """It was "Bad data in partition 1, row 7 (index 7)": the partition, not the file, as
    the local readers name it ("b.parquet, row 7")."""
    pytest.importorskip("pyarrow")
    frames = [_docs(i, 40) for i in range(2)]
    frames[1].loc[7, "label"] = None
    for name, frame in zip("ab", frames, strict=True):
        frame.to_parquet(tmp_path / f"{name}.parquet")
    with pytest.raises(nbd.PartitionError) as info:
        nbd.fit_source(TextClassifier(), str(tmp_path / "*.parquet"), scheduler="sync")
    assert str(info.value).startswith(f"{tmp_path / 'b.parquet'}, row 7: missing label")
    model = nbd.fit_source(TextClassifier(), [str(tmp_path / "a.parquet")], scheduler="sync")
    assert model.class_count_.sum() == 40
