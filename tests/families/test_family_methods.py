"""The per-feature methods of the likelihood families, against the formulas they replace.

``feature_log_density`` is the one place a family writes log P(x_j | y); explanations,
plots and MixedNB's columns read it. Its sum over features must be the family's joint
log-likelihood (minus the prior), ``separation(among=...)`` must rank as a model of only
those classes does, and MixedNB's columns must score as the plain estimators.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import gammaln
from scipy.stats import norm, poisson

from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)
from nbayes._families.multinomial import mean_length
from nbayes.kernel import KernelNB
from nbayes.mixed import MixedNB

RNG = np.random.default_rng(7)
Y = RNG.choice([0, 1, 2], 90)
COUNTS = RNG.poisson(1 + Y[:, None] * np.array([0.5, 2.0, 0.0, 1.0]), (90, 4)).astype(float)
REALS = RNG.normal(size=(90, 3)) + Y[:, None] * np.array([1.0, -0.5, 0.0])
CODES = RNG.integers(0, 4, (90, 3))


def models() -> list[tuple[object, np.ndarray]]:
    return [
        (GaussianNB().fit(REALS, Y), REALS),
        (KernelNB().fit(REALS, Y), REALS),
        (PoissonNB(alpha=0.5, beta=2.0).fit(COUNTS, Y), COUNTS),
        (MultinomialNB(alpha=0.3).fit(COUNTS, Y), COUNTS),
        (ComplementNB().fit(COUNTS, Y), COUNTS),
        (BernoulliNB(binarize=1.0).fit(COUNTS, Y), (COUNTS > 1.0).astype(float)),
        (CategoricalNB(alpha=0.7).fit(CODES, Y), CODES),
    ]


@pytest.mark.parametrize("model, X", models(), ids=lambda m: type(m).__name__)
def test_feature_log_density_sums_to_the_joint_log_likelihood(model: object, X: np.ndarray) -> None:
    family, d = model._family, model._derived()  # type: ignore[attr-defined]
    dens = family.feature_log_density(d, X[:20])
    assert dens.shape == (20, len(model.classes_), X.shape[1])  # type: ignore[attr-defined]
    jll = family.joint_log_likelihood(d, X[:20])
    # ComplementNB scores with the prior only for one class: compare the likelihoods
    prior = 0.0 if family.name == "complement" else d["class_log_prior"]
    np.testing.assert_allclose(dens.sum(axis=2) + prior, jll, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(family.log_likelihood(d, X[:20]) + prior, jll, rtol=1e-12, atol=1e-9)
    # one row's explanation terms are the density of that row, exactly
    np.testing.assert_array_equal(family.feature_terms(d, X[3]), dens[3])


def test_gaussian_and_poisson_densities_are_the_textbook_ones() -> None:
    g = GaussianNB().fit(REALS, Y)
    dens = g._family.feature_log_density(g._derived(), REALS[:5])
    ref = norm.logpdf(REALS[:5, None, :], g.theta_[None], np.sqrt(g.var_)[None])
    np.testing.assert_allclose(dens, ref, rtol=1e-12)
    p = PoissonNB(alpha=0.5, beta=2.0).fit(COUNTS, Y)
    dens = p._family.feature_log_density(p._derived(), COUNTS[:5])
    np.testing.assert_allclose(dens, poisson.logpmf(COUNTS[:5, None, :], p.rate_[None]), rtol=1e-12)
    assert np.all(dens <= 0) and np.isfinite(gammaln(COUNTS + 1)).all()


@pytest.mark.parametrize(
    "make, X",
    [
        (lambda: GaussianNB(var_smoothing=0.0), REALS),
        (lambda: PoissonNB(), COUNTS),
        (lambda: MultinomialNB(), COUNTS),
        (lambda: BernoulliNB(binarize=1.0), COUNTS),
        (lambda: CategoricalNB(), CODES),
    ],
    ids=["gaussian", "poisson", "multinomial", "bernoulli", "categorical"],
)
def test_separation_among_some_classes_is_that_of_a_model_of_them(
    make: object, X: np.ndarray
) -> None:
    full = make().fit(X, Y)  # type: ignore[operator]
    keep = Y != 1
    part = make().fit(X[keep], Y[keep])  # type: ignore[operator]
    among = np.array([True, False, True])
    score, best = full._family.separation(full._derived(), among=among)
    ref_score, ref_best = part._family.separation(part._derived())
    np.testing.assert_allclose(score, ref_score, rtol=1e-12)
    np.testing.assert_array_equal(full.classes_[best], part.classes_[ref_best])
    # every class: the same as without ``among``
    np.testing.assert_array_equal(
        full._family.separation(full._derived(), among=np.ones(3, bool))[0],
        full._family.separation(full._derived())[0],
    )


def test_value_ranges_hold_the_data() -> None:
    g = GaussianNB().fit(REALS, Y)
    lo, hi = g._family.value_range(g._derived(), 0)
    assert lo < REALS[:, 0].min() and REALS[:, 0].max() < hi
    k = KernelNB().fit(REALS, Y)
    lo, hi = k._family.value_range(k._derived(), 1)
    assert lo < REALS[:, 1].min() and REALS[:, 1].max() < hi
    p = PoissonNB().fit(COUNTS, Y)
    lo, hi = p._family.value_range(p._derived(), 1)
    assert lo == 0 and np.mean(COUNTS[:, 1] <= hi) > 0.95


def test_sampled_sequences_follow_the_word_distribution() -> None:
    m = MultinomialNB().fit(COUNTS, Y)
    d, stats = m._derived(), m._stats
    codes = np.full(4000, 2)
    docs = m._family.sample_sequences(d, stats, codes, np.random.default_rng(0))
    lengths = np.array([len(doc) for doc in docs])
    assert lengths.mean() == pytest.approx(mean_length(stats)[2], rel=0.05)
    words = np.bincount(np.concatenate(docs), minlength=4) / lengths.sum()
    np.testing.assert_allclose(words, np.exp(m.feature_log_prob_[2]), atol=0.02)


# ------------------------------------------------------------- MixedNB's columns delegate
def test_mixed_bernoulli_column_is_bernoulli_nb_also_unsmoothed() -> None:
    X = COUNTS[:, :2] > 1.0
    X[Y == 2, 0] = False  # class 2 never sees x0: log P(x0 | 2) = -inf without smoothing
    mixed = MixedNB(alpha=0.0).fit(X, Y)
    plain = BernoulliNB(alpha=0.0, force_alpha=True, binarize=None).fit(X, Y)
    jll = mixed.predict_joint_log_proba(X)
    np.testing.assert_array_equal(jll, plain.predict_joint_log_proba(X))
    assert np.isneginf(mixed.predict_joint_log_proba(X[X[:, 0]])[:, 2]).all()


def test_mixed_poisson_columns_take_the_family_beta() -> None:
    mixed = MixedNB(columns=["poisson"] * 4, alpha=0.5).fit(COUNTS, Y)
    table = mixed._check_X(COUNTS)
    values = {**mixed._derivation_values(), "beta": 2.0}
    d = mixed._family.derive(mixed._stats, values)
    np.testing.assert_allclose(
        mixed._family.joint_log_likelihood(d, table),
        PoissonNB(alpha=0.5, beta=2.0).fit(COUNTS, Y).predict_joint_log_proba(COUNTS),
        rtol=1e-12,
    )
    # without a beta, PoissonNB's default: beta = 1
    np.testing.assert_allclose(
        mixed.predict_joint_log_proba(COUNTS),
        PoissonNB(alpha=0.5).fit(COUNTS, Y).predict_joint_log_proba(COUNTS),
        rtol=1e-12,
    )


def test_mixed_columns_are_their_families() -> None:
    mixed = MixedNB(columns=["gaussian", "kde", "categorical"]).fit(
        np.column_stack([REALS[:, :2], CODES[:, 0]]).astype(object), Y
    )
    kinds = [type(mixed._family.column(mixed._derived(), j).family).__name__ for j in range(3)]
    assert kinds == ["GaussianFamily", "KernelFamily", "CategoricalFamily"]
    k = KernelNB(bandwidth="scott", point_mass=None).fit(REALS[:, 1:2], Y)  # MixedNB's kde
    np.testing.assert_allclose(
        mixed._family.column(mixed._derived(), 1).log_likelihood(REALS[:, 1], np.zeros(90, bool)),
        k.predict_joint_log_proba(REALS[:, 1:2]) - k._derived()["class_log_prior"],
        rtol=1e-12,
    )


def test_every_mixed_family_has_a_family_object() -> None:
    from nbayes._families import Family
    from nbayes._families.kinds import column_kinds, kind
    from nbayes.mixed import FAMILIES

    assert set(FAMILIES) <= set(column_kinds())
    for name in column_kinds():
        assert isinstance(kind(name).family, Family), name


def _bernoulli_by_expressions(fc: np.ndarray, cc: np.ndarray, alpha) -> tuple:
    """The derivation as it was written (a new array for every step)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        fc, cc = np.ascontiguousarray(fc), cc[:, None]
        denominator = np.log(cc + 2 * alpha)
        flp = np.log(fc + alpha) - denominator
        neg = np.log(cc - fc + alpha) - denominator
    return np.where(np.isnan(flp), -np.inf, flp), np.where(np.isnan(neg), -np.inf, neg)


def test_bernoulli_derives_in_place_what_the_expressions_gave() -> None:
    """Bit for bit, for unseen classes, alpha 0 (0/0), per-feature alphas, fractional
    weights whose class count falls a rounding below a feature count, either layout."""
    from nbayes._families.bernoulli import BernoulliFamily
    from nbayes._statistics import CountStats

    rng = np.random.default_rng(11)
    for trial in range(400):
        n_classes, n_features = int(rng.integers(1, 5)), int(rng.integers(1, 25))
        cc = rng.integers(0, 6, size=n_classes).astype(float)
        if trial % 2:
            cc *= rng.random(n_classes)
        fc = np.minimum(rng.integers(0, 7, size=(n_classes, n_features)), cc[:, None])
        if trial % 3 == 0:
            fc = fc * (1 + 1e-16 * rng.integers(-3, 4, size=fc.shape))
        if trial % 5 == 0:
            fc = np.asfortranarray(fc)
        alpha = [0.0, 1e-12, 0.5, 1.0][trial % 4]
        if trial % 7 == 0:
            alpha = rng.choice([0.0, 0.5, 1.0], size=n_features)
        stats = CountStats(np.arange(n_classes), cc, fc)
        params = {"alpha": alpha, "force_alpha": True, "fit_prior": True, "class_prior": None}
        d = BernoulliFamily().derive(stats, params)
        flp, neg = _bernoulli_by_expressions(fc, cc, alpha)
        assert d["feature_log_prob"].tobytes() == flp.tobytes(), trial
        assert d["neg_log_prob"].tobytes() == neg.tobytes(), trial
        assert d["feature_log_prob"].flags.c_contiguous and d["neg_log_prob"].flags.c_contiguous
