"""to_sklearn / from_sklearn against scikit-learn as the reference (docs/interop.md).

* a scikit-learn model converted to nbayes predicts as it does, holds the statistics of
  nbayes's fit on the same data, and converts back to the same fitted attributes, bit for bit;
* an nbayes model converted to scikit-learn predicts as it does and converts back to the same
  statistics (and bit-identical probabilities);
* the converted model learns as nbayes: update, unlearn and merge equal nbayes models fitted
  on the data they add up to; scikit-learn's partial_fit continues a to_sklearn() model as it
  continues its own;
* hyperparameters, unfitted models, label types, feature names, float32 Gaussian models;
* the errors: subclasses, other classes, labelled categories, attributes changed after the
  fit or left by another scikit-learn version.
"""

from __future__ import annotations

import os
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import naive_bayes as skl

import nbayes
from nbayes.interop.sklearn import SklearnCounterpart

MAX_EXAMPLES = int(os.environ.get("NBAYES_MAX_EXAMPLES", "25"))
SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
NAMES = ("MultinomialNB", "BernoulliNB", "ComplementNB", "CategoricalNB", "GaussianNB")
WORDS = np.array(["ant", "bee", "cat", "dog"])
#: a few units in the last place (relative): what a GaussianNB's var_ and epsilon_ may differ
#: by where no statistics give them exactly
ULPS = 1e-15


# --------------------------------------------------------------------------- strategies
def kind_of(name: str) -> str:
    return {"GaussianNB": "gaussian", "CategoricalNB": "categorical"}.get(name, "count")


@st.composite
def labels(draw, n: int) -> np.ndarray:
    """Labels of every type scikit-learn takes: ints (not 0..k-1), str, object, integral
    floats, bools."""
    label_type = draw(st.sampled_from(["int", "str", "object", "float", "bool"]))
    n_classes = 2 if label_type == "bool" else draw(st.integers(1, 4))
    codes = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    return {
        "int": lambda: codes * 3 - 2,
        "str": lambda: WORDS[codes],
        "object": lambda: WORDS.astype(object)[codes],
        "float": lambda: codes * 2.0 - 1.0,
        "bool": lambda: codes == 1,
    }[label_type]()


@st.composite
def features(draw, kind: str, n: int, d: int) -> np.ndarray:
    if kind == "count":
        element = st.one_of(st.just(0), st.integers(0, 4), st.integers(0, 60))
        return draw(hnp.arrays(np.int64, (n, d), elements=element))
    if kind == "categorical":
        return draw(hnp.arrays(np.int64, (n, d), elements=st.integers(0, 4)))
    # floats on a grid, an offset per feature (the M2 recovery is exercised off zero)
    X = draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-1000, 1000))) / 100.0
    assume(np.ptp(X, axis=0).max() > 0)
    offset = draw(st.sampled_from([0.0, 1e3, -1e5]))
    return X + offset


@st.composite
def hyperparameters(draw, name: str, n_features: int, n_classes: int) -> dict:
    """Valid, smoothed hyperparameters that scikit-learn handles (its BernoulliNB mishandles
    an array alpha; alpha below 1e-10 with force_alpha=False warns)."""
    if name == "GaussianNB":
        params: dict = {"var_smoothing": draw(st.sampled_from([1e-9, 1e-6, 1e-2, 0.5]))}
        if draw(st.booleans()):
            p = np.asarray(draw(st.lists(st.integers(1, 9), min_size=n_classes,
                                         max_size=n_classes)), dtype=float)  # fmt: skip
            params["priors"] = p / p.sum()
        return params
    alpha = st.one_of(st.sampled_from([1.0, 0.5, 1e-3]), st.floats(0.01, 5.0))
    params = {"fit_prior": draw(st.booleans()), "force_alpha": draw(st.booleans())}
    if name in ("MultinomialNB", "ComplementNB") and draw(st.booleans()):
        params["alpha"] = np.asarray(draw(st.lists(alpha, min_size=n_features,
                                                   max_size=n_features)))  # fmt: skip
    else:
        params["alpha"] = draw(alpha)
    if draw(st.integers(0, 3)) == 0:
        p = np.asarray(draw(st.lists(st.integers(1, 9), min_size=n_classes,
                                     max_size=n_classes)), dtype=float)  # fmt: skip
        params["class_prior"] = p / p.sum()
    if name == "BernoulliNB":
        params["binarize"] = draw(st.sampled_from([0.0, 1.0, 2.5, None]))
    if name == "ComplementNB":
        params["norm"] = n_features > 1 and draw(st.booleans())  # 1 feature: 0/0 weights
    if name == "CategoricalNB" and draw(st.booleans()):
        params["min_categories"] = draw(st.integers(1, 7))
    return params


@st.composite
def problems(draw, name: str, min_rows: int = 1, weighted: bool = True):
    """(X, y, hyperparameters, sample_weight or None) for model ``name``."""
    kind = kind_of(name)
    n = draw(st.integers(min_rows, 25))
    d = draw(st.integers(1, 6))
    X, y = draw(features(kind, n, d)), draw(labels(n))
    params = draw(hyperparameters(name, d, len(np.unique(y))))
    if params.get("binarize", 0.0) is None:  # BernoulliNB(binarize=None) takes 0/1 data
        X = (X > 0).astype(X.dtype)
    sw = None
    if weighted and draw(st.booleans()):
        sw = draw(hnp.arrays(np.float64, n, elements=st.integers(1, 400).map(lambda v: v / 100)))
    return X, y, params, sw


def query(name: str, X: np.ndarray, seed: int, sk=None) -> np.ndarray:
    """The training rows and fresh ones (categories scikit-learn knows: it raises on others)."""
    rng = np.random.default_rng(seed)
    kind = kind_of(name)
    if kind == "count":
        fresh = rng.integers(0, 8, size=(6, X.shape[1]))
    elif kind == "categorical":
        high = np.asarray([c.shape[1] for c in sk.category_count_])
        fresh = rng.integers(0, np.maximum(high, 1), size=(6, X.shape[1]))
    else:
        fresh = X.mean(axis=0) + rng.uniform(-12, 12, size=(6, X.shape[1]))
    return np.vstack([X, fresh]).astype(X.dtype)


# ------------------------------------------------------------------------------ helpers
def fitted_attributes(model) -> dict:
    """scikit-learn's fitted attributes of a scikit-learn model, as copies."""
    out = {}
    for k, v in vars(model).items():
        if k.endswith("_") and not k.startswith("_"):
            out[k] = [np.array(a) for a in v] if isinstance(v, list) else np.array(v)
    return out


def assert_identical(a: dict, b: dict) -> None:
    assert sorted(a) == sorted(b)
    for k in a:
        if isinstance(a[k], list):
            assert len(a[k]) == len(b[k]), k
            for u, v in zip(a[k], b[k], strict=True):
                assert_array_equal(u, v, strict=True, err_msg=k)
        else:
            assert_array_equal(a[k], b[k], strict=True, err_msg=k)


def assert_converted_back(back: dict, before: dict) -> None:
    """Bit for bit, but a GaussianNB's var_ to 1 ulp where no M2 gives it exactly."""
    if "var_" in before:
        back, before = dict(back), dict(before)
        assert_allclose(back.pop("var_"), before.pop("var_"), rtol=ULPS, atol=0)
    assert_identical(back, before)


def assert_close(a: dict, b: dict, rtol: float, atol: float = 0.0) -> None:
    assert sorted(a) == sorted(b)
    for k in a:
        pairs = zip(a[k], b[k], strict=True) if isinstance(a[k], list) else [(a[k], b[k])]
        for u, v in pairs:
            if np.asarray(v).dtype.kind in "fiu" and np.asarray(v).dtype != bool:
                assert_allclose(u, v, rtol=rtol, atol=atol, err_msg=k)
            else:
                assert_array_equal(u, v, err_msg=k)


def _moments_rounding(model, Q) -> np.ndarray | float:
    """What the rounding of a Gaussian's moments moves its probabilities by (0 for the
    other models). Two computations of a class's moments (one fit; a fit, an update and a
    merge) differ by a few ulps of the means, and the variance, merged from the parts'
    (Chan's ``delta**2`` term: means ~1e5 apart by ~0.01), by a few ulps of the means over
    the standard deviation, relatively. A joint log-likelihood moves by
    ``|q - mean| dmean / var + ((q - mean)**2 / (2 var) + 1/2) dvar / var`` per feature,
    and the probabilities by at most half the largest move (softmax's Jacobian). (A fixed
    1e-9 failed: 1.3e-9 at means ~-1e5 with variances ~2e-5; the bound there ~1e-8.)"""
    if not hasattr(model, "var_"):
        return 0.0
    theta, var = model.theta_, model.var_
    ulps = 8 * np.spacing(np.abs(theta))[None]
    d = np.abs(Q[:, None, :] - theta[None])
    relative = ulps / np.sqrt(var)[None]
    moved = d * ulps / var[None] + (d**2 / (2 * var[None]) + 0.5) * relative
    return 0.5 * moved.sum(axis=2).max(axis=1, keepdims=True)


def assert_same_predictions(ours, theirs, Q, atol: float = 1e-10) -> None:
    """Probabilities to ``atol``, plus what the rounding of a joint log-likelihood (1e-13 of
    it) moves them by: a Gaussian's tiny variance makes huge, ill-conditioned ones. Labels
    equal except where the two best classes tie to rounding (either may win)."""
    p_ours, p_theirs = ours.predict_proba(Q), theirs.predict_proba(Q)
    jll = np.abs(theirs.predict_joint_log_proba(Q))
    scale = np.max(np.where(np.isfinite(jll), jll, 0.0), axis=1, keepdims=True)
    bound = atol + 1e-13 * scale + _moments_rounding(theirs, Q)
    assert np.all(np.abs(p_ours - p_theirs) <= bound)
    pred_ours, pred_theirs = ours.predict(Q), theirs.predict(Q)
    top2 = np.sort(p_theirs, axis=1)[:, -2:]
    tie = top2[:, -1] - top2[:, 0] <= 4 * atol  # one class: no tie (nor difference)
    assert np.all((np.asarray(pred_ours) == np.asarray(pred_theirs)) | tie)


def statistics(model) -> dict:
    """The statistics of an nbayes model, as arrays (to compare two models')."""
    s = model._stats
    names = {
        "CountStats": ("classes", "class_count", "feature_count"),
        "CategoryStats": ("classes", "class_count", "category_count", "categories"),
        "MomentStats": ("classes", "class_count", "mean", "m2", "n_rows", "row_mean", "row_m2"),
    }[type(s).__name__]
    # (scikit-learn keeps object labels as str: the labels, not their array type)
    return {"classes": np.array(s.classes.tolist())} | {
        k: [np.array(a) for a in getattr(s, k)]
        if isinstance(getattr(s, k), tuple)
        else np.array(getattr(s, k))
        for k in names[1:]
    }


def sk_model(name: str, params: dict):
    return getattr(skl, name)(**params)


def nb_model(name: str, params: dict):
    return getattr(nbayes, name)(**params)


# ---------------------------------------------------- scikit-learn -> nbayes -> back
@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_from_sklearn_predicts_as_sklearn_and_converts_back_bit_for_bit(name, data):
    X, y, params, sw = data.draw(problems(name, weighted=name != "GaussianNB"))
    sk = sk_model(name, params).fit(X, y, sample_weight=sw)
    before = fitted_attributes(sk)
    ours = getattr(nbayes, name).from_sklearn(sk)
    assert_identical(fitted_attributes(sk), before)  # the scikit-learn model is unchanged

    Q = query(name, X, len(y), sk)
    assert_same_predictions(ours, sk, Q)
    # its statistics are those of nbayes's own fit on the data
    # (weighted sums: to rounding, as both libraries add in their own order)
    native = nb_model(name, params).fit(X, y, sample_weight=sw)
    if name == "GaussianNB":
        assert_close(statistics(ours), statistics(native), rtol=1e-9, atol=1e-9)
    elif sw is not None:
        assert_close(statistics(ours), statistics(native), rtol=1e-12)
    else:
        assert_identical(statistics(ours), statistics(native))
    # back: every fitted attribute of scikit-learn's model, bit for bit
    assert_converted_back(fitted_attributes(ours.to_sklearn()), before)


@pytest.mark.parametrize("name", ["GaussianNB"])
@SETTINGS
@given(data=st.data())
def test_gaussian_from_sklearn_with_weights_and_partial_fit_history(name, data):
    """Weights, and partial_fit's epsilon_ of the latest batch: scikit-learn's attributes do
    not give the rows' moments behind epsilon_; the conversion still predicts as scikit-learn
    (the variances of the classes seen bit for bit), converts back to the same and saves and
    loads."""
    X, y, params, sw = data.draw(problems(name, min_rows=2))
    cut = data.draw(st.integers(1, len(y) - 1))
    sk = sk_model(name, params)
    history = data.draw(st.booleans())
    if history:
        sk.partial_fit(X[:cut], y[:cut], classes=np.unique(y))
        sk.partial_fit(X[cut:], y[cut:])
    else:
        sk.fit(X, y, sample_weight=sw)
    seen = sk.class_count_ > 0
    assume((sk.var_[seen] > 0).all())  # else scikit-learn's own probabilities are NaN
    before = fitted_attributes(sk)
    ours = nbayes.GaussianNB.from_sklearn(sk)
    # bit for bit where the statistics can give it (dividing by a count and scaling by
    # var_smoothing skip some doubles): a few ulps
    assert_allclose(ours.var_[seen], sk.var_[seen], rtol=ULPS, atol=0)
    # epsilon_: scikit-learn's, or the smallest variance it holds where that is below it
    assert_allclose(ours.epsilon_, min(sk.epsilon_, sk.var_[seen].min()), rtol=ULPS, atol=0)
    assert_same_predictions(ours, sk, query(name, X, len(y)))
    back = fitted_attributes(ours.to_sklearn())
    for k in ("var_", "theta_"):
        back[k], before[k] = back[k][seen], before[k][seen]
    if not history:
        assert_allclose(back["epsilon_"], before["epsilon_"], rtol=ULPS, atol=0)
    back["epsilon_"] = before["epsilon_"]
    assert_converted_back(back, before)
    loaded = nbayes.load(_saved(ours, data))
    assert_array_equal(loaded.predict_proba(X), ours.predict_proba(X), strict=True)


def _saved(model, data) -> str:
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), f"m{data.draw(st.integers(0, 10**6))}.nbayes")
    nbayes.save(model, path)
    return path


# ---------------------------------------------------- nbayes -> scikit-learn -> back
@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_to_sklearn_predicts_as_nbayes_and_converts_back(name, data):
    X, y, params, sw = data.draw(problems(name))
    ours = nb_model(name, params).fit(X, y, sample_weight=sw)
    sk = ours.to_sklearn()
    Q = query(name, X, len(y), sk)
    assert_same_predictions(sk, ours, Q)
    # the attributes of scikit-learn's own fit on the data
    ref = sk_model(name, params).fit(X, y, sample_weight=sw)
    assert_close(fitted_attributes(sk), fitted_attributes(ref), rtol=1e-9, atol=1e-12)
    # back: the same statistics, and bit for bit the same probabilities
    back = type(ours).from_sklearn(sk)
    if name == "GaussianNB":
        # the means' second word and, after a weighted fit, the rows' moments are lost
        kept, lost = statistics(back), statistics(ours)
        if sw is not None:
            for k in ("n_rows", "row_mean", "row_m2"):
                del kept[k], lost[k]
        assert_close(kept, lost, rtol=1e-9, atol=1e-9)
        assert_allclose(back.var_, ours.var_, rtol=ULPS, atol=0)
        # a mean off by at most an ulp moves a class's joint log-likelihood by at most
        # sum_j |q_j - mean_j| ulp(mean_j) / var_j, and the probabilities by at most half
        # the largest move (softmax's Jacobian), plus their own rounding. (A fixed 1e-14
        # failed in CI: 1.1e-14 at means ~997 with var_smoothing=0.5.)
        theta, var = ours.theta_, ours.var_
        moved = np.abs(Q[:, None, :] - theta[None]) * np.spacing(np.abs(theta))[None] / var[None]
        bound = 0.5 * moved.sum(axis=2).max(axis=1) + 1e-14
        difference = np.abs(back.predict_proba(Q) - ours.predict_proba(Q)).max(axis=1)
        assert np.all(difference <= bound), (difference, bound)
    else:
        assert_identical(statistics(back), statistics(ours))
        assert_array_equal(back.predict_proba(Q), ours.predict_proba(Q), strict=True)
    assert back.get_params().keys() == ours.get_params().keys()


# ------------------------------------------------ the converted model learns as nbayes
@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_converted_model_updates_unlearns_and_merges_as_nbayes(name, data):
    # Gaussian: one unweighted fit, whose rows' moments scikit-learn's attributes give
    X, y, params, sw = data.draw(problems(name, min_rows=2, weighted=name != "GaussianNB"))
    params.pop("class_prior", None)  # priors of every class: parts of the data have fewer
    params.pop("priors", None)
    sw = np.ones(len(y)) if sw is None else sw
    cut = data.draw(st.integers(1, len(y) - 1))
    A, B = slice(0, cut), slice(cut, None)
    if name == "GaussianNB":  # (constant data: epsilon 0, point masses, NaN posteriors)
        assume(np.ptp(X[A], axis=0).max() > 0 and np.ptp(X[B], axis=0).max() > 0)
    sk = sk_model(name, params).fit(X[A], y[A], sample_weight=sw[A])
    whole = nb_model(name, params).fit(X, y, sample_weight=sw)
    Q = query(name, X, len(y), sk_model(name, params).fit(X, y))
    atol = 1e-9

    updated = getattr(nbayes, name).from_sklearn(sk).update(X[B], y[B], sample_weight=sw[B])
    assert_same_predictions(updated, whole, Q, atol)
    assert_close(statistics(updated), statistics(whole), rtol=1e-9, atol=1e-9)

    other = nb_model(name, params).fit(X[B], y[B], sample_weight=sw[B])
    merged = getattr(nbayes, name).from_sklearn(sk).merge(other)
    assert_same_predictions(merged, whole, Q, atol)

    first = nb_model(name, params).fit(X[A], y[A], sample_weight=sw[A])
    unlearned = updated.unlearn(X[B], y[B], sample_weight=sw[B])
    assert_same_predictions(unlearned, first, query(name, X[A], cut, sk), atol)


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_sklearn_partial_fit_continues_a_to_sklearn_model(name, data):
    """scikit-learn's partial_fit after to_sklearn() is its partial_fit after its own fit
    on the same data; for the count models that is also nbayes's update. (GaussianNB's
    partial_fit takes epsilon_ from the latest batch, nbayes from all rows: README.)"""
    X, y, params, sw = data.draw(problems(name, min_rows=2))
    sw = np.ones(len(y)) if sw is None else sw
    cut = data.draw(st.integers(1, len(y) - 1))
    A, B = slice(0, cut), slice(cut, None)
    classes = np.unique(y)  # classes missing from A have zero counts
    ours = nb_model(name, params).partial_fit(X[A], y[A], classes=classes, sample_weight=sw[A])
    continued = ours.to_sklearn().partial_fit(X[B], y[B], sample_weight=sw[B])
    ref = sk_model(name, params)
    ref.partial_fit(X[A], y[A], classes=classes, sample_weight=sw[A])
    ref.partial_fit(X[B], y[B], sample_weight=sw[B])
    assert_close(fitted_attributes(continued), fitted_attributes(ref), rtol=1e-9, atol=1e-9)
    if name != "GaussianNB":
        ours.update(X[B], y[B], sample_weight=sw[B])
        assert_same_predictions(continued, ours, query(name, X, len(y), continued))


# ----------------------------------------------------------------- what is converted
@pytest.mark.parametrize("name", NAMES)
def test_unfitted_models_convert_their_hyperparameters(name):
    params = {
        "MultinomialNB": {"alpha": np.array([0.5, 2.0]), "fit_prior": False},
        "BernoulliNB": {"alpha": 0.25, "binarize": None, "class_prior": [0.3, 0.7]},
        "ComplementNB": {"alpha": 2.0, "norm": True, "force_alpha": False},
        "CategoricalNB": {"alpha": 0.5, "min_categories": [3, 4]},
        "GaussianNB": {"priors": [0.25, 0.75], "var_smoothing": 1e-3},
    }[name]
    sk = sk_model(name, params)
    ours = getattr(nbayes, name).from_sklearn(sk)
    assert not ours.__sklearn_is_fitted__()
    for k, v in sk.get_params().items():
        assert_array_equal(ours.get_params()[k], v)
    assert ours.get_params().keys() == sk.get_params().keys()
    back = ours.to_sklearn()
    assert type(back) is type(sk) and not hasattr(back, "classes_")
    for k, v in sk.get_params().items():
        assert_array_equal(back.get_params()[k], v)
    # copies: changing one side's array changes nothing on the other
    if name == "MultinomialNB":
        sk.alpha[0] = 9.0
        assert ours.alpha[0] == 0.5 and back.alpha[0] == 0.5


def test_feature_names_and_dataframes_convert():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"free": [2, 0, 1, 0], "money": [1, 0, 3, 0], "lunch": [0, 2, 0, 3]})
    y = ["spam", "ham", "spam", "ham"]
    sk = skl.MultinomialNB().fit(X, y)
    ours = nbayes.MultinomialNB.from_sklearn(sk)
    assert list(ours.feature_names_in_) == ["free", "money", "lunch"]
    assert ours.n_features_in_ == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names" warning
        assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-12)
        assert list(ours.explain(X.iloc[:1]).feature_names) == ["free", "money", "lunch"]
        back = ours.to_sklearn()
        assert list(back.feature_names_in_) == ["free", "money", "lunch"]
        back.partial_fit(X, y)
    with pytest.raises(ValueError, match="feature names"):
        ours.predict(X[["money", "free", "lunch"]])


def test_explain_of_a_converted_model_is_its_posterior():
    X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0], [0, 0, 4]])
    sk = skl.MultinomialNB(alpha=1.0).fit(X, ["ham", "spam", "ham", "spam"])
    ours = nbayes.MultinomialNB.from_sklearn(sk)
    e = ours.explain([1, 2, 0], exact=True)
    assert_allclose(np.exp(e.log_posterior), sk.predict_proba([[1, 2, 0]])[0], atol=1e-12)


def test_categorical_partial_fit_history_and_min_categories():
    """scikit-learn's n_categories_ after partial_fit is that of the latest batch; the
    counts' widths are what the statistics hold."""
    sk = skl.CategoricalNB(min_categories=[2, 5])
    sk.partial_fit([[0, 4], [3, 1]], ["a", "b"], classes=["a", "b", "c"])
    sk.partial_fit([[1, 0]], ["a"])
    ours = nbayes.CategoricalNB.from_sklearn(sk)
    assert [c.shape[1] for c in ours.category_count_] == [4, 5]
    Q = np.array([[0, 0], [3, 4], [2, 2]])
    assert_allclose(ours.predict_proba(Q), sk.predict_proba(Q), atol=1e-12)
    assert ours.class_count_.tolist() == [2.0, 1.0, 0.0]
    ours.update([[5, 1]], ["c"])  # a code beyond the counts, and a class seen now
    ref = nbayes.CategoricalNB(min_categories=[2, 5]).fit(
        [[0, 4], [3, 1], [1, 0], [5, 1]], ["a", "b", "a", "c"]
    )
    assert_allclose(ours.predict_proba(Q), ref.predict_proba(Q), atol=1e-12)


def test_gaussian_float32_converts_in_float32():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3)).astype(np.float32)
    y = np.arange(30) % 3
    sk = skl.GaussianNB().fit(X, y)
    ours = nbayes.GaussianNB.from_sklearn(sk)
    assert ours.var_.dtype == np.float32 and ours.predict_proba(X).dtype == np.float32
    assert_allclose(ours.var_, sk.var_, rtol=1.2e-7, atol=0)  # 1 ulp of float32
    assert_allclose(ours.predict_proba(X), sk.predict_proba(X), atol=1e-6)
    assert_identical(fitted_attributes(ours.to_sklearn()), fitted_attributes(sk))


def test_gaussian_m2_is_recovered_from_var_to_its_precision():
    """M2 = n·(var_ - epsilon_) to the rounding of var_; where epsilon_ dwarfs a variance,
    what var_ cannot hold is lost (the predictions are still scikit-learn's)."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(0, 1e3, 40), 5.0 + rng.normal(0, 1e-4, 40)])
    y = np.arange(40) % 2
    native = nbayes.GaussianNB().fit(X, y)
    ours = nbayes.GaussianNB.from_sklearn(skl.GaussianNB().fit(X, y))
    m2, true = ours._stats.m2, native._stats.m2
    error = np.abs(m2 / true - 1)
    # M2's relative error: the rounding of var_ = v + epsilon_ relative to v, about
    # 2^-53 (1 + epsilon_ / v): a double's precision for the large feature, ~1e5 times
    # that for the tiny one (v ~ 1e-8, epsilon_ ~ 1e-3)
    v = true / native.class_count_[:, None]
    bound = 4 * 2.0**-53 * (1 + native.epsilon_ / v)
    assert np.all(error <= bound)
    assert error[:, 0].max() < 1e-15 and error[:, 1].max() > 1e-14
    assert_allclose(ours.predict_proba(X), native.predict_proba(X), atol=1e-12)


def test_the_same_data_gives_the_same_statistics_both_ways():
    """Counts are copied exactly: scikit-learn's float counts from weights included."""
    X = np.array([[1, 0, 2], [0, 5, 0], [3, 1, 1]])
    y = np.array([10, 20, 10])
    w = np.array([0.1, 0.2, 0.3])
    sk = skl.ComplementNB().fit(X, y, sample_weight=w)
    ours = nbayes.ComplementNB.from_sklearn(sk)
    assert_array_equal(ours.feature_count_, sk.feature_count_, strict=True)
    assert_array_equal(ours.feature_all_, sk.feature_all_, strict=True)
    assert ours.classes_.dtype == sk.classes_.dtype


# ---------------------------------------------------------------------------- errors
def test_subclasses_do_not_convert():
    class MyNB(skl.MultinomialNB):
        pass

    with pytest.raises(TypeError, match="MyNB is a subclass of sklearn.naive_bayes.MultinomialNB"):
        nbayes.MultinomialNB.from_sklearn(MyNB().fit([[1, 0]], [1]))

    class Ours(nbayes.MultinomialNB):
        pass

    with pytest.raises(TypeError, match=r"subclass of nbayes\.MultinomialNB"):
        Ours().fit([[1, 0]], [1]).to_sklearn()
    with pytest.raises(TypeError, match=r"subclass of nbayes\.MultinomialNB"):
        Ours.from_sklearn(skl.MultinomialNB())


def test_other_classes_are_refused_with_the_right_one():
    with pytest.raises(TypeError, match=re.escape("Use nbayes.GaussianNB.from_sklearn")):
        nbayes.MultinomialNB.from_sklearn(skl.GaussianNB())
    with pytest.raises(TypeError, match="already an nbayes model"):
        nbayes.MultinomialNB.from_sklearn(nbayes.MultinomialNB())
    with pytest.raises(TypeError, match="LogisticRegression"):
        from sklearn.linear_model import LogisticRegression

        nbayes.BernoulliNB.from_sklearn(LogisticRegression())
    assert not hasattr(nbayes.PoissonNB, "to_sklearn")  # scikit-learn has no Poisson model
    assert issubclass(nbayes.GaussianNB, SklearnCounterpart)


def test_labelled_categories_do_not_convert():
    model = nbayes.CategoricalNB().fit([["red"], ["blue"]], [0, 1])
    with pytest.raises(ValueError, match="labelled categories.*OrdinalEncoder"):
        model.to_sklearn()


def test_attributes_changed_after_fit_are_refused():
    X, y = [[1, 0, 2], [0, 3, 1]], ["a", "b"]
    sk = skl.MultinomialNB(alpha=1.0).fit(X, y)
    sk.set_params(alpha=0.1)  # feature_log_prob_ still has alpha=1
    with pytest.raises(ValueError, match=r"feature_log_prob_ is not what its counts.*set_params"):
        nbayes.MultinomialNB.from_sklearn(sk)
    g = skl.GaussianNB().fit(np.array([[0.0], [1.0], [5.0]]), y + ["a"])
    g.set_params(var_smoothing=0.0)  # epsilon_ of var_smoothing=1e-9 remains
    with pytest.raises(ValueError, match="epsilon_ is not what"):
        nbayes.GaussianNB.from_sklearn(g)
    b = skl.BernoulliNB().fit(X, y)
    b.feature_count_[0, 0] = -1.0
    with pytest.raises(ValueError, match="feature_count_ holds negative or non-finite"):
        nbayes.BernoulliNB.from_sklearn(b)
    b = skl.BernoulliNB().fit(X, y)
    b.feature_count_ = b.feature_count_[:, :2]
    with pytest.raises(ValueError, match=re.escape("feature_count_ has shape (2, 2)")):
        nbayes.BernoulliNB.from_sklearn(b)


def test_attributes_of_another_sklearn_version_are_refused():
    g = skl.GaussianNB().fit([[0.0], [1.0], [3.0]], [0, 1, 1])
    g.sigma_ = g.__dict__.pop("var_")  # scikit-learn < 1.0 named it sigma_
    with pytest.raises(ValueError, match=r"lacks the fitted attribute\(s\) \['var_'\].*sigma_"):
        nbayes.GaussianNB.from_sklearn(g)


def test_parameters_nbayes_does_not_know_are_refused_unless_default():
    class Future(skl.MultinomialNB):  # a scikit-learn with a new parameter
        def __init__(self, *, alpha=1.0, fit_prior=True, class_prior=None, force_alpha=True,
                     smoothing="additive"):  # fmt: skip
            super().__init__(alpha=alpha, fit_prior=fit_prior, class_prior=class_prior,
                             force_alpha=force_alpha)  # fmt: skip
            self.smoothing = smoothing

    from nbayes.interop.sklearn import _hyperparameters

    assert "smoothing" not in _hyperparameters(Future().get_params(), nbayes.MultinomialNB, Future)
    with pytest.raises(ValueError, match="no parameter smoothing='kneser-ney'"):
        _hyperparameters(Future(smoothing="kneser-ney").get_params(), nbayes.MultinomialNB, Future)


def test_a_setting_changed_since_the_fit_is_refused_by_to_sklearn():
    model = nbayes.MultinomialNB().fit([[1, 2]], ["a"])
    model.set_params(alpha=-1.0)
    with pytest.raises(ValueError, match="'alpha' parameter of MultinomialNB"):
        model.to_sklearn()


def test_merging_a_scikit_learn_model_says_so_and_how_to_convert_it():
    """Not 'Cannot merge a MultinomialNB with a MultinomialNB' (issue 28, trap 5)."""
    X, y = np.array([[2, 0], [0, 3]]), ["a", "b"]
    MultinomialNB = nbayes.MultinomialNB
    ours, theirs = MultinomialNB().fit(X, y), skl.MultinomialNB().fit(X, y)
    with pytest.raises(ValueError, match=r"scikit-learn model .*nbayes\.MultinomialNB\.from_sk"):
        ours.merge(theirs)
    merged = ours.merge(MultinomialNB.from_sklearn(theirs))
    assert merged.class_count_.tolist() == [2.0, 2.0]
