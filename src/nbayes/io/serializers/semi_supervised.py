"""How a :class:`~nbayes.SemiSupervisedNB` is saved: as its fitted ``estimator_``.

EM's result is an ordinary model (a TextClassifier, a MultinomialNB, ... with fractional
counts), so ``nbayes.save(semi, path)`` writes that model's own file and ``nbayes.load(path)``
gives that model back, not the wrapper: it predicts, explains and updates as ``semi`` did
(the EM settings and history -- ``unlabeled_weight_``, ``log_likelihood_``, ... -- are not
stored). No file has the model type ``SemiSupervisedNB``.
"""

from __future__ import annotations

from typing import Any

from sklearn.utils.validation import check_is_fitted

from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._json import _fail
from nbayes.io._registry import Serializer
from nbayes.semi_supervised import SemiSupervisedNB


def fitted_model(semi: SemiSupervisedNB) -> Any:
    """The model a SemiSupervisedNB is saved as (an unfitted one is refused)."""
    check_is_fitted(semi)
    return semi.estimator_


def dump(semi: SemiSupervisedNB, writer: ArrayWriter) -> dict[str, Any]:
    raise AssertionError("a SemiSupervisedNB is saved as its estimator_")  # pragma: no cover


def load(d: dict[str, Any], reader: ArrayReader) -> Any:
    raise _fail(
        "no nbayes writes a 'SemiSupervisedNB' model file (nbayes.save writes its fitted "
        "estimator_, an ordinary model file); this file was not written by nbayes.save"
    )


SERIALIZERS = (Serializer("SemiSupervisedNB", SemiSupervisedNB, dump, load, fitted_model),)
