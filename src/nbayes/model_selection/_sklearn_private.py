"""The private scikit-learn API that model selection cannot do without, all of it here.

Why private: :class:`~nbayes.model_selection.NBSearchCV` must *be* a scikit-learn search
(the same ``cv_results_``, ``best_*`` attributes, refit rules, metadata routing, ``predict``
and ``score`` delegation as ``GridSearchCV``), and its scores must be those scikit-learn's
own ``cross_validate``/``GridSearchCV`` give, error handling included. scikit-learn offers no
public base class for a search estimator (``BaseSearchCV`` lives in the private module
``sklearn.model_selection._search``), nor public functions for scoring a fitted model with
its error policy, for indexing rows of any array-like, or for slicing per-row fit
parameters. Re-implementing them would copy scikit-learn's code and drift from it; using
them from one module keeps the dependency visible and one file to adapt.

Where they are used:

* :class:`BaseSearchCV` and its methods listed in :data:`SEARCH_METHODS` (``_search.py``);
* :func:`score`, :func:`insert_error_scores`, :func:`normalize_score_results`,
  :func:`warn_or_raise_about_fit_failures` (scoring and its error policy, as in
  ``sklearn.model_selection._validation``);
* :func:`safe_indexing` (rows of lists, arrays, sparse matrices, pandas and polars frames;
  ``sklearn.utils._safe_indexing`` is in ``sklearn.utils.__all__`` and scikit-learn's API
  reference despite its underscore) and :func:`check_method_params` (per-row parameters
  sliced with the rows).

``tests/test_model_selection.py::test_the_private_scikit_learn_api_is_where_we_expect_it``
fails, naming the missing piece, when a scikit-learn release moves or renames any of them.
Every name here is available in scikit-learn >= 1.6 (the minimum nbayes supports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from sklearn.model_selection._validation import _insert_error_scores as insert_error_scores
from sklearn.model_selection._validation import _normalize_score_results as normalize_score_results
from sklearn.model_selection._validation import _score as score
from sklearn.model_selection._validation import (
    _warn_or_raise_about_fit_failures as warn_or_raise_about_fit_failures,
)
from sklearn.utils import _safe_indexing as safe_indexing

if TYPE_CHECKING:  # typed as nbayes._template.sklearn_bases says why
    from .._template.sklearn_bases import BaseEstimator, MetaEstimatorMixin

    class BaseSearchCV(MetaEstimatorMixin, BaseEstimator):
        _parameter_constraints: ClassVar[dict[str, list[Any]]]

else:
    from sklearn.model_selection._search import BaseSearchCV
from sklearn.utils.validation import _check_method_params as check_method_params

__all__ = [
    "SEARCH_METHODS",
    "BaseSearchCV",
    "check_method_params",
    "insert_error_scores",
    "normalize_score_results",
    "safe_indexing",
    "score",
    "validate_params",
    "warn_or_raise_about_fit_failures",
]

#: the private members of BaseSearchCV (and BaseEstimator) that NBSearchCV relies on
SEARCH_METHODS = (
    "_parameter_constraints",
    "_validate_params",
    "_get_scorers",
    "_get_routed_params_for_fit",
    "_format_results",
    "_check_refit_for_multimetric",
    "_select_best_index",
)


def validate_params(estimator: Any) -> None:
    """Check ``estimator``'s parameters against its ``_parameter_constraints``, raising
    scikit-learn's ``InvalidParameterError`` (what its own ``fit`` methods do first)."""
    estimator._validate_params()
