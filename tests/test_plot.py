"""The plots of nbayes.plot, checked on what a reader sees: labels that do not overlap, text
inside the figure, numbers that contrast with their cell, the words the model's explanations
rank first, the points scikit-learn's calibration_curve computes."""

from __future__ import annotations

import csv
import inspect
import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

import matplotlib.pyplot as plt  # noqa: E402
from sklearn.calibration import calibration_curve  # noqa: E402

import nbayes.plot as nbplot  # noqa: E402
from nbayes import MixedNB, TextClassifier  # noqa: E402
from nbayes.naive_bayes import BernoulliNB, GaussianNB, MultinomialNB  # noqa: E402
from nbayes.plot import (  # noqa: E402
    confusion_matrix,
    informative_words,
    marginals,
    reliability,
    word_evidence,
)
from nbayes.plot._common import set_title, text_color  # noqa: E402

DATA = Path(__file__).parent / "data"
NEWSGROUPS = [
    "alt.atheism", "comp.graphics", "comp.os.ms-windows.misc", "comp.sys.ibm.pc.hardware",
    "comp.sys.mac.hardware", "comp.windows.x", "misc.forsale", "rec.autos", "rec.motorcycles",
    "rec.sport.baseball", "rec.sport.hockey", "sci.crypt", "sci.electronics", "sci.med",
    "sci.space", "soc.religion.christian", "talk.politics.guns", "talk.politics.mideast",
    "talk.politics.misc", "talk.religion.misc",
]  # fmt: skip


@pytest.fixture(autouse=True)
def _close_figures() -> Any:
    yield
    plt.close("all")


def sms() -> tuple[list[str], np.ndarray]:
    with open(DATA / "sms_slice.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    return [r[0] for r in rows[1:]], np.array([r[1] for r in rows[1:]])


def extents(fig: Any, texts: Any) -> list[Any]:
    renderer = fig.canvas.get_renderer()
    shown = [t for t in texts if t.get_visible() and getattr(t, "get_text", lambda: "-")()]
    return [t.get_window_extent(renderer) for t in shown]


def assert_apart(fig: Any, texts: Any) -> None:
    """No two of the texts overlap on the drawn figure."""
    boxes = extents(fig, texts)
    for (i, a), (j, b) in itertools.combinations(enumerate(boxes), 2):
        assert not a.overlaps(b), (i, j, a, b)


def assert_inside(fig: Any, texts: Any) -> None:
    """Every text lies within the figure (nothing cut at the edge)."""
    for box in extents(fig, texts):
        assert box.x0 >= 0 and box.y0 >= 0, box
        assert box.x1 <= fig.bbox.width and box.y1 <= fig.bbox.height, box


def cell_texts(ax: Any) -> list[Any]:
    return [t for t in ax.texts]


def twenty_class_predictions() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    y = rng.choice(NEWSGROUPS, 3000)
    pred = np.where(rng.random(3000) < 0.7, y, rng.choice(NEWSGROUPS, 3000))
    return y, pred


# ------------------------------------------------------------------------ confusion matrix
@pytest.mark.parametrize("normalize", [False, True])
def test_confusion_matrix_readable_at_20_classes(normalize: bool) -> None:
    y, pred = twenty_class_predictions()
    title = "news.nbayes: accuracy 0.712 (3,000 examples)"
    ax = confusion_matrix(y, pred, normalize=normalize, title=title)
    fig = ax.figure
    fig.canvas.draw()
    xlabels, ylabels = ax.get_xticklabels(), ax.get_yticklabels()
    assert [t.get_text() for t in ylabels] == NEWSGROUPS
    assert_apart(fig, xlabels)
    assert_apart(fig, ylabels)
    numbers = cell_texts(ax)
    assert len(numbers) == 400
    assert_apart(fig, numbers)
    # each number within its cell
    cell = ax.transData.transform((1, 0))[0] - ax.transData.transform((0, 0))[0]
    assert max(b.width for b in extents(fig, numbers)) < cell
    assert_inside(fig, [*xlabels, *ylabels, ax.title, ax.xaxis.label, ax.yaxis.label])


def test_confusion_matrix_two_classes_title_and_contrast() -> None:
    y = ["ham"] * 4827 + ["spam"] * 747
    pred = ["ham"] * 4814 + ["spam"] * 13 + ["ham"] * 23 + ["spam"] * 724
    title = "sms_spam_collection.nbayes: accuracy 0.994 (5,857 examples)"
    ax = confusion_matrix(y, pred, title=title)
    fig = ax.figure
    fig.canvas.draw()
    assert_inside(fig, [ax.title])
    assert ax.title.get_text().split() == title.split()  # wrapped at most, never cut
    by_text = {t.get_text(): t for t in ax.texts}
    assert set(by_text) == {"4,814", "13", "23", "724"}
    assert by_text["4,814"].get_color() == "white"  # the darkest cell
    assert by_text["13"].get_color() == "black"  # a pale one
    assert [t.get_text() for t in ax.get_xticklabels()] == ["ham", "spam"]


def test_text_color_and_title_wrapping() -> None:
    navy, pale = (0.03, 0.19, 0.42, 1.0), (0.97, 0.98, 1.0, 1.0)
    assert text_color(navy) == "white" and text_color(pale) == "black"
    assert text_color((0.5, 0.5, 0.5)) == "black" and text_color((0.2, 0.2, 0.2)) == "white"
    fig, ax = plt.subplots(figsize=(3, 3), layout="constrained")
    words = "a very long title that cannot fit on one line of a three inch figure".split()
    set_title(ax, " ".join(words))
    fig.canvas.draw()
    assert "\n" in ax.get_title() and ax.get_title().split() == words
    assert_inside(fig, [ax.title])


def test_confusion_matrix_on_given_axes_and_many_classes() -> None:
    fig, ax = plt.subplots()
    out = confusion_matrix(["a", "b", "b"], ["a", "b", "a"], ax=ax)
    assert out is ax and len(fig.axes) == 1  # no colour bar added to the caller's figure
    labels = [f"class {i}" for i in range(150)]
    rng = np.random.default_rng(1)
    y = rng.choice(labels, 20000)
    ax = confusion_matrix(y, y)
    ax.figure.canvas.draw()
    assert len(ax.texts) == 0  # too many classes for numbers: colour only
    assert_apart(ax.figure, ax.get_yticklabels())
    assert ax.figure.get_figwidth() < 25


# ---------------------------------------------------------------------- informative words
def test_informative_words_are_what_explain_ranks_first() -> None:
    docs, y = sms()
    model = TextClassifier().fit(docs, y)
    k = 8
    axes = informative_words(model, top=k)
    words = model.get_feature_names_out()
    # a document holding every word once: its explanation ranks the same evidence
    explanation = model.explain(" ".join(words))
    top = explanation.top(k)
    flp = model.feature_log_prob_
    for c, (ax, cls) in enumerate(zip(axes, model.classes_, strict=True)):
        assert ax.get_title() == cls
        shown = [t.get_text() for t in ax.get_yticklabels()]
        assert shown == [w for w, _ in top[cls]["for"]]
        widths = [p.get_width() for p in ax.patches]
        np.testing.assert_allclose(widths, [v for _, v in top[cls]["for"]])
        # for two classes: the log-likelihood ratio of the word
        ratio = flp[c] - flp[1 - c]
        expected = words[np.argsort(-ratio, kind="stable")[:k]]
        assert shown == list(expected)
    assert "claim" in [t.get_text() for t in axes[1].get_yticklabels()]
    # the axis label on one line, at the ticks' size (it wrapped onto two: a trial's)
    label = axes[0].figure._supxlabel
    assert "\n" not in label.get_text() and label.get_fontsize() == 9


def test_fewer_words_than_asked_for_are_said() -> None:
    # top=4 drew 3 bars per class, without a word why (a student's trial): only 3 words
    # of the notes' six are evidence for each class
    emails = [("free win", "spam"), ("free money", "spam"), ("win money", "spam"),
              ("meeting today", "ham"), ("free today", "ham"), ("lunch today", "ham")]  # fmt: skip
    model = TextClassifier(alpha=1).fit([t for t, _ in emails], [c for _, c in emails])
    axes = informative_words(model, top=4)
    for ax, cls in zip(axes, ["ham", "spam"], strict=True):
        assert len(ax.patches) == 3
        assert [t.get_text() for t in ax.texts] == [f"no other word is evidence\nfor {cls}"]
    assert all(not ax.texts for ax in informative_words(model, top=3))


def test_informative_words_readable_at_20_classes() -> None:
    rng = np.random.default_rng(2)
    vocab = [f"word{i:03d}" for i in range(400)]
    docs, y = [], []
    for c, cls in enumerate(NEWSGROUPS):
        own = vocab[c * 20 : (c + 1) * 20]
        for _ in range(6):
            docs.append(" ".join([*rng.choice(own, 20), *rng.choice(vocab, 10)]))
            y.append(cls)
    model = TextClassifier().fit(docs, y)
    axes = informative_words(model, top=10, title="20 classes: most informative words")
    fig = axes[0].figure
    fig.canvas.draw()
    assert len(axes) == 20 and [ax.get_title() for ax in axes] == NEWSGROUPS
    renderer = fig.canvas.get_renderer()
    panels = [ax.get_tightbbox(renderer) for ax in axes]
    for a, b in itertools.combinations(panels, 2):
        assert not a.overlaps(b)
    for c, ax in enumerate(axes):
        assert_apart(fig, ax.get_yticklabels())
        shown = {t.get_text() for t in ax.get_yticklabels()}
        assert len(shown & set(vocab[c * 20 : (c + 1) * 20])) >= 8  # its own words
    assert_inside(fig, [fig._suptitle, fig._supxlabel, *(ax.title for ax in axes)])


def test_informative_words_of_count_models() -> None:
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.poisson(1.0, (40, 6)), columns=[f"w{i}" for i in range(6)])
    y = np.array(["a", "b"] * 20)
    X.loc[y == "a", "w2"] += 3
    X.loc[y == "b", "w4"] += 3
    m = MultinomialNB().fit(X, y)
    names, evidence = word_evidence(m)
    assert names == list(X.columns)
    np.testing.assert_allclose(
        evidence[0], m.feature_log_prob_[0] - m.feature_log_prob_[1], rtol=1e-12
    )
    axes = informative_words(m, top=1)
    assert [ax.get_yticklabels()[0].get_text() for ax in axes] == ["w2", "w4"]
    b = BernoulliNB().fit(X, y)
    p = np.exp(b.feature_log_prob_)
    presence = np.log(p) - np.log1p(-p)
    np.testing.assert_allclose(word_evidence(b)[1][1], presence[1] - presence[0], rtol=1e-12)
    axes = informative_words(b, top=3, classes=["b"])
    assert len(axes) == 1 and axes[0].get_title() == "b"


def test_informative_words_of_a_mixed_text_column() -> None:
    df = pd.DataFrame(
        {
            "age": [20.0, 25, 60, 65],
            "note": ["free games", "games online", "daily walk", "garden walk"],
        }  # fmt: skip
    )
    y = ["young", "young", "old", "old"]
    m = MixedNB(columns={"note": "text"}).fit(df, y)
    axes = informative_words(m, top=1)
    assert [ax.get_yticklabels()[0].get_text() for ax in axes] == ["walk", "games"]
    with pytest.raises(ValueError, match="pass column= one of \\['note'\\]"):
        informative_words(m, column="age")


def test_informative_words_errors() -> None:
    docs, y = sms()
    with pytest.raises(ValueError, match="this GaussianNB is a gaussian model"):
        informative_words(GaussianNB().fit([[0.0], [1.0]], ["a", "b"]))
    with pytest.raises(ValueError, match="a hashing TextClassifier keeps only hash buckets"):
        informative_words(TextClassifier(hashing=True, n_features=64).fit(docs, y))
    model = TextClassifier().fit(docs, y)
    with pytest.raises(ValueError, match="top must be a positive integer"):
        informative_words(model, top=0)
    with pytest.raises(ValueError, match="Unknown class 'eggs'"):
        informative_words(model, classes=["eggs"])
    with pytest.raises(ValueError, match="column= picks a text column of a MixedNB"):
        informative_words(model, column="text")
    with pytest.raises(TypeError, match="draws a fitted nbayes model"):
        informative_words(object())


# ------------------------------------------------------------------------ reliability
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_reliability_points_are_calibration_curve(strategy: str) -> None:
    docs, y = sms()
    model = TextClassifier().fit(docs[::2], y[::2])
    proba = model.predict_proba(docs[1::2])
    truth = y[1::2]
    ax = reliability(truth, proba, classes=model.classes_, n_bins=5, strategy=strategy)
    (curve,) = [line for line in ax.get_lines() if line.get_label() == "P(spam)"]
    frac, mean = calibration_curve(truth == "spam", proba[:, 1], n_bins=5, strategy=strategy)
    np.testing.assert_allclose(curve.get_xdata(), mean)
    np.testing.assert_allclose(curve.get_ydata(), frac)
    assert len(ax.figure.axes) == 2  # the histogram under the curve
    ax.figure.canvas.draw()
    assert_inside(ax.figure, [ax.title, ax.yaxis.label, ax.get_legend()])


def test_reliability_of_many_classes() -> None:
    rng = np.random.default_rng(4)
    classes = np.array(["a", "b", "c"])
    proba = rng.dirichlet([1, 1, 1], 300)
    y = classes[[rng.choice(3, p=p) for p in proba]]
    ax = reliability(y, proba, classes=classes, title="top label")
    (curve,) = [line for line in ax.get_lines() if line.get_label() == "P(the predicted class)"]
    correct = classes[proba.argmax(axis=1)] == y
    frac, mean = calibration_curve(correct, proba.max(axis=1), n_bins=10)
    np.testing.assert_allclose(curve.get_xydata(), np.c_[mean, frac])
    ax = reliability(y, proba, classes=classes, pos_label="c", label="c vs rest")
    (curve,) = [line for line in ax.get_lines() if line.get_label() == "c vs rest"]
    frac, mean = calibration_curve(y == "c", proba[:, 2], n_bins=10)
    np.testing.assert_allclose(curve.get_xydata(), np.c_[mean, frac])
    fig, given = plt.subplots()
    assert reliability((y == "c").astype(int), proba[:, 2], ax=given) is given
    assert len(fig.axes) == 1
    with pytest.raises(ValueError, match="pass classes=model.classes_"):
        reliability(y, proba)
    with pytest.raises(ValueError, match="Unknown pos_label 'd'"):
        reliability(y, proba, classes=classes, pos_label="d")


# ------------------------------------------------------------- the public likelihood
def test_plots_read_the_public_likelihood_only() -> None:
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0]])
    m = MultinomialNB().fit(X, ["a", "b", "a"])
    family, derived, _ = m.likelihood()
    terms = family.feature_log_density(derived, X.astype(float)).sum(axis=2)
    np.testing.assert_allclose(terms + m.class_log_prior_, m.predict_joint_log_proba(X))
    for module in (nbplot._common, nbplot._marginals, nbplot._words, nbplot._confusion):
        source = inspect.getsource(module)
        assert "._family" not in source and "_feature_names(" not in source
    assert marginals(m, "x1").get_title() == "P(x1 | class)"


def test_marginals_text_fits() -> None:
    name = "capital_run_length_average_of_the_whole_message"
    X = pd.DataFrame({name: [1.0, 2.0, 30.0, 45.0]})
    ax = marginals(GaussianNB().fit(X, ["ham", "ham", "spam", "spam"]), name)
    ax.figure.canvas.draw()
    assert ax.get_title().split() == f"P({name} | class)".split()
    assert_inside(ax.figure, [ax.title, ax.xaxis.label, ax.yaxis.label])


def test_marginals_draw_kernelnb_point_masses() -> None:
    """A KernelNB column's point masses are drawn (stems and dots at their probability on a
    right-hand axis), not left out of the density curve's picture."""
    from nbayes import KernelNB
    from nbayes.plot import marginals

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    x = rng.exponential(1 + y)
    x[rng.random(400) < 0.7 - 0.3 * y] = 0.0
    model = KernelNB().fit(x[:, None], y)
    assert model.point_masses_[0].tolist() == [0.0]
    ax = marginals(model, "x0")
    (right,) = [a for a in ax.figure.axes if a is not ax]
    dots = [line for line in right.get_lines() if line.get_marker() == "o"]
    _, derived, _ = model.likelihood()
    want = np.exp(derived["log_mass"][0][:, 0])
    assert [float(d.get_xdata()[0]) for d in dots] == [0.0, 0.0]
    np.testing.assert_allclose([float(d.get_ydata()[0]) for d in dots], want)


def test_a_categorical_column_of_many_values_shows_the_most_probable_only():
    """Issue 28 trap 5: a categorical float column drew hundreds of overprinted labels."""
    rng = np.random.default_rng(0)
    values = np.round(rng.exponential(1.0, 400), 2)
    values[:200] = 0.0  # one category far more probable than the others
    X = pd.DataFrame({"freq": values})
    y = np.where(rng.random(400) < 0.5, "a", "b")
    model = MixedNB({"freq": "categorical"}).fit(X, y)
    n_categories = len(np.unique(values))
    assert n_categories > 100
    ax = nbplot.marginals(model, "freq")
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert len(labels) == 20 and labels[0] == "0.0"
    assert ax.get_xlabel() == f"freq (the 20 most probable of {n_categories} categories)"
    plt.close(ax.figure)
    ax = nbplot.marginals(model, "freq", max_categories=500)
    assert len(ax.get_xticklabels()) == n_categories and ax.get_xlabel() == "freq"
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="log scale applies to numeric columns"):
        nbplot.marginals(model, "freq", log=True)


@pytest.mark.parametrize("family", ["gaussian", "kde", "poisson"])
def test_log_scale_of_a_heavy_tailed_column(family):
    rng = np.random.default_rng(1)
    values = np.floor(rng.pareto(1.5, 300) * 10).astype(np.int64)
    X = pd.DataFrame({"n": values})
    y = np.where(values > 5, "big", "small")
    model = MixedNB({"n": family}).fit(X, y)
    ax = nbplot.marginals(model, "n", log=True)
    assert ax.get_xscale() == "log"
    lines = ax.get_lines()
    assert lines and all((np.asarray(line.get_xdata()) > 0).all() for line in lines)
    plt.close(ax.figure)


def test_a_model_given_to_confusion_matrix_is_told_the_order() -> None:
    # confusion_matrix(model, docs, labels) was scikit-learn's "y_true ... Got
    # TextClassifier(alpha=1) instead" (a student's second trial)
    model = TextClassifier().fit(["free money", "lunch at noon"], ["spam", "ham"])
    with pytest.raises(TypeError, match=r"takes labels, not a model: got TextClassifier.*"
                       r"confusion_matrix\(labels, model\.predict\(X\)\)"):  # fmt: skip
        confusion_matrix(model, ["free money"], ["spam"])


def test_marginals_take_the_columns_names_and_slant_only_long_labels() -> None:
    # a student's BernoulliNB on an array: the plot said "x7", with two slanted ticks
    from nbayes import BernoulliNB, CategoricalNB
    from nbayes.datasets import load_match_reviews
    from nbayes.plot import marginals

    r = load_match_reviews()
    model = BernoulliNB(alpha=1).fit(r.data, r.target)
    names = list(r.feature_names)
    ax = marginals(model, names[7], feature_names=names)
    assert ax.get_title() == f"P({names[7]} | class)"
    assert [t.get_rotation() for t in ax.get_xticklabels()] == [0.0, 0.0]
    assert marginals(model, 7, feature_names=names).get_title() == ax.get_title()
    with pytest.raises(ValueError, match="feature_names has 2 names for"):
        marginals(model, 0, feature_names=["a", "b"])
    with pytest.raises(TypeError, match="one str"):
        marginals(model, 0, feature_names="keeper was sharp")
    with pytest.raises(ValueError, match="Unknown column 'x7'"):
        marginals(model, "x7", feature_names=names)
    levels = np.array([[f"level {k % 20}"] for k in range(40)], dtype=object)
    many = CategoricalNB().fit(levels, [0, 1] * 20)
    slanted = [t.get_rotation() for t in marginals(many, 0).get_xticklabels()]
    assert set(slanted) == {45.0}


def test_a_notebook_shows_the_words_figure_without_the_axes_array_under_it() -> None:
    # a cell ending in informative_words(...) printed "array([<Axes: ...>], dtype=object)"
    # under its figure (a student's notebook); IPython's display hook now shows nothing
    # for the array (the inline backend shows the figure), which stays an array of Axes
    from IPython.core.formatters import DisplayFormatter

    docs = ["cheap pills now", "cheap offer now", "lunch at noon", "see you at lunch"]
    axes = informative_words(TextClassifier().fit(docs, ["spam", "spam", "ham", "ham"]), top=2)
    assert DisplayFormatter().format(axes) == ({}, {})
    assert isinstance(axes, np.ndarray) and axes.shape == (2,)
    assert [ax.get_title() for ax in axes] == ["ham", "spam"]
    assert "Axes" in repr(axes)  # (print and repr as an array's)


def test_a_notebook_shows_the_plots_under_its_cells() -> None:
    # matplotlib >= 3.9 names the notebooks' inline backend "inline": nbayes.plot took it
    # for a backend to replace with its file backend, and a student's cell showed no figure
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    cell = (
        "%matplotlib inline\n"
        "from nbayes import TextClassifier\n"
        "from nbayes.plot import informative_words\n"
        "docs = ['cheap pills now', 'cheap offer now', 'lunch at noon', 'see you at lunch']\n"
        "informative_words(TextClassifier().fit(docs, ['spam', 'spam', 'ham', 'ham']), top=2)"
    )
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("MPLBACKEND", raising=False)
        nbclient.NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    outputs = nb.cells[0].outputs
    assert [o.output_type for o in outputs] == ["display_data"]  # the figure, no array
    assert "image/png" in outputs[0].data
