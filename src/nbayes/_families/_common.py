"""Pieces shared by the likelihood families: priors, smoothing, log-space products."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._statistics.base import issparse

FloatArray = NDArray[np.float64]

ALPHA_LOWER_BOUND = 1e-10


def log(x: Any) -> FloatArray:
    """Natural log with log(0) = -inf and no RuntimeWarning."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


def class_log_prior(class_count: FloatArray, fit_prior: bool, class_prior: Any) -> FloatArray:
    """log P(y) the way scikit-learn's discrete estimators derive it."""
    n_classes = len(class_count)
    if class_prior is not None:
        prior = np.asarray(class_prior, dtype=np.float64)
        if prior.shape != (n_classes,):
            raise ValueError(
                f"Number of priors must match number of classes: got {prior.size} priors "
                f"for {n_classes} classes."
            )
        if not np.isfinite(prior).all() or (prior < 0).any() or prior.sum() <= 0:
            # log of a negative prior is NaN: every posterior would be NaN (scikit-learn
            # predicts with them; a clear error instead)
            raise ValueError(
                f"class_prior must be non-negative and finite, with a positive sum: got "
                f"{prior.tolist()!r}. Pass the probability of each class (e.g. "
                f"class_prior=[{', '.join(['0.5'] * min(n_classes, 2))}]), or None to "
                "learn them from the data."
            )
        total = float(prior.sum())
        if abs(total - 1.0) > 1e-9:
            # (scikit-learn uses them as given, silently: the posteriors are normalised,
            # but class_log_prior_ and the teaching views' P(y) would pass for probabilities)
            warnings.warn(
                f"class_prior sums to {total:.6g}, not 1: it is used as given, as scikit-learn "
                "uses it (the posteriors are normalised), but class_log_prior_, the joint "
                "log-likelihoods and the explanations' P(y) are then not probabilities. Pass "
                "the probability of each class.",
                UserWarning,
                stacklevel=2,
            )
        return log(prior)
    if fit_prior:
        total = class_count.sum()
        if total <= 0:
            return np.full(n_classes, -np.log(n_classes))
        return log(class_count) - np.log(total)
    return np.full(n_classes, -np.log(n_classes))


def row_major(feature_count: Any) -> FloatArray:
    """The counts in C order whatever their layout: a fit's table is Fortran-ordered, a
    loaded one C-ordered, and numpy sums a C row pairwise but a Fortran row one by one;
    summed over C rows (as scikit-learn sums), a loaded model predicts exactly as the
    fitted one did."""
    return np.ascontiguousarray(feature_count)


def check_alpha(alpha: Any, force_alpha: bool, n_features: int) -> FloatArray | float:
    """scikit-learn's alpha rules: an array needs one value per feature; tiny alpha is clipped
    to 1e-10 unless ``force_alpha`` (then alpha=0 is the exact maximum-likelihood estimate)."""
    a = np.asarray(alpha, dtype=np.float64) if not isinstance(alpha, Real) else float(alpha)
    a_min = float(np.min(a))
    if isinstance(a, np.ndarray):
        if a.ndim != 1 or a.shape[0] != n_features:
            got = f"{a.shape[0]} elements" if a.ndim == 1 else f"an array of shape {a.shape}"
            raise ValueError(
                "When alpha is an array, it should contains `n_features`. "
                f"Got {got} instead of {n_features}."
            )
        if a_min < 0:
            raise ValueError("All values in alpha must be greater than 0.")
    if a_min < ALPHA_LOWER_BOUND and not force_alpha:
        warnings.warn(
            "alpha too small will result in numeric errors, setting alpha ="
            f" {ALPHA_LOWER_BOUND:.1e}. Use `force_alpha=True` to keep alpha unchanged.",
            stacklevel=4,
        )
        return np.maximum(a, ALPHA_LOWER_BOUND)
    return a


def log_dot(X: Any, W: FloatArray) -> FloatArray:
    """``X @ W.T`` for non-negative X where W may hold -inf/+inf (log 0 and its negation).

    A zero entry of X times an infinite weight contributes nothing (0 · log 0 = 0, the
    convention of every likelihood here); a positive entry makes the result infinite.
    """
    finite = np.isfinite(W)
    if finite.all():
        return np.asarray(X @ W.T, dtype=np.float64)
    out = np.asarray(X @ np.where(finite, W, 0.0).T, dtype=np.float64)
    hits_neg = np.asarray(X @ (W == -np.inf).T.astype(np.float64)) > 0
    hits_pos = np.asarray(X @ (W == np.inf).T.astype(np.float64)) > 0
    out[hits_neg] = -np.inf
    out[hits_pos] = np.inf
    out[hits_neg & hits_pos] = np.nan
    return out


def row_values(X: Any) -> np.ndarray:
    """One row of X as a dense 1-D float array."""
    if issparse(X):
        return np.asarray(X.toarray(), dtype=np.float64).reshape(-1)
    return np.asarray(X, dtype=np.float64).reshape(-1)


def as_fraction(value: float) -> Fraction:
    """The rational a person means by a float hyperparameter: the one of smallest
    denominator (up to a million) that is the same float, else its shortest decimal
    (0.1 -> 1/10, 1/3 -> 1/3, 0.123456789 -> 123456789/1000000000).

    >>> as_fraction(0.1), as_fraction(2 / 3), as_fraction(1e-10)
    (Fraction(1, 10), Fraction(2, 3), Fraction(1, 10000000000))
    """
    value = float(value)
    decimal = Fraction(repr(value))
    for bound in (10, 1000, 10**6):
        near = decimal.limit_denominator(bound)
        if near.denominator < decimal.denominator and float(near) == value:
            return near
    return decimal


#: why an exact view is refused for counts that are not whole numbers
NOT_WHOLE_COUNTS = (
    "exact=True needs whole-number counts, but this model's counts are not whole numbers "
    "(fractional feature values, e.g. tf-idf or scaled counts, or fractional sample "
    "weights were learnt). Use exact=False."
)


def exact_prior_of(stats: Any, params: dict[str, Any]) -> list[Factor]:
    """The exact prior factors of a model with statistics ``stats`` (integer counts
    needed) and derivation hyperparameters ``params``."""
    if not stats.is_integral():
        raise ValueError(NOT_WHOLE_COUNTS)
    return exact_prior(stats.class_count, params.get("fit_prior", True), params.get("class_prior"))


def exact_prior(class_count: FloatArray, fit_prior: bool, class_prior: Any) -> list[Factor]:
    n = len(class_count)
    if class_prior is not None:
        priors = np.asarray(class_prior, dtype=float)
        return [Factor(None, as_fraction(p), 1, reduced=True) for p in priors]
    if fit_prior:
        total = int(round(float(class_count.sum())))
        return [Factor(None, Fraction(int(round(c)), 1), total) for c in class_count]
    return [Factor(None, Fraction(1), n) for _ in range(n)]


#: the largest factor by which a derivation's fraction is scaled to whole numbers
_MAX_SCALE = 10**6


class Factor:
    """One factor ``numerator/denominator`` (raised to ``power``) of an exact derivation.

    Written as the table of parameters writes the estimate, and the course notes do: a
    count's fraction unreduced, as a person derives it (``3/3``, ``0/2``, ``1/1``); with
    ``reduced`` (a smoothed estimate, a prior given as a number) its value in lowest terms,
    the table's result after the pseudo-counts (``(1 + 1)/(2 + 2·1) = 1/2``, the notes'
    ``1/4``). ``value`` is the exact rational.

    >>> str(Factor(0, 1, 1)), str(Factor(0, 2, 4)), str(Factor(0, 2, 4, reduced=True))
    ('1/1', '2/4', '1/2')
    """

    __slots__ = ("feature", "numerator", "denominator", "power", "reduced")

    def __init__(
        self,
        feature: int | None,
        numerator: Fraction | int,
        denominator: Fraction | int,
        power: int = 1,
        reduced: bool = False,
    ) -> None:
        self.feature = feature
        self.numerator = Fraction(numerator)
        self.denominator = Fraction(denominator)
        self.power = power
        self.reduced = reduced

    @property
    def value(self) -> Fraction:
        if self.denominator == 0:
            raise ZeroDivisionError("a factor with denominator 0 has no value")
        return (self.numerator / self.denominator) ** self.power

    def in_whole_numbers(self) -> tuple[Fraction, Fraction]:
        """The numerator and denominator as shown: a ``reduced`` factor's value in lowest
        terms; otherwise whole numbers where the pseudo-counts are fractions, both scaled
        alike (``(1 + 1/2)/(6 + 3)`` unreduced is ``3/18``, not ``(3/2)/9``; a prior ``3/5``
        over 1 is ``3/5``).

        >>> [str(p) for p in Factor(0, Fraction(3, 2), 9).in_whole_numbers()]
        ['3', '18']
        >>> [str(p) for p in Factor(None, Fraction(3, 5), 1).in_whole_numbers()]
        ['3', '5']
        >>> [str(p) for p in Factor(0, Fraction(2), 12).in_whole_numbers()]
        ['2', '12']
        """
        num, den = self.numerator, self.denominator
        if self.reduced and den != 0:
            q = num / den
            return Fraction(q.numerator), Fraction(q.denominator)
        scale = math.lcm(num.denominator, den.denominator)
        if scale == 1 or scale > _MAX_SCALE:  # (a float's own fraction: left as it is)
            return num, den
        return num * scale, den * scale

    def one_number(self) -> bool:
        """Whether it is written as one number (a reduced value that is whole)."""
        return self.reduced and self.in_whole_numbers()[1] == 1

    def __str__(self) -> str:
        num, den = self.in_whole_numbers()
        if self.one_number():
            text = _fmt_rational(num)
        else:
            text = f"{_fmt_rational(num)}/{_fmt_rational(den)}"
        if self.power != 1:
            text = f"({text})^{self.power}"
        return text

    def __repr__(self) -> str:
        return f"Factor(feature={self.feature}, {self})"


class Estimate:
    """One estimated probability (or rate) as the notes write it, unreduced:
    ``(count + alpha) / (total + extra)``, with ``extra = k·alpha`` when ``k`` is given
    (Laplace smoothing of a Bernoulli estimate: ``(1 + 1)/(3 + 2·1)``); without smoothing
    just ``count/total`` (``0/2`` and ``2/2`` stay so). ``value`` is the exact rational.
    """

    __slots__ = ("count", "total", "alpha", "extra", "k")

    def __init__(
        self, count: Any, total: Any, alpha: Any = 0, extra: Any = None, k: int | None = None
    ) -> None:
        self.count = Fraction(count)
        self.total = Fraction(total)
        self.alpha = Fraction(alpha)
        self.k = k
        self.extra = Fraction(extra) if extra is not None else self.alpha * (k or 0)

    @property
    def smoothed(self) -> bool:
        return bool(self.alpha) or bool(self.extra)

    @property
    def numerator(self) -> Fraction:
        return self.count + self.alpha

    @property
    def denominator(self) -> Fraction:
        return self.total + self.extra

    @property
    def value(self) -> Fraction:
        if self.denominator == 0:
            raise ZeroDivisionError("an estimate with denominator 0 (an empty class) has no value")
        return self.numerator / self.denominator

    def parts(self) -> tuple[str, str]:
        """The numerator and denominator as written: ``("1 + 1", "3 + 2·1")``."""
        num, den = _fmt_rational(self.count), _fmt_rational(self.total)
        if not self.smoothed:
            return num, den
        extra = (
            f"{self.k}·{_fmt_rational(self.alpha)}"
            if self.k is not None and self.extra == self.alpha * self.k
            else _fmt_rational(self.extra)
        )
        return f"{num} + {_fmt_rational(self.alpha)}", f"{den} + {extra}"

    def __str__(self) -> str:
        num, den = self.parts()
        if not self.smoothed:
            return f"{num}/{den}"
        return f"({num})/({den})"

    def __repr__(self) -> str:
        return f"Estimate({self})"


def _fmt_rational(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"({q.numerator}/{q.denominator})"


def log_normalize(jll: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row-normalise joint log-likelihoods: log P(y | x), and the mask of undecidable rows.

    A row where every class has zero likelihood (all -inf) has no posterior: NaN. A row
    where some classes have infinite evidence (+inf) shares the probability among them.
    """
    top = jll.max(axis=1) if jll.shape[1] else np.zeros(jll.shape[0])
    if np.isfinite(top).all():
        # The common case (no NaN, no infinite row maximum): one pass, as logsumexp.
        shifted = jll - top[:, None]
        shifted -= np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        return shifted, np.zeros(jll.shape[0], dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
        has_nan = np.isnan(jll).any(axis=1)
        top = np.max(np.where(np.isnan(jll), -np.inf, jll), axis=1)
        undecidable = has_nan | (top == -np.inf)
        out = np.full(jll.shape, np.nan)
        ok = ~undecidable & np.isfinite(top)
        if ok.any():
            shifted = jll[ok] - top[ok, None]
            out[ok] = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        infinite = ~undecidable & (top == np.inf)
        if infinite.any():
            winners = jll[infinite] == np.inf
            out[infinite] = np.where(winners, -np.log(winners.sum(axis=1, keepdims=True)), -np.inf)
    return out, undecidable


def top_by_class(scores: Any, best: Any, n_classes: int, k: int) -> list[Any]:
    """Per class, the indices of the ``k`` features of highest ``scores`` among those whose
    ``best`` class it is, highest first (equal scores in feature order): what a stable
    ranking of every feature, then filtered by class, gives, without ranking (nor naming)
    every feature (``nbayes info`` of a 3.76 M-term model held a tuple and a str of each:
    3.6 GB).

    >>> scores, best = np.array([1.0, 3.0, 2.0, 3.0]), np.array([0, 1, 0, 1])
    >>> [i.tolist() for i in top_by_class(scores, best, 2, 1)]
    [[2], [1]]
    """
    out = []
    for c in range(n_classes):
        mine = np.flatnonzero(best == c)
        if len(mine) > k:  # the k largest first (and every tie of the k-th), then ranked
            cut = np.partition(-scores[mine], k - 1)[k - 1] if k > 0 else -np.inf
            mine = mine[-scores[mine] <= cut]
        out.append(mine[np.argsort(-scores[mine], kind="stable")][: max(k, 0)])
    return out


def ranked_by_class(
    scores: Any, best: Any, labels: list[Any], names: Any, k: int
) -> dict[Any, list[tuple[str, float]]]:
    """Class label -> its ``k`` features of highest ``scores`` (:func:`top_by_class`) as
    ``(name, score)``, naming only those (``names`` indexed, not listed): what an estimator's
    and a text scorer's ``most_informative_by_class`` answer."""
    picked = top_by_class(scores, best, len(labels), int(k))
    return {
        c: [(str(names[j]), float(scores[j])) for j in rows.tolist()]
        for c, rows in zip(labels, picked, strict=True)
    }
