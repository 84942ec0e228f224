"""The decision record: one scoring gives predict's labels, predict_proba's probabilities
and predict_top's classes, bit for bit; the CLI and the service score each input once."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nbayes import (
    NBSVM,
    BernoulliNB,
    GaussianNB,
    KernelNB,
    MixedNB,
    MultinomialNB,
    TextClassifier,
    UndecidableWarning,
    load_scorer,
    save,
)
from nbayes._template.decisions import decide, decisions_from_proba
from nbayes._template.posterior import PosteriorMixin
from nbayes.cli import main
from nbayes.serve.answers import predictions

DOCS = ["free money now", "win a free prize", "lunch at noon", "see you at lunch", "cheap pills"]
LABELS = ["spam", "spam", "ham", "ham", "spam"]
RNG = np.random.default_rng(0)
X_NUM = RNG.poisson(2.0, size=(40, 5)).astype(float)
Y_NUM = np.array(["a", "b", "c", "a"] * 10)


def _models() -> list[tuple[str, Any, Any]]:
    table = {"age": X_NUM[:, 0], "n": X_NUM[:, 1].astype(int), "kind": list("xyzw" * 10)}
    import pandas as pd

    frame = pd.DataFrame(table)
    return [
        ("multinomial", MultinomialNB().fit(X_NUM, Y_NUM), X_NUM),
        ("bernoulli", BernoulliNB(alpha=0.5).fit(X_NUM, Y_NUM), X_NUM),
        ("gaussian", GaussianNB().fit(X_NUM, Y_NUM), X_NUM),
        ("kernel", KernelNB().fit(X_NUM, Y_NUM), X_NUM),
        ("mixed", MixedNB().fit(frame, Y_NUM), frame),
        ("text", TextClassifier().fit(DOCS, LABELS), DOCS + ["unknown words only"]),
        ("text-bernoulli", TextClassifier(model="bernoulli").fit(DOCS, LABELS), DOCS),
        ("nbsvm", NBSVM().fit(DOCS * 4, LABELS * 4), DOCS),
    ]


@pytest.mark.parametrize("name", [m[0] for m in _models()])
def test_decisions_equal_predict_predict_proba_and_predict_top(name: str) -> None:
    _, model, X = next(m for m in _models() if m[0] == name)
    d = model.decide(X)
    np.testing.assert_array_equal(d.labels, model.predict(X))
    np.testing.assert_array_equal(d.proba, model.predict_proba(X))
    for n in (1, 2, 5):
        labels, proba = model.predict_top(X, n=n)
        top_labels, top_proba = d.top(n)
        np.testing.assert_array_equal(top_labels, labels)
        np.testing.assert_array_equal(top_proba, proba)
    assert not d.undecidable.any()
    assert len(d) == len(X)


def test_a_saved_text_models_scorer_decides_as_the_model(tmp_path: Path) -> None:
    model = TextClassifier(ngram_range=(1, 2)).fit(DOCS, LABELS)
    save(model, tmp_path / "m.nbayes")
    scorer = load_scorer(tmp_path / "m.nbayes")
    a, b = model.decide(DOCS), scorer.decide(DOCS)
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.proba, b.proba)


def test_undecidable_rows_are_marked_warned_and_decided_by_the_prior() -> None:
    model = MultinomialNB(alpha=0.0, force_alpha=True).fit(
        [[2, 0, 0], [0, 2, 0], [0, 2, 0]], ["x", "y", "y"]
    )
    X = [[1, 1, 0], [0, 1, 0]]  # row 0: a word each class never saw
    with pytest.warns(UndecidableWarning):
        d = model.decide(X)
    assert d.undecidable.tolist() == [True, False]
    assert d.labels.tolist() == ["y", "y"]  # the prior decides row 0
    assert np.isnan(d.proba[0]).all()
    labels, proba = d.top(2)
    assert labels[0].tolist() == ["y", "x"] and np.isnan(proba[0]).all()
    assert d.verdicts("y", 0.2, 0.8).tolist() == ["unsure", "y"]


def test_verdicts_refuse_bad_cutoffs_with_advice() -> None:
    d = decisions_from_proba(np.array([[0.9, 0.1]]), np.array(["ham", "spam"]))
    with pytest.raises(ValueError, match="0 <= low <= high <= 1"):
        d.verdicts("spam", 0.9, 0.1)
    with pytest.raises(ValueError, match="0 <= low <= high <= 1; got low=nan"):
        d.verdicts("spam", float("nan"), 0.9)
    with pytest.raises(TypeError, match="cutoff high must be a number in \\[0, 1\\]; got '0.9'"):
        d.verdicts("spam", 0.1, "0.9")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'junk' is not a class.*'ham', 'spam'"):
        d.verdicts("junk", 0.1, 0.9)
    three = decisions_from_proba(np.full((1, 3), 1 / 3), np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="two classes; this model has 3"):
        three.verdicts(1, 0.1, 0.9)


def test_decide_asks_a_foreign_model_for_probabilities_and_labels() -> None:
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

    sk = SkMultinomialNB().fit(X_NUM, Y_NUM)
    d = decide(sk, X_NUM)
    np.testing.assert_array_equal(d.labels, sk.predict(X_NUM))
    np.testing.assert_array_equal(d.proba, sk.predict_proba(X_NUM))


@pytest.fixture
def scorings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many batches the Naive Bayes models score (each call of the template's
    ``_joint``, what every decision starts from)."""
    calls: list[int] = []
    original = PosteriorMixin._joint

    def counted(self: Any, X: Any) -> np.ndarray:
        calls.append(1)
        return original(self, X)

    monkeypatch.setattr(PosteriorMixin, "_joint", counted)
    return calls


@pytest.mark.parametrize("flags", [["--proba"], ["--top", "2"], [], ["--format", "jsonl"]])
def test_cli_predict_scores_each_input_once(
    tmp_path: Path, scorings: list[int], flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    save(TextClassifier().fit(DOCS, LABELS), tmp_path / "m.nbayes")
    data = tmp_path / "docs.csv"
    data.write_text("text\nfree money\nlunch\n")
    assert main(["predict", str(tmp_path / "m.nbayes"), str(data), *flags]) == 0
    assert len(scorings) == 1
    assert capsys.readouterr().out


@pytest.mark.parametrize("top", [None, 2])
def test_service_answers_score_each_batch_once(scorings: list[int], top: int | None) -> None:
    model = TextClassifier().fit(DOCS, LABELS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        answers = predictions(model, ["free money", "lunch"], top, text=True)
    assert len(scorings) == 1
    assert [a["label"] for a in answers] == model.predict(["free money", "lunch"]).tolist()


def test_the_undecidable_warning_s_advice_fits_the_model() -> None:
    """Its advice was smoothing, always: with alpha=1 already, BernoulliNB(binarize=None)
    on counts (P(x_j = 1 | y) above 1) got it too (a trial's finding)."""
    X = np.array([[3, 0], [2, 1], [0, 3], [1, 2]])
    counted = BernoulliNB(binarize=None).fit(X, [0, 0, 1, 1])
    with pytest.warns(UndecidableWarning) as seen:
        counted.predict_proba(np.array([[0, 0]]))
    text = str(seen[0].message)
    assert "BernoulliNB(binarize=None) reads features as 0 or 1, but feature 0 is present 5" in text
    assert "class 0, which has 2 rows" in text and "binarize=0.0" in text
    assert "smoothing" not in text
    # unsmoothed: the advice is smoothing; smoothed, nothing more to advise
    with pytest.warns(UndecidableWarning, match=r"Use smoothing \(alpha > 0\)"):
        MultinomialNB(alpha=0).fit([[1, 0], [0, 1]], [0, 1]).predict([[1, 1]])
    binary = BernoulliNB(binarize=None, alpha=0).fit(np.array([[1, 0], [0, 1]]), [0, 1])
    with pytest.warns(UndecidableWarning, match=r"Use smoothing \(alpha > 0\)"):
        binary.predict([[1, 1]])


def test_a_gaussian_model_s_advice_is_var_smoothing_at_the_user_s_line() -> None:
    """GaussianNB(var_smoothing=0) of one value per class was told "Use smoothing (alpha >
    0)", which it has no parameter for, at a line of nbayes/_template/array_api.py (a
    student's trial): its own advice, at the caller's line."""
    g = GaussianNB(var_smoothing=0).fit([[2.0], [5.0]], ["+", "-"])
    with pytest.warns(UndecidableWarning) as seen:
        g.predict_proba([[3.0]])
    text = str(seen[0].message)
    assert "Use var_smoothing > 0 (the default, 1e-9)" in text and "alpha" not in text
    assert seen[0].filename == __file__
    with pytest.warns(UndecidableWarning) as seen:
        MultinomialNB(alpha=0).fit([[1, 0], [0, 1]], [0, 1]).predict([[1, 1]])
    assert seen[0].filename == __file__
