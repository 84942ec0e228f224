"""Teaching views: the course notes' tables and derivations, shown as the notes print them
(text, Markdown, LaTeX, HTML; IPython's display protocol), with the notes' numbers.

The notes' examples are written inline (seeds 000 and 001 of ../shared/seeds).
"""

from __future__ import annotations

import re
import subprocess
import sys
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
    TextClassifier,
)
from nbayes.exceptions import UndecidableWarning
from nbayes.mixed import MixedNB

# Seed 000: the match reviews, a binary document-term matrix
VOCAB = ["keeper", "was", "sharp", "and", "composed", "match", "brilliant", "not"]
REVIEWS = [
    ("keeper was sharp and composed", "positive"),
    ("match was composed", "positive"),
    ("brilliant match", "positive"),
    ("match was not sharp", "negative"),
    ("match was not composed", "negative"),
]
# the notes' table of maximum-likelihood estimates: word -> (positive, negative)
NOTES_MLE = {
    "keeper": ("1/3", "0/2"),
    "was": ("2/3", "2/2"),
    "sharp": ("1/3", "1/2"),
    "and": ("1/3", "0/2"),
    "composed": ("2/3", "1/2"),
    "match": ("2/3", "2/2"),
    "brilliant": ("1/3", "0/2"),
    "not": ("0/3", "2/2"),
}

# Seed 001: spam and ham
SPAM_VOCAB = ["free", "win", "money", "meeting", "today", "lunch"]
EMAILS = [
    ("free win", "spam"),
    ("free money", "spam"),
    ("win money", "spam"),
    ("meeting today", "ham"),
    ("free today", "ham"),
    ("lunch today", "ham"),
]


def bag(text: str) -> list[int]:
    words = set(text.split())
    return [int(w in words) for w in VOCAB]


def counts(text: str) -> list[int]:
    words = text.split()
    return [words.count(w) for w in SPAM_VOCAB]


def reviews(alpha: float) -> BernoulliNB:
    X = np.array([bag(t) for t, _ in REVIEWS])
    return BernoulliNB(alpha=alpha).fit(X, [c for _, c in REVIEWS])


@pytest.fixture
def spam() -> MultinomialNB:
    X = np.array([counts(t) for t, _ in EMAILS])
    return MultinomialNB(alpha=1).fit(X, [c for _, c in EMAILS])


def fractions_of(line: str) -> list[str]:
    return [f"{a}/{b}" for a, b in re.findall(r"\\frac\{(\d+)\}\{(\d+)\}", line)]


# ------------------------------------------------------------- parameter tables
def test_the_mle_table_is_the_notes_table() -> None:
    table = reviews(0).parameter_table(feature_names=VOCAB)
    assert str(table.prior("positive")) == "3/5"
    assert str(table.prior("negative")) == "2/5"
    for word, (pos, neg) in NOTES_MLE.items():
        assert str(table.get(word, "positive")) == pos
        assert str(table.get(word, "negative")) == neg
        assert table.get(word, "positive").value == Fraction(pos)
    text = str(table).splitlines()
    assert text[0].split() == ["negative", "positive"]
    assert text[1].split() == ["P(y)", "2/5", "3/5"]
    assert text[2] == "P(x_j = 1 | y)"
    assert [line.split() for line in text[3:]] == [
        [w, neg, pos] for w, (pos, neg) in NOTES_MLE.items()
    ]
    md = table.to_markdown()
    assert "| keeper | 0/2 | 1/3 |" in md and "| not | 2/2 | 0/3 |" in md
    assert r"| **P(x_j = 1 \| y)** |" in md
    tex = table.to_latex()
    assert r"\text{keeper} & \frac{0}{2} & \frac{1}{3} \\" in tex
    assert tex.startswith("$$") and r"P(y) & \frac{2}{5} & \frac{3}{5}" in tex
    html = table._repr_html_()
    assert html.startswith("<table") and ">0</span>" in html and ">2</span>" in html
    assert table._repr_latex_() == tex and table._repr_markdown_() == md


def test_laplace_writes_the_pseudo_counts_in() -> None:
    table = reviews(1).parameter_table(feature_names=VOCAB)
    # (count + alpha) / (N_c + 2 alpha): "not" never in a positive review (0 of 3)
    assert str(table.get("not", "positive")) == "(0 + 1)/(3 + 2·1)"
    assert table.get("not", "positive").value == Fraction(1, 5)
    assert "(2 + 1)/(2 + 2·1) = 3/4" in str(table)  # "was" in both negative reviews
    assert r"\frac{0 + 1}{3 + 2 \cdot 1} = \frac{1}{5}" in table.to_latex()


def test_seed004_bernoulli_estimate_in_the_table() -> None:
    # (1 + DocNum(w, c)) / (2 + DocNum(c))
    X = np.array([[1, 0], [1, 1], [0, 0], [0, 1], [0, 1]])
    table = BernoulliNB(alpha=1).fit(X, ["a", "a", "a", "b", "b"]).parameter_table()
    assert [table.get(f, "a").value for f in ("x0", "x1")] == [Fraction(3, 5), Fraction(2, 5)]
    assert [table.get(f, "b").value for f in ("x0", "x1")] == [Fraction(1, 4), Fraction(3, 4)]


def test_the_spam_table_and_decimals(spam: MultinomialNB) -> None:
    table = spam.parameter_table(feature_names=SPAM_VOCAB)
    assert table.get("free", "spam").value == Fraction(1, 4)
    assert table.get("money", "spam").value == Fraction(1, 4)
    assert table.get("free", "ham").value == Fraction(1, 6)
    assert table.get("money", "ham").value == Fraction(1, 12)
    assert str(table.get("money", "ham")) == "(0 + 1)/(6 + 6·1)"
    decimals = spam.parameter_table(exact=False, feature_names=SPAM_VOCAB)
    assert decimals.get("money", "ham") == pytest.approx(1 / 12)
    assert "0.08333" in str(decimals) and "/" not in str(decimals).split("\n", 2)[2]


def test_to_pandas_has_every_value(spam: MultinomialNB) -> None:
    df = spam.parameter_table(feature_names=SPAM_VOCAB).to_pandas()
    assert list(df.columns) == ["ham", "spam"]
    assert df.loc[("P(y)", ""), "spam"] == Fraction(1, 2)
    assert df.loc[("P(w | y)", "free"), "spam"] == Fraction(1, 4)
    floats = spam.parameter_table(exact=False).to_pandas()
    np.testing.assert_allclose(
        floats.loc["P(w | y)"].to_numpy().T, np.exp(spam.feature_log_prob_), rtol=1e-12
    )


def test_the_gaussian_example_means_and_variances() -> None:
    # two points at mean +- 1: N(3 | 2, 1) = 0.242, N(3 | 5, 1) = 0.054, posterior 0.818
    X = np.array([[1.0], [3.0], [4.0], [6.0]])
    model = GaussianNB(var_smoothing=0).fit(X, ["+", "+", "-", "-"])
    table = model.parameter_table(feature_names=["score"])
    assert table.get("score", "+", block=1) == 2.0 and table.get("score", "-", block=1) == 5.0
    assert table.get("score", "+", block=2) == 1.0 and table.get("score", "-", block=2) == 1.0
    assert str(table.prior("+")) == "2/4"
    lines = str(table).splitlines()
    assert lines[2] == "mean μ" and lines[3].split() == ["score", "2", "5"]
    assert lines[4] == "variance σ²" and lines[5].split() == ["score", "1", "1"]
    html = model.explain([3.0])._repr_html_()
    assert "Prediction: +</b> (P = 0.818)" in html


@pytest.mark.parametrize(
    "make",
    [
        lambda: BernoulliNB(alpha=0.5),
        lambda: MultinomialNB(alpha=np.linspace(0.5, 2, 6), force_alpha=True),
        lambda: ComplementNB(alpha=1),
        lambda: PoissonNB(alpha=1, beta=2),
        lambda: CategoricalNB(alpha=1),
        lambda: BernoulliNB(alpha=1, class_prior=[0.25, 0.75]),
        lambda: MultinomialNB(fit_prior=False),
    ],
)
def test_every_exact_cell_equals_the_fitted_parameter(make: object) -> None:
    """The table shows the model's own estimates: each unreduced fraction's value is the
    float the model predicts with, and the decimals table holds the same."""
    X = np.array([counts(t) for t, _ in EMAILS])
    model = make().fit(X, [c for _, c in EMAILS])  # type: ignore[operator]
    exact, decimals = model.parameter_table(), model.parameter_table(exact=False)
    fitted = np.exp(model.class_log_prior_)
    for b, (block, dblock) in enumerate(zip(exact.blocks, decimals.blocks, strict=True)):
        for c in range(len(exact.classes)):
            for r in range(block.n_rows):
                q = exact.cell(block, c, r)
                assert float(q.value) == pytest.approx(decimals.cell(dblock, c, r), rel=1e-12)
                if b == 0:
                    assert float(q.value) == pytest.approx(fitted[c], rel=1e-12)


def test_categorical_rows_are_categories() -> None:
    X = np.array([[0, 1], [1, 1], [2, 0], [0, 0]])
    table = CategoricalNB(alpha=1).fit(X, ["a", "a", "b", "b"]).parameter_table()
    assert str(table.get("x0 = 2", "b")) == "(1 + 1)/(2 + 3·1)"
    assert table.get("x0 = 2", "b").value == Fraction(2, 5)
    assert str(table.get("x1 = 0", "a")) == "(0 + 1)/(2 + 2·1)"


def test_head_and_select_give_a_table_of_some_rows() -> None:
    X = np.array([[0, 1], [1, 1], [2, 0], [0, 0]])
    table = CategoricalNB(alpha=1).fit(X, ["a", "a", "b", "b"]).parameter_table()

    def rows(t: Any) -> list[str]:
        return [f for _, f in t.to_pandas().index][1:]  # (the prior first)

    assert rows(table) == ["x0 = 0", "x0 = 1", "x0 = 2", "x1 = 0", "x1 = 1"]
    assert rows(table.head(2)) == ["x0 = 0", "x0 = 1"] and rows(table.head(0)) == []
    # a feature's every row, or one by its name; in the order asked
    assert rows(table.select(["x1", "x0 = 2"])) == ["x1 = 0", "x1 = 1", "x0 = 2"]
    assert rows(table.select(["x1"]).head(1)) == ["x1 = 0"]
    assert rows(table.head(1).select(["x0"])) == ["x0 = 0"]  # of the rows shown
    some = table.select(["x1"])
    assert str(some.get("x1 = 0", "a")) == str(table.get("x1 = 0", "a"))
    assert str(some.prior("a")) == "2/4"
    with pytest.raises(KeyError, match="x0 = 2"):
        some.get("x0 = 2", "a")
    with pytest.raises(KeyError, match="'x9'"):
        table.select(["x0", "x9"])
    assert "2 of 5 rows" in repr(table.head(2)) and "rows" not in repr(table)
    text = str(table.select(["x1"])).splitlines()
    assert text[:3] == str(table).splitlines()[:3] and len(text) == 5
    # the Gaussian blocks: a feature's mean and variance
    gaussian = GaussianNB(var_smoothing=0).fit(np.array([[1.0, 0], [3, 1], [4, 2], [6, 4]]),
                                               ["+", "+", "-", "-"]).parameter_table()  # fmt: skip
    lines = str(gaussian.select(["x1"])).splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["P(y)", "mean", "x1", "variance", "x1"]
    # a block none of whose rows is chosen is left out, its name too
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"height": [1.0, 3.0, 4.0, 6.0], "city": ["a", "b", "a", "b"]})
    mixed = MixedNB(var_smoothing=0).fit(df, ["+", "+", "-", "-"]).parameter_table()
    lines = mixed.select(["city"]).to_markdown().splitlines()
    assert [line.split(" | ")[0] for line in lines[2:]] == [
        "| P(y)",
        "| **P(x_j = k \\| y)**",
        "| city = a",
        "| city = b",
    ]
    assert len(list(mixed.head(0).lines())) == 2  # the classes and the prior
    with pytest.raises(ValueError, match="format"):
        list(gaussian.lines("html"))


def test_a_text_model_names_its_rows_by_its_vocabulary() -> None:
    model = TextClassifier(alpha=1).fit([t for t, _ in EMAILS], [c for _, c in EMAILS])
    table = model.parameter_table()
    assert table.feature_names == sorted(SPAM_VOCAB)
    assert table.get("free", "spam").value == Fraction(1, 4)
    assert table.get("money", "ham").value == Fraction(1, 12)


def test_feature_names_must_be_one_per_feature(spam: MultinomialNB) -> None:
    with pytest.raises(ValueError, match="feature_names has 2 names for 6 features"):
        spam.parameter_table(feature_names=["a", "b"])
    with pytest.raises(ValueError, match="whole-number counts"):
        MultinomialNB().fit([[1, 2], [3, 1]], [0, 1], sample_weight=[0.5, 1]).parameter_table()
    # explain took too few names, and its display raised IndexError twice; one str was
    # taken letter by letter (factors labelled "k", "e", "e", ...): a student's trial
    x = counts("free money")
    with pytest.raises(ValueError, match="feature_names has 2 names for 6 features"):
        spam.explain(x, exact=True, feature_names=["a", "b"])
    with pytest.raises(TypeError, match=r"feature_names is one str \('free win money"):
        spam.explain(x, exact=True, feature_names="free win money meeting today lunch")
    with pytest.raises(TypeError, match="give a list of names"):
        spam.parameter_table(feature_names="free win money meeting today lunch")


def test_a_model_without_parameter_table_says_so() -> None:
    from nbayes import KernelNB

    model = KernelNB().fit(np.array([[1.5, 2], [0.5, 7], [2.5, 3]]), ["a", "b", "a"])
    with pytest.raises(ValueError, match="densities have no parameter table"):
        model.parameter_table()


def test_a_mixed_models_table_is_its_columns_and_predicts_as_it_does() -> None:
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({
        "height": [1.0, 3.0, 4.0, 6.0, 5.0],
        "city": ["a", "b", "a", "b", "a"],
        "owner": [True, False, True, True, False],
    })  # fmt: skip
    model = MixedNB(var_smoothing=0).fit(df, ["+", "+", "-", "-", "-"])
    table = model.parameter_table()
    assert str(table.prior("+")) == "2/5"
    assert str(table.get("city = a", "-")) == "(2 + 1)/(3 + 2·1)"
    assert str(table.get("owner", "+")) == "(1 + 1)/(2 + 2·1)"
    assert table.get("height", "+") == 2.0 and table.get("height", "-") == 5.0
    # the posterior of a row, from the table's numbers alone, is the model's
    row = {"height": 3.5, "city": "b", "owner": False}
    joint = []
    for c in ("+", "-"):
        mean, var = table.get("height", c, block=1), table.get("height", c, block=2)
        density = np.exp(-((3.5 - mean) ** 2) / (2 * var)) / np.sqrt(2 * np.pi * var)
        joint.append(
            float(table.prior(c).value)
            * float(table.get("city = b", c).value)
            * (1 - float(table.get("owner", c).value))
            * density
        )
    expected = np.array(joint) / sum(joint)
    np.testing.assert_allclose(model.predict_proba(pd.DataFrame([row]))[0], expected, rtol=1e-9)


# ------------------------------------------------------------------ derivations
def test_match_was_sharp_in_latex_and_html() -> None:
    e = reviews(0).explain(bag("match was sharp"), exact=True, feature_names=VOCAB)
    tex = e._repr_latex_()
    assert tex is not None and tex.startswith("$$\n\\begin{aligned}")
    neg, pos = [line for line in tex.splitlines() if r"\mathbf{x} \mid" in line]
    assert fractions_of(pos) == [
        "3/5", "2/3", "2/3", "1/3", "2/3", "1/3", "2/3", "2/3", "3/3", "32/3645",
    ]  # fmt: skip
    assert pos.endswith(r"\approx 0.00878 \\")
    assert fractions_of(neg) == ["2/5", "2/2", "2/2", "1/2", "2/2", "1/2", "2/2", "2/2", "0/2"]
    assert neg.endswith("= 0 \\\\")
    assert r"\text{Decision: } \text{positive}" in tex
    # the absent keeper's factor is the notes' (1 - θ_keeper): named so, not as "keeper"
    # (read as its presence: 2/2 under "keeper", where the table says keeper = 0/2)
    assert r"\underset{\scriptscriptstyle \text{keeper = 0}}{\frac{2}{3}}" in pos
    assert r"\underset{\scriptscriptstyle \text{was}}{\frac{2}{3}}" in pos
    html = e._repr_html_()
    assert "≈ 0.00878" in html and "Decision: positive" in html
    assert "cannot decide" not in html
    assert html.count(">keeper<br>= 0</span>") == 2 and html.count(">match</span>") == 2
    floats = reviews(1).explain(bag("match was sharp"), feature_names=VOCAB)
    rows = re.findall(r'<tr><td style="[^"]*">([^<]*)</td>', floats._repr_html_())
    assert "not = 0" in rows and "sharp" in rows and "not" not in rows, rows
    assert "| not = 0 |" in floats.to_markdown()
    md = e.to_markdown()
    assert md.startswith("**Decision: positive**") and tex in md


def test_not_sharp_match_cannot_decide_in_every_view() -> None:
    e = reviews(0).explain(bag("not sharp match"), exact=True, feature_names=VOCAB)
    tex = e.to_latex()
    neg, pos = [line for line in tex.splitlines() if r"\mathbf{x} \mid" in line]
    assert fractions_of(pos) == ["3/5", "2/3", "1/3", "1/3", "2/3", "1/3", "2/3", "2/3", "0/3"]
    assert fractions_of(neg) == ["2/5", "2/2", "0/2", "1/2", "2/2", "1/2", "2/2", "2/2", "2/2"]
    assert "the classifier cannot decide" in tex and "Decision" not in tex
    assert "the classifier cannot decide" in e._repr_html_()
    assert e.to_markdown().startswith("**Cannot decide.**")
    # with Laplace smoothing it decides
    smoothed = reviews(1).explain(bag("not sharp match"), exact=True, feature_names=VOCAB)
    assert "Decision: " in smoothed.to_latex() and "cannot decide" not in smoothed.to_latex()


def test_a_row_the_classifier_cannot_decide_is_shown_for_the_class_predict_returns() -> None:
    # the coloured words argued "for negative" (the first class) under "cannot decide",
    # and predict() returned positive (the highest prior): a teacher's trial
    docs = [t for t, _ in REVIEWS]
    model = TextClassifier(model="bernoulli", alpha=0).fit(docs, [c for _, c in REVIEWS])
    with pytest.warns(UndecidableWarning):
        assert model.predict(["not sharp match"]).tolist() == ["positive"]
    said = "predict() falls back to the class of the highest prior: "
    for exact in (True, False):
        e = model.explain("not sharp match", exact=exact)
        assert e.prediction is None and e.fallback == "positive"
        html = e._repr_html_()
        assert said in html and "for positive" in html and "for negative" not in html
    e = model.explain("not sharp match", exact=True)
    assert f"{said}positive" in str(e) and e.to_markdown().startswith(f"**Cannot decide.** {said}")
    assert r"\text{predict() falls back" in e.to_latex()
    assert model.explain("match was sharp", exact=True).fallback == "positive"


def test_a_row_of_a_data_frame_is_one_row() -> None:
    # explain(df.iloc[0]) said "explain() takes one row; got 8 rows" (its 8 features)
    import warnings

    import pandas as pd

    df = pd.DataFrame([bag(t) for t, _ in REVIEWS], columns=VOCAB)
    model = BernoulliNB(alpha=1).fit(df, [c for _, c in REVIEWS])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no "X does not have valid feature names")
        row = model.explain(df.iloc[3], exact=True)
    assert str(row) == str(model.explain(df.iloc[[3]], exact=True))
    assert row.feature_names == VOCAB
    plain = BernoulliNB(alpha=1).fit(df.to_numpy(), [c for _, c in REVIEWS])
    assert plain.explain(df.iloc[3]).feature_names == [f"x{j}" for j in range(8)]
    with pytest.raises(ValueError, match="one row; got 2 rows"):
        model.explain(df.iloc[:2])


def test_fractions_of_floats_and_counts_that_are_not_whole() -> None:
    model = BernoulliNB(alpha=0, class_prior=[1 / 3, 2 / 3]).fit(
        [[1, 1], [0, 1], [1, 0]], list("abb")
    )
    assert (
        str(model.explain([1, 1], exact=True)).splitlines()[0]
        == "P(a) · P(x | a) = 1/3 · 1/1 · 1/1 = 1/3 ≈ 0.333"  # (the table's 1/1, unreduced)
    )
    tfidf = MultinomialNB().fit([[0.5, 1], [1, 0]], ["a", "b"])  # no sample_weight
    for view in (lambda: tfidf.explain([1, 1], exact=True), tfidf.parameter_table):
        with pytest.raises(ValueError, match=r"counts are not whole numbers \(fractional feature"):
            view()


def test_a_class_prior_that_does_not_sum_to_one_is_warned_of() -> None:
    with pytest.warns(UserWarning, match=r"class_prior sums to 0.5, not 1: .*P\(y\)"):
        model = BernoulliNB(class_prior=[0.2, 0.3]).fit([[1, 1], [0, 1]], ["a", "b"])
    assert np.allclose(model.predict_proba([[1, 1]]).sum(), 1)  # (used as given)
    BernoulliNB(class_prior=[0.1] * 10).fit(np.eye(10), range(10))  # 0.9999999999999999: no


def test_text_tables_line_up_wide_characters() -> None:
    from nbayes.display import text_width

    docs = ["très bon café", "naïve bayes ça marche", "mauvais goût", "ünïcödé 日本語 テスト"]
    lines = str(TextClassifier().fit(docs, ["pos", "pos", "neg", "neg"]).parameter_table())
    rows = [line for line in lines.splitlines() if line.split()[0] in ("テスト", "日本語", "goût")]
    starts = {text_width(line[: line.index("(")]) for line in rows}
    assert len(rows) == 3 and len(starts) == 1, rows


def test_the_spam_derivation_in_latex(spam: MultinomialNB) -> None:
    tex = spam.explain(counts("free money"), exact=True, feature_names=SPAM_VOCAB).to_latex()
    assert r"= \frac{1}{32} = 0.03125 \\" in tex
    assert r"= \frac{1}{144} \approx 0.00694 \\" in tex
    assert r"P(\text{spam} \mid \mathbf{x}) &= \frac{9}{11} \approx 0.818" in tex


def test_a_floating_point_explanation_has_bars_and_no_latex(spam: MultinomialNB) -> None:
    e = spam.explain(counts("free money"), feature_names=SPAM_VOCAB)
    assert e._repr_latex_() is None
    html = e._repr_html_()
    assert "Prediction: spam</b> (P = 0.818)" in html
    assert "evidence for spam" in html and "rgb(22, 128, 61)" in html  # bars for spam
    with pytest.raises(ValueError, match="not exact"):
        e.to_latex()
    md = e.to_markdown()
    assert md.startswith("**Prediction: spam** (P = 0.818)") and "| for spam | money |" in md


def test_a_documents_words_are_coloured_as_the_service_page_does() -> None:
    model = TextClassifier(alpha=1).fit([t for t, _ in EMAILS], [c for _, c in EMAILS])
    html = model.explain("FREE money, xyzzy!")._repr_html_()
    # for spam (green), unknown (grey), the page's colours and legend
    assert re.search(r'background:rgba\(22, 128, 61,0\.\d+\);[^>]*title="free: \+', html)
    assert re.search(r'background:rgba\(22, 128, 61,0\.\d+\);[^>]*title="money: \+', html)
    assert '<span style="color:#9aa3ad" title="unknown to the model">xyzzy</span>' in html
    assert html.count("FREE") == 1 and "!</div>" in html  # the text as written


def test_a_long_documents_words_are_bounded() -> None:
    model = TextClassifier(alpha=1).fit([t for t, _ in EMAILS], [c for _, c in EMAILS])
    html = model.explain(" ".join(["free", "lunch", "xyzzy"] * 1000), exact=True).to_html()
    assert html.count('title="free: ') == 667 and "(1,000 more words)" in html
    assert "Decision: " in html


def test_explanations_read_well_as_plain_text(spam: MultinomialNB) -> None:
    e = spam.explain(counts("free money"), exact=True)
    assert repr(e) == (
        "<Explanation (exact) of 6 features, classes ['ham', 'spam']: decision='spam'>"
    )
    printed: list[str] = []

    class Printer:
        def text(self, s: str) -> None:
            printed.append(s)

    e._repr_pretty_(Printer(), False)
    assert printed == [str(e)] and "P(spam | x) = 9/11 ≈ 0.818" in printed[0]


def test_a_long_fraction_is_shortened_with_its_value_and_kept_exact() -> None:
    """Over 40 digits a fraction shows as its value and size; the exact one stays."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, (40, 30))
    model = MultinomialNB(alpha=1).fit(X, rng.integers(0, 2, 40))
    e = model.explain(np.ones(30, dtype=int), exact=True)
    joint = e.joint[0]
    assert 40 < len(str(joint.denominator)) < 200
    assert "exactly a fraction of" in str(e)
    tex = e.to_latex()
    assert r"\times 10^{-" in tex and "exactly a fraction of" in tex
    assert str(joint.denominator) not in tex and str(joint.denominator) not in e.to_html()
    # 40 digits or fewer: written out
    small = reviews(0).explain(bag("match was sharp"), exact=True)
    assert "32/3645" in str(small)


# --------------------------------------------------------------- small results
def test_predict_top_still_unpacks_and_shows_a_table(spam: MultinomialNB) -> None:
    X = np.array([counts("free money"), counts("lunch today")])
    top = spam.predict_top(X, n=2)
    labels, proba = top
    assert isinstance(top, tuple) and top.labels is labels and top.probabilities is proba
    assert labels.tolist() == [["spam", "ham"], ["ham", "spam"]]
    assert round(float(proba[0, 0]), 3) == 0.818
    assert str(top).splitlines()[1].split() == ["0", "spam", "(0.818)", "ham", "(0.182)"]
    assert "<table" in top._repr_html_() and "spam" in top._repr_html_()
    # each rank's label, bar and number in cells of their own (one right-aligned cell put
    # the bars of "spam" and "ham" at different places): a row's cells, label left-aligned
    html = top._repr_html_()
    assert html.count('colspan="3"') == 2
    row = html.split("<tr>")[2]
    assert row.count("<td") == 1 + 3 * 2
    assert re.search(r'text-align:left">spam</td>', row) and ">0.818</td>" in row


def test_most_informative_features_take_names_and_give_plain_values() -> None:
    model = reviews(1)
    ranked = model.most_informative_features(3, feature_names=VOCAB)
    assert all(type(f) is str and type(c) is str and type(s) is float for f, c, s in ranked)
    assert {f for f, _, _ in ranked} <= set(VOCAB)
    assert ranked[0][0] == "not" and ranked[0][1] == "negative"
    assert "np.str_" not in repr(ranked)
    assert "<table" in ranked._repr_html_() and ">not</td>" in ranked._repr_html_()
    assert str(ranked).splitlines()[0].split() == ["feature", "class", "score"]
    default = model.most_informative_features(3)
    assert [f for f, _, _ in default][0] == "x7"
    with pytest.raises(ValueError, match="feature_names has 1 names for 8 features"):
        model.most_informative_features(3, feature_names=["a"])


def test_mixed_summary_is_the_text_and_a_table() -> None:
    model = MixedNB().fit(np.array([[1.5, 2], [0.5, 7], [2.5, np.nan]]), ["a", "b", "a"])
    s = model.summary()
    assert isinstance(s, str)
    assert s.splitlines()[0] == "MixedNB over 2 columns, classes ['a', 'b'] (rows 2, 1)"
    html = s._repr_html_()
    assert "<table" in html and "<td" in html and "float values" in html
    assert "\\n" not in html


def test_displays_import_nothing_heavy() -> None:
    """Showing results imports nothing that fitting and predicting did not (pandas only in
    ParameterTable.to_pandas)."""
    code = """
import sys
import numpy as np
from nbayes import MultinomialNB, TextClassifier
X = np.array([[2, 0, 1], [0, 1, 1], [1, 1, 0]])
m = MultinomialNB().fit(X, ["a", "b", "b"])
text = TextClassifier().fit(["free money", "lunch today"], ["spam", "ham"])
m.predict_proba(X), text.predict_proba(["free lunch"])
before = set(sys.modules)
t = m.parameter_table()
shown = [t._repr_html_(), t._repr_latex_(), t._repr_markdown_(), str(t)]
e = m.explain(X[0], exact=True)
shown += [e._repr_html_(), e._repr_latex_(), e.to_markdown(), repr(e)]
shown += [m.explain(X[0])._repr_html_(), m.predict_top(X)._repr_html_()]
shown += [m.most_informative_features()._repr_html_()]
shown += [text.explain("free lunch")._repr_html_(), text.parameter_table()._repr_html_()]
new = {m.split(".")[0] for m in set(sys.modules) - before}
print(sorted(new & {"pandas", "IPython", "scipy", "matplotlib", "sklearn"}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
    # fitting imports pandas (through scikit-learn): the display modules themselves do not
    code = """
import sys
import nbayes.display, nbayes.explain
print(sorted(m for m in ("pandas", "IPython", "scipy", "sklearn") if m in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout


def test_a_bernoulli_explanation_shows_the_words_the_document_lacks() -> None:
    # "match was sharp" is positive by the absent "not" (+inf), its three words all
    # against positive: the coloured words alone read "every word against, yet positive";
    # and the +inf row's bar was drawn empty (width 0 %), the strongest evidence as none
    from nbayes import TextClassifier

    docs = [
        "keeper was sharp and composed", "match was composed", "brilliant match",
        "match was not sharp", "match was not composed",
    ]  # fmt: skip
    t = TextClassifier(model="bernoulli", alpha=0).fit(docs, ["positive"] * 3 + ["negative"] * 2)
    html = t.explain("match was sharp", exact=True)._repr_html_()
    lacks = html.split("Words the document lacks weigh too, for positive: ")[1]
    assert re.match(r"<span[^>]*>not</span> \+inf", lacks)
    html = t.explain("not sharp match")._repr_html_()
    row = html.split(">not</td>")[1].split("</tr>")[0]
    assert "width:100.0%" in row and "repeating-linear-gradient" in row
    multinomial = TextClassifier(alpha=1).fit(docs, ["positive"] * 3 + ["negative"] * 2)
    assert "lacks" not in multinomial.explain("match was sharp")._repr_html_()


def test_a_repeated_words_factor_is_one_box_over_its_label() -> None:
    # (2/12)^2 under "free": "(", the fraction, ")" and the power were stacked one under
    # the other in the notebook, as children of the labelled factor's column
    model = TextClassifier(alpha=1).fit([t for t, _ in EMAILS], [c for _, c in EMAILS])
    html = model.explain("free free money", exact=True)._repr_html_()
    labelled = r'<span style="display:inline-flex;flex-direction:column;[^"]*">'
    assert not re.search(labelled + r"\(", html)  # no bare "(" stacked in the column
    boxed = re.findall(labelled + r'<span style="display:inline-flex;align-items:center;'
                       r'white-space:nowrap">\(<span', html)  # fmt: skip
    assert len(boxed) == 2  # free's factor, once per class
    assert html.count(">2</sup></span>") == 2


def test_an_exact_tie_and_a_long_posterior_say_so() -> None:
    # "hello world" (no word the model knows): P = 1/2 and 1/2, and the views said a bare
    # "Decision: ham"; a 1,200-word text's P(spam | x) was "= 1", which it is not (a
    # student's trial)
    model = TextClassifier(alpha=1).fit([t for t, _ in EMAILS], [c for _, c in EMAILS])
    tie = model.explain("hello world", exact=True)
    assert tie.tied() == ["ham", "spam"]
    note = "(a tie with spam: equal probabilities, decided by the order of the classes"
    assert f"Decision: ham {note}" in str(tie)
    assert note in tie._repr_html_() and note in tie.to_markdown()
    assert r"\text{Decision: } \text{ham}\text{ (a tie with spam" in tie.to_latex()
    assert model.explain("free money", exact=True).tied() == []
    assert "tie" not in str(model.explain("free money", exact=True))
    long = str(model.explain(" ".join(["free win money"] * 400), exact=True))
    assert "P(spam | x) ≈ 1 (exactly a fraction of 573 / 573 digits)" in long
    assert "≈ 1.240e-1175 (exactly a fraction of 1 / 1,175 digits)" in long
    assert "P(ham | x) = " not in long and "P(spam | x) = " not in long


def test_a_gaussian_explanation_shows_the_notes_densities() -> None:
    # week 8's example 2: N(3 | 2, 1) = 0.242 and N(3 | 5, 1) = 0.054, then 0.818; no view
    # showed the densities, and exact=True and derivation() sent the student to each
    # other (a student's trial)
    g = GaussianNB().fit([[1], [3], [4], [6]], ["+", "+", "-", "-"])
    e = g.explain([3.0])
    text = str(e)
    assert "P(x | +): x0: N(3 | μ = 2, σ² = 1) = 0.242" in text
    assert "P(x | -): x0: N(3 | μ = 5, σ² = 1) = 0.054" in text
    assert "Prediction: + (P = 0.818)" in text
    html = e._repr_html_()
    assert "N(3 | μ = 2, σ² = 1) = 0.242</td>" in html and "P(x_j | -)</th>" in html
    with pytest.raises(ValueError, match=r"of densities.*print it \(or see \.readings\)"):
        e.derivation()
    with pytest.raises(ValueError, match=r"Use exact=False \(its explanation shows each feature's"):
        g.explain([3.0], exact=True)
    # your turn 5: the variances differ; B's density at 3 is the notes' 0.0044
    turn5 = GaussianNB().fit([[1], [3], [5], [7]], ["A", "A", "B", "B"]).explain([3.0])
    assert turn5.readings is not None and turn5.readings[0][0].endswith("= 0.242")
    assert turn5.readings[1][0] == "N(3 | μ = 6, σ² = 1) = 0.00443"
    assert BernoulliNB().fit([[1, 0], [0, 1]], [0, 1]).explain([1, 0]).readings is None


def test_the_exact_view_colours_its_bars_as_the_float_view() -> None:
    # both of its posterior bars were green, where the float view draws the other class's
    # blue (a student's trial)
    model = TextClassifier(alpha=1).fit([t for t, _ in EMAILS], [c for _, c in EMAILS])
    for exact in (True, False):
        html = model.explain("free money", exact=exact)._repr_html_()
        assert html.count("background:rgb(22, 128, 61)") >= 1, exact
        assert html.count("background:rgb(36, 87, 197)") == 1, exact


def test_a_categorical_factor_is_named_by_its_value_unseen_ones_said() -> None:
    # P(outlook = snow | y) was labelled "outlook" alone, and snow, which no class saw
    # (its factor the smoothed 1/5), was not said to be unseen (a student's trial)
    X = np.array([["sunny", "hot"], ["rain", "mild"], ["sunny", "mild"], ["overcast", "hot"]],
                 dtype=object)  # fmt: skip
    model = CategoricalNB(alpha=1).fit(X, ["no", "yes", "no", "yes"])
    row = np.array(["snow", "hot"], dtype=object)
    e = model.explain(row, exact=True, feature_names=["outlook", "temp"])
    assert e.value_labels == ["outlook = snow (unseen)", "temp = hot"]
    tex = e.to_latex()
    assert r"\underset{\scriptscriptstyle \text{outlook = snow (unseen)}}{\frac{1}{5}}" in tex
    assert e._repr_html_().count(">temp<br>= hot</span>") == 2
    coded = CategoricalNB(alpha=1).fit([[0, 1], [1, 0], [0, 0], [2, 1]], ["no", "yes", "no", "yes"])
    assert coded.explain([5, 1], exact=True).value_labels == ["x0 = 5 (unseen)", "x1 = 1"]


def test_a_fitted_model_s_notebook_view_says_where_the_notes_views_are() -> None:
    # scikit-learn's widget showed arrays cut to a few values (feature_log_prob_ [[-inf,
    # 0., -0.69, ...]]) and no pointer to the tables and derivations (a student's trial)
    hint = "The estimates as the course notes print them: <code>model.parameter_table()"
    assert hint not in BernoulliNB()._repr_html_()
    html = reviews(0)._repr_html_()
    assert hint in html and "Fitted attributes" in html  # (scikit-learn's view kept)
    assert html.index(hint) < html.rindex("</body>")


def test_the_text_view_names_a_bernoulli_model_s_absent_words() -> None:
    # print() listed "for spam: today (+1.39)", today not in "free free money" (the HTML
    # view said "today = 0"; a student's second trial)
    model = TextClassifier(model="bernoulli", alpha=1).fit(
        [t for t, _ in EMAILS], [c for _, c in EMAILS]
    )
    text = str(model.explain("free free money"))
    assert "for spam: today = 0 (+1.39), money (+1.1), free (+0.405)" in text


def test_three_classes_evidence_is_not_called_a_ratio() -> None:
    # with three classes the evidence is a term minus the other classes' mean, and the
    # heading said "log-likelihood ratio" (a student's second trial)
    docs = ["team vote", "app app", "team match", "vote now", "app store", "match goal"]
    model = TextClassifier(alpha=1).fit(docs, ["pol", "tech", "sport"] * 2)
    html = model.explain("team vote app app")._repr_html_()
    assert "evidence for tech (log-likelihood minus the other classes' mean)" in html
    assert "ratio" not in html


def test_a_folded_bernoulli_derivation_shows_the_words_the_text_holds() -> None:
    # "you stupid thing" against 30 words: the fold showed the first 7 of the vocabulary
    # and hid "stupid", the one word the text holds, among 20 absent ones (a student's
    # second trial); the text's words come first now, the absent ones after
    docs = [
        "my dog has flea problems help please", "maybe not take him to dog park stupid",
        "my dalmation is so cute I love him", "stop posting stupid worthless garbage",
        "mr licks ate my steak how to stop him", "quit buying worthless dog food stupid",
    ]  # fmt: skip
    model = TextClassifier(model="bernoulli", alpha=1).fit(docs, [0, 1, 0, 1, 0, 1])
    e = model.explain("you stupid thing", exact=True)
    html = e._repr_html_()
    labels = re.findall(r'<span style="font-size:10px;color:#5d6773;[^"]*">([^<]*)</span>', html)
    assert labels[0] == "stupid" and "more factors" in html
    assert str(e).splitlines()[1].startswith("P(1) · P(x | 1) = 3/6 · 4/5 · ")  # stupid's 4/5


def test_predict_top_of_documents_shows_them() -> None:
    # its rows were numbered 0, 1, 2: the documents are what a student looks for (a
    # student's second trial)
    model = TextClassifier(alpha=1).fit([t for t, _ in EMAILS], [c for _, c in EMAILS])
    docs = ["free money", "lunch " * 30]
    top = model.predict_top(docs, n=2)
    labels, probabilities = top  # (still the tuple it was)
    assert labels.shape == probabilities.shape == (2, 2)
    text = str(top)
    assert text.startswith("document") and "\nfree money " in text
    assert "lunch lunch" in text and "…" in text  # (a long one cut)
    assert ">free money</td>" in top._repr_html_()
    assert str(model.predict_top(iter(docs), n=2)).startswith("row")  # (read once: no names)


def test_lidstone_factors_are_whole_numbers_in_every_view() -> None:
    # alpha = 1/2 showed (3/2)/9 in the derivation (a stacked 3/2 over 9); a smoothed
    # factor is now the table's result after the pseudo-counts, in lowest terms, as the
    # notes write it (seed 001: 1/4, 1/6, 1/12): (1 + 1/2)/(6 + 6·1/2) = 1/6
    model = TextClassifier(alpha=0.5).fit([t for t, _ in EMAILS], [c for _, c in EMAILS])
    e = model.explain("free money", exact=True)
    for view in (str(e), e._repr_html_(), e._repr_latex_()):
        assert "(3/2)" not in view and "(1/2)" not in view and r"\tfrac" not in view
    assert "3/6 · 1/6 · 1/18 = 1/216" in str(e)
    assert "(1 + (1/2))/(6 + 6·(1/2)) = 1/6" in str(model.parameter_table())  # the same 1/6
    assert r"\frac{5}{18}" in e._repr_latex_()
    # a given prior is a fraction of its own, stacked as the others are
    prior = BernoulliNB(class_prior=[0.4, 0.6]).fit(np.eye(2), [0, 1]).explain([1, 0], exact=True)
    assert "2/5" in str(prior) and r"\frac{2}{5}" in prior._repr_latex_()
