"""Gaussian moments: unlearning equals a fit without the rows (issue 14, item 12)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import GaussianNB as SkGaussianNB

from nbayes import GaussianNB
from nbayes._statistics.moments import MomentStats


def _stream(offset: float, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = offset + rng.normal(size=(3000, 2))
    y = rng.integers(0, 2, 3000)
    X[:, 1] = 7.0  # constant in the rows kept...
    X[:200, 1] = rng.normal(size=200)  # ...not in the rows unlearned
    return X, y


@pytest.mark.parametrize("offset", [0.0, 1e4, 1e8, -3e9])
def test_unlearn_equals_a_fit_without_the_rows(offset: float) -> None:
    X, y = _stream(offset)
    model = GaussianNB(var_smoothing=0)
    for start in range(0, 3000, 100):
        model.partial_fit(X[start : start + 100], y[start : start + 100], classes=[0, 1])
    for start in range(0, 200, 20):
        model.unlearn(X[start : start + 20], y[start : start + 20])
    fresh = GaussianNB(var_smoothing=0).fit(X[200:], y[200:])
    np.testing.assert_allclose(model.var_[:, 0], fresh.var_[:, 0], rtol=1e-9)
    np.testing.assert_allclose(model.theta_, fresh.theta_, rtol=1e-15, atol=1e-12)
    # the feature that is constant in what is left has no variance, as in the fresh fit
    assert (model.var_[:, 1] == 0).all() and (fresh.var_[:, 1] == 0).all()
    np.testing.assert_array_equal(model.predict(X[200:]), fresh.predict(X[200:]))


def test_unlearn_restores_a_zero_variance_feature_smoothed() -> None:
    X, y = _stream(0.0)
    model = GaussianNB().fit(X, y).unlearn(X[:200], y[:200])
    fresh = GaussianNB().fit(X[200:], y[200:])
    np.testing.assert_allclose(model.var_, fresh.var_, rtol=1e-9)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(X[-5:]), fresh.predict_joint_log_proba(X[-5:]), rtol=1e-9
    )


@pytest.mark.parametrize("offset", [0.0, 1e8])
def test_partial_fit_and_merge_match_scikit_learn(offset: float) -> None:
    X, y = _stream(offset, seed=2)
    ours, theirs = GaussianNB(), SkGaussianNB()
    for start in range(0, 3000, 700):
        ours.partial_fit(X[start : start + 700], y[start : start + 700], classes=[0, 1])
        theirs.partial_fit(X[start : start + 700], y[start : start + 700], classes=[0, 1])
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    # epsilon_ differs by design (scikit-learn's partial_fit takes it from one batch)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-8)
    merged = GaussianNB().fit(X[:1000], y[:1000]).merge(GaussianNB().fit(X[1000:], y[1000:]))
    whole = GaussianNB().fit(X, y)
    np.testing.assert_allclose(merged.theta_, whole.theta_, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(merged.var_, whole.var_, rtol=1e-12)


def test_statistics_build_from_the_rounded_means_alone() -> None:
    # what model files written before mean_low existed hold
    full = MomentStats.from_batch(np.array([[1.0], [2.0], [4.0]]), np.array([0, 0, 1]), np.ones(3))
    old = MomentStats(
        full.classes, full.class_count, full.mean, full.m2, full.n_rows, full.row_mean, full.row_m2
    )
    np.testing.assert_array_equal(old.mean_low, np.zeros_like(full.mean))
    np.testing.assert_array_equal(old.row_mean_low, np.zeros_like(full.row_mean))
    merged = old.merge(full)
    np.testing.assert_allclose(merged.mean, [[1.5], [4.0]])
    np.testing.assert_allclose(merged.m2, [[1.0], [0.0]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_epsilon_is_a_numpy_scalar_of_the_variances_dtype(dtype: type) -> None:
    X = np.random.default_rng(3).random((20, 4)).astype(dtype)
    y = np.arange(20) % 2
    ours, theirs = GaussianNB().fit(X, y), SkGaussianNB().fit(X, y)
    assert type(ours.epsilon_) is type(theirs.epsilon_)  # (float32: numpy 2; 1.x: float64)
    assert isinstance(ours.epsilon_, np.floating)
    assert ours.epsilon_ == pytest.approx(theirs.epsilon_, rel=1e-6)


# ------------------------------------------------------------------ decision boundary
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 3), equal=st.booleans())
def test_decision_boundary_is_where_the_posteriors_are_equal(
    seed: int, d: int, equal: bool
) -> None:
    from nbayes import GaussianNB

    rng = np.random.default_rng(seed)
    scale = np.ones(d) if equal else rng.uniform(0.3, 3, d)
    X = np.r_[rng.normal(0, 1, (30, d)), rng.normal(rng.uniform(-3, 3, d), scale, (30, d))]
    y = np.repeat(["a", "b"], 30)
    if equal:  # (the same variances: a linear boundary, one point)
        X[30:] = X[:30] + rng.uniform(-3, 3, d)
    model = GaussianNB(priors=None if seed % 2 else [0.3, 0.7]).fit(X, y)
    row = rng.normal(0, 1, d)
    j = int(rng.integers(d))
    ts = model.decision_boundary(row if d > 1 else None, feature=j)
    assert ts.ndim == 1 and len(ts) <= 2 and np.all(np.diff(ts) > 0)
    if equal:
        assert len(ts) == 1
    for t in ts:
        r = row.copy()
        r[j] = t
        jll = model.predict_joint_log_proba([r])[0]
        assert abs(jll[0] - jll[1]) <= 1e-7 * (1 + np.abs(jll).max()), (t, jll)
    # away from the boundary points, one class wins throughout each interval
    grid = np.linspace(-20, 20, 401)
    rows = np.tile(row, (len(grid), 1))
    rows[:, j] = grid
    jll = model.predict_joint_log_proba(rows)
    sign = np.sign(jll[:, 0] - jll[:, 1])
    changes = np.flatnonzero(np.diff(sign) != 0)
    inside = [t for t in ts if -20 < t < 20]
    assert len(changes) == len(inside)


def test_decision_boundary_errors_say_what_to_give() -> None:
    from nbayes import GaussianNB

    X = np.array([[0.0, 1.0], [1.0, 0.0], [5.0, 5.0], [6.0, 4.0], [9.0, 9.0], [10.0, 8.0]])
    three = GaussianNB().fit(X, ["a", "a", "b", "b", "c", "c"])
    with pytest.raises(ValueError, match=r"3 classes: say which two .* classes=\('a', 'b'\)"):
        three.decision_boundary([0, 0])
    with pytest.raises(ValueError, match="two different classes of the model"):
        three.decision_boundary([0, 0], classes=("a", "z"))
    with pytest.raises(ValueError, match="2 features: give a row x"):
        three.decision_boundary(classes=("a", "b"))
    with pytest.raises(ValueError, match="feature must be in"):
        three.decision_boundary([0, 0], feature=2, classes=("a", "b"))
    with pytest.raises(ValueError, match="fitted without feature names"):
        three.decision_boundary([0, 0], feature="height", classes=("a", "b"))
    import pandas as pd

    named = GaussianNB().fit(pd.DataFrame(X, columns=["height", "weight"]), list("aabbcc"))
    at = named.decision_boundary([0, 2.0], feature="height", classes=("b", "a"))
    assert np.allclose(at, three.decision_boundary([0, 2.0], classes=("b", "a")))
