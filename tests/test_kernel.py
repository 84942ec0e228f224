"""KernelNB: a Gaussian KDE per class and feature whose statistics are the stored points."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import gaussian_kde
from sklearn.utils.estimator_checks import parametrize_with_checks

from nbayes._statistics.points import PointStats, _snap, grid_width
from nbayes.exceptions import InvalidParameterError
from nbayes.kernel import KernelNB

pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")

rng = np.random.default_rng(7)
X = np.vstack([rng.normal(0, 1, (40, 2)), rng.standard_exponential((40, 2)) * 3 + 1])
y = np.repeat(["a", "b"], 40)


@parametrize_with_checks(
    [
        KernelNB(),
        KernelNB(bandwidth="silverman", max_points=8),
        KernelNB(bandwidth=0.5, point_mass=None),
    ]
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


def _same_masses(a: KernelNB, b: KernelNB) -> None:
    assert [m.tolist() for m in a.point_masses_] == [m.tolist() for m in b.point_masses_]


data = st.integers(0, 2**31 - 1).map(np.random.default_rng)


def _zero_inflated(seed: np.random.Generator) -> np.ndarray:
    """60 x 2, rounded (values repeat), the first column about half zeros."""
    Xr = np.round(seed.normal(size=(60, 2)) * 4, 1)
    Xr[seed.random(60) < 0.5, 0] = 0.0
    return Xr


@settings(max_examples=25, deadline=None)
@given(seed=data, cut=st.integers(1, 59), max_points=st.sampled_from([None, 2, 5, 16]))
def test_merge_equals_fit_on_union(seed: np.random.Generator, cut: int, max_points: int) -> None:
    Xr = _zero_inflated(seed)
    yr = seed.choice(["a", "b", "c"], 60)
    full = KernelNB(max_points=max_points).fit(Xr, yr)
    a = KernelNB(max_points=max_points).fit(Xr[:cut], yr[:cut])
    b = KernelNB(max_points=max_points).fit(Xr[cut:], yr[cut:])
    _same_stats((a + b)._stats, full._stats)
    _same_masses(a + b, full)
    np.testing.assert_allclose((a + b).predict_proba(Xr), full.predict_proba(Xr), rtol=1e-9)
    part = KernelNB(max_points=max_points)
    part.partial_fit(Xr[:cut], yr[:cut], classes=["a", "b", "c"])
    part.partial_fit(Xr[cut:], yr[cut:])
    np.testing.assert_allclose(part.predict_proba(Xr), full.predict_proba(Xr), rtol=1e-9)


@settings(max_examples=25, deadline=None)
@given(seed=data, cut=st.integers(1, 59), max_points=st.sampled_from([None, 3, 16]))
def test_unlearn_is_the_inverse(seed: np.random.Generator, cut: int, max_points: int) -> None:
    Xr = _zero_inflated(seed)
    yr = seed.choice(["a", "b"], 60)
    full = KernelNB(max_points=max_points).fit(Xr, yr)
    rest = KernelNB(max_points=max_points).fit(Xr[:cut], yr[:cut])
    back = full.unlearn(Xr[cut:], yr[cut:])
    if max_points is None:
        _same_stats(back._stats, rest._stats)
        _same_masses(back, rest)
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


# ------------------------------------------------------------------------- point masses
def _zeros_data(n: int = 400, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Column 0: zero in 80 % of class "a" and 30 % of class "b", else exponential; column
    1: continuous (no repeats)."""
    r = np.random.default_rng(seed)
    yz = np.repeat(["a", "b"], n // 2)
    x0 = np.round(r.exponential(1.0, n), 3)
    x0[r.random(n) < np.where(yz == "a", 0.8, 0.3)] = 0.0
    return np.c_[x0, r.normal(size=n)], yz


def test_point_mass_rule() -> None:
    Xz, yz = _zeros_data()
    clf = KernelNB().fit(Xz, yz)
    assert clf.point_masses_[0].tolist() == [0.0]
    assert clf.point_masses_[1].tolist() == []  # no value repeats
    assert KernelNB(point_mass=None).fit(Xz, yz).point_masses_[0].tolist() == []
    assert KernelNB(point_mass=0.6).fit(Xz, yz).point_masses_[0].tolist() == []  # 55 %
    # a value must repeat: a weight of 1 is never a mass, whatever its share
    tiny = KernelNB().fit([[0.0], [1.0], [2.0], [2.0]], [0, 0, 1, 1])
    assert tiny.point_masses_[0].tolist() == [2.0]
    # a derivation parameter: re-derives, no refit
    clf.set_params(point_mass=None)
    assert clf.point_masses_[0].tolist() == []


def test_point_mass_likelihood() -> None:
    """At the mass: the smoothed class frequency; elsewhere: (1 - mass share) x the kernel
    density of the class's other values (scipy's with Scott's rule)."""
    Xz, yz = _zeros_data()
    clf = KernelNB(bandwidth="scott").fit(Xz, yz)
    for c, label in enumerate(clf.classes_):
        col = Xz[yz == label, 0]
        zeros, n = float((col == 0).sum()), len(col)
        at = clf.explain([0.0, 0.1]).terms[c, 0]
        assert at == pytest.approx(np.log((zeros + 1) / (n + 2)), rel=1e-12)
        kde = gaussian_kde(col[col != 0], bw_method="scott")
        off = clf.explain([0.7, 0.1]).terms[c, 0]
        share = (n - zeros + 1) / (n + 2)
        assert off == pytest.approx(np.log(share * kde(0.7)[0]), rel=1e-10)
    # a mass that one class never showed does not veto it
    one = KernelNB().fit([[0.0], [0.0], [0.0], [1.0], [2.0], [3.0]], [0, 0, 0, 1, 1, 1])
    assert np.all(np.isfinite(one.predict_joint_log_proba([[0.0], [1.5]])))


def test_point_masses_fix_zero_inflated_columns() -> None:
    Xz, yz = _zeros_data(seed=3)
    Xt, yt = _zeros_data(n=4000, seed=4)
    plain = KernelNB(point_mass=None).fit(Xz, yz).score(Xt, yt)
    masses = KernelNB().fit(Xz, yz).score(Xt, yt)
    assert masses > plain + 0.05


def test_every_value_a_mass() -> None:
    # a discrete column: every value is a mass, the density elsewhere uses all the points
    Xd = np.repeat([[0.0], [1.0], [2.0]], [10, 10, 10], axis=0)
    yd = np.repeat([0, 1, 1], 10)
    clf = KernelNB().fit(Xd, yd)
    assert clf.point_masses_[0].tolist() == [0.0, 1.0, 2.0]
    jll = clf.predict_joint_log_proba([[0.0], [0.5], [2.0]])
    assert np.all(np.isfinite(jll))
    assert clf.predict([[0.0], [2.0]]).tolist() == [0, 1]


def test_sample_draws_the_masses() -> None:
    Xz, yz = _zeros_data()
    clf = KernelNB().fit(Xz, yz)
    Xs, ys = clf.sample(4000, random_state=0)
    for label, share in (("a", 0.8), ("b", 0.3)):
        assert np.mean(Xs[ys == label, 0] == 0.0) == pytest.approx(share, abs=0.06)
    assert np.mean(Xs[:, 1] == 0.0) == 0.0


def test_robust_bandwidth() -> None:
    """Silverman's rule of thumb on the values outside the masses: 0.9 min(sd, IQR/1.349)
    n^(-1/5), with numpy's quantiles (and frequency weights as repeated rows)."""
    Xz, yz = _zeros_data()
    clf = KernelNB().fit(Xz, yz)
    for c, label in enumerate(clf.classes_):
        for j in range(2):
            col = Xz[yz == label, j]
            col = col[col != 0] if j == 0 else col
            q1, q3 = np.quantile(col, [0.25, 0.75])
            want = 0.9 * min(col.std(ddof=1), (q3 - q1) / 1.349) * len(col) ** -0.2
            assert clf.bandwidth_[c, j] == pytest.approx(want, rel=1e-12)
    w = rng.integers(1, 4, len(yz)).astype(float)
    a = KernelNB().fit(Xz, yz, sample_weight=w)
    b = KernelNB().fit(np.repeat(Xz, w.astype(int), axis=0), np.repeat(yz, w.astype(int)))
    np.testing.assert_allclose(a.bandwidth_, b.bandwidth_, rtol=1e-12)


def test_binned_features_have_no_masses() -> None:
    Xz, yz = _zeros_data()
    clf = KernelNB(max_points=16).fit(Xz, yz)
    assert clf.bin_width_[0] > 0 and clf.point_masses_[0].tolist() == []


# --------------------------------------------------------------------------------- refit
def test_failed_refit_keeps_the_fitted_model() -> None:
    """Issue 14 item 3: fit is all or nothing; a refused refit leaves the old model."""
    clf = KernelNB().fit(X, y)
    before = clf.predict_proba(X)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        clf.fit(bad, y)
    with pytest.raises(ValueError):
        clf.fit(np.c_[X, X], y[:-1])
    assert clf.n_features_in_ == 2
    np.testing.assert_array_equal(clf.predict_proba(X), before)


def test_refit_takes_todays_max_points() -> None:
    clf = KernelNB(max_points=4).fit(X, y)
    assert clf.n_points_.max() <= 4
    clf.set_params(max_points=None).fit(X, y)
    assert clf.n_points_.tolist() == [80, 80] and clf._stats.max_points is None
    clf.update(X[:3] + 0.5, y[:3])  # an update keeps the grid of the model it joins
    assert clf._stats.max_points is None


def test_a_bandwidth_that_overflows_is_a_clear_error_and_the_fit_keeps_the_model() -> None:
    good = KernelNB(bandwidth="scott", point_mass=None).fit(
        [[1.0], [2.0], [5.0], [6.0]], [0, 0, 1, 1]
    )
    before = good.predict_proba([[1.5]])
    X = np.array([[1e308], [-1e308], [1e308], [-1e308], [5.0], [6.0]])
    # (beyond the 1e150 a model holds: refused before the bandwidth is derived)
    with pytest.raises(ValueError, match="too large.*Rescale the features"):
        good.fit(X, [0, 0, 0, 0, 1, 1])
    np.testing.assert_array_equal(good.predict_proba([[1.5]]), before)
