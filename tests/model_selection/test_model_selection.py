"""Model selection by count subtraction equals scikit-learn's refit per split and per setting.

Every comparison runs the same splits through scikit-learn (``cross_val_score``,
``cross_validate``, ``GridSearchCV``) twice: with the nbayes estimator refitted per split
(the reference: the per-split model must equal a fit on the training rows) and, where it
exists, with scikit-learn's own Naive Bayes estimator.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import naive_bayes as skl
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    LeaveOneOut,
    ParameterGrid,
    PredefinedSplit,
    RepeatedStratifiedKFold,
    ShuffleSplit,
    StratifiedKFold,
)
from sklearn.model_selection import cross_validate as sk_cross_validate

import nbayes
from nbayes.model_selection import NBSearchCV, _NBCounter, _TrainingStatistics, cross_validate

ALL_MODELS = ("BernoulliNB", "MultinomialNB", "ComplementNB", "CategoricalNB", "GaussianNB",
              "PoissonNB")  # fmt: skip

GRIDS: dict[str, dict[str, list[Any]]] = {
    "MultinomialNB": {"alpha": [0.01, 0.5, 1.0, 3.0], "fit_prior": [True, False]},
    "BernoulliNB": {"alpha": [0.1, 1.0, 2.0], "binarize": [0.0, 1.5]},
    "ComplementNB": {"alpha": [0.1, 1.0, 5.0], "norm": [False, True]},
    "CategoricalNB": {"alpha": [0.1, 1.0, 4.0], "min_categories": [None, 6]},
    "GaussianNB": {"var_smoothing": [1e-9, 1e-3, 0.5], "priors": [None, [0.3, 0.3, 0.4]]},
    "PoissonNB": {"alpha": [0.1, 1.0], "beta": [0.5, 1.0, 2.0]},
}

SCORINGS = ("accuracy", "neg_log_loss", "f1_macro")


def make_data(name: str, n: int = 90, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Three classes, features that separate them a little."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 3
    if name == "GaussianNB":
        X = rng.normal(size=(n, 4)) + y[:, None] * np.array([0.8, -0.5, 0.0, 0.3]) + 10.0
    elif name == "CategoricalNB":
        # every category appears in every class often enough to be in every training split
        X = (rng.integers(0, 4, size=(n, 4)) + y[:, None] * np.array([1, 0, 2, 0])) % 5
    else:
        rates = np.array([[3, 1, 1, 2, 0.5], [1, 3, 1, 0.5, 2], [1, 1, 3, 1, 1]])
        X = rng.poisson(rates[y])
    return X, y


def nb(name: str, **params: Any) -> Any:
    return getattr(nbayes, name)(**params)


def sk(name: str, **params: Any) -> Any:
    return getattr(skl, name)(**params)


def quietly(func: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def refit_scores(
    estimator: Any, X: Any, y: Any, cv: Any, grid: Any, scoring: Any, **kwargs: Any
) -> np.ndarray:
    """scikit-learn's cross_validate, one refit per split and per setting."""
    rows = []
    for params in ParameterGrid(grid):
        res = quietly(
            sk_cross_validate, clone(estimator).set_params(**params), X, y, cv=cv,
            scoring=scoring, **kwargs,
        )  # fmt: skip
        rows.append(res["test_score"])
    return np.array(rows)


def splitters(n: int) -> list[Any]:
    return [
        KFold(5, shuffle=True, random_state=0),
        StratifiedKFold(4),
        ShuffleSplit(4, test_size=0.3, random_state=0),
    ]


# ----------------------------------------------------------------- equal to refitting
@pytest.mark.parametrize("name", ALL_MODELS)
@pytest.mark.parametrize("scoring", SCORINGS)
def test_equals_refit_per_split_and_setting(name: str, scoring: str) -> None:
    X, y = make_data(name)
    grid = GRIDS[name]
    for cv in splitters(len(y)):
        ours = quietly(cross_validate, nb(name), X, y, cv=cv, param_grid=grid, scoring=scoring)
        assert ours["params"] == list(ParameterGrid(grid))
        assert ours["test_score"].shape == (len(ours["params"]), cv.get_n_splits())
        expected = refit_scores(nb(name), X, y, cv, grid, scoring)
        assert_allclose(ours["test_score"], expected, rtol=1e-12, atol=1e-14)
        if name != "PoissonNB":
            sklearn_scores = refit_scores(sk(name), X, y, cv, grid, scoring)
            rtol = 1e-9 if name == "GaussianNB" else 1e-12
            assert_allclose(ours["test_score"], sklearn_scores, rtol=rtol, atol=1e-14)


@pytest.mark.parametrize("name", ALL_MODELS)
def test_leave_one_out(name: str) -> None:
    X, y = make_data(name, n=36, seed=1)
    grid = {k: v[:2] for k, v in GRIDS[name].items()}
    ours = quietly(cross_validate, nb(name), X, y, cv=LeaveOneOut(), param_grid=grid)
    expected = refit_scores(nb(name), X, y, LeaveOneOut(), grid, None)
    assert ours["test_score"].shape == (len(ParameterGrid(grid)), len(y))
    assert_array_equal(ours["test_score"], expected)


@pytest.mark.parametrize("name", ALL_MODELS)
def test_without_grid_is_sklearn_layout(name: str) -> None:
    X, y = make_data(name)
    ours = cross_validate(nb(name), X, y, cv=5, scoring="neg_log_loss")
    theirs = sk_cross_validate(nb(name), X, y, cv=5, scoring="neg_log_loss")
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        assert ours[key].shape == theirs[key].shape
    assert_allclose(ours["test_score"], theirs["test_score"], rtol=1e-12)


@pytest.mark.parametrize(
    "cv",
    [
        GroupKFold(3),
        PredefinedSplit(np.arange(90) % 4 - 1),  # rows with -1 are in every training set
        RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0),
        ShuffleSplit(3, train_size=0.4, test_size=0.3, random_state=1),  # train < held out
        # bootstrap-like: training rows repeated
        [(np.r_[0:40, 0:40], np.arange(40, 90)), (np.r_[30:90, 30:50], np.arange(30))],
    ],
    ids=["group", "predefined", "repeated", "small-train", "repeated-rows"],
)
def test_other_splitters(cv: Any) -> None:
    X, y = make_data("MultinomialNB")
    groups = np.arange(90) // 10 if isinstance(cv, GroupKFold) else None
    grid = GRIDS["MultinomialNB"]
    ours = cross_validate(
        nb("MultinomialNB"), X, y, cv=cv, groups=groups, param_grid=grid, scoring="neg_log_loss"
    )
    expected = refit_scores(nb("MultinomialNB"), X, y, cv, grid, "neg_log_loss", groups=groups)
    assert_allclose(ours["test_score"], expected, rtol=1e-12)


def test_sparse_and_dataframe_input() -> None:
    X, y = make_data("MultinomialNB")
    grid = GRIDS["MultinomialNB"]
    cv = KFold(4, shuffle=True, random_state=2)
    expected = refit_scores(nb("MultinomialNB"), X, y, cv, grid, "neg_log_loss")
    sparse = cross_validate(
        nb("MultinomialNB"), sp.csr_matrix(X), y, cv=cv, param_grid=grid, scoring="neg_log_loss"
    )
    assert_allclose(sparse["test_score"], expected, rtol=1e-12)
    frame = pd.DataFrame(X, columns=[f"w{j}" for j in range(X.shape[1])])
    labels = pd.Series(np.array(["a", "b", "c"])[y])
    framed = cross_validate(nb("MultinomialNB"), frame, labels, cv=cv, param_grid=grid,
                            scoring="neg_log_loss")  # fmt: skip
    assert_allclose(framed["test_score"], expected, rtol=1e-12)
    search = NBSearchCV(nb("MultinomialNB"), grid, cv=cv).fit(frame, labels)
    assert_array_equal(search.feature_names_in_, frame.columns)


# ------------------------------------------------- absent classes, exactly as a refit
def rare_class_data() -> tuple[np.ndarray, np.ndarray]:
    X, y = make_data("MultinomialNB", n=60)
    y = y.copy() % 2
    y[[7, 33]] = 2  # a rare class: absent from the training rows of some splits
    return X, y


@pytest.mark.parametrize("name", ("MultinomialNB", "GaussianNB", "CategoricalNB", "PoissonNB"))
@pytest.mark.parametrize("scoring", SCORINGS)
def test_class_absent_from_training_split(name: str, scoring: str) -> None:
    X, y = rare_class_data()
    if name == "GaussianNB":
        X = X + np.random.default_rng(0).normal(size=X.shape)
    if name == "CategoricalNB":
        X = np.minimum(X, 3)
    grid = {k: v[:2] for k, v in GRIDS[name].items() if k != "priors"}
    for cv in (KFold(6), LeaveOneOut()):
        ours = quietly(cross_validate, nb(name), X, y, cv=cv, param_grid=grid, scoring=scoring)
        expected = refit_scores(nb(name), X, y, cv, grid, scoring)
        assert_allclose(ours["test_score"], expected, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("name", ALL_MODELS)
def test_split_statistics_equal_fit_on_training_rows(name: str) -> None:
    X, y = rare_class_data()
    if name == "GaussianNB":
        X = X + np.random.default_rng(0).normal(size=X.shape)
    if name == "CategoricalNB":
        X = np.minimum(X, 3)
    # class 2: weight 0 in row 7, so when row 33 is held out, its training rows hold
    # class 2 with weight 0 only: fit keeps it (zero count) although subtract drops it
    sw = np.random.default_rng(3).integers(1, 4, size=len(y)).astype(float)
    sw[7] = 0.0
    splits = list(KFold(6).split(X, y)) + list(ShuffleSplit(3, random_state=0).split(X, y))
    counter = _NBCounter(nb(name))
    labels = counter.prepare(X, y, sw)
    source = _TrainingStatistics(counter, splits, len(y), labels)
    for k, (train, _) in enumerate(splits):
        ours = source(k)
        ref = nb(name).fit(X[train], y[train], sample_weight=sw[train])._stats
        assert_array_equal(ours.classes, ref.classes)
        for field in vars(ref):
            a, b = getattr(ours, field), getattr(ref, field)
            if isinstance(b, tuple):
                assert len(a) == len(b)
                for u, v in zip(a, b, strict=True):
                    assert_allclose(u, v, rtol=1e-12, atol=1e-12)
            elif isinstance(b, np.ndarray) and b.dtype.kind in "fiu":
                assert_allclose(a, b, rtol=1e-12, atol=1e-9)
            else:
                assert a == b or np.array_equal(a, b)


# ---------------------------------------------------------- passes over the data
class CountingMultinomialNB(nbayes.MultinomialNB):
    rows_counted = 0
    batches = 0

    def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
        type(self).rows_counted += X.shape[0]
        type(self).batches += 1
        return super()._batch_stats(X, y, sample_weight)


def test_one_counting_pass_for_any_number_of_derivation_settings() -> None:
    X, y = make_data("MultinomialNB")
    CountingMultinomialNB.rows_counted = CountingMultinomialNB.batches = 0
    grid = {"alpha": list(np.linspace(0.1, 2, 10)), "fit_prior": [True, False]}
    cross_validate(CountingMultinomialNB(), X, y, cv=10, param_grid=grid)
    assert CountingMultinomialNB.batches == 10
    assert CountingMultinomialNB.rows_counted == len(y)
    # leave-one-out: the total, then each row once
    CountingMultinomialNB.rows_counted = CountingMultinomialNB.batches = 0
    cross_validate(CountingMultinomialNB(), X, y, cv=LeaveOneOut(), param_grid=grid)
    assert CountingMultinomialNB.rows_counted == 2 * len(y)


def test_other_parameters_cost_one_pass_per_value() -> None:
    X, y = make_data("BernoulliNB")
    calls = []

    class Spy(nbayes.BernoulliNB):
        def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
            calls.append((self.binarize, X.shape[0]))
            return super()._batch_stats(X, y, sample_weight)

    cross_validate(Spy(), X, y, cv=5, param_grid={"binarize": [0.0, 1.0, 2.0], "alpha": [1, 2]})
    assert sorted({b for b, _ in calls}) == [0.0, 1.0, 2.0]
    assert sum(n for _, n in calls) == 3 * len(y)


# ------------------------------------------------------------ NBSearchCV vs GridSearchCV
def assert_same_cv_results(
    ours: dict[str, Any], theirs: dict[str, Any], rtol: float, exact_ranks: bool = True
) -> None:
    """Same keys, settings, scores (to rtol) and ranks as GridSearchCV's ``cv_results_``.

    Against scikit-learn's own estimators, whose scores agree with nbayes' to the last few
    bits only, ties may break differently: ``exact_ranks=False`` checks that the ranks
    agree wherever the mean scores differ by more than ``rtol``.
    """
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        mine = ours[key]
        if key == "params":
            assert mine == value
        elif key.startswith("param_"):
            assert isinstance(mine, np.ma.MaskedArray)
            assert mine.dtype == value.dtype
            assert_array_equal(np.ma.getmaskarray(mine), np.ma.getmaskarray(value))
            assert [str(v) for v in mine.compressed()] == [str(v) for v in value.compressed()]
        elif key.startswith("rank_"):
            assert mine.dtype == value.dtype
            if exact_ranks:
                assert_array_equal(mine, value)
            else:
                means = theirs["mean_" + key[len("rank_") :]]
                apart = ~np.isclose(means[:, None], means[None, :], rtol=rtol, atol=0)
                order_mine = np.sign(mine[:, None] - mine[None, :])
                order_theirs = np.sign(value[:, None] - value[None, :])
                assert_array_equal(order_mine[apart], order_theirs[apart])
        elif "time" in key:
            assert mine.shape == value.shape
            assert np.all(mine >= 0)
        else:
            assert_allclose(mine, value, rtol=rtol, atol=1e-14, equal_nan=True, err_msg=key)


@pytest.mark.parametrize("name", ALL_MODELS)
@pytest.mark.parametrize("scoring", ("accuracy", "neg_log_loss"))
def test_search_equals_gridsearchcv(name: str, scoring: str) -> None:
    X, y = make_data(name, seed=4)
    grid = GRIDS[name]
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    ours = NBSearchCV(nb(name), grid, cv=cv, scoring=scoring).fit(X, y)
    ref = GridSearchCV(nb(name), grid, cv=cv, scoring=scoring).fit(X, y)
    assert_same_cv_results(ours.cv_results_, ref.cv_results_, rtol=1e-12)
    assert ours.best_params_ == ref.best_params_
    assert ours.best_index_ == ref.best_index_
    assert_allclose(ours.best_score_, ref.best_score_, rtol=1e-12)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=1e-12)
    assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.score(X, y) == ref.score(X, y)
    assert ours.n_splits_ == ref.n_splits_
    assert_array_equal(ours.classes_, ref.classes_)
    assert ours.refit_time_ >= 0
    if name != "PoissonNB":
        sk_ref = GridSearchCV(sk(name), grid, cv=cv, scoring=scoring).fit(X, y)
        rtol = 1e-9 if name == "GaussianNB" else 1e-12
        assert_same_cv_results(ours.cv_results_, sk_ref.cv_results_, rtol, exact_ranks=False)
        assert_allclose(ours.best_score_, sk_ref.best_score_, rtol=rtol)


def test_search_list_of_grids_multimetric_and_train_scores() -> None:
    X, y = make_data("BernoulliNB", seed=5)
    grid = [{"alpha": [0.5, 1.0], "binarize": [0.0, 1.0]}, {"fit_prior": [False]}]
    cv = KFold(4, shuffle=True, random_state=3)
    kwargs: dict[str, Any] = dict(
        cv=cv, scoring=["accuracy", "neg_log_loss", "f1_macro"], refit="neg_log_loss",
        return_train_score=True,
    )  # fmt: skip
    ours = NBSearchCV(nb("BernoulliNB"), grid, **kwargs).fit(X, y)
    ref = GridSearchCV(nb("BernoulliNB"), grid, **kwargs).fit(X, y)
    assert_same_cv_results(ours.cv_results_, ref.cv_results_, rtol=1e-12)
    assert ours.best_params_ == ref.best_params_
    assert ours.multimetric_ and ref.multimetric_
    assert sorted(ours.scorer_) == sorted(ref.scorer_)


def test_settings_start_from_the_estimators_own_values() -> None:
    # the second grid leaves alpha alone: it must be the estimator's 0.3, not the 5.0 the
    # previous setting derived with
    X, y = make_data("MultinomialNB")
    grid = [{"alpha": [5.0]}, {"fit_prior": [False]}]
    est = nb("MultinomialNB", alpha=0.3)
    cv = KFold(3, shuffle=True, random_state=0)
    ours = NBSearchCV(est, grid, cv=cv, scoring="neg_log_loss").fit(X, y)
    ref = GridSearchCV(est, grid, cv=cv, scoring="neg_log_loss").fit(X, y)
    assert_same_cv_results(ours.cv_results_, ref.cv_results_, rtol=1e-12)


def test_search_callable_refit_and_no_refit() -> None:
    X, y = make_data("MultinomialNB")
    grid = GRIDS["MultinomialNB"]
    search = NBSearchCV(nb("MultinomialNB"), grid, refit=False).fit(X, y)
    assert not hasattr(search, "best_estimator_")
    with pytest.raises(AttributeError, match="predict"):
        search.predict(X)
    last = NBSearchCV(nb("MultinomialNB"), grid, refit=lambda r: len(r["params"]) - 1).fit(X, y)
    assert last.best_index_ == len(ParameterGrid(grid)) - 1
    assert last.best_estimator_.get_params()["alpha"] == 3.0


def test_search_is_a_scikit_learn_estimator() -> None:
    search = NBSearchCV(nb("MultinomialNB"), {"alpha": [1.0]}, cv=3)
    copy = clone(search)
    assert copy.get_params()["param_grid"] == {"alpha": [1.0]}
    assert sorted(search.get_params(deep=False)) == [
        "cv", "error_score", "estimator", "param_grid", "refit", "return_train_score", "scoring",
    ]  # fmt: skip
    # usable inside scikit-learn's own cross-validation (nested CV)
    X, y = make_data("MultinomialNB")
    scores = sk_cross_validate(search, X, y, cv=3)["test_score"]
    assert scores.shape == (3,)


# --------------------------------------------------------------- sample weights
@pytest.mark.parametrize("name", ALL_MODELS)
def test_sample_weight(name: str) -> None:
    X, y = make_data(name, seed=6)
    rng = np.random.default_rng(7)
    grid = {k: v[:2] for k, v in GRIDS[name].items()}
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    for sw in (rng.integers(0, 4, size=len(y)).astype(float), rng.uniform(0.1, 2, len(y))):
        ours = cross_validate(nb(name), X, y, cv=cv, param_grid=grid, scoring="neg_log_loss",
                              params={"sample_weight": sw})  # fmt: skip
        expected = refit_scores(nb(name), X, y, cv, grid, "neg_log_loss",
                                params={"sample_weight": sw})  # fmt: skip
        assert_allclose(ours["test_score"], expected, rtol=1e-10)
        search = NBSearchCV(nb(name), grid, cv=cv, scoring="neg_log_loss").fit(
            X, y, sample_weight=sw
        )
        ref = GridSearchCV(nb(name), grid, cv=cv, scoring="neg_log_loss").fit(
            X, y, sample_weight=sw
        )
        assert_same_cv_results(search.cv_results_, ref.cv_results_, rtol=1e-10)


# ------------------------------------------------------------------ failures, advice
def test_failed_settings_warn_and_score_nan_like_gridsearchcv() -> None:
    X, y = make_data("MultinomialNB")
    # a prior of the wrong length cannot be derived: a fit failure for that setting
    grid = {"class_prior": [None, [0.5, 0.5]], "alpha": [1.0, 2.0]}
    failed = "4 fits failed out of a total of 8"
    with pytest.warns(FitFailedWarning, match=failed), pytest.warns(UserWarning, match="non-fin"):
        ours = NBSearchCV(nb("MultinomialNB"), grid, cv=2).fit(X, y)
    with pytest.warns(FitFailedWarning, match=failed), pytest.warns(UserWarning, match="non-fin"):
        ref = GridSearchCV(nb("MultinomialNB"), grid, cv=2).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_cv_results(ours.cv_results_, ref.cv_results_, rtol=1e-12)
    assert ours.best_params_ == ref.best_params_
    with pytest.raises(ValueError, match="Number of priors must match number of classes"):
        cross_validate(nb("MultinomialNB"), X, y, param_grid=grid, error_score="raise")
    with pytest.raises(ValueError, match="All the 5 fits failed"):
        cross_validate(nb("MultinomialNB"), X, y, param_grid={"class_prior": [[0.5, 0.5]]})
    with pytest.raises(ValueError, match="All the 5 fits failed"):
        cross_validate(nb("MultinomialNB"), X, y, param_grid={"alpha": [-1.0]})


def test_scoring_failure_is_error_score_with_warning() -> None:
    X, y = rare_class_data()
    # log loss of a split whose model lacks a class of its held-out rows: scikit-learn's
    # scorer fails; both give NaN for that split, with the same warning
    with pytest.warns(UserWarning, match="Scoring failed"):
        ours = cross_validate(nb("MultinomialNB"), X, y, cv=KFold(6), scoring="neg_log_loss")
    with pytest.warns(UserWarning, match="Scoring failed"):
        ref = sk_cross_validate(nb("MultinomialNB"), X, y, cv=KFold(6), scoring="neg_log_loss")
    assert_allclose(ours["test_score"], ref["test_score"], rtol=1e-12, equal_nan=True)
    assert np.isnan(ours["test_score"]).any()


def test_errors_read_like_advice() -> None:
    X, y = make_data("MultinomialNB")
    with pytest.raises(TypeError, match="use sklearn.model_selection|Use sklearn"):
        cross_validate(skl.MultinomialNB(), X, y)
    with pytest.raises(ValueError, match=r"Invalid parameter\(s\) \['alhpa'\].*Valid parameters"):
        cross_validate(nb("MultinomialNB"), X, y, param_grid={"alhpa": [1.0]})
    with pytest.raises(TypeError, match="takes only sample_weight"):
        cross_validate(nb("MultinomialNB"), X, y, params={"classes": [0, 1, 2]})
    with pytest.raises(ValueError, match="no parameter combination"):
        cross_validate(nb("MultinomialNB"), X, y, param_grid=[])
    with pytest.raises(ValueError, match="binarize"):
        cross_validate(nb("BernoulliNB"), X, y, param_grid={"binarize": ["high"]},
                       error_score="raise")  # fmt: skip
    with pytest.raises(ValueError, match="Negative values"):
        cross_validate(nb("MultinomialNB"), -X, y, error_score="raise")


def test_estimator_is_left_alone() -> None:
    X, y = make_data("MultinomialNB")
    est = nb("MultinomialNB", alpha=0.7)
    NBSearchCV(est, {"alpha": [0.1, 2.0]}).fit(X, y)
    cross_validate(est, X, y, param_grid={"alpha": [0.1, 2.0]})
    assert est.get_params()["alpha"] == 0.7
    assert not hasattr(est, "_stats")
    assert "_check_X" not in vars(est)
    with pytest.raises(ValueError, match="pass the labels as y"):
        cross_validate(est, X, None)


# ------------------------------------------------------------- private scikit-learn API
def test_the_private_scikit_learn_api_is_where_we_expect_it() -> None:
    """NBSearchCV subclasses scikit-learn's private BaseSearchCV and scores through its
    private helpers, all imported in nbayes.model_selection._sklearn_private. A release
    that moves or renames one fails here, naming it, rather than somewhere deep in a fit."""
    import inspect

    import sklearn

    from nbayes.model_selection import _sklearn_private as private

    missing = [name for name in private.SEARCH_METHODS if not hasattr(private.BaseSearchCV, name)]
    assert not missing, f"scikit-learn {sklearn.__version__}'s BaseSearchCV lacks {missing}"
    assert issubclass(NBSearchCV, private.BaseSearchCV)
    # the arguments nbayes passes, in the order it passes them
    calls = {
        "score": ["estimator", "X_test", "y_test", "scorer", "score_params", "error_score"],
        "check_method_params": ["X", "params", "indices"],
        "safe_indexing": ["X", "indices"],
        "insert_error_scores": ["results", "error_score"],
        "warn_or_raise_about_fit_failures": ["results", "error_score"],
        "normalize_score_results": ["scores"],
    }
    for name, expected in calls.items():
        params = list(inspect.signature(getattr(private, name)).parameters)
        assert params[: len(expected)] == expected, (
            f"scikit-learn {sklearn.__version__} changed the signature of the private "
            f"{name}: {params}; adapt nbayes/model_selection/_sklearn_private.py"
        )
    # the module is the only one in nbayes that reaches into scikit-learn's privates
    import pathlib
    import re

    root = pathlib.Path(nbayes.__file__).parent
    private_import = re.compile(r"from sklearn[\w.]* import .*\b_[a-z]|sklearn\.[\w.]*\._")
    offenders = [
        str(path.relative_to(root))
        for path in root.joinpath("model_selection").glob("*.py")
        if path.name != "_sklearn_private.py" and private_import.search(path.read_text())
    ]
    assert not offenders, offenders
