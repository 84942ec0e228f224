"""scikit-learn's estimator base classes, and how type checkers are to see them.

At run time these are scikit-learn's own classes. scikit-learn ships no type information,
so to a type checker they are ``Any``, and a class built on ``Any`` accepts any keyword in
its constructor: the constructors that :func:`nbayes._template.params.hyperparameters` writes would
not be checked. For type checkers only, the names below are small typed classes instead
(what nbayes's users call on any estimator, everything else ``Any``), so that a misspelt
hyperparameter (``MultinomialNB(alpah=0.5)``) is an error in mypy and pyright as it is at
run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["BaseEstimator", "ClassifierMixin", "MetaEstimatorMixin"]

if TYPE_CHECKING:
    from typing import Self

    class BaseEstimator:
        def get_params(self, deep: bool = True) -> dict[str, Any]: ...
        def set_params(self, **params: Any) -> Self: ...
        @classmethod
        def _get_param_names(cls) -> list[str]: ...
        def __sklearn_tags__(self) -> Any: ...
        def __getstate__(self) -> dict[str, Any]: ...
        def __setstate__(self, state: dict[str, Any]) -> None: ...
        def __getattr__(self, name: str) -> Any: ...  # the rest of scikit-learn's API
        def __setattr__(self, name: str, value: Any) -> None: ...  # users' own attributes

    class ClassifierMixin:
        def score(self, X: Any, y: Any, sample_weight: Any = None) -> float: ...

    class MetaEstimatorMixin:
        pass

else:
    from sklearn.base import BaseEstimator, ClassifierMixin, MetaEstimatorMixin
