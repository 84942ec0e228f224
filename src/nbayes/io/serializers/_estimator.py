"""What the serialisers of the estimators share: the fitted check, the hyperparameters, the
classes, the feature header and the last checks of a rebuilt model.

An estimator of one table of features (the core estimators and KernelNB) starts its
``"model"`` JSON with the same four keys::

    {"hyperparameters": {...}, "classes": {...}, "n_features_in": 3,
     "feature_names_in": null or [...], ...}

and its arrays with ``class_count``; :func:`dump_start` writes them and
:func:`load_start` reads them back, checked, into a :class:`Header` whose model is
constructed from the hyperparameters and validated by the estimator's own
``_check_params``. Once the statistics are read, :func:`finish` sets them and runs the
estimator's derivation checks.

The estimators' private state these functions reach: ``_stats`` (read),
``_set_stats`` (sets the statistics and drops the derivation cache), ``_check_params``
and ``_check_derivation``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._codecs import decode_labels, decode_param, encode_labels, encode_params
from nbayes.io._invariants import check_class_prior
from nbayes.io._json import _show, expect_dict, expect_int, expect_str_list

WHERE = "metadata['model']"
"""Where a serialiser's JSON sits in the file (for error messages)."""

HEADER_KEYS = ("hyperparameters", "classes", "n_features_in", "feature_names_in")


def check_fitted(model: Any) -> None:
    """ValueError unless ``model`` is fitted (nothing to save otherwise)."""
    if not model.__sklearn_is_fitted__():
        raise ValueError(f"This {type(model).__name__} is not fitted yet: fit it before saving it.")


def decode_hyperparameters(cls: type, value: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """The hyperparameters of a ``cls``: exactly its own names, each decoded (``skip``
    names are checked to be there but left out, for the caller to decode)."""
    where = f"{WHERE}['hyperparameters']"
    hp = expect_dict(value, where, set(cls().get_params(deep=False)))
    return {k: decode_param(v, f"{where}[{k!r}]") for k, v in hp.items() if k not in skip}


def check_saved_prior(model: Any, n_classes: int) -> None:
    """ValueError unless the ``class_prior`` of the model to save (if it has one) is a
    distribution over its classes (a model file holding another does not load)."""
    prior = model.get_params(deep=False).get("class_prior")
    try:
        check_class_prior(prior, n_classes, ValueError)
    except ValueError as exc:
        raise ValueError(
            f"Cannot save this {type(model).__name__}: {exc}. Set a valid class_prior "
            "(set_params) and save again."
        ) from None


def check_params(model: Any) -> None:
    """The estimator's own validation of its hyperparameters, as a ModelFileError."""
    try:
        model._check_params()
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"invalid hyperparameters: {exc}") from None


def decode_classes(value: Any) -> np.ndarray:
    """The classes of a fitted model: typed, unique, sorted, at least one."""
    classes = decode_labels(value, f"{WHERE}['classes']")
    if len(classes) < 1:
        raise ModelFileError(f"{WHERE}['classes'] is empty; a fitted model has at least one class")
    return classes


def check_derivation(derive: Callable[[], object]) -> None:
    """Run the estimator's derivation-time checks (``derive``), as a ModelFileError.

    Warnings (e.g. overflow from absurd but finite counts) are silenced here: they show
    again when the loaded model is first used.
    """
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            derive()
    except (ValueError, TypeError) as exc:
        raise ModelFileError(f"the hyperparameters do not fit the statistics: {exc}") from None


# --------------------------------------------------------------------------------------
# the header of a one-table estimator
# --------------------------------------------------------------------------------------


def dump_start(model: Any, writer: ArrayWriter) -> tuple[dict[str, Any], Any]:
    """The four header keys of ``model`` (ValueError unless fitted) with its
    ``class_count`` array written, and its statistics (``model._stats``) to write next."""
    check_fitted(model)
    stats = model._stats
    check_saved_prior(model, len(stats.classes))
    names = getattr(model, "feature_names_in_", None)
    writer.put("class_count", stats.class_count)
    out = {
        "hyperparameters": encode_params(model.get_params(deep=False)),
        "classes": encode_labels(stats.classes),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names is None else [str(n) for n in names],
    }
    return out, stats


@dataclass
class Header:
    """The checked header of a one-table estimator, and the model built from it."""

    model: Any
    params: dict[str, Any]
    classes: np.ndarray
    n_features: int
    names: list[str] | None

    def class_count(self, reader: ArrayReader) -> np.ndarray:
        """The ``class_count`` array: one non-negative count per class."""
        return reader.get("class_count", shape=(len(self.classes),), non_negative=True)


def load_start(
    cls: type, d: dict[str, Any], kind: str, stats_keys: tuple[str, ...] | None = None
) -> tuple[Header, dict[str, Any]]:
    """The checked header of ``d`` (the four header keys and ``"stats"``, exactly), the
    model built from its hyperparameters, and its ``"stats"`` object, checked to be of
    ``kind`` (and to have exactly ``stats_keys``, when given, before that)."""
    expect_dict(d, WHERE, (*HEADER_KEYS, "stats"))
    params = decode_hyperparameters(cls, d["hyperparameters"])
    model = cls(**params)
    check_params(model)
    classes = decode_classes(d["classes"])
    check_class_prior(params.get("class_prior"), len(classes))
    n_features = expect_int(d["n_features_in"], f"{WHERE}['n_features_in']", 1)
    names = d["feature_names_in"]
    if names is not None:
        names = expect_str_list(names, f"{WHERE}['feature_names_in']", n_features)
        if len(set(names)) != len(names):
            raise ModelFileError(f"{WHERE}['feature_names_in'] holds duplicate names")
    st = expect_dict(d["stats"], f"{WHERE}['stats']", stats_keys)
    if st.get("kind") != kind:
        raise ModelFileError(
            f"{WHERE}['stats']['kind'] is {_show(st.get('kind'))}; a {cls.__name__} has {kind!r}"
        )
    return Header(model, params, classes, n_features, names), st


def finish(header: Header, stats: Any, derive: Callable[[], object] | None = None) -> Any:
    """Set the feature header and ``stats`` on the model, then check its derivation
    (``derive``, by default the estimator's ``_check_derivation``)."""
    model = header.model
    model.n_features_in_ = header.n_features
    if header.names is not None:
        model.feature_names_in_ = np.asarray(header.names, dtype=object)
    model._set_stats(stats)
    check_derivation(model._check_derivation if derive is None else derive)
    return model._set_stats(stats)  # drop the cache: derivation warnings show on first use
