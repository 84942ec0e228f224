"""scikit-learn's estimator checks over every nbayes estimator."""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from nbayes import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    KernelNB,
    MixedNB,
    MultinomialNB,
    PoissonNB,
)

# The array-API checks are skipped (with a SkipTestWarning) when array-api-strict is absent.
pytestmark = pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")

ESTIMATORS = [
    BernoulliNB(),
    MultinomialNB(),
    ComplementNB(),
    CategoricalNB(),
    GaussianNB(),
    PoissonNB(),
    BernoulliNB(binarize=None),
    ComplementNB(norm=True),
    GaussianNB(var_smoothing=0.1),
    MultinomialNB(alpha=0.5, fit_prior=False),
    KernelNB(),
    KernelNB(max_points=8),
    MixedNB(),
]


def _expected_failed_checks(estimator):
    if isinstance(estimator, GaussianNB) and estimator.var_smoothing >= 1e-3:
        # epsilon_ is var_smoothing times the largest *unweighted* variance of the rows, as in
        # scikit-learn (whose GaussianNB(var_smoothing=0.1) fails this check the same way):
        # repeating a row changes it, weighting a row does not. With the default 1e-9 the
        # difference is below the check's tolerance.
        return {
            "check_sample_weight_equivalence_on_dense_data": (
                "epsilon_ uses the unweighted variance of X, as in scikit-learn"
            )
        }
    return {}


@parametrize_with_checks(
    ESTIMATORS, expected_failed_checks=_expected_failed_checks, xfail_strict=True
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
