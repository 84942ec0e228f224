"""``nbayes train`` of a text model counts without the estimator (issue 28: no scikit-learn
imported): its file must be the one ``TextClassifier.fit_chunks`` + ``nbayes.save`` writes."""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nbayes
from nbayes import TextClassifier
from nbayes.cli import main
from nbayes.text import _lean
from nbayes.text._lean import TEXT_DEFAULTS, TextSettings

from .conftest import assert_error, run, write_csv

DOCS = [
    ("Free prize money now, claim your free prize", "spam"),
    ("Lunch today at noon? The usual place", "ham"),
    ("WIN a free cruise: reply now to win", "spam"),
    ("The meeting moved to today, see you there", "ham"),
    ("Cheap pills, no prescription, free shipping", "spam"),
    ("Can you send me the notes from the meeting", "ham"),
    ("Congratulations, you won a prize! Call now", "spam"),
    ("Dinner at mine tonight? Bring the notes", "ham"),
    ("naïve café: free entry for the winner", "eggs"),
]

#: (command-line flags, the TextClassifier's hyperparameters)
SETTINGS: list[tuple[list[str], dict[str, Any]]] = [
    ([], {}),
    (["--model", "bernoulli"], {"model": "bernoulli"}),
    (["--model", "complement"], {"model": "complement"}),
    (["--binary", "--alpha", "0.5"], {"binary": True, "alpha": 0.5}),
    (["--ngrams", "1-2"], {"ngram_range": (1, 2)}),
    (["--ngrams", "2-3", "--model", "bernoulli"], {"ngram_range": (2, 3), "model": "bernoulli"}),
    (["--hashing"], {"hashing": True}),
    (["--hashing", "--ngrams", "1-2", "--binary"],
     {"hashing": True, "ngram_range": (1, 2), "binary": True}),
    (["--hashing", "--ngrams", "2-2", "--model", "bernoulli"],
     {"hashing": True, "ngram_range": (2, 2), "model": "bernoulli"}),
    (["--hashing", "--ngrams", "3", "--model", "complement"],
     {"hashing": True, "ngram_range": (1, 3), "model": "complement"}),
    (["--stop-words", "english"], {"stop_words": "english"}),
    (["--min-df", "2"], {"min_df": 2}),
    (["--max-df", "0.5", "--model", "complement"], {"max_df": 0.5, "model": "complement"}),
    (["--preprocess", "sentiment"], {"preprocess": "sentiment"}),
]  # fmt: skip


@pytest.fixture
def docs_csv(tmp_path: Path) -> Path:
    return write_csv(tmp_path / "docs.csv", ["text", "label"], [list(r) for r in DOCS])


def _estimator_file(tmp_path: Path, params: dict[str, Any]) -> Path:
    with open(tmp_path / "docs.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    model = TextClassifier(**params).fit_chunks(
        [([r["text"] for r in rows], [r["label"] for r in rows])]
    )
    out = tmp_path / "estimator.nbayes"
    nbayes.save(model, out)
    return out


def test_the_settings_are_the_estimators() -> None:
    assert TextSettings().get_params() == TextClassifier().get_params(deep=False)
    assert TEXT_DEFAULTS == TextClassifier().get_params(deep=False)


@pytest.mark.parametrize(("flags", "params"), SETTINGS, ids=lambda v: repr(v))
def test_train_writes_the_file_the_estimator_writes(
    tmp_path: Path, docs_csv: Path, flags: list[str], params: dict[str, Any]
) -> None:
    lean = tmp_path / "lean.nbayes"
    assert main(["train", str(docs_csv), "-o", str(lean), "-q", *flags]) == 0
    expected = _estimator_file(tmp_path, params)
    assert lean.read_bytes() == expected.read_bytes()
    a, b = nbayes.load(lean), nbayes.load(expected)
    assert a.get_params() == b.get_params()
    np.testing.assert_array_equal(a.feature_count_, b.feature_count_)
    np.testing.assert_array_equal(a.class_count_, b.class_count_)
    docs = [d for d, _ in DOCS] + ["free lunch", "nothing known here"]
    np.testing.assert_array_equal(a.predict_proba(docs), b.predict_proba(docs))


def test_train_with_a_class_prior_writes_the_estimators_file(
    tmp_path: Path, docs_csv: Path
) -> None:
    lean = tmp_path / "lean.nbayes"
    argv = ["train", str(docs_csv), "-o", str(lean), "-q", "--class-prior",
            "spam=0.5,ham=0.3,eggs=0.2"]  # fmt: skip
    assert main(argv) == 0
    expected = _estimator_file(tmp_path, {"class_prior": [0.3, 0.2, 0.5]})
    # classes sorted: eggs, ham, spam
    assert nbayes.load(lean).class_prior == [0.2, 0.3, 0.5]
    assert lean.read_bytes() != expected.read_bytes()  # the prior is in the file
    expected = _estimator_file(tmp_path, {"class_prior": [0.2, 0.3, 0.5]})
    assert lean.read_bytes() == expected.read_bytes()


def test_train_refuses_what_the_estimator_refuses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, docs_csv: Path
) -> None:
    out = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", docs_csv, "-o", out, "--min-df", "20")
    assert code != 0 and "Traceback" not in err and not out.exists()
    with pytest.raises(ValueError) as exc:
        _estimator_file(tmp_path, {"min_df": 20})
    assert str(exc.value).split(";")[0].rstrip(".") in err
    only_stop_words = write_csv(tmp_path / "stop.csv", ["text", "label"],
                                [["the and of", "a"], ["a an the", "b"]])  # fmt: skip
    code, _, err = run(capsys, "train", only_stop_words, "-o", out, "--stop-words", "english")
    assert_error(code, err, "empty vocabulary")
    assert not out.exists()
    code, _, err = run(capsys, "train", docs_csv, "-o", out, "--alpha", "-1")
    assert code != 0 and "--alpha" in err and not out.exists()


MORE = [
    ("Free tickets: claim now, brand new words", "spam"),
    ("Notes for tomorrow's meeting, unseen vocabulary", "ham"),
    ("a brand new class of message", "news"),
]


def _estimator_after(tmp_path: Path, params: dict[str, Any], forget: bool) -> Path:
    model = nbayes.load(_estimator_file(tmp_path, params))
    texts, labels = [d for d, _ in MORE], [c for _, c in MORE]
    model.update(texts, labels)
    if forget:
        model.unlearn(texts[:2], labels[:2])
    out = tmp_path / "estimator-after.nbayes"
    nbayes.save(model, out)
    return out


@pytest.mark.parametrize("batch", [None, 1], ids=["one batch", "a document at a time"])
@pytest.mark.parametrize(("flags", "params"), SETTINGS, ids=lambda v: repr(v))
def test_update_and_forget_write_the_files_the_estimator_writes(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    docs_csv: Path,
    flags: list[str],
    params: dict[str, Any],
    batch: int | None,
) -> None:
    if batch is not None:  # counted a batch at a time for the progress bar: the same file
        monkeypatch.setattr(_lean, "PROGRESS_BATCH", batch)
    model = tmp_path / "lean.nbayes"
    assert main(["train", str(docs_csv), "-o", str(model), "-q", *flags]) == 0
    trained = model.read_bytes()
    more = write_csv(tmp_path / "more.csv", ["text", "label"], [list(r) for r in MORE])
    assert main(["update", str(model), str(more), "-q", "--new-classes"]) == 0
    assert model.read_bytes() == _estimator_after(tmp_path, params, forget=False).read_bytes()
    some = write_csv(tmp_path / "some.csv", ["text", "label"], [list(r) for r in MORE[:2]])
    assert main(["forget", str(model), str(some), "-q"]) == 0
    assert model.read_bytes() == _estimator_after(tmp_path, params, forget=True).read_bytes()
    news = write_csv(tmp_path / "news.csv", ["text", "label"], [list(MORE[2])])
    assert main(["forget", str(model), str(news), "-q"]) == 0
    assert model.read_bytes() == trained  # update then forget of the same: the trained file


@pytest.mark.parametrize(
    "rows",
    [[["free prize", "news"]],  # a class the model never learned
     [["free free free free free free free prize prize prize prize", "spam"]],  # too many
     [["word never seen anywhere", "ham"]]],  # terms it never learned
    ids=["unknown class", "negative counts", "unknown terms"],
)  # fmt: skip
def test_forget_refuses_what_the_estimator_refuses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, docs_csv: Path, rows: list[list[str]]
) -> None:
    model = tmp_path / "lean.nbayes"
    assert main(["train", str(docs_csv), "-o", str(model), "-q"]) == 0
    before = model.read_bytes()
    data = write_csv(tmp_path / "bad.csv", ["text", "label"], rows)
    code, _, err = run(capsys, "forget", model, data)
    assert code != 0 and "Traceback" not in err
    assert model.read_bytes() == before  # nothing changed
    estimator = nbayes.load(model)
    with pytest.raises(ValueError) as exc:
        estimator.unlearn([r[0] for r in rows], [r[1] for r in rows])
    assert str(exc.value).split(":")[0] in err


def test_update_counts_the_examples_as_it_learns_them(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    docs_csv: Path,
) -> None:
    """A trial's `nbayes update imdb.nbayes imdb_test.csv.gz -v`, stopped by Ctrl-C after
    13 s, last said "Learning: 0 examples in 13.07 s" (the count moved only at the end):
    a text model learns a batch at a time, and the bar and the count follow."""
    model = tmp_path / "lean.nbayes"
    assert main(["train", str(docs_csv), "-o", str(model), "-q"]) == 0
    more = write_csv(tmp_path / "more.csv", ["text", "label"], [list(r) for r in MORE])
    code, _, err = run(capsys, "update", model, more, "-v", "--new-classes")
    assert code == 0 and f"Learning: {len(MORE)} examples in " in err
    assert "stopped" not in err
    before = model.read_bytes()
    # documents learnt a batch (32 MiB of text) at a time as they are read: here a batch
    # of each document (chunks of one document, batches of one character)
    from nbayes.cli import _common
    from nbayes.cli import update as update_command

    options = _common.reader_options
    monkeypatch.setattr(_common, "reader_options", lambda args: {**options(args), "chunk_size": 1})
    monkeypatch.setattr(update_command, "_BATCH_CHARS", 1)
    counted = []
    learn = TextSettings.update

    def stopped_at_the_third(self: Any, X: Any, y: Any, progress: Any = None) -> Any:
        if len(counted) == 2:
            raise KeyboardInterrupt  # Ctrl-C
        counted.append(list(X))
        return learn(self, X, y, progress)

    monkeypatch.setattr(TextSettings, "update", stopped_at_the_third)
    code, _, err = run(capsys, "update", model, more, "-v", "--new-classes")
    assert code == 130 and counted == [[MORE[0][0]], [MORE[1][0]]]
    assert "Learning: 2 examples in " in err  # (0 before)
    assert re.search(r"Learning: 2 examples in [0-9.]+ s, stopped", err)  # (not the whole)
    assert model.read_bytes() == before  # nothing changed
