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

from nbayes._families.kinds import Codec, Head, Kind
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

    def load(self, reader: ArrayReader, head: Head, extra: Mapping[str, Any], where: str) -> Any:
        return load_moments(reader, head.classes, head.class_count, head.n_features)


class _Points(Codec):
    """Stored points, never binned (a MixedNB's kde columns)."""

    def dump(self, stats: Any, writer: ArrayWriter) -> dict[str, Any]:
        if stats.max_points is not None or np.any(stats.widths > 0):
            raise ValueError("Cannot save a binned kde column of a MixedNB.")
        dump_points(stats, writer, exact_only=True)
        return {}

    def load(self, reader: ArrayReader, head: Head, extra: Mapping[str, Any], where: str) -> Any:
        return load_points(reader, head.classes, head.class_count, head.n_features, None, False)


class _Counts(Codec):
    """Counts per class and feature; ``bounded``: at most the class count (true values)."""

    def __init__(self, bounded: bool) -> None:
        self.bounded = bounded

    def dump(self, stats: Any, writer: ArrayWriter) -> dict[str, Any]:
        writer.put("feature_count", stats.feature_count)
        return {}

    def load(self, reader: ArrayReader, head: Head, extra: Mapping[str, Any], where: str) -> Any:
        classes, class_count = head.classes, head.class_count
        fc = reader.get("feature_count", shape=(len(classes), head.n_features), non_negative=True)
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

    def load(self, reader: ArrayReader, head: Head, extra: Mapping[str, Any], where: str) -> Any:
        classes, class_count = head.classes, head.class_count
        cats = decode_categories(extra["categories"], f"{where}['categories']")
        counts = reader.get("category_count", shape=(len(classes), len(cats)), non_negative=True)
        return CategoryStats(classes, class_count, (counts,), (cats,), False)


def _stand_ins(fc: np.ndarray, class_count: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """What a text column's totals are taken to be where a file does not store them (files
    before nbayes 0.3, which counted no documents per word): the word totals (rounded up,
    an upper bound of the documents) and the rows."""
    totals = fc.sum(axis=0)
    return np.ceil(totals).astype(np.int64), totals, int(round(float(class_count.sum())))


class _Words(Codec):
    """A text column: its words, sorted, in the JSON; their counts per class; and, unless
    they are what :func:`_stand_ins` gives, the documents per word (``doc_freq``), the
    unweighted word totals (``term_freq``) and the documents (``n_docs``)."""

    keys = ("vocabulary",)

    def dump(self, stats: Any, writer: ArrayWriter) -> dict[str, Any]:
        words = [str(w) for w in stats.vocabulary.terms]
        order = sorted(range(len(words)), key=words.__getitem__)
        cols = None if order == list(range(len(words))) else np.asarray(order, dtype=np.int64)
        fc, df, tf = stats.counts.feature_count, stats.doc_freq, stats.term_freq
        if cols is not None:
            fc, df, tf = fc[:, cols], df[cols], tf[cols]
        writer.put("feature_count", fc)
        df0, tf0, n0 = _stand_ins(fc, stats.class_count)
        if not (np.array_equal(df, df0) and np.array_equal(tf, tf0) and stats.n_docs == n0):
            writer.put("doc_freq", df, np.int64)
            writer.put("term_freq", tf)
            writer.put("n_docs", [stats.n_docs], np.int64)
        return {"vocabulary": [words[i] for i in order]}

    def load(self, reader: ArrayReader, head: Head, extra: Mapping[str, Any], where: str) -> Any:
        classes, class_count = head.classes, head.class_count
        from nbayes.text._textstats import TextStats, Vocabulary

        words = expect_str_list(extra["vocabulary"], f"{where}['vocabulary']")
        if any(not a < b for a, b in zip(words, words[1:], strict=False)):
            raise ModelFileError(f"{where}['vocabulary'] should be unique and sorted")
        V = len(words)
        fc = reader.get("feature_count", shape=(len(classes), V), non_negative=True)
        df, tf, n_docs = _stand_ins(fc, class_count)
        if reader.prefix + "doc_freq" in reader.arrays:
            df = reader.get("doc_freq", np.int64, shape=(V,), non_negative=True)
            tf = reader.get("term_freq", shape=(V,), non_negative=True)
            n_docs = int(reader.get("n_docs", np.int64, shape=(1,), non_negative=True)[0])
            if np.any(df > n_docs):
                raise ModelFileError(f"{where}: a word is in more documents than the column has")
        stats = TextStats(CountStats(classes, class_count, fc), df, tf, n_docs)
        return stats.with_vocabulary(Vocabulary(terms=words))


def _own() -> dict[type, Codec]:
    """The codecs of nbayes's own kinds, by kind class."""
    from nbayes._families import kinds as K
    from nbayes.mixed._columns import TextKind

    return {
        K.GaussianKind: _Moments(),
        K.KernelKind: _Points(),
        K.PoissonKind: _Counts(bounded=False),
        K.BernoulliKind: _Counts(bounded=True),
        K.CategoricalKind: _Categories(),
        TextKind: _Words(),
    }


_OWN: dict[type, Codec] = {}


def codec_of(kind: Kind) -> Codec:
    """The codec of ``kind``: its own, else that of the nbayes kind it is (a subclass of)."""
    if kind.codec is not None:
        return kind.codec
    if not _OWN:
        _OWN.update(_own())
    for cls in type(kind).__mro__:
        if cls in _OWN:
            return _OWN[cls]
    raise ValueError(f"The kind {kind.name!r} declares no codec: its statistics cannot be saved.")


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
        head = Head(header.classes, class_count, header.n_features)
        stats = codec.load(reader, head, st, where)
        return finish(header, stats)

    return Serializer(cls.__name__, cls, dump, load)
