"""`nbayes train` and `tune` offer the library's text options: --preprocess, --stop-words,
--min-df, --max-df, --max-features; and `train` reads documents chunk by chunk."""

from __future__ import annotations

from pathlib import Path

import pytest

from nbayes import load
from nbayes.cli import main

from .conftest import assert_error, run, write_csv

DOCS = [
    ("I loved it, 9/10", "pos"),
    ("not good at all", "neg"),
    ("a great film, the best", "pos"),
    ("bad plot, not fun", "neg"),
    ("the best film of the year", "pos"),
    ("the worst, not worth it", "neg"),
]


@pytest.fixture
def reviews(tmp_path: Path) -> Path:
    path = tmp_path / "reviews.csv"
    path.write_text("text,label\n" + "".join(f'"{t}",{lab}\n' for t, lab in DOCS))
    return path


def _train(tmp_path: Path, data: Path, *flags: str) -> object:
    out = tmp_path / "m.nbayes"
    assert main(["train", str(data), "-o", str(out), "-q", "--force", *flags]) == 0
    return load(out)


def test_train_sets_the_text_options(tmp_path: Path, reviews: Path) -> None:
    stop = tmp_path / "stop.txt"
    stop.write_text("# my list\nthe\nit\n")
    model = _train(
        tmp_path, reviews, "--preprocess", "sentiment", "--stop-words", str(stop),
        "--min-df", "1", "--max-df", "0.9",
    )  # fmt: skip
    assert (model.preprocess, model.stop_words) == ("sentiment", ["the", "it"])  # type: ignore[attr-defined]
    assert (model.min_df, model.max_df) == (1, 0.9)  # type: ignore[attr-defined]
    terms = set(model.get_feature_names_out())  # type: ignore[attr-defined]
    assert "not_good" in terms and "9_out_of_10" in terms and "the" not in terms
    english = _train(tmp_path, reviews, "--stop-words", "english", "--min-df", "2")
    assert english.stop_words == "english"  # type: ignore[attr-defined]
    assert set(english.get_feature_names_out()) == {"best", "film", "good"} - {"good"} | {
        "best",
        "film",
    }  # type: ignore[attr-defined]
    nbsvm = _train(tmp_path, reviews, "--model", "nbsvm", "--preprocess", "none")
    assert nbsvm.preprocess is None  # type: ignore[attr-defined]


def test_train_keeps_the_max_features_terms_as_the_library(tmp_path: Path, reviews: Path) -> None:
    # the library's bounded vocabulary beside --hashing had no flag (a data engineer's trial)
    from nbayes import TextClassifier

    model = _train(tmp_path, reviews, "--max-features", "5")
    texts, labels = [t for t, _ in DOCS], [y for _, y in DOCS]
    library = TextClassifier(max_features=5).fit(texts, labels)
    assert model.get_feature_names_out().tolist() == library.get_feature_names_out().tolist()
    assert len(model.get_feature_names_out()) == 5 and model.max_features == 5
    assert model.predict_proba(texts).tolist() == library.predict_proba(texts).tolist()
    code = main(["train", str(reviews), "-o", str(tmp_path / "x.nbayes"), "--max-features", "0"])
    assert code == 2


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--preprocess", "stem"], "Unknown --preprocess 'stem': use one of html, negation"),
        (["--min-df", "-2"], "--min-df must be a document count >= 0 or a fraction"),
        (["--max-df", "1.5"], "--max-df takes a document count (2) or a fraction"),
        (["--stop-words", "nowhere.txt"], "--stop-words takes english, none or a file"),
        (["--model", "gaussian", "--min-df", "2"], "--min-df applies to text models only"),
    ],
)
def test_text_option_errors_name_the_flag(
    tmp_path: Path, reviews: Path, flags: list[str], message: str,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    code = main(["train", str(reviews), "-o", str(tmp_path / "m.nbayes"), *flags])
    assert code != 0
    assert message in capsys.readouterr().err


def test_tune_tries_recipes_and_max_df(reviews: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([
        "tune", str(reviews), "--folds", "2", "--preprocess", "none,sentiment",
        "--max-df", "0.5,1.0", "--stop-words", "english", "--json",
    ])  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert '"preprocess": "sentiment"' in out and '"max_df": 0.5' in out


def test_train_streams_the_documents(
    tmp_path: Path, reviews: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chunk reaches the model as it is read: never the whole file in one list."""
    import nbayes.io.readers as readers

    seen: list[int] = []
    original = readers.read_texts

    def small_chunks(*args: object, **kw: object) -> object:
        kw["chunk_size"] = 2
        for chunk in original(*args, **kw):  # type: ignore[arg-type]
            seen.append(len(chunk))
            yield chunk

    monkeypatch.setattr(readers, "read_texts", small_chunks)
    from nbayes.text import TextSettings  # train counts a TextClassifier's statistics with it

    fed: list[int] = []
    fit_chunks = TextSettings.fit_chunks

    def watched(self: TextSettings, chunks: object) -> TextSettings:
        def each() -> object:
            for texts, labels in chunks:  # type: ignore[attr-defined]
                fed.append(len(texts))
                assert sum(seen) == sum(fed)  # read no further ahead than one chunk
                yield texts, labels

        return fit_chunks(self, each())  # type: ignore[arg-type]

    monkeypatch.setattr(TextSettings, "fit_chunks", watched)
    model = _train(tmp_path, reviews)
    assert fed == [2, 2, 2]
    assert model.class_count_.sum() == len(DOCS)  # type: ignore[attr-defined]


def test_a_vocabulary_that_keeps_no_term_is_said_in_the_flags_words(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """scikit-learn's "max_df corresponds to < documents than min_df" named neither flag;
    a model left one document by `forget` (min_df 2) loads, says so in `info`, and its
    prediction says what to do (a fuzz's finding)."""
    two = write_csv(tmp_path / "two.csv", ["text", "label"],
                    [["free cash now", "spam"], ["free lunch today", "ham"]])  # fmt: skip
    one = write_csv(tmp_path / "one.csv", ["text", "label"], [["free lunch today", "ham"]])
    model = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", two, "--min-df", "5", "-o", model)
    assert_error(code, err, "--min-df is more documents than there are")
    assert run(capsys, "train", two, "--min-df", "2", "-o", model)[0] == 0
    assert run(capsys, "forget", model, one)[0] == 0
    code, out, _ = run(capsys, "info", model)
    assert code == 0 and "vocabulary: no term kept yet" in out
    code, _, err = run(capsys, "predict", model, "--text", "free")
    assert_error(code, err, "lower --min-df, or give more documents")
