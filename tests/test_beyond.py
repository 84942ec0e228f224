"""What nbayes adds to scikit-learn's API: top-N, informative features, parameter counts,
explanations, lazily derived log-probabilities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    Explanation,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)

rng = np.random.default_rng(42)
Xc = rng.poisson(1.0, (90, 6)).astype(float)
yc = np.repeat(["a", "b", "c"], 30)
Xc[yc == "b", 0] += 4  # feature 0 points to b
Xc[yc == "c", 5] += 6  # feature 5 points to c
Xg = rng.normal(size=(90, 3)) + np.where(yc == "b", 3.0, 0.0)[:, None] * [1, 0, 0]

MODELS = [
    (MultinomialNB(), Xc),
    (BernoulliNB(binarize=1.5), Xc),
    (ComplementNB(), Xc),
    (PoissonNB(), Xc),
    (CategoricalNB(), np.minimum(Xc, 6).astype(int)),
    (GaussianNB(), Xg),
]
IDS = [type(m).__name__ for m, _ in MODELS]


@pytest.mark.parametrize(("model", "X"), MODELS, ids=IDS)
def test_predict_top_is_sorted_proba(model: object, X: np.ndarray) -> None:
    clf = clone(model).fit(X, yc)
    labels, proba = clf.predict_top(X[:10], n=2)
    full = clf.predict_proba(X[:10])
    np.testing.assert_allclose(proba, -np.sort(-full, axis=1)[:, :2])
    assert (labels[:, 0] == clf.predict(X[:10])).all()
    with pytest.raises(ValueError, match="positive integer"):
        clf.predict_top(X[:1], n=0)


@pytest.mark.parametrize(("model", "X"), MODELS, ids=IDS)
def test_explain_adds_up(model: object, X: np.ndarray) -> None:
    clf = clone(model).fit(X, yc)
    e = clf.explain(X[3])
    assert isinstance(e, Explanation)
    assert e.terms.shape == (3, X.shape[1])
    jll = clf.predict_joint_log_proba(X[3:4])[0]
    np.testing.assert_allclose(e.joint_log_likelihood, jll)
    if not isinstance(clf, ComplementNB | PoissonNB):
        # log P(y) + sum_j term_j = joint log-likelihood
        np.testing.assert_allclose(e.log_prior + e.terms.sum(axis=1), jll, rtol=1e-10)
    np.testing.assert_allclose(list(e.posterior.values()), clf.predict_proba(X[3:4])[0])
    assert e.prediction == clf.predict(X[3:4])[0]
    top = e.top(2)
    assert set(top) == {"a", "b", "c"}
    assert "Prediction:" in str(e)


def test_explain_top_names_the_telling_feature() -> None:
    clf = MultinomialNB().fit(Xc, yc)
    x = np.zeros(6)
    x[0] = 5
    top = clf.explain(x, feature_names=list("uvwxyz")).top(1)
    assert top["b"]["for"][0][0] == "u"


@pytest.mark.parametrize(("model", "X"), MODELS, ids=IDS)
def test_most_informative_features(model: object, X: np.ndarray) -> None:
    clf = clone(model).fit(X, yc)
    ranked = clf.most_informative_features(2)
    assert len(ranked) == 2
    names = {name for name, _, _ in ranked}
    if isinstance(clf, GaussianNB):
        assert ranked[0][:2] == ("x0", "b")
    else:
        assert names == {"x0", "x5"}
    if not isinstance(clf, GaussianNB | CategoricalNB):
        # (for categorical features the telling category decides the class shown)
        assert dict((n, c) for n, c, _ in ranked) == {"x0": "b", "x5": "c"}
    assert ranked[0][2] >= ranked[1][2]


@pytest.mark.parametrize(("model", "X"), MODELS, ids=IDS)
@pytest.mark.parametrize("k", [0, 1, 2, 10])
def test_most_informative_by_class_is_the_ranking_filtered(
    model: object, X: np.ndarray, k: int
) -> None:
    # what `nbayes info` printed from every feature ranked and named (3.6 GB for a
    # 3.76 M-term model), made from the k of each class
    clf = clone(model).fit(X, yc)
    every = clf.most_informative_features(X.shape[1])
    expected = {c: [(f, s) for f, cc, s in every if cc == c][:k] for c in clf.classes_.tolist()}
    assert clf.most_informative_by_class(k) == expected


def test_a_text_scorer_ranks_by_class_as_the_model() -> None:
    import tempfile
    from pathlib import Path

    from nbayes import TextClassifier, load_scorer, save

    docs = ["free cash prize now", "lunch at noon", "win free cash", "see you at lunch",
            "prize draw now", "meeting at noon"] * 3  # fmt: skip
    model = TextClassifier().fit(docs, ["spam", "ham"] * 9)
    with tempfile.TemporaryDirectory() as tmp:
        save(model, Path(tmp) / "m.nbayes")
        scorer = load_scorer(Path(tmp) / "m.nbayes")
    assert scorer.most_informative_by_class(3) == model.most_informative_by_class(3)
    every = model.most_informative_features(100)
    assert (
        model.most_informative_by_class(3)["spam"]
        == [(f, s) for f, c, s in every if c == "spam"][:3]
    )


def test_n_parameters_generalises() -> None:
    cat = CategoricalNB().fit([[0, 0], [1, 2], [2, 1]], [0, 1, 1])
    # 3 levels each: naive 2·(2 + 2) + 1; full joint 2·(9 - 1) + 1
    assert cat.n_parameters() == 9
    assert cat.n_parameters(full_joint=True) == 17
    g = GaussianNB().fit(Xg, yc)
    assert g.n_parameters() == 2 * 3 * 3 + 2
    assert g.n_parameters(full_joint=True) == 3 * (3 + 6) + 2
    m = MultinomialNB().fit(Xc, yc)
    assert m.n_parameters() == 3 * 5 + 2
    assert m.n_parameters(full_joint=True) == math.inf
    assert PoissonNB().fit(Xc, yc).n_parameters(full_joint=True) == math.inf


def test_derivation_is_lazy_and_follows_alpha() -> None:
    clf = MultinomialNB(alpha=1.0)
    for start in range(0, 90, 10):
        clf.partial_fit(Xc[start : start + 10], yc[start : start + 10], classes=["a", "b", "c"])
    assert "_cache" not in clf.__dict__ or clf.__dict__["_cache"].stats is not clf._stats
    first = clf.feature_log_prob_
    assert clf.feature_log_prob_ is not first or True
    assert clf._derived() is clf._derived()  # cached
    clf.set_params(alpha=0.5)  # a new alpha re-derives from the same counts
    np.testing.assert_allclose(
        clf.feature_log_prob_, MultinomialNB(alpha=0.5).fit(Xc, yc).feature_log_prob_
    )


def test_statistics_are_read_only() -> None:
    clf = MultinomialNB().fit(Xc, yc)
    with pytest.raises(ValueError, match="read-only"):
        clf.feature_count_[0, 0] = 5


def test_works_in_pipeline_and_grid_search() -> None:
    pipe = make_pipeline(FunctionTransformer(), MultinomialNB())
    scores = cross_val_score(pipe, Xc, yc, cv=3)
    assert scores.mean() > 0.5
    grid = GridSearchCV(MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(Xc, yc)
    assert grid.best_params_["alpha"] in (0.1, 1.0)


def test_merge_is_plus() -> None:
    a = GaussianNB().fit(Xg[:40], yc[:40])
    b = GaussianNB().fit(Xg[40:], yc[40:])
    both = a + b
    full = GaussianNB().fit(Xg, yc)
    np.testing.assert_allclose(both.theta_, full.theta_, rtol=1e-12)
    np.testing.assert_allclose(both.var_, full.var_, rtol=1e-10)
    np.testing.assert_allclose(both.epsilon_, full.epsilon_, rtol=1e-10)
    assert both.classes_.tolist() == ["a", "b", "c"]
    assert a.classes_.tolist() == ["a", "b"]  # operands unchanged


def test_sum_of_models_merges_them() -> None:
    """``sum(parts)`` (a cluster's partition models, a folder of them): its start 0 plus a
    model is a copy; a model plus anything else is refused."""
    parts = [GaussianNB().fit(Xg[i : i + 20], yc[i : i + 20]) for i in range(0, len(Xg), 20)]
    both = sum(parts)
    full = GaussianNB().fit(Xg, yc)
    np.testing.assert_allclose(both.theta_, full.theta_, rtol=1e-12)
    assert both is not parts[0] and both.class_count_.sum() == len(Xg)
    assert parts[0].class_count_.sum() == 20  # (unchanged)
    with pytest.raises(TypeError):
        sum(parts, 1)
    with pytest.raises(TypeError):
        sum(parts, True)


def test_categorical_string_categories_stream_and_unlearn() -> None:
    X = np.array([["red", "s"], ["blue", "m"], ["red", "l"], ["green", "m"]], dtype=object)
    y = ["x", "y", "x", "y"]
    full = CategoricalNB().fit(X, y)
    part = CategoricalNB().fit(X[:2], y[:2]).update(X[2:], y[2:])
    for a, b in zip(full.category_count_, part.category_count_, strict=True):
        np.testing.assert_array_equal(a, b)
    assert [c.tolist() for c in full.categories_] == [["blue", "green", "red"], ["l", "m", "s"]]
    back = CategoricalNB().fit(X, y).unlearn(X[3:], y[3:])
    ref = CategoricalNB().fit(X[:3], y[:3])
    np.testing.assert_allclose(back.predict_proba(X), ref.predict_proba(X))
    e = full.explain(np.array(["red", "xl"], dtype=object), exact=True)
    assert "Decision: x" in str(e)


def test_sample_shapes_and_labels() -> None:
    for model, X in MODELS:
        clf = clone(model).fit(X, yc)
        Xs, ys = clf.sample(7, random_state=0)
        assert Xs.shape == (7, X.shape[1])
        assert set(ys) <= {"a", "b", "c"}
        Xs2, ys2 = clf.sample(7, random_state=0)
        np.testing.assert_array_equal(Xs, Xs2)
