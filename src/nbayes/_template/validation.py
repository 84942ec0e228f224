"""Input checks at the boundary: clear errors that name the offending columns and values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

__all__ = [
    "MAX_CATEGORY_CODE",
    "check_categories",
    "check_category_labels",
    "check_min_categories",
    "check_finite",
    "check_non_negative",
    "check_same_classes",
    "check_sample_weight",
    "FeatureNames",
    "feature_names",
    "is_sparse",
]

_MAX_LISTED = 5

#: the largest integer category code CategoricalNB learns: it keeps a count for every code
#: from 0 to the largest (per class), so a code of 10^7 would take gigabytes
MAX_CATEGORY_CODE = 2**20 - 1


def is_sparse(X: Any) -> bool:
    return bool(sp.issparse(X))


class FeatureNames(Sequence[str]):
    """The names of the features, made one at a time when an error message needs them.

    ``feature_names_in_`` if the estimator knows them, else ``x0, x1, ...``. Building a
    list of 10^5 names on every call to fit or predict would cost more than the fit.
    """

    def __init__(self, estimator: Any, n_features: int) -> None:
        self._names = getattr(estimator, "feature_names_in_", None)
        self._n = n_features

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, j: Any) -> Any:
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(self._n))]
        j = int(j)
        if not -self._n <= j < self._n:
            raise IndexError(j)
        j %= self._n
        return str(self._names[j]) if self._names is not None else f"x{j}"


def feature_names(estimator: Any, n_features: int) -> list[str]:
    """The names of the features: ``feature_names_in_`` if known, else ``x0, x1, ...``."""
    return list(FeatureNames(estimator, n_features))


def _describe_columns(columns: Sequence[int] | np.ndarray, names: Sequence[str] | None) -> str:
    shown = [int(j) for j in columns[:_MAX_LISTED]]
    if names is not None:
        text = ", ".join(f"{names[j]!r}" for j in shown)
    else:
        text = ", ".join(str(j) for j in shown)
    more = len(columns) - len(shown)
    return text + (f" and {more} more" if more > 0 else "")


def _bad_columns(X: Any, bad: NDArray[np.bool_]) -> NDArray[np.intp]:
    """Columns that hold at least one True of ``bad`` (a mask over X, or over X.data if sparse)."""
    if is_sparse(X):
        return np.unique(X.indices[bad])
    return np.flatnonzero(bad.any(axis=0))


def check_finite(X: Any, who: str, names: Sequence[str] | None = None) -> None:
    """Raise a ValueError naming the columns that hold NaN or infinity.

    The message contains "NaN" or "infinity" so that it reads like scikit-learn's.
    """
    values = X.data if is_sparse(X) else X
    if values.dtype.kind not in "fc":
        return
    if np.isfinite(values).all():
        return
    nan = np.isnan(values)
    if nan.any():
        cols = _bad_columns(X, nan)
        raise ValueError(
            f"Input X contains NaN in column(s) {_describe_columns(cols, names)}. "
            f"{who} does not accept missing values: impute them (e.g. sklearn.impute."
            "SimpleImputer) or drop those rows."
        )
    cols = _bad_columns(X, ~np.isfinite(values))
    raise ValueError(  # (scikit-learn's words first: code that matches them still does)
        f"Input X contains infinity or a value too large for {values.dtype!r}, in "
        f"column(s) {_describe_columns(cols, names)}. {who} needs finite values: clip or "
        "remove them."
    )


def check_non_negative(X: Any, who: str, names: Sequence[str] | None = None) -> None:
    """Raise a ValueError naming the columns with negative values (counts must be >= 0)."""
    values = X.data if is_sparse(X) else X
    if values.size == 0:
        return
    if values.min() >= 0:
        return
    neg = values < 0
    cols = _bad_columns(X, neg)
    first = values[neg].flat[0].item()  # (a Python number: not "np.int64(-1)")
    raise ValueError(
        f"Negative values in data passed to {who} (input X): column(s) "
        f"{_describe_columns(cols, names)} hold values such as {first!r}. "
        "This model counts occurrences, so every value must be >= 0; "
        "use GaussianNB for real-valued features."
    )


def check_sample_weight(sample_weight: Any, n_samples: int) -> NDArray[np.float64]:
    """Validate ``sample_weight``: a finite, non-negative 1-D array of length ``n_samples``."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    if np.isscalar(sample_weight):
        sw = np.full(n_samples, float(sample_weight))  # type: ignore[arg-type]
    else:
        sw = np.asarray(sample_weight, dtype=np.float64)
    if sw.ndim != 1 or sw.shape[0] != n_samples:
        raise ValueError(
            f"sample_weight.shape == {sw.shape}, expected ({n_samples},): "
            "pass one weight per row of X."
        )
    if not np.isfinite(sw).all():  # (scikit-learn's words first)
        what = "NaN" if np.isnan(sw).any() else "infinity or a value too large for dtype('float64')"
        raise ValueError(
            f"Input sample_weight contains {what}: every weight must be a finite number."
        )
    if sw.size and sw.min() < 0:
        raise ValueError(
            f"sample_weight contains negative values such as {sw[sw < 0][0]!r}: "
            "a Naive Bayes model counts weighted examples, so weights must be >= 0. "
            "To remove examples from a fitted model use unlearn()."
        )
    if n_samples and not sw.any():
        raise ValueError(
            "Sample weights must contain at least one non-zero number: with every weight 0 "
            "there is nothing to learn."
        )
    return sw


def check_same_classes(classes: Any, known: np.ndarray) -> None:
    """``partial_fit``'s ``classes`` after the first call: the model's, in any order, each
    once (a failed fit changed nothing, so this compares to what the model knows)."""
    given = np.asarray(classes)
    if len(given) != len(known) or not np.array_equal(np.unique(given), known):
        raise ValueError(
            f"`classes={given!r}` is not the same as on last call to partial_fit, was: {known!r}"
        )


def check_category_labels(X: np.ndarray, who: str, names: Sequence[str]) -> np.ndarray:
    """Check an object array of category labels: no missing values, one orderable type."""
    for j in range(X.shape[1]):
        column = X[:, j]
        kinds = set()
        for v in column:
            if v is None or (isinstance(v, float | np.floating) and v != v):
                raise ValueError(
                    f"Input X contains NaN or None in column {names[j]!r}. {who} does not "
                    "accept missing values: impute them or use a category such as 'missing'."
                )
            if isinstance(v, str | np.str_):
                kinds.add("str")
            elif isinstance(v, int | float | np.number) and not isinstance(v, bool):
                if isinstance(v, float | np.floating) and not np.isfinite(v):
                    raise ValueError(
                        f"Input X contains infinity in column {names[j]!r}: not a category."
                    )
                kinds.add("number")
            elif isinstance(v, bool | np.bool_):
                kinds.add("bool")
            else:
                raise TypeError(
                    f"Column {names[j]!r} of the input to {who} holds a "
                    f"{type(v).__name__}: a category argument must be a string or a number."
                )
        if len(kinds) > 1:
            raise ValueError(
                f"Column {names[j]!r} mixes category types {sorted(kinds)}: use one type per "
                "column (e.g. convert every value to str)."
            )
    return X


def check_categories(
    estimator: Any, X: Any, y: Any, reset: bool, fitted_coded: bool | None
) -> tuple[Any, bool]:
    """Validate CategoricalNB input: integer codes (0, 1, ... up to
    :data:`MAX_CATEGORY_CODE`) or labels.

    Returns the checked input (``(X, y)`` in training, X alone for ``y="no_validation"``)
    and whether it is coded. ``fitted_coded``: how the fitted model was encoded (None
    before the first fit).
    """
    from sklearn.utils.multiclass import check_classification_targets
    from sklearn.utils.validation import validate_data

    kw: dict[str, Any] = dict(accept_sparse=False, ensure_all_finite=False, dtype=None, reset=reset)
    training = not (isinstance(y, str) and y == "no_validation")
    if not training:
        X = validate_data(estimator, X, **kw)
    else:
        X, y = validate_data(estimator, X, y, **kw)
        check_classification_targets(y)
    who = type(estimator).__name__
    names = FeatureNames(estimator, X.shape[1])
    coded = X.dtype.kind in "biuf" and fitted_coded is not False
    if coded:
        check_finite(X, who, names)
        if X.dtype.kind == "f" and (X != np.floor(X)).any():
            # Fractional values are no category codes: they are category labels.
            coded = False
        elif X.size and X.min() < 0:
            j = int(np.flatnonzero((X < 0).any(axis=0))[0])
            raise ValueError(
                f"Negative values in data passed to {who} (input X): column {names[j]!r} "
                "holds a negative category code. Integer codes must be 0, 1, 2, ...; "
                "pass labels as strings to use other values."
            )
        elif training and X.size and X.max() > MAX_CATEGORY_CODE:
            j = int(np.flatnonzero((X > MAX_CATEGORY_CODE).any(axis=0))[0])
            raise ValueError(
                f"Column {names[j]!r} holds the category code {X[:, j].max().item()!r}, above the "
                f"largest {who} learns ({MAX_CATEGORY_CODE}): integer codes are counted for "
                "every code from 0 to the largest. Re-encode the column (e.g. "
                "sklearn.preprocessing.OrdinalEncoder) or pass its values as strings (labels "
                "are stored only when seen)."
            )
    if not coded:
        X = check_category_labels(np.asarray(X, dtype=object), who, names)
    if fitted_coded is not None and coded != fitted_coded:
        raise ValueError(
            f"{who} was fitted on integer category codes but got labels (strings or "
            "fractional numbers): encode every batch alike."
        )
    return ((X, np.asarray(y)) if training else X), coded


def check_min_categories(min_categories: Any, n_features: int) -> NDArray[Any] | None:
    """CategoricalNB's ``min_categories``: None, or an integer per feature."""
    if min_categories is None:
        return None
    m = np.asarray(min_categories)
    if not np.issubdtype(m.dtype, np.integer):
        raise ValueError(f"'min_categories' should have integral type. Got {m.dtype} instead.")
    if m.ndim == 0:
        return np.full(n_features, int(m))
    if m.shape != (n_features,):
        raise ValueError(
            f"'min_categories' should have shape ({n_features},) when an array-like is "
            f"provided. Got {m.shape} instead."
        )
    return m
