"""What a fitted model tells about itself beyond its posteriors: samples from its joint
distribution, its number of free parameters, its most informative features, and its
likelihood for readers such as the plots (a mixin of the template,
:class:`nbayes._template.base.BaseNB`, reading its hooks ``_family``, ``_family_view()``,
``_feature_names()``, ``_class_labels()``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._families import Family

__all__ = ["ReadingMixin"]


class ReadingMixin:
    """sample, n_parameters, most_informative_features and likelihood of a fitted model."""

    _family: ClassVar[Family]

    if TYPE_CHECKING:  # the template's hooks (and PosteriorMixin's sample_classes)

        def _family_view(self) -> tuple[dict[str, Any], Any]: ...
        def _feature_names(self) -> list[str]: ...
        def _class_labels(self) -> np.ndarray: ...
        def sample_classes(self, n_samples: int, rng: np.random.Generator) -> np.ndarray: ...

    def sample(self, n_samples: int = 1, random_state: Any = None) -> tuple[Any, np.ndarray]:
        """Draw examples from the model's joint distribution P(y) P(x | y).

        Parameters
        ----------
        n_samples : int, default=1
        random_state : int, numpy Generator or None

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
        y : ndarray of shape (n_samples,)
        """
        rng = np.random.default_rng(random_state)
        codes = self.sample_classes(n_samples, rng)
        X = self._family.sample(*self._family_view(), codes, rng)
        return X, self._class_labels()[codes]

    def n_parameters(self, full_joint: bool = False, doc_length: int | None = None) -> float:
        """Free parameters of this model, or of the full joint model over the same features.

        With C classes and d binary features: Naive Bayes has ``C·d + C - 1`` and the full
        joint ``C·(2^d - 1) + C - 1``. Categorical features count their levels, multinomial
        features a distribution over the vocabulary (``C·(V - 1) + C - 1``), Gaussian ones a
        mean and a variance (full joint: a mean vector and covariance matrix per class).
        Where the full joint has no finite size (Poisson counts; multinomial documents of
        unbounded length, unless ``doc_length`` is given) the answer is ``math.inf``.
        """
        check_is_fitted(self)
        n = self._family.n_parameters(self._family_view()[1], full_joint, doc_length)
        return n if math.isinf(n) else int(n)

    def most_informative_features(self, n: int = 10) -> list[tuple[str, Any, float]]:
        """Features ranked by how strongly they separate the classes.

        Returns a list of ``(feature, class, score)``: ``score`` is the log of the largest
        likelihood ratio between two classes (for Gaussian features, the largest
        standardised gap between class means) and ``class`` the class the feature points to.
        """
        scores, best = self._family.separation(self._family_view()[0])
        order = np.argsort(-scores, kind="stable")[: max(int(n), 0)]
        names = self._feature_names()
        labels = self._class_labels()
        return [(names[j], labels[best[j]], float(scores[j])) for j in order]

    def likelihood(self) -> tuple[Family, dict[str, Any], Any]:
        """The fitted likelihood: ``(family, derived, stats)``.

        ``family`` is the model's :class:`~nbayes._families.Family`; ``derived`` (its
        log-probabilities, moments, ...) and ``stats`` (the statistics they come from) are
        what the family's public methods take: ``family.feature_log_density(derived, X)``
        (each feature's term of log P(x | y)), ``family.feature_terms(derived, x)``,
        ``family.value_range(derived, j)``, ``family.separation(derived)``. Read them, do not
        change them. This is what :mod:`nbayes.plot` draws with.
        """
        check_is_fitted(self)
        return (self._family, *self._family_view())
