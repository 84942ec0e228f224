"""Property-based tests: nbayes equals scikit-learn, and its statistics form an algebra.

* every estimator that scikit-learn also has gives the same fitted attributes and the same
  predictions (dense and CSR input, sample weights, priors, smoothing);
* ``partial_fit``/``update``/``merge``/``unlearn`` over any split of the data equal ``fit``
  on the data they add up to; integer weights equal repeated rows;
* ``sample()`` draws from the fitted model (checked statistically, with fixed seeds);
* numerically hard inputs (huge counts, a large offset under the Gaussian moments).
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy.testing import assert_allclose, assert_array_equal
from scipy import stats as sps
from sklearn import naive_bayes as skl

import nbayes
from nbayes import UndecidableWarning

# NBAYES_MAX_EXAMPLES=1000 for a long bug hunt; the default keeps the file well under 60 s.
MAX_EXAMPLES = int(os.environ.get("NBAYES_MAX_EXAMPLES", "40"))
SETTINGS = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,  # nothing written into the work tree
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FEW = settings(SETTINGS, max_examples=max(MAX_EXAMPLES * 5 // 8, 1))

COUNT_MODELS = ("BernoulliNB", "MultinomialNB", "ComplementNB", "PoissonNB")
SKLEARN_MODELS = ("BernoulliNB", "MultinomialNB", "ComplementNB", "CategoricalNB", "GaussianNB")
ALL_MODELS = (*SKLEARN_MODELS, "PoissonNB")

ATTRIBUTES = (
    "classes_",
    "class_count_",
    "feature_count_",
    "feature_log_prob_",
    "class_log_prior_",
    "feature_all_",
    "category_count_",
    "n_categories_",
    "theta_",
    "var_",
    "epsilon_",
    "class_prior_",
    "rate_",
    "n_features_in_",
)


# --------------------------------------------------------------------------- strategies
def kind_of(name: str) -> str:
    return {"GaussianNB": "gaussian", "CategoricalNB": "categorical"}.get(name, "count")


@st.composite
def labels(draw, n: int, max_classes: int = 4) -> np.ndarray:
    n_classes = draw(st.integers(1, max_classes))
    codes = draw(hnp.arrays(np.int64, n, elements=st.integers(0, n_classes - 1)))
    if draw(st.booleans()):
        return np.array(["ant", "bee", "cat", "dog", "eel", "fox"])[codes]
    return codes * 3 - 2  # integer labels that are not 0..k-1


@st.composite
def features(draw, kind: str, n: int, d: int) -> np.ndarray:
    if kind == "count":
        # mostly small counts with many zeros, sometimes a large one
        element = st.one_of(st.just(0), st.integers(0, 4), st.integers(0, 60))
        return draw(hnp.arrays(np.int64, (n, d), elements=element))
    if kind == "categorical":
        return draw(hnp.arrays(np.int64, (n, d), elements=st.integers(0, 4)))
    # Gaussian: floats on a grid (no denormals), never all rows equal
    X = draw(hnp.arrays(np.int64, (n, d), elements=st.integers(-1000, 1000))) / 100.0
    assume(np.ptp(X, axis=0).max() > 0)
    return X


@st.composite
def datasets(draw, kind: str, min_rows: int = 1, max_rows: int = 25, max_features: int = 6):
    n = draw(st.integers(min_rows, max_rows))
    d = draw(st.integers(1, max_features))
    return draw(features(kind, n, d)), draw(labels(n))


@st.composite
def hyperparameters(
    draw, name: str, n_features: int, n_classes: int, sklearn: bool = False
) -> dict:
    """Valid, smoothed (alpha > 0 / var_smoothing > 0) hyperparameters for ``name``.

    ``sklearn=True``: only what scikit-learn gets right. Its BernoulliNB mishandles an
    array alpha (``class_count_ + alpha * 2`` broadcasts classes against features).
    """
    params: dict = {}
    if name == "GaussianNB":
        params["var_smoothing"] = draw(st.sampled_from([1e-9, 1e-6, 1e-2, 0.5]))
        if draw(st.booleans()):
            p = np.asarray(draw(st.lists(st.integers(1, 9), min_size=n_classes,
                                         max_size=n_classes)), dtype=float)  # fmt: skip
            params["priors"] = p / p.sum()
        return params
    alpha = st.one_of(st.sampled_from([1.0, 0.5, 1e-3]), st.floats(0.01, 5.0))
    array_ok = ("MultinomialNB", "ComplementNB") if sklearn else (
        "MultinomialNB", "BernoulliNB", "ComplementNB")  # fmt: skip
    if name in array_ok and draw(st.booleans()):
        params["alpha"] = np.asarray(draw(st.lists(alpha, min_size=n_features,
                                                   max_size=n_features)))  # fmt: skip
    else:
        params["alpha"] = draw(alpha)
    params["fit_prior"] = draw(st.booleans())
    if draw(st.integers(0, 3)) == 0:
        p = np.asarray(draw(st.lists(st.integers(1, 9), min_size=n_classes,
                                     max_size=n_classes)), dtype=float)  # fmt: skip
        params["class_prior"] = p / p.sum()
    if name == "PoissonNB":
        params["alpha"] = float(np.max(params["alpha"]))
        params["beta"] = draw(st.sampled_from([1.0, 0.5, 2.0]))
    if name == "BernoulliNB":
        params["binarize"] = draw(st.sampled_from([0.0, 1.0, 2.5, None]))
    if name == "ComplementNB":
        # with one feature the normalised weights are 0/0
        params["norm"] = n_features > 1 and draw(st.booleans())
    if name == "CategoricalNB" and draw(st.booleans()):
        params["min_categories"] = draw(st.integers(1, 7))
    return params


def binary_if_unbinarized(params: dict, X: np.ndarray) -> np.ndarray:
    """BernoulliNB(binarize=None) takes X as it is: give it binary data."""
    if "binarize" in params and params["binarize"] is None:
        return (X > 0).astype(X.dtype)
    return X


def weights(n: int, kind: str = "float"):
    if kind == "int":
        return hnp.arrays(np.int64, n, elements=st.integers(1, 4))
    grid = st.integers(1, 400).map(lambda v: v / 100.0)
    return hnp.arrays(np.float64, n, elements=grid)


# ------------------------------------------------------------------------------ helpers
def make(name: str, **params):
    return getattr(nbayes, name)(**params)


def make_sklearn(name: str, **params):
    return getattr(skl, name)(**params)


def n_classes_of(y: np.ndarray) -> int:
    return len(np.unique(y))


def _close(a, b, rtol: float, atol: float, what: str) -> None:
    if isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), what
        for i, (u, v) in enumerate(zip(a, b, strict=True)):
            _close(u, v, rtol, atol, f"{what}[{i}]")
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, f"{what}: shape {a.shape} != {b.shape}"
    if a.dtype.kind in "biufc" and b.dtype.kind in "biufc":
        assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=what)
    else:
        assert_array_equal(a, b, err_msg=what)


def assert_same_attributes(ours, theirs, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    """Every fitted attribute that ``theirs`` has equals ours."""
    compared = 0
    for name in ATTRIBUTES:
        if not hasattr(theirs, name):
            continue
        compared += 1
        _close(getattr(ours, name), getattr(theirs, name), rtol, atol, name)
    assert compared >= 3


def assert_close_posteriors(p_a, p_b, jll, rtol: float, atol: float, what: str) -> None:
    """Posteriors agree up to what the joint log-likelihoods' tolerance allows: an error of
    rtol·|jll| in each log-likelihood moves a posterior by up to ~2·rtol·|jll| (huge |jll|,
    e.g. a tiny Gaussian variance, make the posterior ill-conditioned)."""
    with np.errstate(invalid="ignore"):
        scale = np.max(np.where(np.isfinite(jll), np.abs(jll), 0.0), axis=1, keepdims=True)
    bound = atol + rtol * np.abs(p_b) + 4 * rtol * scale
    gap = np.abs(np.asarray(p_a) - np.asarray(p_b))
    same = (p_a == p_b) | (np.isnan(p_a) & np.isnan(p_b))
    assert np.all(same | (gap <= bound)), f"{what}: max gap/bound {np.nanmax(gap / bound):.3g}"


def assert_same_predictions(
    ours, theirs, X, rtol: float = 1e-10, atol: float = 1e-10, jll_atol: float = 1e-9
) -> None:
    jll_ours, jll_theirs = ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X)
    assert_allclose(jll_ours, jll_theirs, rtol=rtol, atol=jll_atol, err_msg="joint log proba")
    assert_close_posteriors(
        ours.predict_log_proba(X),
        theirs.predict_log_proba(X),
        jll_theirs,
        rtol,
        jll_atol,
        "log proba",
    )
    assert_close_posteriors(
        ours.predict_proba(X), theirs.predict_proba(X), jll_theirs, rtol, atol, "proba"
    )
    pred_ours, pred_theirs = ours.predict(X), theirs.predict(X)
    # Rows whose two best classes tie up to rounding may go either way.
    top2 = np.sort(jll_theirs, axis=1)[:, -2:] if jll_theirs.shape[1] > 1 else None
    for i in range(len(pred_ours)):
        if pred_ours[i] == pred_theirs[i]:
            continue
        assert top2 is not None, f"row {i}: {pred_ours[i]!r} != {pred_theirs[i]!r}"
        gap = top2[i, 1] - top2[i, 0]
        assert gap <= 1e-9 * max(1.0, abs(top2[i, 1])), f"row {i}: prediction differs"


def assert_same_model(a, b, X, rtol: float = 1e-9, atol: float = 1e-9) -> None:
    """Two nbayes models (of the same class) are equal: attributes and predictions."""
    assert type(a) is type(b)
    assert_same_attributes(a, b, rtol=rtol, atol=atol)
    jll = b.predict_joint_log_proba(X)
    assert_allclose(a.predict_joint_log_proba(X), jll, rtol=rtol, atol=atol)
    assert_close_posteriors(a.predict_proba(X), b.predict_proba(X), jll, rtol, atol, "proba")


def snapshot(model) -> dict:
    out = {}
    for name in ATTRIBUTES:
        if hasattr(model, name):
            value = getattr(model, name)
            out[name] = (
                [np.array(v, copy=True) for v in value]
                if isinstance(value, list)
                else np.array(value, copy=True)
            )
    return out


def assert_snapshot_equal(before: dict, after: dict) -> None:
    assert before.keys() == after.keys()
    for name, value in before.items():
        if isinstance(value, list):
            for u, v in zip(value, after[name], strict=True):
                assert_array_equal(u, v, err_msg=name)
        else:
            assert_array_equal(value, after[name], err_msg=name)


def query_rows(kind: str, X: np.ndarray, seed: int, model=None) -> np.ndarray:
    """Rows to predict: the training rows and some fresh ones from the same range."""
    rng = np.random.default_rng(seed)
    m = 7
    if kind == "count":
        fresh = rng.integers(0, 8, size=(m, X.shape[1]))
    elif kind == "categorical":
        # only categories the model knows (scikit-learn raises IndexError on the others)
        high = np.asarray(model.n_categories_) if model is not None else X.max(axis=0) + 1
        fresh = rng.integers(0, np.maximum(high, 1), size=(m, X.shape[1]))
    else:
        fresh = rng.uniform(-12, 12, size=(m, X.shape[1]))
    return np.vstack([X, fresh]).astype(X.dtype)


def split_points(draw, n: int, max_parts: int = 4) -> list[np.ndarray]:
    """Random split of range(n) into non-empty contiguous parts."""
    k = draw(st.integers(1, min(max_parts, n)))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), min_size=k - 1, max_size=k - 1))) if n > 1 \
        else []  # fmt: skip
    edges = [0, *cuts, n]
    return [np.arange(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]


# ------------------------------------------------------------ equal to scikit-learn
@pytest.mark.parametrize("name", SKLEARN_MODELS)
@SETTINGS
@given(data=st.data())
def test_equals_sklearn(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind))
    params = data.draw(hyperparameters(name, X.shape[1], n_classes_of(y), sklearn=True))
    X = binary_if_unbinarized(params, X)
    sw = data.draw(st.one_of(st.none(), weights(len(y)), weights(len(y), "int")))
    sparse = kind == "count" and data.draw(st.booleans())
    X_fit = sp.csr_matrix(X) if sparse else X

    ours = make(name, **params).fit(X_fit, y, sample_weight=sw)
    theirs = make_sklearn(name, **params).fit(X_fit, y, sample_weight=sw)
    assert_same_attributes(ours, theirs)

    Q = query_rows(kind, X, seed=len(y), model=theirs)
    for Q_in in [Q, sp.csr_matrix(Q)] if kind == "count" else [Q]:
        assert_same_predictions(ours, theirs, Q_in)


@pytest.mark.parametrize("name", ["BernoulliNB", "MultinomialNB", "ComplementNB", "CategoricalNB"])
@SETTINGS
@given(data=st.data())
def test_alpha_zero_matches_sklearn_where_finite(name, data):
    """alpha=0 (force_alpha): the exact MLE. Where scikit-learn's log-probabilities are
    finite they are ours; where they are -inf so are ours; predictions obey 0·log 0 = 0."""
    kind = kind_of(name)
    X, y = data.draw(datasets(kind))
    params = {"alpha": 0.0, "force_alpha": True, "fit_prior": data.draw(st.booleans())}
    ours = make(name, **params).fit(X, y)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs = make_sklearn(name, **params).fit(X, y)
    if name == "ComplementNB":
        # A class whose complement has no counts (one class, or all others empty) has
        # weights 0/0: undefined for both libraries.
        assume(not np.isnan(theirs.feature_log_prob_).any())
    flp_ours, flp_theirs = ours.feature_log_prob_, theirs.feature_log_prob_
    if not isinstance(flp_theirs, list):
        flp_ours, flp_theirs = [flp_ours], [flp_theirs]
    for a, b in zip(flp_ours, flp_theirs, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        finite = np.isfinite(b)
        assert_allclose(a[finite], b[finite], rtol=1e-10, atol=1e-12)
        # where scikit-learn has log 0 so do we; where it has 0/0 (NaN) we may say -inf
        assert np.all(a[np.isneginf(b)] == -np.inf)
        assert np.all(np.isnan(a[np.isnan(b)]) | np.isneginf(a[np.isnan(b)]))

    # The joint log-likelihood, straight from the definition with 0 · log 0 = 0.
    Q = query_rows(kind, X, seed=3, model=ours)
    jll = ours.predict_joint_log_proba(Q)
    expected = reference_jll(name, ours, Q)
    assert_array_equal(np.isneginf(jll), np.isneginf(expected))
    assert not np.isnan(expected).any()
    finite = np.isfinite(expected)
    assert_allclose(jll[finite], expected[finite], rtol=1e-10, atol=1e-9)

    # A row every class rules out has no posterior: NaN and a warning; others sum to 1.
    undecidable = np.isneginf(jll).all(axis=1)
    if undecidable.any():
        with pytest.warns(UndecidableWarning):
            proba = ours.predict_proba(Q)
        assert np.isnan(proba[undecidable]).all()
    else:
        proba = ours.predict_proba(Q)
    assert_allclose(proba[~undecidable].sum(axis=1), 1.0, rtol=1e-12)


def _xlogp(x: float, logp: float) -> float:
    return 0.0 if x == 0 else x * logp


def reference_jll(name: str, model, X: np.ndarray) -> np.ndarray:
    """log P(y) + log P(x | y), feature by feature, in plain Python."""
    prior = model.class_log_prior_
    flp = model.feature_log_prob_
    out = np.zeros((X.shape[0], len(prior)))
    with np.errstate(divide="ignore"):
        neg_log_prob = np.log1p(-np.exp(flp)) if name == "BernoulliNB" else None
    for i, row in enumerate(X):
        for c in range(len(prior)):
            total = 0.0
            for j, v in enumerate(row):
                if name == "CategoricalNB":
                    total += flp[j][c, int(v)]
                elif name == "BernoulliNB":
                    theta_log = flp[c, j]
                    neg = neg_log_prob[c, j]
                    present = v > (model.binarize or 0.0) if model.binarize is not None else v
                    total += theta_log if present else neg
                else:
                    total += _xlogp(float(v), flp[c, j])
            if name == "ComplementNB" and len(prior) > 1:
                out[i, c] = total
            else:
                out[i, c] = total + prior[c]
    return out


# ---------------------------------------------------------------------- the algebra
def fit_params(name: str, data, X, y) -> dict:
    params = data.draw(hyperparameters(name, X.shape[1], n_classes_of(y)))
    X = binary_if_unbinarized(params, X)
    params.pop("class_prior", None)  # the number of classes changes along the way
    params.pop("priors", None)
    return params


def model_tolerance(name: str, X) -> dict:
    """Counts add exactly; moments combine with rounding."""
    if name == "GaussianNB":
        scale = float(np.max(np.abs(X))) if X.size else 1.0
        return {"rtol": 1e-9, "atol": 1e-9 * max(scale, 1.0) ** 2}
    return {"rtol": 1e-10, "atol": 1e-10}


@pytest.mark.parametrize("name", ALL_MODELS)
@SETTINGS
@given(data=st.data())
def test_partial_fit_over_any_split_equals_fit(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind, min_rows=2))
    params = fit_params(name, data, X, y)
    X = binary_if_unbinarized(params, X)
    sw = data.draw(st.one_of(st.none(), weights(len(y), "int")))
    full = make(name, **params).fit(X, y, sample_weight=sw)
    streamed = make(name, **params)
    classes = np.unique(y)
    for part in split_points(data.draw, len(y)):
        w = None if sw is None else sw[part]
        streamed.partial_fit(X[part], y[part], classes=classes, sample_weight=w)
    assert_same_model(streamed, full, query_rows(kind, X, 1, full), **model_tolerance(name, X))


@pytest.mark.parametrize("name", ALL_MODELS)
@SETTINGS
@given(data=st.data())
def test_update_with_late_classes_equals_fit(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind, min_rows=2))
    # sorted by label: later batches bring classes the model has not seen yet
    order = np.argsort(y, kind="stable")
    if data.draw(st.booleans()):
        order = order[::-1]
    X, y = X[order], y[order]
    params = fit_params(name, data, X, y)
    X = binary_if_unbinarized(params, X)
    full = make(name, **params).fit(X, y)
    streamed = make(name, **params)
    for part in split_points(data.draw, len(y)):
        streamed.update(X[part], y[part])
    assert_same_model(streamed, full, query_rows(kind, X, 2, full), **model_tolerance(name, X))


@pytest.mark.parametrize("name", ALL_MODELS)
@SETTINGS
@given(data=st.data())
def test_integer_weights_equal_repeated_rows(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind))
    sw = data.draw(hnp.arrays(np.int64, len(y), elements=st.integers(0, 3)))
    # every class keeps some weight (a class of weight 0 is still a class of y)
    for c in np.unique(y):
        assume(sw[y == c].sum() > 0)
    params = fit_params(name, data, X, y)
    X = binary_if_unbinarized(params, X)
    weighted = make(name, **params).fit(X, y, sample_weight=sw)
    rows = np.repeat(np.arange(len(y)), sw)
    repeated = make(name, **params).fit(X[rows], y[rows])
    Q = query_rows(kind, X, 3, repeated)
    if name == "GaussianNB":
        # epsilon_ is var_smoothing times the largest *unweighted* variance of the rows (as
        # in scikit-learn), so it differs; the moments themselves agree.
        tol = model_tolerance(name, X)
        assert_allclose(weighted.class_count_, repeated.class_count_)
        assert_allclose(weighted.theta_, repeated.theta_, **tol)
        assert_allclose(weighted.var_ - weighted.epsilon_, repeated.var_ - repeated.epsilon_, **tol)
        return
    assert_same_model(weighted, repeated, Q, **model_tolerance(name, X))


@pytest.mark.parametrize("name", ALL_MODELS)
@SETTINGS
@given(data=st.data())
def test_merge_equals_fit_on_union(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind, min_rows=2))
    params = fit_params(name, data, X, y)
    X = binary_if_unbinarized(params, X)
    cut = data.draw(st.integers(1, len(y) - 1))
    perm = np.asarray(data.draw(st.permutations(range(len(y)))))
    a_rows, b_rows = perm[:cut], perm[cut:]
    a = make(name, **params).fit(X[a_rows], y[a_rows])
    b = make(name, **params).fit(X[b_rows], y[b_rows])
    before_a, before_b = snapshot(a), snapshot(b)
    merged = a + b
    full = make(name, **params).fit(np.vstack([X[a_rows], X[b_rows]]),
                                    np.concatenate([y[a_rows], y[b_rows]]))  # fmt: skip
    assert_same_model(merged, full, query_rows(kind, X, 4, full), **model_tolerance(name, X))
    assert_same_model(a.merge(b), full, query_rows(kind, X, 4, full), **model_tolerance(name, X))
    # merging changes neither operand
    assert_snapshot_equal(before_a, snapshot(a))
    assert_snapshot_equal(before_b, snapshot(b))


@pytest.mark.parametrize("name", ALL_MODELS)
@SETTINGS
@given(data=st.data())
def test_unlearn_is_the_inverse_of_learning(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind, min_rows=2))
    params = fit_params(name, data, X, y)
    X = binary_if_unbinarized(params, X)
    perm = np.asarray(data.draw(st.permutations(range(len(y)))))
    if data.draw(st.booleans()):
        # B takes every row of one class: the class must disappear
        gone = data.draw(st.sampled_from(sorted(np.unique(y).tolist())))
        assume(np.any(y != gone))
        in_b = y == gone
        in_b |= np.isin(np.arange(len(y)), perm[: data.draw(st.integers(0, len(y)))])
        in_b &= ~(np.arange(len(y)) == np.flatnonzero(y != gone)[0])  # A is not empty
    else:
        cut = data.draw(st.integers(1, len(y) - 1))
        in_b = np.isin(np.arange(len(y)), perm[cut:])
    assume(in_b.any() and (~in_b).any())
    sw = data.draw(st.one_of(st.none(), weights(len(y), "int")))
    w_a = None if sw is None else sw[~in_b]
    w_b = None if sw is None else sw[in_b]

    model = make(name, **params).fit(X, y, sample_weight=sw)
    model.unlearn(X[in_b], y[in_b], sample_weight=w_b)
    # (CategoricalNB forgets the categories only B had: they would change the smoothing.)
    expected = make(name, **params).fit(X[~in_b], y[~in_b], sample_weight=w_a)
    assert_array_equal(model.classes_, expected.classes_)
    Q = query_rows(kind, X, 5, expected)
    tol = model_tolerance(name, X)
    if name == "GaussianNB" and not expected.var_.min() > 1e3 * tol["atol"]:
        # Subtracting moments leaves rounding residues (~1e-16 of the scale). They are
        # within tolerance of the fitted moments, but a (near) zero variance magnifies
        # them without bound in the likelihood: compare the moments only.
        assert_same_attributes(model, expected, **tol)
        return
    assert_same_model(model, expected, Q, **tol)


@pytest.mark.parametrize("name", ALL_MODELS)
def test_unlearning_a_whole_class_removes_it(name):
    rng = np.random.default_rng(12)
    kind = kind_of(name)
    X = rng.normal(size=(30, 4)) if kind == "gaussian" else rng.integers(0, 4, size=(30, 4))
    y = np.repeat(["a", "b", "c"], 10)
    model = make(name).fit(X, y)
    gone = y == "b"
    model.unlearn(X[gone], y[gone])
    assert_array_equal(model.classes_, ["a", "c"])
    assert model.predict_proba(X).shape == (30, 2)
    assert set(model.predict(X)) <= {"a", "c"}
    expected = make(name).fit(X[~gone], y[~gone])
    assert_same_model(model, expected, X, **model_tolerance(name, X))
    # and it can be learned again
    model.update(X[gone], y[gone])
    assert_same_model(model, make(name).fit(X, y), X, **model_tolerance(name, X))


@pytest.mark.parametrize("name", ["MultinomialNB", "GaussianNB", "CategoricalNB"])
def test_unlearning_a_class_with_float_weights_removes_it(name):
    X = np.array([[1, 0], [0, 1], [1, 1], [2, 0]])
    y = np.array(["a", "b", "b", "b"])
    w = np.array([1.0, 0.1, 0.2, 0.3])
    model = make(name).fit(X, y, sample_weight=w)
    back = [3, 2, 1]  # the same rows of "b", in another order: 0.6000000000000001 - 0.6
    model.unlearn(X[back], y[back], sample_weight=w[back])
    assert_array_equal(model.classes_, ["a"])


@pytest.mark.parametrize("name", ALL_MODELS)
@FEW
@given(data=st.data())
def test_unlearning_unseen_rows_raises_and_changes_nothing(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind, min_rows=2))
    params = fit_params(name, data, X, y)
    X = binary_if_unbinarized(params, X)
    model = make(name, **params).fit(X, y)
    before = snapshot(model)
    Q = query_rows(kind, X, 6, model)

    # a class the model never saw
    stranger = "zzz" if y.dtype.kind == "U" else 10**6
    with pytest.raises(ValueError, match="never"):
        model.unlearn(X[:1], np.array([stranger]))
    assert_snapshot_equal(before, snapshot(model))

    # more examples of a class than it holds
    c = y[0]
    rows = np.flatnonzero(y == c)
    too_many = np.concatenate([rows, rows])
    with pytest.raises(ValueError):
        model.unlearn(X[too_many], y[too_many])
    assert_snapshot_equal(before, snapshot(model))

    # a count that was never there: more of a feature than the class ever had
    if kind != "gaussian":
        i = int(np.searchsorted(model.classes_, c))
        row = np.zeros((1, X.shape[1]), dtype=X.dtype)
        if kind == "categorical":
            row[0, 0] = model.n_categories_[0]  # a category the model never saw
        elif name == "BernoulliNB":
            never = np.flatnonzero(model.feature_count_[i] == 0)
            row[0, never] = (params.get("binarize") or 0) + 1
        else:
            row[0, 0] = model.feature_count_[i, 0] + 1
        if row.any() or kind == "categorical":
            with pytest.raises(ValueError):
                model.unlearn(row, [c])
            assert_snapshot_equal(before, snapshot(model))

    # everything: no class would be left
    with pytest.raises(ValueError):
        model.unlearn(X, y)
    assert_snapshot_equal(before, snapshot(model))
    assert_allclose(model.predict_proba(Q), make(name, **params).fit(X, y).predict_proba(Q))


@pytest.mark.parametrize("name", ALL_MODELS)
@SETTINGS
@given(data=st.data())
def test_probabilities_sum_to_one(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind))
    params = data.draw(hyperparameters(name, X.shape[1], n_classes_of(y)))
    X = binary_if_unbinarized(params, X)
    model = make(name, **params).fit(X, y)
    Q = query_rows(kind, X, 7, model)
    proba = model.predict_proba(Q)
    assert proba.shape == (len(Q), len(model.classes_))
    assert np.all((proba >= 0) & (proba <= 1))
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert_allclose(np.exp(model.predict_log_proba(Q)), proba, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("name", ALL_MODELS)
@SETTINGS
@given(data=st.data())
def test_feature_order_does_not_matter(name, data):
    kind = kind_of(name)
    X, y = data.draw(datasets(kind))
    params = data.draw(hyperparameters(name, X.shape[1], n_classes_of(y)))
    X = binary_if_unbinarized(params, X)
    perm = np.asarray(data.draw(st.permutations(range(X.shape[1]))))
    pparams = dict(params)
    if isinstance(params.get("alpha"), np.ndarray):
        pparams["alpha"] = params["alpha"][perm]
    model = make(name, **params).fit(X, y)
    shuffled = make(name, **pparams).fit(X[:, perm], y)
    Q = query_rows(kind, X, 8, model)
    jll_shuffled = shuffled.predict_joint_log_proba(Q[:, perm])
    jll_model = model.predict_joint_log_proba(Q)
    assert_allclose(jll_shuffled, jll_model, rtol=1e-10, atol=1e-9)
    # A posterior moves by at most twice the largest change of a log-likelihood: with
    # log-likelihoods of 1e10 (near-zero variances) the last bits of a sum differ with
    # memory alignment, so the tolerance follows the log-likelihoods'.
    with np.errstate(invalid="ignore"):  # -inf - -inf: equal, no slack needed
        moved = np.abs(jll_shuffled - jll_model)
    slack = 2 * float(np.max(moved[np.isfinite(moved)], initial=0.0))
    assert_allclose(shuffled.predict_proba(Q[:, perm]), model.predict_proba(Q),
                    rtol=1e-9, atol=1e-12 + slack)  # fmt: skip
    jll = model.predict_joint_log_proba(Q)
    if jll.shape[1] > 1:
        top2 = np.sort(jll, axis=1)[:, -2:]
        clear = top2[:, 1] - top2[:, 0] > 1e-8 * np.maximum(1.0, np.abs(top2[:, 1]))
    else:
        clear = np.ones(len(Q), dtype=bool)
    assert_array_equal(shuffled.predict(Q[:, perm])[clear], model.predict(Q)[clear])
    if name == "CategoricalNB":
        for j, k in enumerate(perm):
            assert_allclose(shuffled.feature_log_prob_[j], model.feature_log_prob_[k])
    elif name == "GaussianNB":
        assert_allclose(shuffled.theta_, model.theta_[:, perm])
        assert_allclose(shuffled.var_, model.var_[:, perm])
    else:
        assert_allclose(shuffled.feature_log_prob_, model.feature_log_prob_[:, perm])


# ----------------------------------------------------------- Gaussian moments, offset
def test_gaussian_merge_and_unlearn_are_stable_under_a_large_offset():
    rng = np.random.default_rng(0)
    n, d = 3000, 3
    X = 1e8 + rng.normal(size=(n, d)) * np.array([1.0, 0.1, 3.0])
    y = rng.integers(0, 2, size=n)
    params = {"var_smoothing": 0.0}

    def expected_var(rows):
        return np.array([np.var(X[rows][y[rows] == c], axis=0) for c in (0, 1)])

    def expected_mean(rows):
        return np.array([np.mean(X[rows][y[rows] == c], axis=0) for c in (0, 1)])

    everything = np.arange(n)
    # merge of many small batches, in a tree
    parts = [make("GaussianNB", **params).fit(X[i : i + 100], y[i : i + 100])
             for i in range(0, n, 100)]  # fmt: skip
    while len(parts) > 1:
        parts = [a + b for a, b in zip(parts[::2], parts[1::2], strict=False)] + (
            [parts[-1]] if len(parts) % 2 else []
        )
    merged = parts[0]
    assert_allclose(merged.var_, expected_var(everything), rtol=1e-6)
    assert_allclose(merged.theta_, expected_mean(everything), rtol=1e-14)

    # streaming (partial_fit in batches of 7)
    streamed = make("GaussianNB", **params)
    for i in range(0, n, 7):
        streamed.partial_fit(X[i : i + 7], y[i : i + 7], classes=[0, 1])
    assert_allclose(streamed.var_, expected_var(everything), rtol=1e-6)

    # unlearn most of the data, in batches
    kept = np.arange(n - 500, n)
    model = make("GaussianNB", **params).fit(X, y)
    for i in range(0, n - 500, 250):
        model.unlearn(X[i : i + 250], y[i : i + 250])
    assert_allclose(model.class_count_, np.bincount(y[kept], minlength=2))
    assert_allclose(model.var_, expected_var(kept), rtol=1e-6)
    assert_allclose(model.theta_, expected_mean(kept), rtol=1e-14)


# ------------------------------------------------------------------- PoissonNB vs scipy
@SETTINGS
@given(data=st.data())
def test_poisson_joint_log_likelihood_is_the_poisson_pmf(data):
    X, y = data.draw(datasets("count"))
    params = data.draw(hyperparameters("PoissonNB", X.shape[1], n_classes_of(y)))
    X = binary_if_unbinarized(params, X)
    model = make("PoissonNB", **params).fit(X, y)
    classes = model.classes_
    counts = np.array([(y == c).sum() for c in classes], dtype=float)
    sums = np.array([X[y == c].sum(axis=0) for c in classes], dtype=float)
    rate = (sums + params["alpha"]) / (counts[:, None] + params["beta"])
    assert_allclose(model.rate_, rate, rtol=1e-12)
    if params.get("class_prior") is not None:
        log_prior = np.log(params["class_prior"])
    elif params["fit_prior"]:
        log_prior = np.log(counts / counts.sum())
    else:
        log_prior = np.full(len(classes), -np.log(len(classes)))
    Q = query_rows("count", X, 9)
    expected = np.array(
        [[sps.poisson.logpmf(row, rate[c]).sum() + log_prior[c] for c in range(len(classes))]
         for row in Q]
    )  # fmt: skip
    for Q_in in (Q, sp.csr_matrix(Q)):
        assert_allclose(model.predict_joint_log_proba(Q_in), expected, rtol=1e-10, atol=1e-9)


# ----------------------------------------------------------------------- large counts
@pytest.mark.parametrize("name", ["MultinomialNB", "ComplementNB", "BernoulliNB", "PoissonNB"])
@pytest.mark.parametrize("sparse", [False, True])
def test_huge_counts_give_finite_probabilities(name, sparse):
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(40, 8))
    y = rng.integers(0, 3, size=40)
    Q = np.array([[1_000_000, 3, 0, 2_500_000, 0, 7, 1_000_000, 0], [0] * 8, [1] * 8])
    X_fit, Q_in = (sp.csr_matrix(X), sp.csr_matrix(Q)) if sparse else (X, Q)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = make(name).fit(X_fit, y)
        proba = model.predict_proba(Q_in)
        log_proba = model.predict_log_proba(Q_in)
        pred = model.predict(Q_in)
    assert np.isfinite(proba).all()
    assert np.isfinite(log_proba).all() or name != "MultinomialNB"
    assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    assert set(pred) <= set(model.classes_)
    # huge evidence: the winner takes (almost) everything, without underflow to NaN
    assert proba[0].max() > 0.99 or name == "BernoulliNB"


def test_huge_counts_match_sklearn_multinomial():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 5, size=(40, 8))
    y = rng.integers(0, 3, size=40)
    Q = np.array([[1_000_000, 3, 0, 2_500_000, 0, 7, 1_000_000, 0]])
    ours, theirs = make("MultinomialNB").fit(X, y), make_sklearn("MultinomialNB").fit(X, y)
    assert_same_predictions(ours, theirs, Q, jll_atol=1e-6)


# ------------------------------------------------------------------- sample() is P(x, y)
def _se_check(observed, expected, se, k: float = 5.0, what: str = "") -> None:
    """observed within k standard errors of expected (plus a hair for se == 0)."""
    gap = np.abs(np.asarray(observed) - np.asarray(expected))
    bound = k * np.asarray(se) + 1e-12
    assert np.all(gap <= bound), f"{what}: max gap/se {np.max(gap / (bound)):.2f} > 1"


def _class_frequencies(model, y_s):
    freq = np.array([(y_s == c).mean() for c in model.classes_])
    prior = np.exp(model.class_log_prior_ if hasattr(model, "class_log_prior_")
                   else np.log(model.class_prior_))  # fmt: skip
    se = np.sqrt(prior * (1 - prior) / len(y_s))
    _se_check(freq, prior, se, what="class frequencies")


@pytest.fixture
def toy_counts():
    rng = np.random.default_rng(5)
    n = 300
    y = rng.choice([0, 1, 2], size=n, p=[0.5, 0.3, 0.2])
    rates = np.array([[0.2, 1.0, 3.0, 0.5, 0.1, 2.0], [2.0, 0.3, 0.3, 4.0, 1.0, 0.1],
                      [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]])  # fmt: skip
    X = rng.poisson(rates[y])
    return X, y


def test_sample_bernoulli(toy_counts):
    X, y = toy_counts
    model = make("BernoulliNB").fit(X, y)
    X_s, y_s = model.sample(20000, random_state=0)
    assert X_s.shape == (20000, X.shape[1])
    assert set(np.unique(X_s)) <= {0.0, 1.0}
    _class_frequencies(model, y_s)
    theta = np.exp(model.feature_log_prob_)
    for i, c in enumerate(model.classes_):
        rows = X_s[y_s == c]
        se = np.sqrt(theta[i] * (1 - theta[i]) / len(rows))
        _se_check(rows.mean(axis=0), theta[i], se, what=f"Bernoulli class {c}")


def test_sample_multinomial(toy_counts):
    X, y = toy_counts
    model = make("MultinomialNB").fit(X, y)
    X_s, y_s = model.sample(20000, random_state=1)
    assert np.all(X_s == np.round(X_s)) and X_s.min() >= 0
    _class_frequencies(model, y_s)
    prob = np.exp(model.feature_log_prob_)
    for i, c in enumerate(model.classes_):
        rows = X_s[y_s == c]
        tokens = rows.sum()
        # per-class token proportions (tokens are not independent across documents, but
        # with Poisson lengths the counts of a word are Poisson: binomial se is right)
        se = np.sqrt(prob[i] * (1 - prob[i]) / tokens)
        _se_check(rows.sum(axis=0) / tokens, prob[i], se, what=f"tokens of class {c}")
        # document lengths: Poisson with the class's mean training length
        mean_len = X[y == c].sum(axis=1).mean()
        lengths = rows.sum(axis=1)
        _se_check(lengths.mean(), mean_len, np.sqrt(mean_len / len(rows)), what="length")
        _se_check(lengths.var(), mean_len, 6 * np.sqrt(2 * mean_len**2 / len(rows)),
                  what="length variance (Poisson: var == mean)")  # fmt: skip


def test_sample_poisson(toy_counts):
    X, y = toy_counts
    model = make("PoissonNB").fit(X, y)
    X_s, y_s = model.sample(20000, random_state=2)
    _class_frequencies(model, y_s)
    for i, c in enumerate(model.classes_):
        rows = X_s[y_s == c]
        rate = model.rate_[i]
        _se_check(rows.mean(axis=0), rate, np.sqrt(rate / len(rows)), what=f"rates {c}")
        _se_check(rows.var(axis=0), rate, 6 * np.sqrt((rate + 2 * rate**2) / len(rows)),
                  what=f"variances {c}")  # fmt: skip


def test_sample_gaussian():
    rng = np.random.default_rng(6)
    y = rng.choice(["a", "b"], size=400, p=[0.7, 0.3])
    X = rng.normal([[-1.0, 5.0, 100.0]], [[0.5, 2.0, 0.1]], size=(400, 3))
    X[y == "b"] += [3.0, -2.0, 0.5]
    model = make("GaussianNB").fit(X, y)
    X_s, y_s = model.sample(20000, random_state=3)
    _class_frequencies(model, y_s)
    for i, c in enumerate(model.classes_):
        rows = X_s[y_s == c]
        m = len(rows)
        theta, var = model.theta_[i], model.var_[i]
        _se_check(rows.mean(axis=0), theta, np.sqrt(var / m), what=f"means {c}")
        _se_check(rows.var(axis=0), var, np.sqrt(2 * var**2 / m), what=f"variances {c}")


def test_sample_categorical():
    rng = np.random.default_rng(7)
    y = rng.choice([0, 1, 2], size=300)
    X = np.column_stack([rng.integers(0, 3, size=300), rng.integers(0, 5, size=300) * (y > 0)])
    model = make("CategoricalNB", alpha=0.5).fit(X, y)
    X_s, y_s = model.sample(20000, random_state=4)
    assert X_s.dtype.kind == "i"
    _class_frequencies(model, y_s)
    for j, flp in enumerate(model.feature_log_prob_):
        prob = np.exp(flp)
        for i, c in enumerate(model.classes_):
            col = X_s[y_s == c, j]
            freq = np.bincount(col, minlength=prob.shape[1]) / len(col)
            se = np.sqrt(prob[i] * (1 - prob[i]) / len(col))
            _se_check(freq, prob[i], se, what=f"feature {j} class {c}")


def test_sample_categorical_labels():
    X = np.array([["sunny", "hot"], ["rainy", "mild"], ["sunny", "mild"], ["overcast", "hot"]])
    model = make("CategoricalNB").fit(X, ["no", "yes", "no", "yes"])
    X_s, y_s = model.sample(5000, random_state=5)
    _class_frequencies(model, y_s)
    for j, (flp, cats) in enumerate(zip(model.feature_log_prob_, model.categories_,
                                        strict=True)):  # fmt: skip
        prob = np.exp(flp)
        for i, c in enumerate(model.classes_):
            col = X_s[y_s == c, j]
            freq = np.array([(col == v).mean() for v in cats])
            se = np.sqrt(prob[i] * (1 - prob[i]) / len(col))
            _se_check(freq, prob[i], se, what=f"feature {j} class {c}")


def test_sample_is_reproducible(toy_counts):
    X, y = toy_counts
    for name in ALL_MODELS:
        Xf = X if name != "GaussianNB" else X + 0.5
        model = make(name).fit(Xf, y)
        X1, y1 = model.sample(50, random_state=11)
        X2, y2 = model.sample(50, random_state=11)
        assert_array_equal(X1, X2)
        assert_array_equal(y1, y2)
        assert model.sample(0, random_state=1)[0].shape[0] == 0


# ------------------------------------------------- CategoricalNB with labelled categories
@SETTINGS
@given(data=st.data())
def test_labelled_categories_merge_update_unlearn(data):
    """String categories: the algebra holds as for integer codes."""
    X_codes, y = data.draw(datasets("categorical", min_rows=2))
    X = np.array(["red", "green", "blue", "cyan", "teal"], dtype=object)[X_codes]
    alpha = data.draw(st.sampled_from([1.0, 0.5, 2.0]))
    cut = data.draw(st.integers(1, len(y) - 1))
    perm = np.asarray(data.draw(st.permutations(range(len(y)))))
    a_rows, b_rows = perm[:cut], perm[cut:]
    full = make("CategoricalNB", alpha=alpha).fit(X[perm], y[perm])
    a = make("CategoricalNB", alpha=alpha).fit(X[a_rows], y[a_rows])
    b = make("CategoricalNB", alpha=alpha).fit(X[b_rows], y[b_rows])
    Q = X  # only known categories (an unseen one gets the smoothed zero count: tested below)
    assert_same_model(a + b, full, Q, rtol=1e-12, atol=1e-12)
    for got, want in zip((a + b).categories_, full.categories_, strict=True):
        assert_array_equal(got, want)

    streamed = make("CategoricalNB", alpha=alpha).fit(X[a_rows], y[a_rows])
    streamed.update(X[b_rows], y[b_rows])
    assert_same_model(streamed, full, Q, rtol=1e-12, atol=1e-12)

    full.unlearn(X[b_rows], y[b_rows])
    assert_same_model(full, a, X[a_rows], rtol=1e-12, atol=1e-12)
    for got, want in zip(full.categories_, a.categories_, strict=True):
        assert_array_equal(got, want)

    # a category never seen: the smoothed zero count alpha / (n_c + alpha K_j)
    unseen = X[:1].copy()
    unseen[0, 0] = "mauve"
    proba = a.predict_proba(unseen)
    assert np.isfinite(proba).all()
    assert_allclose(proba.sum(), 1.0)


def test_bernoulli_of_a_tiny_alpha_is_exact_where_scikit_learn_loses_digits() -> None:
    """README, Drop-in: a feature in every example of a class, alpha=1e-12: log P(x=0 | y)
    is log(alpha / (n + 2 alpha)) to the last digit (scikit-learn's is 1.6e-3 off)."""
    import math
    from fractions import Fraction

    from nbayes import BernoulliNB as Ours

    X = np.ones((30, 3), dtype=int)
    X[::2, 0] = 0
    y = np.arange(30) % 2
    model = Ours(alpha=1e-12, force_alpha=True).fit(X, y)
    a = Fraction(1e-12)
    exact = math.log(15 + a) - math.log(15 + 2 * a) + 2 * (math.log(a) - math.log(15 + 2 * a))
    got = model.predict_joint_log_proba(np.zeros((1, 3)))[0, 0] - model.class_log_prior_[0]
    assert abs(got - exact) <= 4 * math.ulp(exact)
