"""KernelNB: Naive Bayes with a Gaussian kernel density estimate per class and feature.

The statistics are the stored points (:class:`nbayes._kernel_stats.PointStats`), so
``partial_fit``/``update``, ``unlearn`` and ``merge`` stay exact; ``max_points`` bounds the
memory with a binned estimate on a nested power-of-two grid (documented there).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from . import _params as P
from ._base import BaseNB
from ._families.kde import KernelFamily
from ._kernel_stats import PointStats, grid_width
from ._stats import readonly

__all__ = ["KernelNB", "PointStats", "grid_width"]

bandwidth_rule = P.Rule(
    lambda v: (
        (isinstance(v, str) and v in ("scott", "silverman"))
        or (P._is_real(v) and v > 0 and np.isfinite(v))
    ),
    "'scott', 'silverman' or a float in the range (0.0, inf)",
)


class KernelNB(BaseNB):
    """Naive Bayes whose class-conditional densities are Gaussian kernel density estimates.

    Per class and feature, ``p(x_j | y) = sum_i w_i N(x_j; v_i, h^2) / sum_i w_i`` over the
    training values ``v_i`` of that class (weights ``w_i`` from ``sample_weight``). Unlike
    :class:`~nbayes.GaussianNB` it fits skewed, heavy-tailed and multimodal features.

    The model *is* its points: ``update`` adds points, ``unlearn`` removes exactly the
    points of the rows given (an error if a value was never stored), ``a + b`` unites the
    points of two models. Prediction costs O(points) per row and feature; ``max_points``
    switches a feature with more distinct values than that to a binned estimate: values go
    to the bins ``[m·w, (m+1)·w)`` of the smallest power-of-two width ``w`` that leaves at
    most ``max_points`` occupied bins, and the kernels sit at the bin centres. Bin counts
    add, and the grid depends only on the set of values, so merge and partial fits still
    equal one fit; after ``unlearn`` the grid keeps its width.

    Parameters
    ----------
    bandwidth : {"scott", "silverman"} or float, default="scott"
        Kernel width per class and feature: Scott's rule ``n^(-1/5)·sigma``, Silverman's
        ``(3n/4)^(-1/5)·sigma`` (``sigma``: the class's standard deviation of the feature,
        ``n`` its total weight), or one fixed width for all.
    max_points : int >= 2 or None, default=None
        Largest number of distinct stored values per feature before binning; None stores
        every value.
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes; not adjusted to the data.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    bandwidth_ : ndarray of shape (n_classes, n_features)
    n_points_ : ndarray of shape (n_features,)
        Distinct values (or occupied bins) stored per feature.
    bin_width_ : ndarray of shape (n_features,)
        0.0 for exact features, else the bin width.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    Two classes, one bimodal: a normal density cannot tell them apart, a kernel density can.

    >>> import numpy as np
    >>> from nbayes.kernel import KernelNB
    >>> X = np.array([[-3.0], [-2.8], [3.0], [3.2], [-0.1], [0.0], [0.1], [0.2]])
    >>> y = ["two", "two", "two", "two", "one", "one", "one", "one"]
    >>> clf = KernelNB().fit(X, y)
    >>> clf.predict([[0.05], [3.1], [-2.9]])
    array(['one', 'two', 'two'], dtype='<U3')
    >>> back = (clf + KernelNB().fit(X[:2], y[:2])).unlearn(X[:2], y[:2])
    >>> bool(np.allclose(back.predict_proba(X), clf.predict_proba(X)))
    True
    """

    _family = KernelFamily()
    _accept_sparse = False
    _derivation_params = ("bandwidth", "priors")
    _param_rules: ClassVar[dict[str, list[P.Rule]]] = {
        "bandwidth": [bandwidth_rule],
        "max_points": [P.none, P.non_negative_int(2)],
        "priors": [P.array_like, P.none],
    }

    def __init__(
        self, *, bandwidth: Any = "scott", max_points: int | None = None, priors: Any = None
    ) -> None:
        self.bandwidth = bandwidth
        self.max_points = max_points
        self.priors = priors

    # ``fit`` drops the statistics first, so a refit takes today's ``max_points``; the
    # batches of ``update`` and ``partial_fit`` keep the grid of the statistics they join.
    def _empty_stats(self, classes: np.ndarray, n_features: int) -> Any:
        if hasattr(self, "_stats"):
            return PointStats.empty(classes, n_features, self._stats.max_points)
        return PointStats.empty(classes, n_features, self.max_points)

    def _batch_stats(self, X: Any, y: np.ndarray, sample_weight: np.ndarray) -> Any:
        max_points = self._stats.max_points if hasattr(self, "_stats") else self.max_points
        return PointStats.from_batch(X, y, sample_weight, max_points)

    @property
    def bandwidth_(self) -> np.ndarray:
        """Kernel width per class and feature."""
        return readonly(self._derived()["bandwidth"])

    @property
    def class_prior_(self) -> np.ndarray:
        """Probability of each class."""
        return readonly(self._derived()["class_prior"])

    @property
    def n_points_(self) -> np.ndarray:
        """Distinct stored values (or occupied bins) per feature."""
        return np.array([len(v) for v in self._stats.values], dtype=np.int64)

    @property
    def bin_width_(self) -> np.ndarray:
        """Bin width per feature (0.0 where every value is stored exactly)."""
        return readonly(self._stats.widths)
