"""What a fitted model tells about itself beyond its posteriors: samples from its joint
distribution, its number of free parameters and its parameter table, its most informative
features, and its
likelihood for readers such as the plots (a mixin of the template,
:class:`nbayes._template.base.BaseNB`, reading its hooks ``_family``, ``_fitted()``,
``_feature_names()``, ``_class_labels()``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._families import Family
from .._families.fitted import FittedLikelihood, parameter_table
from ..display import InformativeFeatures, ParameterTable

__all__ = ["ReadingMixin"]


class ReadingMixin:
    """sample, n_parameters, most_informative_features and likelihood of a fitted model."""

    _family: ClassVar[Family]

    if TYPE_CHECKING:  # the template's hooks (and PosteriorMixin's sample_classes)

        def _fitted(self) -> FittedLikelihood: ...
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
        fitted = self._fitted()
        X = fitted.family.sample(fitted.derived, fitted.stats, codes, rng)
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
        n = self._family.n_parameters(self._fitted().stats, full_joint, doc_length)
        return n if math.isinf(n) else int(n)

    def most_informative_features(
        self, n: int = 10, feature_names: Any = None
    ) -> InformativeFeatures:
        """Features ranked by how strongly they separate the classes.

        Parameters
        ----------
        n : int, default=10
        feature_names : list of str, default=None
            Names of the features (default: the model's: ``feature_names_in_``, a text
            model's terms, else x0, x1, ...).

            .. versionadded:: 0.3

        Returns
        -------
        InformativeFeatures
            A list of ``(feature, class, score)`` (plain str, the class label as a Python
            value, float) that shows as a table in a notebook: ``score`` is the log of the
            largest likelihood ratio between two classes (for Gaussian features, the
            largest standardised gap between class means) and ``class`` the class the
            feature points to.
        """
        scores, best = self._family.separation(self._fitted().derived)
        order = np.argsort(-scores, kind="stable")[: max(int(n), 0)]
        names = self._names_given(feature_names, len(scores))
        labels = self._class_labels()[best[order]].tolist()
        ranked = zip(order.tolist(), labels, strict=True)
        return InformativeFeatures((str(names[j]), c, float(scores[j])) for j, c in ranked)

    def most_informative_by_class(self, k: int = 10) -> dict[Any, list[tuple[str, float]]]:
        """Per class, its ``k`` features of :meth:`most_informative_features` (the features
        pointing to it, ranked), as ``(feature, score)``: named only for those."""
        from .._families._common import ranked_by_class

        scores, best = self._family.separation(self._fitted().derived)
        labels = self._class_labels().tolist()
        return ranked_by_class(scores, best, labels, self._feature_names(), k)

    def _names_given(self, feature_names: Any, n_features: int) -> Any:
        """``feature_names`` checked (one per feature), or the model's own."""
        if feature_names is None:
            return self._feature_names()
        if isinstance(feature_names, str):  # (its characters were taken for the names)
            raise TypeError(
                f"feature_names is one str ({feature_names[:40]!r}): give a list of names, "
                "one per feature, e.g. 'keeper was sharp'.split()."
            )
        names = [str(f) for f in feature_names]
        if len(names) != n_features:
            raise ValueError(
                f"feature_names has {len(names)} names for {n_features} features: give one "
                "name per feature, in column order (or leave it out for the model's own)."
            )
        return names

    def parameter_table(self, exact: bool = True, feature_names: Any = None) -> ParameterTable:
        """The estimated parameters, as the course notes print them.

        The class prior P(y) (``3/5``), then per feature and class the model's estimates:
        Bernoulli P(x_j = 1 | y) as count / class size, unreduced (``0/2`` and ``2/2``
        stay so), with the pseudo-counts written in when smoothing
        (``(count + alpha)/(N_y + 2·alpha)``); multinomial P(w | y), complement
        P(w | not y), categorical P(x_j = k | y), Poisson rates likewise; Gaussian means and
        variances (decimals).

        Parameters
        ----------
        exact : bool, default=True
            Unreduced fractions (needs whole-number counts); False: decimals.
        feature_names : list of str, default=None
            Names of the features (default: the model's).

        Returns
        -------
        nbayes.display.ParameterTable
            Shows as text, Markdown, LaTeX and HTML; ``.to_pandas()`` has every value.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB(alpha=1).fit([[2, 0], [0, 1]], ["spam", "ham"])
        >>> print(model.parameter_table(feature_names=["free", "lunch"]))
                ham                      spam
        P(y)    1/2                      1/2
        P(w | y)
        free    (0 + 1)/(1 + 2·1) = 1/3  (2 + 1)/(2 + 2·1) = 3/4
        lunch   (1 + 1)/(1 + 2·1) = 2/3  (0 + 1)/(2 + 2·1) = 1/4
        """
        check_is_fitted(self)
        fitted = self._fitted()
        names = self._names_given(feature_names, fitted.n_features)
        return parameter_table(fitted, self._class_labels().tolist(), names, exact)

    def likelihood(self) -> FittedLikelihood:
        """The fitted likelihood: a :class:`~nbayes._families.fitted.FittedLikelihood`.

        Its ``family`` is the model's :class:`~nbayes._families.Family`; ``derived`` (its
        log-probabilities, moments, ...) and ``stats`` (the statistics they come from) are
        what the family's public methods take: ``family.feature_log_density(derived, X)``
        (each feature's term of log P(x | y)), ``family.feature_terms(derived, x)``,
        ``family.value_range(derived, j)``, ``family.separation(derived)``; ``params`` the
        hyperparameters of the derivation. Read them, do not change them. It unpacks as
        the tuple earlier versions returned: ``family, derived, stats =
        model.likelihood()``. This is what :mod:`nbayes.plot` draws with.
        """
        check_is_fitted(self)
        return self._fitted()
