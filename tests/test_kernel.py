"""KernelNB: a Gaussian KDE per class and feature whose statistics are the stored points."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import gaussian_kde
from sklearn.utils.estimator_checks import parametrize_with_checks

from nbayes._kernel_stats import PointStats, _snap, grid_width
from nbayes.exceptions import InvalidParameterError
from nbayes.kernel import KernelNB

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")

rng = np.random.default_rng(7)
X = np.vstack([rng.normal(0, 1, (40, 2)), rng.standard_exponential((40, 2)) * 3 + 1])
y = np.repeat(["a", "b"], 40)


@parametrize_with_checks(
    [KernelNB(), KernelNB(bandwidth="silverman", max_points=8), KernelNB(bandwidth=0.5)]
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("rule", ["scott", "silverman"])
def test_density_is_scipys_gaussian_kde(rule: str) -> None:
    clf = KernelNB(bandwidth=rule).fit(X, y)
    x = np.array([0.3, 2.0])
    terms = clf.explain(x).terms
    for c, label in enumerate(clf.classes_):
        for j in range(2):
            kde = gaussian_kde(X[y == label, j], bw_method=rule)
            assert terms[c, j] == pytest.approx(np.log(kde(x[j])[0]), rel=1e-10)


def test_joint_is_prior_plus_terms() -> None:
    clf = KernelNB().fit(X, y)
    e = clf.explain(X[3])
    np.testing.assert_allclose(e.log_prior + e.terms.sum(axis=1), e.joint_log_likelihood)
    np.testing.assert_allclose(list(e.posterior.values()), clf.predict_proba(X[3:4])[0])


def test_fits_what_a_normal_cannot() -> None:
    # class "two" is bimodal around -3 and 3, class "one" sits at 0 with the same variance
    Xb = np.r_[rng.normal(-3, 0.3, 50), rng.normal(3, 0.3, 50), rng.normal(0, 3, 100)][:, None]
    yb = np.repeat(["two", "one"], 100)
    from nbayes import GaussianNB

    kde = KernelNB().fit(Xb, yb).score(Xb, yb)
    assert kde > GaussianNB().fit(Xb, yb).score(Xb, yb) + 0.1


def _same_stats(a: PointStats, b: PointStats) -> None:
    np.testing.assert_array_equal(a.classes, b.classes)
    np.testing.assert_allclose(a.class_count, b.class_count)
    np.testing.assert_array_equal(a.widths, b.widths)
    for va, vb, wa, wb in zip(a.values, b.values, a.weights, b.weights, strict=True):
        np.testing.assert_array_equal(va, vb)
        np.testing.assert_allclose(wa, wb, atol=1e-12)


data = st.integers(0, 2**31 - 1).map(np.random.default_rng)


@settings(max_examples=25, deadline=None)
@given(seed=data, cut=st.integers(1, 59), max_points=st.sampled_from([None, 2, 5, 16]))
def test_merge_equals_fit_on_union(seed: np.random.Generator, cut: int, max_points: int) -> None:
    Xr = np.round(seed.normal(size=(60, 2)) * 4, 1)
    yr = seed.choice(["a", "b", "c"], 60)
    full = KernelNB(max_points=max_points).fit(Xr, yr)
    a = KernelNB(max_points=max_points).fit(Xr[:cut], yr[:cut])
    b = KernelNB(max_points=max_points).fit(Xr[cut:], yr[cut:])
    _same_stats((a + b)._stats, full._stats)
    part = KernelNB(max_points=max_points)
    part.partial_fit(Xr[:cut], yr[:cut], classes=["a", "b", "c"])
    part.partial_fit(Xr[cut:], yr[cut:])
    np.testing.assert_allclose(part.predict_proba(Xr), full.predict_proba(Xr), rtol=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=data, cut=st.integers(1, 59), max_points=st.sampled_from([None, 3, 16]))
def test_unlearn_is_the_inverse(seed: np.random.Generator, cut: int, max_points: int) -> None:
    Xr = np.round(seed.normal(size=(60, 2)) * 4, 1)
    yr = seed.choice(["a", "b"], 60)
    full = KernelNB(max_points=max_points).fit(Xr, yr)
    rest = KernelNB(max_points=max_points).fit(Xr[:cut], yr[:cut])
    back = full.unlearn(Xr[cut:], yr[cut:])
    if max_points is None:
        _same_stats(back._stats, rest._stats)
        np.testing.assert_allclose(back.predict_proba(Xr), rest.predict_proba(Xr), rtol=1e-9)
    else:
        # exact on the model's grid, whose width is kept
        for j in range(2):
            v, w = _snap(rest._stats.values[j], rest._stats.weights[j], back._stats.widths[j])
            used = w.sum(axis=0) > 0
            np.testing.assert_array_equal(back._stats.values[j], v[used])
            np.testing.assert_allclose(back._stats.weights[j], w[:, used], atol=1e-12)


def test_unlearn_a_point_never_stored_is_an_error() -> None:
    clf = KernelNB().fit(X, y)
    before = clf.predict_proba(X)
    with pytest.raises(ValueError, match="never stored"):
        clf.unlearn([[123.0, 0.5]], ["a"])
    with pytest.raises(ValueError, match="never seen"):
        clf.unlearn(X[:1], ["zzz"])
    np.testing.assert_array_equal(clf.predict_proba(X), before)  # nothing changed


def test_grid_rule() -> None:
    v = np.arange(100.0)
    w = grid_width(v, 10)
    assert w == 16.0  # 2^4: 7 bins occupied; 2^3 would occupy 13
    assert np.unique(np.floor(v / w)).size <= 10
    assert np.unique(np.floor(v / (w / 2))).size > 10
    clf = KernelNB(max_points=10).fit(np.c_[v], np.arange(100) % 2)
    assert clf.n_points_.tolist() == [7]
    assert clf.bin_width_.tolist() == [16.0]


def test_weights_are_frequencies() -> None:
    w = rng.integers(1, 4, len(y)).astype(float)
    a = KernelNB().fit(X, y, sample_weight=w)
    b = KernelNB().fit(np.repeat(X, w.astype(int), axis=0), np.repeat(y, w.astype(int)))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), rtol=1e-10)


def test_attributes_sample_parameters() -> None:
    clf = KernelNB(bandwidth=0.25).fit(X, y)
    np.testing.assert_array_equal(clf.bandwidth_, np.full((2, 2), 0.25))
    np.testing.assert_allclose(clf.class_prior_, [0.5, 0.5])
    Xs, ys = clf.sample(50, random_state=0)
    assert Xs.shape == (50, 2) and set(ys) <= {"a", "b"}
    np.testing.assert_array_equal(Xs, clf.sample(50, random_state=0)[0])
    assert clf.n_parameters() == 2 * int(clf.n_points_.sum()) + 1
    assert clf.n_parameters(full_joint=True) == np.inf
    assert clf.most_informative_features(1)[0][0] in ("x0", "x1")
    labels, proba = clf.predict_top(X[:5], n=1)
    assert (labels[:, 0] == clf.predict(X[:5])).all()


@pytest.mark.parametrize("bad", ["normal", 0.0, -1.0, float("nan")])
def test_bad_bandwidth(bad: object) -> None:
    with pytest.raises(InvalidParameterError, match="bandwidth"):
        KernelNB(bandwidth=bad).fit(X, y)


def test_merge_needs_same_max_points() -> None:
    with pytest.raises(ValueError, match="max_points"):
        KernelNB(max_points=4).fit(X, y) + KernelNB().fit(X, y)
