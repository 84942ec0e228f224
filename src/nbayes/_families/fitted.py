"""A fitted likelihood: a family with what it derived from a model's statistics.

What crosses from a model to the code that reads its likelihood (explanations, parameter
tables, samples, plots, EM) is one value, :class:`FittedLikelihood`, instead of a tuple
``(family, derived, stats)`` and loose hyperparameters beside it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ._base import Family, prior_block
from ._common import NOT_WHOLE_COUNTS

if TYPE_CHECKING:
    from ..display import ParameterTable

__all__ = ["FittedLikelihood", "parameter_table"]


@dataclass(frozen=True, slots=True, eq=False)
class FittedLikelihood:
    """A model's likelihood as fitted: read it, do not change it.

    Attributes
    ----------
    family : Family
        The likelihood's math (stateless).
    derived : dict
        What the family derived from ``stats`` with ``params`` (log-probabilities,
        moments, ...): what its methods take (``family.feature_log_density(derived, X)``,
        ``family.feature_terms(derived, x)``, ``family.value_range(derived, j)``,
        ``family.separation(derived)``).
    stats : statistics
        The per-class statistics ``derived`` comes from (classes, class counts, ...).
    params : mapping
        The hyperparameters of the derivation (``alpha``, ``fit_prior``, ...): what the
        exact fractions of ``explain(x, exact=True)`` and the parameter tables are
        derived from.
    feature_names : sequence of str or None
        The name of every feature, when the model has them at hand (a text model's kept
        terms); None: the reader names them (``x0, x1, ...``, ``feature_names_in_``).
    lookup : mapping or None
        Feature name -> position, when the model has one (a text model's vocabulary).

    Unpacking gives ``family, derived, stats``, the tuple ``likelihood()`` returned
    before this value: ``family, derived, stats = model.likelihood()`` still works.
    """

    family: Family
    derived: dict[str, Any]
    stats: Any
    params: Mapping[str, Any] = field(default_factory=dict)
    feature_names: Sequence[str] | None = None
    lookup: Mapping[str, int] | None = field(default=None, repr=False)

    def __repr__(self) -> str:
        return (
            f"<FittedLikelihood {type(self.family).__name__}: {self.n_features:,} features, "
            f"classes {self.classes.tolist()!r}>"
        )

    def __iter__(self) -> Iterator[Any]:
        # the earlier (family, derived, stats) tuple, for code that unpacks it
        return iter((self.family, self.derived, self.stats))

    @property
    def classes(self) -> np.ndarray:
        """The class labels, in the order of every per-class array."""
        return np.asarray(self.stats.classes)

    @property
    def n_features(self) -> int:
        """The number of features the likelihood scores."""
        return int(self.stats.n_features)

    @property
    def class_log_prior(self) -> np.ndarray:
        """log P(y) per class."""
        return np.asarray(self.derived["class_log_prior"], dtype=np.float64)

    def joint_log_likelihood(self, X: Any) -> np.ndarray:
        """log P(y) + log P(x | y) per row of ``X`` (as the model takes it) and class."""
        return np.asarray(self.family.joint_log_likelihood(self.derived, X))

    def feature_terms(self, values: np.ndarray) -> np.ndarray:
        """Each feature's term of log P(x | y) for one row (a dense 1-D array), per class."""
        return np.asarray(self.family.feature_terms(self.derived, values))


def parameter_table(
    fitted: FittedLikelihood, classes: Sequence[Any], feature_names: Sequence[str], exact: bool
) -> ParameterTable:
    """The :class:`~nbayes.display.ParameterTable` of ``fitted``: the class prior, then the
    family's blocks (``model.parameter_table()``, the estimators' and a text model's
    scorer's alike; the scorer's imports no scikit-learn)."""
    from ..display import ParameterTable

    stats, params, d = fitted.stats, dict(fitted.params), fitted.derived
    blocks = fitted.family.parameters(stats, params, d)
    if exact and hasattr(stats, "is_integral") and not stats.is_integral():
        raise ValueError(NOT_WHOLE_COUNTS)
    blocks = [prior_block(stats, params, d), *blocks]
    return ParameterTable(classes, feature_names, blocks, exact=exact)
