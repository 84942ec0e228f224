"""Tests of the nbayes command line, run in-process through ``main([...])``."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nbayes.cli import COMMANDS, main
from nbayes.io.persist import load

from .conftest import assert_error, assert_usage_error, run, write_csv


@pytest.fixture
def iris_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    rows = []
    for label, centre in (("setosa", 1.0), ("virginica", 4.0)):
        for _ in range(10):
            a, b = rng.normal(centre, 0.5, size=2)
            rows.append([f"{a:.3f}", f"{b:.3f}", label])
    return write_csv(tmp_path / "iris.csv", ["petal_length", "petal_width", "species"], rows)


# ------------------------------------------------------------------------------- help


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_with_an_example(
    capsys: pytest.CaptureFixture[str], command: str
) -> None:
    code, out, _ = run(capsys, command, "-h")
    assert code == 0
    assert f"usage: nbayes {command}" in out
    assert "Example:" in out
    example = out.split("Example:")[1]
    assert f"nbayes {command}" in example
    assert "-q, --quiet" in out and "-v, --verbose" in out


def test_top_level_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-h")
    assert code == 0 and "Example:" in out
    for command in COMMANDS:
        assert command in out
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.startswith("nbayes ")


def test_the_version_is_the_installed_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    import nbayes

    assert nbayes.__version__ == version("nbayes")  # pyproject.toml is the one source
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out == f"nbayes {version('nbayes')}\n"


def test_the_version_is_read_only_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading the package metadata costs ~25 ms: a command's parser must not do it."""
    import nbayes.cli as cli
    from nbayes.cli import _parser

    def no_metadata() -> str:
        raise AssertionError("the version was read")

    monkeypatch.setattr(_parser, "_version", no_metadata)
    cli.build_parser(["info"]).parse_args(["info", "m.nbayes"])


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frobnicate"],
        ["train", "data.csv"],  # no -o
        ["train", "data.csv", "-o", "m.nbayes", "--model", "svm"],
        ["predict", "m.nbayes", "--top", "two"],
        ["sample", "m.nbayes", "-n"],
        ["info", "m.nbayes", "-q", "-v"],
    ],
)
def test_bad_arguments_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert "Traceback" not in err


# ------------------------------------------------------------------------------- demo


def test_demo_trains_evaluates_and_explains(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    model_path = tmp_path / "demo.nbayes"
    code, out, err = run(capsys, "demo", "-o", model_path)
    assert code == 0, err
    assert "5,574 messages" in out
    accuracy = float(out.split("accuracy")[1].split()[0])
    assert accuracy > 0.95
    for fragment in ("precision", "recall", "f1", "confusion matrix", "log loss"):
        assert fragment in out
    assert out.count("Prediction:") == 2
    assert "Prediction: spam" in out and "Prediction: ham" in out
    assert "Almeida" in out
    assert "\033[" not in out  # not a terminal: no colours
    code, out, _ = run(capsys, "info", model_path)
    assert code == 0 and "vocabulary" in out


# ------------------------------------------------------------------------------ text


def test_train_text_and_info(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path
) -> None:
    out_path = tmp_path / "m.nbayes"
    code, out, err = run(
        capsys, "train", texts_csv, "-o", out_path, "--alpha", "0.5", "--ngrams", "1-2"
    )
    assert code == 0, err
    assert "Trained TextClassifier(multinomial) on 9 documents" in err and "Saved to" in err
    model = load(out_path)
    assert model.ngram_range == (1, 2)
    assert model.alpha == 0.5
    assert "free prize" in model.vocabulary_
    code, out, _ = run(capsys, "info", out_path, "--top", "3")
    assert code == 0
    for fragment in ("TextClassifier, multinomial", "alpha=0.5", "ham: 5", "spam: 4", "parameters:",
                     "full joint", "most informative"):  # fmt: skip
        assert fragment in out, fragment


def test_poisson_is_no_text_model(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path
) -> None:
    code, _, err = run(
        capsys, "train", texts_csv, "-o", tmp_path / "p.nbayes", "--model", "poisson",
        "--input", "text",
    )  # fmt: skip
    assert code == 1 and "does not learn from documents" in err


@pytest.mark.parametrize("estimator", ["bernoulli", "complement"])
def test_train_other_text_models(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path, estimator: str
) -> None:
    out_path = tmp_path / f"{estimator}.nbayes"
    code, _, err = run(capsys, "train", texts_csv, "-o", out_path, "--model", estimator, "--binary")
    assert code == 0, err
    code, out, _ = run(capsys, "predict", out_path, "--text", "win free cash now")
    assert code == 0 and out.startswith("spam (P = ")
    code, out, _ = run(capsys, "info", out_path)
    assert code == 0


def test_predict_formats(
    capsys: pytest.CaptureFixture[str], text_model: Path, texts_csv: Path
) -> None:
    code, out, _ = run(capsys, "predict", text_model, "--text", "free cash prize", "--text",
                       "lunch at home?", "--format", "csv")  # fmt: skip
    assert code == 0
    assert out.splitlines() == ["row,prediction", "0,spam", "1,ham"]
    code, out, _ = run(capsys, "predict", text_model, texts_csv, "--proba")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 9 and set(rows[0]) == {"row", "prediction", "proba_ham", "proba_spam"}
    assert abs(float(rows[0]["proba_ham"]) + float(rows[0]["proba_spam"]) - 1) < 1e-5
    # every digit of each probability, as jsonl writes them (CSV kept 6: a trial's finding)
    model = load(text_model)
    X = [r["text"] for r in csv.DictReader(io.StringIO(texts_csv.read_text()))]
    expected = model.predict_proba(X)
    got = [[float(r["proba_ham"]), float(r["proba_spam"])] for r in rows]
    assert got == expected.tolist()
    code, out, _ = run(capsys, "predict", text_model, texts_csv, "--top", "2")
    top = list(csv.DictReader(io.StringIO(out)))
    assert [float(r["proba_1"]) for r in top] == np.sort(expected, axis=1)[:, ::-1][:, 0].tolist()
    code, out, _ = run(capsys, "predict", text_model, texts_csv, "--top", "2", "--format", "jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 9
    assert [t["class"] for t in records[0]["top"]] == ["spam", "ham"]
    code, out, _ = run(capsys, "predict", text_model, "--text", "free", "--proba", "--format",
                       "jsonl")  # fmt: skip
    record = json.loads(out)
    assert record["prediction"] == "spam" and set(record["proba"]) == {"ham", "spam"}


WORDS = ["free", "cash", "prize", "lunch", "home", "meeting", "win", "now", "tomorrow"]


def random_texts(seed: int, n: int, words: int) -> list[str]:
    """``n`` texts of ``words`` words of WORDS: a file of several reader chunks."""
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, words)) for _ in range(n)]


def test_predict_answers_a_chunk_at_a_time_as_before(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path
) -> None:
    # predict read every document first (6.6 GB for a 1.5 GB CSV, nothing written for two
    # minutes: a data engineer's trial); it answers a chunk (10,000 documents) at a time,
    # with the names and numbers it gave: rows of one table by their row numbers (also
    # with bad rows skipped), else files or file:row
    model = load(text_model)
    texts = random_texts(0, 23_456, 4)
    big = write_csv(tmp_path / "big.csv", ["text"], [[t] for t in texts])
    code, out, _ = run(capsys, "predict", text_model, big, "--proba")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [int(r["row"]) for r in rows] == list(range(len(texts)))
    expected = model.predict_proba(texts)
    assert [[float(r["proba_ham"]), float(r["proba_spam"])] for r in rows] == expected.tolist()
    assert [r["prediction"] for r in rows] == model.predict(texts).tolist()
    assert out.count("row,prediction") == 1  # one header
    # --top and jsonl across chunks
    code, out, _ = run(capsys, "predict", text_model, big, "--top", "1", "--format", "jsonl")
    assert [json.loads(line)["row"] for line in out.splitlines()] == list(range(len(texts)))
    # several tables: file:row; a folder of documents: its files; plain lines name them
    small = write_csv(tmp_path / "small.csv", ["text"], [["free cash"], ["lunch at home"]])
    code, out, _ = run(capsys, "predict", text_model, small, big, "--format", "jsonl")
    names = [json.loads(line)["file"] for line in out.splitlines()]
    assert names[:3] == [f"{small}:0", f"{small}:1", f"{big}:0"] and len(names) == 2 + len(texts)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i, t in enumerate(["free cash prize", "lunch at home?"]):
        (docs / f"{i}.txt").write_text(t)
    code, out, _ = run(capsys, "predict", text_model, docs)
    assert out.splitlines() == ["file,prediction", f"{docs}/0.txt,spam", f"{docs}/1.txt,ham"]
    code, out, _ = run(capsys, "predict", text_model, docs, "--format", "plain")
    assert out.splitlines()[0].endswith(f"  {docs}/0.txt")
    one = write_csv(tmp_path / "one.csv", ["text"], [["free cash prize"]])
    code, out, _ = run(capsys, "predict", text_model, one, "--format", "plain")
    assert out.startswith("spam (P = ") and "row" not in out  # one answer: nothing to tell apart
    bad = tmp_path / "bad.csv"
    bad.write_text("text,x\nfree cash,1\noops\nlunch at home,2\n")
    code, out, _ = run(capsys, "predict", text_model, bad, "--bad-rows", "skip")
    assert out.splitlines() == ["row,prediction", "0,spam", "2,ham"]


def test_eval_reads_a_chunk_at_a_time_with_the_figures_of_all_at_once(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path
) -> None:
    # eval read every document first (2.8 GB for a 1.5 GB file: a data engineer's trial)
    from nbayes.evaluation import evaluate

    model = load(text_model)
    texts = random_texts(1, 21_000, 3)
    labels = ["spam" if ("cash" in t or "win" in t) else "ham" for t in texts]
    labels[5] = "eggs"  # a label the model lacks: warned of, an error of the model's
    rows = [[t, y] for t, y in zip(texts, labels, strict=True)]
    big = write_csv(tmp_path / "big.csv", ["text", "label"], rows)
    code, out, err = run(capsys, "eval", text_model, big, "--json")
    assert code == 0 and "1 of 21,000 examples have labels the model does not know" in err
    expected = evaluate(model, texts, np.array(labels)).to_dict()
    assert json.loads(out) == json.loads(json.dumps(expected))
    wrong = write_csv(tmp_path / "wrong.csv", ["text", "label"], [[t, "x"] for t in texts[:5]])
    code, _, err = run(capsys, "eval", text_model, wrong)
    assert_error(code, err, "None of the labels in the data is a class of the model")


def test_update_and_forget_learn_a_chunk_at_a_time_as_one_call(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path
) -> None:
    # update read every document first (2.3 GB for a 1.5 GB file: a data engineer's trial)
    texts = random_texts(2, 21_000, 3)
    rows = [[t, "spam" if "cash" in t else "ham"] for t in texts]
    big = write_csv(tmp_path / "big.csv", ["text", "label"], rows)
    both = tmp_path / "both.nbayes"
    assert main(["train", str(texts_csv), str(big), "-o", str(both), "-q"]) == 0
    model = tmp_path / "m.nbayes"
    assert main(["train", str(texts_csv), "-o", str(model), "-q"]) == 0
    code, _, err = run(capsys, "update", model, big)
    assert code == 0 and "Learned 21,000 examples" in err
    a, b = load(model), load(both)
    assert a.vocabulary_ == b.vocabulary_
    np.testing.assert_array_equal(a.feature_count_, b.feature_count_)
    code, _, err = run(capsys, "forget", model, big)
    assert code == 0 and "Forgot 21,000 examples" in err
    np.testing.assert_array_equal(load(model).feature_count_, load(both).unlearn(
        [r[0] for r in rows], [r[1] for r in rows]).feature_count_)  # fmt: skip
    # a new label in a later chunk: refused, the file as it was
    before = model.read_bytes()
    rows[15_000][1] = "eggs"
    write_csv(big, ["text", "label"], rows)
    code, _, err = run(capsys, "update", model, big)
    assert code == 1 and "eggs" in err and model.read_bytes() == before


def test_train_reads_the_labels_of_every_file_in_the_first_ones_type(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a CSV's labels are strings, a JSON-lines file's numbers: train refused the two
    # ("Cannot combine class labels ['0', '1'] and [0, 1]") that update accepted
    rows = [["free cash now", 1], ["lunch at noon", 0], ["win a prize", 1], ["see you", 0]]
    a = write_csv(tmp_path / "a.csv", ["text", "label"], rows)
    b = tmp_path / "b.jsonl"
    b.write_text("".join(json.dumps({"text": t, "label": y}) + "\n" for t, y in rows))
    for data, classes in (([a, b], ["0", "1"]), ([b, a], [0, 1])):
        out = tmp_path / "m.nbayes"
        code, _, err = run(capsys, "train", *data, "-o", out, "--force")
        assert code == 0, err
        model = load(out)
        assert model.classes_.tolist() == classes and model.class_count_.tolist() == [4, 4]


def test_eval_text_and_json(
    capsys: pytest.CaptureFixture[str], text_model: Path, texts_csv: Path
) -> None:
    code, out, _ = run(capsys, "eval", text_model, texts_csv)
    assert code == 0
    assert "accuracy  1.000  (9 examples)" in out and "confusion matrix" in out
    code, out, _ = run(capsys, "eval", text_model, texts_csv, "--json")
    report = json.loads(out)
    assert report["accuracy"] == 1.0
    assert report["confusion_matrix"] == [[5, 0], [0, 4]]
    assert report["classes"] == ["ham", "spam"]
    assert {r["class"] for r in report["per_class"]} == {"ham", "spam"}
    assert 0 < report["log_loss"] < 1


def test_explain_plain_coloured_and_exact(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path, texts_csv: Path
) -> None:
    code, out, _ = run(capsys, "explain", text_model, "Win a FREE prize, xyzzy")
    assert code == 0
    assert out.startswith("Prediction: spam")
    assert "win +" in out and "free +" in out and "xyzzy (unknown)" in out
    assert "\033[" not in out
    code, out, _ = run(capsys, "explain", text_model, "free lunch", "--color", "always")
    assert "\033[32m" in out or "\033[31m" in out
    code, out, _ = run(capsys, "explain", text_model, "free lunch", "--exact")
    assert code == 0
    assert "Exact derivation:" in out and "P(spam) · P(x | spam) = 4/9" in out
    assert "P(free | spam) = " in out and "Decision:" in out
    # unsmoothed: a word no class... every class misses one word -> cannot decide
    mle = tmp_path / "mle.nbayes"
    assert main(["train", str(texts_csv), "-o", str(mle), "--alpha", "0", "-q"]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "explain", mle, "free lunch", "--exact")
    assert code == 0
    assert "cannot decide" in out


def test_explain_on_a_stdout_that_cannot_encode_the_words(
    monkeypatch: pytest.MonkeyPatch, text_model: Path
) -> None:
    """An ASCII standard output (PYTHONIOENCODING=ascii, an old terminal) gets the words it
    cannot encode as backslash escapes: the command printed its first line and then failed
    with "Error: 'ascii' codec can't encode character '\\xe9'" (status 1)."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", newline="\n")
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["explain", str(text_model), "café free"]) == 0
    out.flush()
    text = raw.getvalue().decode("ascii")
    assert text.startswith("Prediction: ") and "caf\\xe9 (unknown)" in text, text
    assert "free +" in text


def test_update_and_forget_in_place(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path
) -> None:
    before = load(text_model)
    extra = write_csv(tmp_path / "more.csv", ["text", "label"],
                      [["free money now", "spam"], ["dinner at home", "ham"],
                       ["meeting moved", "work"]])  # fmt: skip
    # a label the model does not have is refused (a typo would be a class of its own, a
    # trial's finding), unless --new-classes
    content = text_model.read_bytes()
    code, _, err = run(capsys, "update", text_model, extra)
    assert_error(code, err, "The label 'work' (example 2 of DATA) is not a class of")
    assert "add --new-classes. Nothing was changed." in err
    assert text_model.read_bytes() == content
    code, _, err = run(capsys, "update", text_model, extra, "--new-classes")
    assert code == 0, err
    assert "Learned 3 examples" in err
    updated = load(text_model)
    assert updated.classes_.tolist() == ["ham", "spam", "work"]
    code, _, err = run(capsys, "forget", text_model, extra)
    assert code == 0, err
    after = load(text_model)
    assert after.classes_.tolist() == before.classes_.tolist()
    np.testing.assert_array_equal(after.feature_count_, before.feature_count_)
    np.testing.assert_array_equal(after.class_count_, before.class_count_)
    # forgetting what was never learned: refused, file untouched
    content = text_model.read_bytes()
    code, _, err = run(capsys, "forget", text_model, extra)
    assert_error(code, err, "never learned")
    assert text_model.read_bytes() == content
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_sample_text(capsys: pytest.CaptureFixture[str], text_model: Path) -> None:
    code, out, _ = run(capsys, "sample", text_model, "-n", "4", "--seed", "1")
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["label", "text"] and len(rows) == 5
    assert all(r[0] in ("ham", "spam") for r in rows[1:])
    code, again, _ = run(capsys, "sample", text_model, "-n", "4", "--seed", "1")
    assert again == out
    code, out, _ = run(capsys, "sample", text_model, "-n", "2", "--format", "jsonl")
    assert [set(json.loads(line)) for line in out.splitlines()] == [{"label", "text"}] * 2


def test_folder_per_class(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, spam_ham: tuple[list[str], list[str]]
) -> None:
    root = tmp_path / "mail"
    for label, docs in zip(("spam", "ham"), spam_ham, strict=True):
        (root / label).mkdir(parents=True)
        for i, doc in enumerate(docs):
            (root / label / f"{i}.txt").write_text(doc, encoding="utf-8")
    out_path = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", root, "-o", out_path)
    assert code == 0, err
    code, out, _ = run(capsys, "eval", out_path, root, "--json")
    assert json.loads(out)["accuracy"] == 1.0


# ------------------------------------------------------------------------------ tables


def test_gaussian_table_workflow(
    capsys: pytest.CaptureFixture[str], iris_csv: Path, tmp_path: Path
) -> None:
    model_path = tmp_path / "iris.nbayes"
    code, _, err = run(capsys, "train", iris_csv, "-o", model_path, "--model", "gaussian",
                       "--label-col", "species")  # fmt: skip
    assert code == 0, err
    assert "GaussianNB on 20 rows, 2 features" in err
    model = load(model_path)
    assert list(model.feature_names_in_) == ["petal_length", "petal_width"]
    # columns in another order, label column absent: matched by name
    rows = [["4.1", "3.9"], ["0.9", "1.2"]]
    new = write_csv(tmp_path / "new.csv", ["petal_width", "petal_length"], rows)
    code, out, _ = run(capsys, "predict", model_path, new, "--proba")
    assert code == 0
    assert [r["prediction"] for r in csv.DictReader(io.StringIO(out))] == ["virginica", "setosa"]
    code, out, _ = run(capsys, "eval", model_path, iris_csv, "--label-col", "species", "--json")
    assert json.loads(out)["accuracy"] == 1.0
    code, out, _ = run(capsys, "explain", model_path, new, "--row", "1")
    assert code == 0 and "Prediction: setosa" in out
    code, out, _ = run(capsys, "info", model_path)
    assert code == 0 and "petal_length" in out
    code, out, _ = run(capsys, "sample", model_path, "-n", "3", "--seed", "0")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["label", "petal_length", "petal_width"] and len(rows) == 4
    code, _, err = run(capsys, "update", model_path, iris_csv, "--label-col", "species")
    assert code == 0, err
    assert load(model_path).class_count_.tolist() == [20.0, 20.0]
    code, _, err = run(capsys, "forget", model_path, iris_csv, "--label-col", "species")
    assert code == 0, err
    assert load(model_path).class_count_.tolist() == [10.0, 10.0]
    code, _, err = run(capsys, "explain", model_path, new, "--row", "9")
    assert_error(code, err, "out of range")


def test_categorical_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rows = [["sunny", "hot", "no"], ["rainy", "mild", "yes"], ["sunny", "mild", "no"],
            ["overcast", "hot", "yes"], ["rainy", "cool", "yes"]]  # fmt: skip
    data = write_csv(tmp_path / "weather.csv", ["outlook", "temp", "label"], rows)
    model_path = tmp_path / "w.nbayes"
    code, _, err = run(capsys, "train", data, "-o", model_path, "--model", "categorical")
    assert code == 0, err
    code, out, _ = run(capsys, "predict", model_path, data)
    assert code == 0 and len(out.splitlines()) == 6
    code, out, _ = run(capsys, "explain", model_path, data, "--exact")
    assert code == 0 and "Decision:" in out
    code, out, _ = run(capsys, "sample", model_path, "-n", "2", "--seed", "3")
    assert code == 0 and out.splitlines()[0] == "label,outlook,temp"


# ------------------------------------------------------------------------------ errors


def _flipped(path: Path, at: int) -> None:
    """Flip every bit of the byte ``at`` of ``path`` (negative: from the end)."""
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def _said_once(err: str, path: Path) -> None:
    """A damaged model file's error: what is wrong once, the file once, what to do."""
    assert err.startswith("Error: ") and len(err.strip().splitlines()) == 1, err
    assert err.count("corrupted") == 1 and err.count(repr(str(path))) == 1, err
    assert "Cannot load" not in err and "Restore it from a backup" in err, err
    assert "train the model again" in err, err


def test_a_damaged_model_file_is_told_once(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    text_model: Path,
) -> None:
    """A byte flipped or the file cut short: the error says so once (it said "file is
    corrupted (SHA-256 checksum mismatch ...); the first problem found: file is corrupted:
    SHA-256 checksum mismatch ..."), names the file once and says what to do."""
    import nbayes
    from nbayes.spam import SpamFilter

    flipped, cut = tmp_path / "flipped.nbayes", tmp_path / "cut.nbayes"
    shutil.copy(text_model, flipped)
    _flipped(flipped, len(flipped.read_bytes()) // 2)
    cut.write_bytes(text_model.read_bytes()[:-10])
    for path in (flipped, cut):
        code, out, err = run(capsys, "predict", path, "--text", "hi")
        assert code == 1 and not out
        _said_once(err, path)
    assert err.count("truncated") == 1
    ham = [b"Subject: lunch\n\nmeeting at noon", b"Subject: report\n\nthe report is here"]
    spam = [b"Subject: pills\n\nbuy cheap pills", b"Subject: win\n\nwin a cheap prize"]
    mail = tmp_path / "mail.nbayes"
    nbayes.save(SpamFilter().fit(ham + spam, ["ham", "ham", "spam", "spam"]), mail)
    _flipped(mail, -40)  # a byte of the arrays
    for argv in ([], ["--register", "spam"]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(spam[0])))
        code, out, err = run(capsys, "filter", mail, *argv)
        assert code == 3 and not out
        _said_once(err, mail)
        assert err.count("checksum mismatch") == 1


def test_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text_model: Path, iris_csv: Path,
    texts_csv: Path,
) -> None:  # fmt: skip
    code, _, err = run(capsys, "info", tmp_path / "absent.nbayes")
    assert_error(code, err, "No model file")
    broken = tmp_path / "broken.nbayes"
    broken.write_bytes(text_model.read_bytes()[:-10])
    code, _, err = run(capsys, "predict", broken, "--text", "hi")
    assert_error(code, err, "corrupted")
    code, _, err = run(capsys, "train", tmp_path / "none.csv", "-o", tmp_path / "x.nbayes")
    assert_error(code, err, "none.csv")
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "x.nbayes", "--label-col",
                       "category")  # fmt: skip
    assert_error(code, err, "category")
    code, _, err = run(capsys, "train", iris_csv, "-o", tmp_path / "x.nbayes", "--model",
                       "gaussian")  # fmt: skip
    assert_error(code, err, "No label column 'label'")
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "x.nbayes", "--model",
                       "gaussian", "--label-col", "label")  # fmt: skip
    assert_error(code, err, "is not a number")
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "x.nbayes", "--ngrams", "2-1")
    assert_error(code, err, "--ngrams")
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "no" / "x.nbayes")
    assert_error(code, err, "does not exist")
    code, _, err = run(capsys, "train", texts_csv, "-o", texts_csv / "x.nbayes")  # (a file)
    assert_error(code, err, "is a file, not a folder")
    code, _, err = run(capsys, "predict", text_model)
    assert_error(code, err, "either DATA files or --text")
    code, _, err = run(capsys, "predict", text_model, "--text", "a", "--top", "0")
    assert_usage_error(code, err, "--top")
    code, _, err = run(capsys, "sample", text_model, "-n", "-1")
    assert_usage_error(code, err, "-n")
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "x.nbayes", "--alpha", "-1")
    assert_error(code, err, "--alpha")
    assert not (tmp_path / "x.nbayes").exists()
    # refused by the model, before training, not by the model file after it
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "x.nbayes", "--alpha", "inf")
    assert_error(code, err, "--alpha must be a number >= 0; got inf")
    assert not (tmp_path / "x.nbayes").exists()


def test_warnings_are_one_line_not_errors(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path
) -> None:
    mle = tmp_path / "mle.nbayes"
    assert main(["train", str(texts_csv), "-o", str(mle), "--alpha", "0", "-q"]) == 0
    code, out, err = run(capsys, "predict", mle, "--text", "free lunch")
    assert code == 0
    assert err.startswith("Warning: Every class has zero probability")
    code, out, err = run(capsys, "predict", mle, "--text", "free lunch", "-q")
    assert code == 0 and err == ""


def test_verbose_prints_details(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "m.nbayes", "-v")
    assert code == 0 and "Training: 9 documents in"  # read and learnt chunk by chunk in err
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "m.nbayes", "-q")
    assert code == 0 and err == ""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_only_on_a_terminal() -> None:
    from nbayes.cli._common import UI

    tty, pipe = _Terminal(), io.StringIO()
    for err in (tty, pipe):
        ui = UI(err=err, out=io.StringIO())
        with ui.progress("Reading", "documents") as bar:
            bar.advance(5)
    assert "\rReading: 5 documents" in tty.getvalue()
    assert pipe.getvalue() == ""
    quiet = _Terminal()
    with UI(quiet=True, err=quiet).progress("Reading", "rows") as bar:
        bar.advance(1)
    assert quiet.getvalue() == ""
    assert UI(out=_Terminal()).color("auto") is not UI(out=io.StringIO()).color("auto")


def test_progress_bar_when_the_total_is_known() -> None:
    from nbayes import MultinomialNB
    from nbayes.cli._common import UI
    from nbayes.evaluation import evaluate

    tty = _Terminal()
    with UI(err=tty, out=io.StringIO()).progress("Training", "documents", total=40) as bar:
        bar.advance(10)
        bar.advance(30)
    assert "[" + "#" * 30 + "] 100% 40/40 documents" in tty.getvalue()
    # evaluation reports each scored batch
    seen: list[int] = []
    clf = MultinomialNB().fit([[1, 0], [0, 1], [2, 1]], ["a", "b", "a"])
    evaluate(clf, np.array([[1, 0], [0, 1], [2, 1]]), ["a", "b", "a"], batch_size=2,
             progress=seen.append)  # fmt: skip
    assert seen == [2, 1]


def test_progress_bar_of_the_share_read_with_the_time_left() -> None:
    """Files read a chunk at a time: the bar is of the share of their bytes read (a
    trial's `nbayes train` of a 1.5 GB file showed a count alone), with the time left at
    the pace so far; a line shorter than the last is padded over it."""
    import time

    from nbayes.cli._common import UI

    tty = _Terminal()
    with UI(err=tty, out=io.StringIO()).progress("Training", "documents") as bar:
        bar._start = time.monotonic() - 30.0  # 30 s spent: the pace is known
        bar._last = -1.0
        bar.advance(10_000, 0.25)
        assert bar.line().startswith("Training: [" + "#" * 8 + "." * 22 + "]  25% 10,000 documents")
        assert bar.line().endswith(", ~90 s left") or bar.line().endswith(", ~2 min left")
        drawn = len(bar.line())
        bar.advance(30_000, 1.0)
    last = tty.getvalue().split("\r")[-1]
    assert last.startswith("Training: [" + "#" * 30 + "] 100% 40,000 documents ")  # no time left
    assert len(last.rstrip("\n")) == drawn  # padded over the longer line before
    with UI(err=_Terminal(), out=io.StringIO()).progress("Reading", "documents") as bar:
        bar.advance(5, None)  # standard input: no share, a count
        assert bar.line() == "Reading: 5 documents"


# ---------------------------------------------------------------- as a program


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2] / "src")
    env = dict(os.environ)
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_python_dash_m(text_model: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "nbayes", "predict", str(text_model), "--text", "free prize"],
        capture_output=True, text=True, env=_env(), timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("spam (P = ")
    proc = subprocess.run(
        [sys.executable, "-m", "nbayes", "info", "absent.nbayes"],
        capture_output=True, text=True, env=_env(), timeout=60,
    )  # fmt: skip
    assert proc.returncode == 1 and proc.stderr.startswith("Error: ")


def test_console_script(text_model: Path) -> None:
    exe = shutil.which("nbayes")
    if exe is None:
        pytest.skip("the nbayes console script is not installed (pip install .)")
    proc = subprocess.run([exe, "predict", str(text_model), "--text", "free prize"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("spam (P = ")
    proc = subprocess.run([exe, "eval", "-h"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "Example:" in proc.stdout


# ------------------------------------------------------------------ how commands are made


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_module_declares_itself(command: str) -> None:
    """A command is its module: the docstring is its help, add_arguments and run."""
    from nbayes.cli import command_module

    module = command_module(command)
    doc = module.__doc__ or ""
    assert doc.startswith(f"``nbayes {command}``")
    assert "\nExample:\n" in doc and f"  nbayes {command}" in doc.split("\nExample:\n")[1]
    assert callable(module.add_arguments) and callable(module.run)
    assert not hasattr(module, "add_parser")


def test_the_cli_reads_no_private_model_state() -> None:
    """No module of the CLI reaches into a model's private state: it uses the public API."""
    import re

    import nbayes.cli

    root = Path(nbayes.cli.__file__).parent
    # os._exit: stdlib; nbayes._flags: the argparse types of both command lines (the CLI
    # and nbayes serve), no model state
    private = re.compile(r"\b(?!self\b|cli\b|os\b|sys\b|nbayes\._flags\b)(\w+)\._[a-z]\w*")
    private_import = re.compile(r"from nbayes\.(?!cli\b)[\w.]* import _|nbayes\.(?!cli\.)\w+\._")
    found = []
    for path in sorted(root.glob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if private.search(code) or private_import.search(code):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert not found, found


def test_hyperparameter_errors_are_the_estimators_worded_with_the_flag() -> None:
    from nbayes import KernelNB, MultinomialNB
    from nbayes.cli._common import flag_error

    X, y = np.array([[1.0, 2.0], [3.0, 4.0]]), [0, 1]

    def error(model: Any) -> Exception:
        with pytest.raises(ValueError) as info:
            model.fit(X, y)
        return info.value

    alpha = error(MultinomialNB(alpha=-1.0))
    assert str(flag_error(alpha, ["--alpha"])) == "--alpha must be a number >= 0; got -1.0."
    assert flag_error(alpha, ["--bandwidth"]) is None  # not a flag this command has
    points = error(KernelNB(max_points=1))
    assert str(flag_error(points, ["--max-points"])) == (
        "--max-points must be a whole number >= 2; got 1."
    )
    width = error(KernelNB(bandwidth="wide"))
    assert str(flag_error(width, ["--bandwidth"])) == (
        "--bandwidth must be 'robust', 'scott', 'silverman' or a number > 0; got 'wide'."
    )
    assert flag_error(ValueError("X has 3 columns"), ["--alpha"]) is None
    # the words come from the error's fields, never from parsing its message
    assert (alpha.param, alpha.value, alpha.accepted) == ("alpha", -1.0, ("a number >= 0",))
    lookalike = ValueError(str(alpha))
    assert flag_error(lookalike, ["--alpha"]) is None


def test_closed_stdout_is_one_clear_error(text_model: Path) -> None:
    """`nbayes info MODEL >&-`: a write error in one line, exit 1, not "a bug in nbayes"."""
    code = (
        "import sys; sys.stdout.close(); sys.stdout = None; "
        "from nbayes.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    for argv in (["info", str(text_model)], ["predict", str(text_model), "--text", "free"]):
        proc = subprocess.run(
            [sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith("Error: standard output is closed"), proc.stderr
        assert "bug" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    # a command that writes nothing to stdout still works
    out = text_model.with_name("again.nbayes")
    csv_path = text_model.with_name("sms.csv")
    proc = subprocess.run(
        [sys.executable, "-c", code, "train", str(csv_path), "-o", str(out), "-q"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert load(out).predict(["free prize"]).tolist() == ["spam"]


def test_a_command_outlives_its_terminal(tmp_path: Path) -> None:
    """``nbayes train ... & disown`` and the ssh session drops: no SIGHUP comes, and every
    write to the terminal fails with EIO. Before, the next progress write ended the
    training with exit 1 and no model; its messages are now dropped and it runs to its
    end (its progress and closing note written into the void)."""
    import pty
    import time

    script = tmp_path / "long_train.py"
    script.write_text(
        "import sys, time\n"
        "from pathlib import Path\n"
        "from nbayes.cli import main, train\n"
        "def long(args, ui):\n"
        "    with ui.progress('Training', 'documents') as bar:\n"
        "        for _ in range(40):\n"
        "            bar.advance(10_000)\n"
        "            time.sleep(0.05)\n"
        "    Path('model.nbayes').write_text('the model')\n"
        "    ui.note('Saved to model.nbayes')\n"
        "    return 0\n"
        "train.run = long\n"
        "sys.argv = ['nbayes', 'train', 'x.csv', '-o', 'model.nbayes']\n"
        "sys.exit(main())\n"
    )
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, str(script)], cwd=tmp_path, stdin=slave,
                            stdout=slave, stderr=slave, start_new_session=True)  # fmt: skip
    os.close(slave)
    seen = b""
    while b"Training" not in seen:
        seen += os.read(master, 4096)
    os.close(master)  # the terminal goes away (no controlling terminal: no SIGHUP)
    started = time.monotonic()
    assert proc.wait(60) == 0
    assert time.monotonic() - started > 0.5  # it ran on
    assert (tmp_path / "model.nbayes").read_text() == "the model"


@pytest.mark.parametrize(
    "argv, flag",
    [
        (["info", "{model}", "--top", "-3"], "--top"),
        (["explain", "{model}", "free", "--top", "-1"], "--top"),
        (["predict", "{model}", "--text", "free", "--top", "0"], "--top"),
        (["sample", "{model}", "-n", "-2"], "-n"),
    ],
)
def test_counts_must_be_in_range(
    capsys: pytest.CaptureFixture[str], text_model: Path, argv: list[str], flag: str
) -> None:
    code, _, err = run(capsys, *[a.format(model=text_model) for a in argv])
    assert_usage_error(code, err, f"argument {flag}")


def test_concurrent_updates_take_turns_and_none_is_lost(tmp_path: Path, text_model: Path) -> None:
    """Two `nbayes update` processes on one model, ten rounds each: every update lands."""
    before = load(text_model).class_count_.sum()
    new = write_csv(tmp_path / "one.csv", ["text", "label"], [["free cash prize now", "spam"]])
    loop = (
        "import sys; from nbayes.cli import main\n"
        "for _ in range(10):\n"
        "    assert main(['update', sys.argv[1], sys.argv[2], '-q']) == 0\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", loop, str(text_model), str(new)]) for _ in range(2)
    ]
    assert [p.wait(timeout=300) for p in procs] == [0, 0]
    assert load(text_model).class_count_.sum() == before + 20


def test_update_of_a_model_a_server_holds_is_refused_at_once(
    capsys: pytest.CaptureFixture[str], text_model: Path, texts_csv: Path, served_here: Any
) -> None:
    """A server holds the model's lock while it serves and never lets go: `nbayes update`
    says so at once, naming the server and its /update (it waited 60 s in silence)."""
    import time

    url = "http://127.0.0.1:8123"
    before = text_model.read_bytes()
    with served_here(text_model, url):  # this process plays the server
        start = time.monotonic()
        code, _, err = run(capsys, "update", text_model, texts_csv)
        took = time.monotonic() - start
    assert_error(code, err, "is served by nbayes serve")
    assert f"pid {os.getpid()}" in err and f"{url}/update" in err
    assert took < 10, took
    assert text_model.read_bytes() == before  # untouched
    assert not [p for p in os.listdir(text_model.parent) if p.endswith(".lock")]


def test_update_waits_for_another_update_then_fails_clearly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, text_model: Path,
    texts_csv: Path,
) -> None:  # fmt: skip
    from nbayes.cli import _model_lock
    from nbayes.io.lock import ModelLock

    monkeypatch.setattr(_model_lock, "LOCK_TIMEOUT", 0.2)
    before = text_model.read_bytes()
    with ModelLock(str(text_model), "nbayes update"):  # another update, not a server
        code, _, err = run(capsys, "update", text_model, texts_csv)
    lines = err.strip().splitlines()  # a loaded machine may add a note (e.g. still waiting)
    note, error = lines[0], lines[-1]
    assert code == 1 and "Waiting for another change of" in note
    assert error.startswith("Error: ") and "is in use by another process" in error
    assert "has held it for 0.2 s" in error and "Traceback" not in err
    assert text_model.read_bytes() == before  # untouched
    code, _, _ = run(capsys, "update", text_model, texts_csv, "-q")  # free again
    assert code == 0
    assert not [p for p in os.listdir(text_model.parent) if p.endswith(".lock")]


def test_train_kernel_uses_the_estimators_default_bandwidth(tmp_path) -> None:
    """No --bandwidth: KernelNB's own default rule (robust), not a rule the CLI picks."""
    import numpy as np

    import nbayes
    from nbayes.cli import main

    rng = np.random.default_rng(0)
    csv = tmp_path / "t.csv"
    rows = ["a,b,label"] + [
        f"{x:.3f},{z:.3f},{c}"
        for x, z, c in zip(
            rng.normal(size=40), rng.normal(size=40), rng.integers(0, 2, 40), strict=True
        )
    ]
    csv.write_text("\n".join(rows) + "\n")
    out = tmp_path / "k.nbayes"
    assert (
        main(["train", str(csv), "--model", "kernel", "--label-col", "label", "-o", str(out), "-q"])
        == 0
    )
    assert nbayes.load(out).bandwidth == nbayes.KernelNB().bandwidth


def test_an_unexpected_lookup_error_is_reported_as_a_bug(capsys) -> None:
    """A KeyError or IndexError escaping a command is a bug in nbayes, said so (it used to
    print as a bare "Error: nbsvm", like a user's mistake)."""
    import io

    from nbayes.cli import _report
    from nbayes.cli._common import UI

    err = io.StringIO()
    ui = UI(quiet=True, verbose=False, err=err)
    assert _report(ui, KeyError("nbsvm")) == 1
    assert "unexpected KeyError" in err.getvalue() and "this is a bug in nbayes" in err.getvalue()


@pytest.mark.parametrize("model", ["multinomial", "bernoulli"])
def test_explain_of_an_empty_document_with_a_hashing_model(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path, model: str
) -> None:
    """A document without words is explained (the prior decides), as it is by a
    vocabulary model: a hashing model failed with "Error: Cannot vectorize empty
    sequence" (its words' buckets were looked up by counting an empty batch)."""
    path = tmp_path / "hashed.nbayes"
    assert main(["train", str(texts_csv), "-o", str(path), "--hashing", "--model", model,
                 "-q"]) == 0  # fmt: skip
    capsys.readouterr()
    for text in ("", "   ", "!!!"):
        code, out, err = run(capsys, "explain", path, text)
        assert code == 0, err
        assert out.startswith("Prediction: ") and "(no known words)" in out, out


@pytest.mark.parametrize("command", ["predict", "explain"])
def test_a_document_of_one_long_line_on_standard_input_is_read(
    command: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    text_model: Path,
) -> None:
    # "unexpected Error: field larger than field limit (131072) (this is a bug in nbayes)":
    # the format of standard input was told from its first line by the csv module
    line = ("free prize " * 20_000).encode() + b"\n"  # 220 KB
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(line)))
    code, out, err = run(capsys, command, text_model, "-")
    assert code == 0 and out and "bug" not in err


def test_a_flag_between_the_model_and_the_data_is_read_as_anywhere(
    capsys: pytest.CaptureFixture[str], text_model: Path, texts_csv: Path
) -> None:
    # argparse ended the DATA list at the first flag after MODEL: "nbayes predict MODEL
    # --proba DATA" said "unrecognized arguments: DATA" (a user's trial)
    code, after, _ = run(capsys, "predict", text_model, texts_csv, "--proba")
    assert code == 0
    code, between, _ = run(capsys, "predict", text_model, "--proba", texts_csv)
    assert (code, between) == (0, after)
    code, _, err = run(capsys, "predict", text_model, "--proba", texts_csv, "--bogus")
    assert code == 2 and "unrecognized arguments: --bogus" in err


def test_data_errors_name_the_likely_cause(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # a CSV separated by ';' said only that the column 'text' is not among 'text;label';
    # an empty cell of a Gaussian table advised "--model categorical for labels"
    semi = tmp_path / "semi.csv"
    semi.write_text("text;label\nfoo bar;ham\nbaz;spam\n")
    code, _, err = run(capsys, "train", semi, "-o", tmp_path / "m.nbayes")
    assert code == 1 and "holds ';': the file's fields are separated by it" in err
    gaps = tmp_path / "gaps.csv"
    gaps.write_text("a,b,y\n1,,0\n2,3,1\n")
    code, _, err = run(
        capsys,
        "train",
        gaps,
        "-o",
        tmp_path / "g.nbayes",
        "--model",
        "gaussian",
        "--label-col",
        "y",
    )
    assert code == 1 and "an empty cell is a missing value" in err and "--model mixed" in err


def test_train_of_a_folder_of_mail_as_words_points_to_the_spam_filter(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # --model spam forgotten: a word model of raw mail, with advice about --encoding only
    for label, words in (("ham", "meeting notes"), ("spam", "free cash")):
        (tmp_path / "mail" / label).mkdir(parents=True)
        (tmp_path / "docs" / label).mkdir(parents=True)
        for i in range(4):
            raw = f"Received: from x{i}\nFrom: a@b.example\nSubject: {words}\n\n{words} {i}\n"
            (tmp_path / "mail" / label / f"{i}.eml").write_text(raw)
            (tmp_path / "docs" / label / f"{i}.txt").write_text(f"{words} {i}\n")
    code, _, err = run(capsys, "train", tmp_path / "mail", "-o", tmp_path / "m.nbayes")
    assert code == 0 and "look like e-mail messages" in err and "--model spam" in err
    code, _, err = run(capsys, "train", tmp_path / "docs", "-o", tmp_path / "d.nbayes")
    assert code == 0 and "e-mail" not in err


def test_train_names_each_class_with_its_count(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`2 classes (0 2,788, 1 1,813)` read as four numbers (a trial's finding): each class
    is written `class: count`, as `nbayes info` writes them."""
    data = tmp_path / "d.csv"
    data.write_text("text,label\nfree prize now,1\nlunch at noon,0\nmeeting notes,0\n")
    code, _, err = run(capsys, "train", data, "-o", tmp_path / "m.nbayes")
    assert code == 0 and "2 classes (0: 2, 1: 1)" in err, err


def test_predict_id_col_names_each_answer_by_a_column(
    capsys: pytest.CaptureFixture[str], text_model: Path, tmp_path: Path
) -> None:
    """``--id-col NAME``: the answers carry that column's values in place of row numbers
    (a data engineer's wish: a key to join them on), in every output format, across
    chunks, for table models too; the column must exist."""
    texts = random_texts(1, 10_050, 4)
    data = write_csv(tmp_path / "inbox.csv", ["message_id", "text"],
                     [[f"m-{i}", t] for i, t in enumerate(texts)])  # fmt: skip
    code, out, err = run(capsys, "predict", text_model, data, "--id-col", "message_id")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0, err
    assert [r["message_id"] for r in rows] == [f"m-{i}" for i in range(len(texts))]
    assert [r["prediction"] for r in rows] == load(text_model).predict(texts).tolist()
    code, out, _ = run(capsys, "predict", text_model, data, "--id-col", "message_id",
                       "--top", "2", "--format", "jsonl")  # fmt: skip
    assert json.loads(out.splitlines()[-1])["message_id"] == f"m-{len(texts) - 1}"
    two = write_csv(tmp_path / "two.csv", ["text", "key"], [["free cash prize", "a"],
                                                            ["lunch at home", ""]])  # fmt: skip
    code, out, _ = run(capsys, "predict", text_model, two, "--id-col", "key", "--format", "plain")
    assert [line.split("  ")[1] for line in out.splitlines()] == ["key a", "key "]
    code, out, err = run(capsys, "predict", text_model, two, "--id-col", "nope")
    assert_error(code, err, "Column 'nope' not found in")
    assert "Pass --id-col NAME to choose" in err
    code, _, err = run(capsys, "predict", text_model, "--text", "hi", "--id-col", "key")
    assert_error(code, err, "--id-col names a column of DATA; --text has none")
    plain = tmp_path / "plain.txt"
    plain.write_text("free cash\n")
    code, _, err = run(capsys, "predict", text_model, plain, "--id-col", "key")
    assert_error(code, err, "it has no column for --id-col to name")
    points = [["0.1", "a"], ["2.5", "b"], ["0.3", "a"], ["2.2", "b"]]
    table = write_csv(tmp_path / "t.csv", ["x", "label"], points)
    model = tmp_path / "g.nbayes"
    assert run(capsys, "train", table, "--model", "gaussian", "-o", model)[0] == 0
    keyed = write_csv(tmp_path / "k.csv", ["key", "x"], [["r1", "0.2"], ["r2", "2.4"]])
    code, out, err = run(capsys, "predict", model, keyed, "--id-col", "key")
    assert code == 0, err
    assert out.splitlines() == ["key,prediction", "r1,a", "r2,b"]
    code, _, err = run(capsys, "predict", model, keyed, "--id-col", "kk")
    assert_error(code, err, "Column 'kk' not found in")


def test_predict_of_a_text_given_as_data_points_to_text(
    capsys: pytest.CaptureFixture[str], text_model: Path
) -> None:
    """`nbayes predict MODEL "free entry win a prize"` (explain takes the text there) said
    a bare "No such file or directory" (a trial's finding)."""
    code, _, err = run(capsys, "predict", text_model, "free entry win a prize")
    assert code != 0
    assert "No such file: 'free entry win a prize'" in err
    assert "--text 'free entry win a prize'" in err


def test_eval_finds_the_label_column_a_table_model_was_trained_with(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """spambase's labels are in "spam": every eval asked for --label-col spam again, and
    its error listed all 58 columns (a trial's finding). The one column that is no feature
    of the model is the label column; an error lists a wide table's first columns."""
    rng = np.random.default_rng(0)
    header = [f"f{i}" for i in range(20)] + ["spam"]
    data = tmp_path / "t.csv"
    rows = [[*(f"{v:.3f}" for v in rng.normal(size=20)), str(i % 2)] for i in range(40)]
    data.write_text("\n".join(",".join(r) for r in [header, *rows]) + "\n")
    model = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", data, "-o", model, "--model", "gaussian",
                       "--label-col", "spam")  # fmt: skip
    assert code == 0, err
    code, out, err = run(capsys, "eval", model, data)
    assert code == 0 and "(40 examples)" in out
    assert "Labels from the column 'spam'" in err
    extra = tmp_path / "extra.csv"  # two columns that are no feature: which one?
    extra.write_text("\n".join(",".join([*r, "x"]) for r in [header, *rows]) + "\n")
    code, _, err = run(capsys, "eval", model, extra)
    assert code != 0 and "No label column 'label'" in err and "and 12 more" in err


def test_delimiter_reads_a_semicolon_separated_export(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A spreadsheet's export with ';' between fields: the error saw it, but the command
    line had no way to read it (a trial's finding). --delimiter, for documents and tables."""
    semi = tmp_path / "semi.csv"
    semi.write_text("text;label\nfree prize now;spam\nlunch at noon;ham\nmeeting notes;ham\n")
    model = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", semi, "-o", model)
    assert code != 0 and "Pass --delimiter ';' to read it so." in err
    code, _, err = run(capsys, "train", semi, "-o", model, "--delimiter", ";")
    assert code == 0, err
    tabbed = tmp_path / "tabbed.csv"  # (the advice pasted into a shell: a raw tab was lost)
    tabbed.write_text(semi.read_text().replace(";", "\t"))
    code, _, err = run(capsys, "train", tabbed, "-o", model)
    assert code != 0 and "Pass --delimiter tab to read it so." in err
    assert load(model).classes_.tolist() == ["ham", "spam"]
    code, out, _ = run(capsys, "eval", model, semi, "--delimiter", ";")
    assert code == 0 and "(3 examples)" in out
    table = tmp_path / "t.csv"
    table.write_text("a;b;label\n1;2;x\n2;1;y\n1.5;2.5;x\n")
    code, _, err = run(capsys, "train", table, "-o", model, "--model", "gaussian",
                       "--delimiter", ";", "--force")  # fmt: skip
    assert code == 0, err
    assert load(model).feature_names_in_.tolist() == ["a", "b"]
    tabs = tmp_path / "tabs.csv"
    tabs.write_text("text\tlabel\nfree prize\tspam\nlunch\tham\n")
    code, _, err = run(capsys, "train", tabs, "-o", model, "--delimiter", "tab", "--force")
    assert code == 0, err
    code, _, err = run(capsys, "train", semi, "-o", model, "--delimiter", ";;", "--force")
    assert_error(code, err, "--delimiter takes one character")


def test_train_of_a_hashing_model_counts_buckets_not_terms(
    capsys: pytest.CaptureFixture[str], texts_csv: Path, tmp_path: Path
) -> None:
    """A hashing model keeps no terms: "949,506 terms" were the buckets it fills (a
    trial's finding)."""
    code, _, err = run(capsys, "train", texts_csv, "-o", tmp_path / "h.nbayes", "--hashing")
    assert code == 0 and " of 1,048,576 hash buckets used: 2 classes" in err, err
    assert " terms" not in err.splitlines()[0]
