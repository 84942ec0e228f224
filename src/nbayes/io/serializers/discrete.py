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
from typing import Any

from nbayes._stats import CountStats
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
    return finish(header, CountStats(header.classes, class_count, feature_count))


SERIALIZERS = tuple(
    Serializer(cls.__name__, cls, dump, partial(load, cls))
    for cls in (BernoulliNB, ComplementNB, MultinomialNB, PoissonNB)
)
