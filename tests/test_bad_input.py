"""Bad input gets a clear exception or a documented behaviour, never a crash deep in numpy."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    InvalidParameterError,
    MultinomialNB,
    PoissonNB,
)

ALL = [BernoulliNB, MultinomialNB, ComplementNB, CategoricalNB, GaussianNB, PoissonNB]
COUNT_MODELS = [MultinomialNB, ComplementNB, PoissonNB]

X = np.array([[1, 0, 2], [0, 3, 1], [2, 1, 0], [0, 0, 4]], dtype=float)
y = np.array([0, 1, 0, 1])


@pytest.mark.parametrize("Est", ALL)
@pytest.mark.parametrize(("bad", "word"), [(np.nan, "NaN"), (np.inf, "infinity")])
def test_nan_and_inf_name_the_column(Est: type, bad: float, word: str) -> None:
    Xb = X.copy()
    Xb[2, 1] = bad
    with pytest.raises(ValueError, match=rf"{word} in column.*'x1'"):
        Est().fit(Xb, y)
    clf = Est().fit(X, y)
    with pytest.raises(ValueError, match=rf"{word} in column.*'x1'"):
        clf.predict(Xb)


def test_nan_names_dataframe_columns() -> None:
    df = pd.DataFrame(X, columns=["free", "win", "money"])
    df.loc[1, "money"] = np.nan
    with pytest.raises(ValueError, match="NaN in column.*'money'"):
        MultinomialNB().fit(df, y)


def test_nan_in_sparse_names_the_column() -> None:
    Xs = sp.csr_matrix(X)
    Xs.data[Xs.indices == 2] = np.nan
    with pytest.raises(ValueError, match="NaN in column.*'x2'"):
        MultinomialNB().fit(Xs, y)


@pytest.mark.parametrize("Est", COUNT_MODELS)
def test_negative_counts(Est: type) -> None:
    Xb = X.copy()
    Xb[0, 2] = -1
    with pytest.raises(ValueError, match=r"Negative values in data passed to .*'x2'.*>= 0"):
        Est().fit(Xb, y)
    clf = Est().fit(X, y)
    with pytest.raises(ValueError, match="Negative values"):
        clf.predict_proba(Xb)


def test_negative_category_code() -> None:
    with pytest.raises(ValueError, match="negative category code"):
        CategoricalNB().fit([[0], [-1]], [0, 1])


@pytest.mark.parametrize("Est", ALL)
def test_wrong_feature_count_at_predict(Est: type) -> None:
    clf = Est().fit(X, y)
    with pytest.raises(ValueError, match=re.escape("X has 2 features, but")):
        clf.predict(X[:, :2])


@pytest.mark.parametrize("Est", ALL)
def test_empty_X(Est: type) -> None:
    with pytest.raises(ValueError, match="0 sample"):
        Est().fit(np.zeros((0, 3)), [])
    with pytest.raises(ValueError, match="0 feature"):
        Est().fit(np.zeros((3, 0)), [0, 1, 0])


@pytest.mark.parametrize("Est", ALL)
def test_single_class(Est: type) -> None:
    clf = Est().fit(X, np.zeros(4, dtype=int))
    assert clf.predict(X).tolist() == [0, 0, 0, 0]
    np.testing.assert_allclose(clf.predict_proba(X), 1.0)


def test_zero_variance_feature_is_smoothed() -> None:
    Xc = np.column_stack([X[:, 0], np.full(4, 7.0)])
    clf = GaussianNB().fit(Xc, y)
    proba = clf.predict_proba(Xc)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1)


def test_all_constant_features_are_point_masses() -> None:
    # Every feature constant: epsilon is 0, each class a point mass (documented).
    Xc = np.array([[1.0], [1.0], [2.0], [2.0]])
    clf = GaussianNB().fit(Xc, [0, 0, 1, 1])
    assert clf.predict([[1.0], [2.0]]).tolist() == [0, 1]
    np.testing.assert_allclose(clf.predict_proba([[1.0]]), [[1.0, 0.0]])


@pytest.mark.parametrize("Est", [MultinomialNB, PoissonNB, BernoulliNB, ComplementNB])
def test_million_count_rows_do_not_underflow(Est: type) -> None:
    rng = np.random.default_rng(0)
    Xt = rng.integers(0, 5, (40, 6)).astype(float)
    yt = np.repeat([0, 1], 20)
    Xt[yt == 1, 0] += 3
    clf = Est().fit(Xt, yt)
    big = np.array([[1e6, 2e6, 0, 5e5, 1e6, 3e6]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        proba = clf.predict_proba(big)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(), 1.0)


def test_bad_hyperparameters_read_like_sklearn() -> None:
    msg = (
        "The 'alpha' parameter of MultinomialNB must be a float in the range [0.0, inf) or "
        "an array-like. Got -1 instead."
    )
    with pytest.raises(InvalidParameterError, match=re.escape(msg)):
        MultinomialNB(alpha=-1).fit(X, y)
    with pytest.raises(ValueError, match="'var_smoothing' parameter of GaussianNB"):
        GaussianNB(var_smoothing=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="Number of priors must match number of classes"):
        MultinomialNB(class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    with pytest.raises(ValueError, match="The sum of the priors should be 1"):
        GaussianNB(priors=[0.2, 0.3]).fit(X, y)


def test_sample_weight_errors() -> None:
    with pytest.raises(ValueError, match="negative"):
        MultinomialNB().fit(X, y, sample_weight=[1, -1, 1, 1])
    with pytest.raises(ValueError, match=re.escape("expected (4,)")):
        MultinomialNB().fit(X, y, sample_weight=[1, 1])
    with pytest.raises(ValueError, match="NaN"):
        MultinomialNB().fit(X, y, sample_weight=[1, np.nan, 1, 1])


def test_labels_of_mixed_types() -> None:
    with pytest.raises(ValueError, match="Unknown label type"):  # as scikit-learn
        MultinomialNB().fit(X, np.array([0, "a", 0, "a"], dtype=object))
    clf = MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="different types"):
        clf.update(X, ["a", "b", "a", "b"])


def test_continuous_target_is_rejected() -> None:
    with pytest.raises(ValueError, match="Unknown label type"):
        MultinomialNB().fit(X, [0.5, 1.5, 2.25, 3.1])


def test_partial_fit_needs_classes_and_knows_them() -> None:
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        MultinomialNB().partial_fit(X, y)
    clf = MultinomialNB().partial_fit(X, y, classes=[0, 1])
    with pytest.raises(ValueError, match=re.escape("The target label(s) [2]")):
        clf.partial_fit(X, [0, 1, 2, 2])
    # update() is the method that accepts new classes
    clf.update(X, [0, 1, 2, 2])
    assert clf.classes_.tolist() == [0, 1, 2]


def test_unlearn_what_was_never_learned_leaves_model_unchanged() -> None:
    clf = MultinomialNB().fit(X, y)
    before = clf.feature_count_.copy(), clf.class_count_.copy()
    with pytest.raises(ValueError, match=r"never seen them.*Nothing was changed"):
        clf.unlearn(X[:1], [7])
    with pytest.raises(ValueError, match=r"would become negative.*Nothing was changed"):
        clf.unlearn(X[:1] + 10, [0])
    np.testing.assert_array_equal(clf.feature_count_, before[0])
    np.testing.assert_array_equal(clf.class_count_, before[1])
    with pytest.raises(ValueError, match="no class left"):
        clf.unlearn(X, y)


def test_unlearn_gaussian_more_rows_than_seen() -> None:
    clf = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="would become negative"):
        clf.unlearn(np.vstack([X, X]), np.concatenate([y, y]))


def test_merge_mismatches() -> None:
    a = MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match=r"different hyperparameters \(alpha=1.0 vs 0.5\)"):
        a.merge(MultinomialNB(alpha=0.5).fit(X, y))
    with pytest.raises(ValueError, match="3 features with one of 2"):
        a.merge(MultinomialNB().fit(X[:, :2], y))
    with pytest.raises(ValueError, match="same type"):
        a.merge(BernoulliNB().fit(X, y))  # type: ignore[arg-type]
    named = MultinomialNB().fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    with pytest.raises(ValueError, match="different names"):
        a.merge(named)


def test_categorical_unseen_and_bad_categories() -> None:
    clf = CategoricalNB().fit([[0, 1], [1, 0], [2, 1]], ["a", "b", "a"])
    # an integer category never seen: smoothed zero count, no IndexError
    proba = clf.predict_proba([[7, 1]])
    assert np.isfinite(proba).all()
    with pytest.raises(ValueError, match="mixes category types"):
        CategoricalNB().fit(np.array([["a"], [1]], dtype=object), [0, 1])
    with pytest.raises(ValueError, match="NaN or None"):
        CategoricalNB().fit(np.array([["a"], [None]], dtype=object), [0, 1])
    with pytest.raises(TypeError, match="argument must be a string or a number"):
        CategoricalNB().fit(np.array([[{"x": 1}], ["b"]], dtype=object), [0, 1])
    strings = CategoricalNB().fit([["x"], ["y"]], [0, 1])
    with pytest.raises(ValueError, match="integer category codes but got labels"):
        CategoricalNB().fit([[0], [1]], [0, 1]).update([["x"]], [0])
    assert strings.predict([["never seen"]]).shape == (1,)


def test_explain_rejects_several_rows() -> None:
    clf = MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match="one row"):
        clf.explain(X)


def test_exact_explanations_need_discrete_integer_models() -> None:
    with pytest.raises(ValueError, match="no rational derivation"):
        GaussianNB().fit(X, y).explain(X[0], exact=True)
    with pytest.raises(ValueError, match="no rational derivation"):
        ComplementNB().fit(X, y).explain(X[0], exact=True)
    weighted = MultinomialNB().fit(X, y, sample_weight=[0.5, 1, 1, 1])
    with pytest.raises(ValueError, match="whole-number counts"):
        weighted.explain(X[0], exact=True)


def test_not_fitted() -> None:
    from sklearn.exceptions import NotFittedError

    for Est in ALL:
        with pytest.raises(NotFittedError):
            Est().predict(X)
        with pytest.raises(NotFittedError):
            Est().unlearn(X, y)


# ------------------------------------------- huge values (issue 14, items 7 and 10)
@pytest.mark.parametrize("Est", [GaussianNB, MultinomialNB, PoissonNB, ComplementNB])
def test_overflowing_statistics_are_a_clear_error(Est: type) -> None:
    Xh = X.copy()
    Xh[[0, 2], 0] = 1e308  # finite, but the sums of class 0 (and squares) are not
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"statistics of .* overflowed.*Rescale the features"):
            Est().fit(Xh, y)
    clf = Est().fit(X, y)
    before = clf.predict_proba(X)
    with pytest.raises(ValueError, match="overflowed"):
        clf.partial_fit(Xh, y)
    np.testing.assert_array_equal(clf.predict_proba(X), before)


@pytest.mark.parametrize("code", [1e308, 10**7, 2**20])
def test_categorical_code_above_the_bound(code: float) -> None:
    from nbayes._validation import MAX_CATEGORY_CODE

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(
            ValueError, match=f"above the largest CategoricalNB learns \\({MAX_CATEGORY_CODE}\\)"
        ):
            CategoricalNB().fit([[code], [1]], [0, 1])
        clf = CategoricalNB().fit([[0], [1]], [0, 1])
        # at predict time a huge code is an unseen category
        np.testing.assert_allclose(clf.predict_proba([[code]]), [[0.5, 0.5]])
    assert CategoricalNB().fit([[MAX_CATEGORY_CODE], [1]], [0, 1]).n_categories_[0] == 2**20
