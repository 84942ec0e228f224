"""Model-file (de)serialiser of the count estimators: :class:`~nbayes.BernoulliNB`,
:class:`~nbayes.ComplementNB`, :class:`~nbayes.MultinomialNB` and :class:`~nbayes.PoissonNB`.

``"model"`` is the header of :mod:`nbayes.io.serializers._estimator` and
``"stats": {"kind": "counts"}``; the arrays are ``class_count`` (n_classes,) and
``feature_count`` (n_classes, n_features), both finite and non-negative (of a bounded
total); a BernoulliNB that binarizes counts a feature present in at most every row of its
class.
"""

from __future__ import annotations

from functools import partial
from numbers import Real
from typing import Any

import numpy as np

from nbayes._families._common import check_alpha
from nbayes._statistics import CountStats
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._invariants import not_above
from nbayes.io._json import expect_dict
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import WHERE, dump_start, finish, load_start
from nbayes.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB, PoissonNB


def dump(model: Any, writer: ArrayWriter) -> dict[str, Any]:
    out, stats = dump_start(model, writer)
    out["stats"] = {"kind": "counts"}
    writer.put("feature_count", stats.feature_count)
    return out


def load(cls: type, d: dict[str, Any], reader: ArrayReader) -> Any:
    header, st = load_start(cls, d, "counts")
    class_count = header.class_count(reader)
    expect_dict(st, f"{WHERE}['stats']", ("kind",))
    shape = (len(header.classes), header.n_features)
    feature_count = reader.get("feature_count", shape=shape, non_negative=True)
    if cls is BernoulliNB and header.params["binarize"] is not None:
        # binarized rows: a feature is present in at most every row of its class
        not_above(feature_count.max(axis=1, initial=0.0), class_count,
                  "the count of a present feature", "the class count")  # fmt: skip
    stats = CountStats(header.classes, class_count, feature_count)
    return finish(header, stats, partial(_derive_checks, header.model, stats))


def _derive_checks(model: Any, stats: CountStats) -> None:
    """What the first prediction's derivation checks, without deriving the model (its
    log-probabilities are as large as the counts: deriving them at load doubled the
    memory a load takes): a family's derivation raises only for its hyperparameters
    against the classes and the number of features (alpha, class_prior), never for the
    counts' values, so the derivation of one column, after alpha's rules over every
    feature, checks the same."""
    values = model._derivation_values()
    alpha = values.get("alpha")
    if alpha is not None and not isinstance(alpha, Real):
        check_alpha(alpha, values.get("force_alpha", True), stats.n_features)  # all of it
        values = {**values, "alpha": np.asarray(alpha, dtype=np.float64)[:1]}
    one = CountStats(stats.classes, stats.class_count, stats.feature_count[:, :1])
    model._family.derive(one, values)


SERIALIZERS = tuple(
    Serializer(cls.__name__, cls, dump, partial(load, cls))
    for cls in (BernoulliNB, ComplementNB, MultinomialNB, PoissonNB)
)
