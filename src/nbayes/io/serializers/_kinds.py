"""The codecs of nbayes's own kinds, and the serializer of an estimator a kind declares.

:func:`codec_of` gives the :class:`~nbayes._families.kinds.Codec` of any registered kind:
nbayes's own are here (they share the array functions of the estimators' serializers:
:func:`~nbayes.io.serializers.gaussian.dump_moments`,
:func:`~nbayes.io.serializers.kernel.dump_points`, ...); another kind brings its own
(``Kind.codec``). MixedNB's model file writes each column with its kind's codec.

:func:`kind_serializer` makes the serializer of the estimator a registered kind declares
(``Kind.estimator``): the header of :mod:`nbayes.io.serializers._estimator`, then
``"stats": {"kind": <the kind's name>, ...}`` and the codec's arrays.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from nbayes._families.kinds import Codec, Kind
from nbayes._statistics import CategoryStats, CountStats
from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._codecs import decode_categories, encode_categories
from nbayes.io._invariants import not_above
from nbayes.io._json import expect_dict, expect_str_list
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import WHERE, dump_start, finish, load_start
from nbayes.io.serializers.gaussian import dump_moments, load_moments
from nbayes.io.serializers.kernel import dump_points, load_points

__all__ = ["codec_of", "kind_serializer"]


class _Moments(Codec):
    def dump(self, stats: Any, writer: ArrayWriter) -> dict[str, Any]:
        dump_moments(stats, writer)
        return {}

    def load(
        self,
        reader: ArrayReader,
        classes: np.ndarray,
        class_count: np.ndarray,
        n_features: int,
        extra: Mapping[str, Any],
        where: str,
    ) -> Any:
        return load_moments(reader, classes, class_count, n_features)


class _Points(Codec):
    """Stored points, never binned (a MixedNB's kde columns)."""

    def dump(self, stats: Any, writer: ArrayWriter) -> dict[str, Any]:
        if stats.max_points is not None or np.any(stats.widths > 0):
            raise ValueError("Cannot save a binned kde column of a MixedNB.")
        dump_points(stats, writer, exact_only=True)
        return {}

    def load(
        self,
        reader: ArrayReader,
        classes: np.ndarray,
        class_count: np.ndarray,
        n_features: int,
        extra: Mapping[str, Any],
        where: str,
    ) -> Any:
        return load_points(reader, classes, class_count, n_features, None, binned=False)


class _Counts(Codec):
    """Counts per class and feature; ``bounded``: at most the class count (true values)."""

    def __init__(self, bounded: bool) -> None:
        self.bounded = bounded

    def dump(self, stats: Any, writer: ArrayWriter) -> dict[str, Any]:
        writer.put("feature_count", stats.feature_count)
        return {}

    def load(
        self,
        reader: ArrayReader,
        classes: np.ndarray,
        class_count: np.ndarray,
        n_features: int,
        extra: Mapping[str, Any],
        where: str,
    ) -> Any:
        fc = reader.get("feature_count", shape=(len(classes), n_features), non_negative=True)
        if self.bounded:
            not_above(
                fc.max(axis=1, initial=0.0),
                class_count,
                f"{where}: the count of true values",
                "the observed count",
            )
        return CountStats(classes, class_count, fc)


class _Categories(Codec):
    """The categories of one column (labels in the JSON) and their counts."""

    keys = ("categories",)

    def dump(self, stats: Any, writer: ArrayWriter) -> dict[str, Any]:
        writer.put("category_count", stats.category_count[0])
        return {"categories": encode_categories(stats.categories[0], 0)}

    def load(
        self,
        reader: ArrayReader,
        classes: np.ndarray,
        class_count: np.ndarray,
        n_features: int,
        extra: Mapping[str, Any],
        where: str,
    ) -> Any:
        cats = decode_categories(extra["categories"], f"{where}['categories']")
        counts = reader.get("category_count", shape=(len(classes), len(cats)), non_negative=True)
        return CategoryStats(classes, class_count, (counts,), (cats,), False)


class _Words(Codec):
    """A text column: its sorted words in the JSON, their counts per class."""

    keys = ("vocabulary",)

    def dump(self, stats: Any, writer: ArrayWriter) -> dict[str, Any]:
        out = {"vocabulary": [str(w) for w in stats.vocabulary]}
        writer.put("feature_count", stats.counts.feature_count)
        return out

    def load(
        self,
        reader: ArrayReader,
        classes: np.ndarray,
        class_count: np.ndarray,
        n_features: int,
        extra: Mapping[str, Any],
        where: str,
    ) -> Any:
        from nbayes.mixed import TextStats

        words = expect_str_list(extra["vocabulary"], f"{where}['vocabulary']")
        if any(not a < b for a, b in zip(words, words[1:], strict=False)):
            raise ModelFileError(f"{where}['vocabulary'] should be unique and sorted")
        vocab = np.empty(len(words), dtype=object)
        vocab[:] = words
        fc = reader.get("feature_count", shape=(len(classes), len(words)), non_negative=True)
        return TextStats(vocab, CountStats(classes, class_count, fc))


#: the codecs of nbayes's own kinds, by kind name
_OWN: dict[str, Codec] = {
    "gaussian": _Moments(),
    "kde": _Points(),
    "poisson": _Counts(bounded=False),
    "bernoulli": _Counts(bounded=True),
    "categorical": _Categories(),
    "text": _Words(),
}


def codec_of(kind: Kind) -> Codec:
    """The codec of ``kind``: its own, else nbayes's for it."""
    codec = kind.codec if kind.codec is not None else _OWN.get(kind.name)
    if codec is None:
        raise ValueError(
            f"The kind {kind.name!r} declares no codec: its statistics cannot be saved."
        )
    return codec


def kind_serializer(kind: Kind) -> Serializer:
    """The serializer of the estimator ``kind`` declares (``kind.estimator``)."""
    cls = kind.estimator
    assert cls is not None
    codec = codec_of(kind)

    def dump(model: Any, writer: ArrayWriter) -> dict[str, Any]:
        out, stats = dump_start(model, writer)
        out["stats"] = {"kind": kind.name, **codec.dump(stats, writer)}
        return out

    def load(d: dict[str, Any], reader: ArrayReader) -> Any:
        header, st = load_start(cls, d, kind.name)
        where = f"{WHERE}['stats']"
        expect_dict(st, where, ("kind", *codec.keys))
        class_count = header.class_count(reader)
        stats = codec.load(reader, header.classes, class_count, header.n_features, st, where)
        return finish(header, stats)

    return Serializer(cls.__name__, cls, dump, load)
