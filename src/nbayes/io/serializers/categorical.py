"""Model-file (de)serialiser of :class:`~nbayes.CategoricalNB`.

``"model"`` is the header of :mod:`nbayes.io.serializers._estimator` and::

    "stats": {"kind": "categories",
              "integer_coded": true,      # categories are the codes 0..k_j-1
              "categories": null}         # or, for labelled ones, one sorted list per feature

The arrays are ``class_count`` (n_classes,), ``n_categories`` (int64, per feature) and
``category_count`` (n_classes, sum of n_categories): every feature's
``(n_classes, n_categories_j)`` block side by side; a block's counts add up, per class, to
at most the class count (every row falls in one category of each feature).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbayes._statistics import CategoryStats
from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._codecs import decode_categories, encode_categories
from nbayes.io._invariants import not_above
from nbayes.io._json import expect_bool, expect_dict, expect_list
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import WHERE, Header, dump_start, finish, load_start
from nbayes.naive_bayes import CategoricalNB

_STATS = f"{WHERE}['stats']"


def dump(model: CategoricalNB, writer: ArrayWriter) -> dict[str, Any]:
    out, stats = dump_start(model, writer)
    categories = None
    if not stats.integer_coded:
        categories = [encode_categories(c, j) for j, c in enumerate(stats.categories)]
    out["stats"] = {
        "kind": "categories",
        "integer_coded": bool(stats.integer_coded),
        "categories": categories,
    }
    writer.put("n_categories", [c.shape[1] for c in stats.category_count], np.int64)
    blocks = [np.asarray(c, dtype=np.float64) for c in stats.category_count]
    n = len(stats.classes)
    writer.put("category_count", np.concatenate(blocks, axis=1) if blocks else np.zeros((n, 0)))
    return out


def load(d: dict[str, Any], reader: ArrayReader) -> CategoricalNB:
    header, st = load_start(CategoricalNB, d, "categories")
    class_count = header.class_count(reader)
    expect_dict(st, _STATS, ("kind", "integer_coded", "categories"))
    coded = expect_bool(st["integer_coded"], f"{_STATS}['integer_coded']")
    n_features = header.n_features
    k = reader.get("n_categories", np.int64, shape=(n_features,), non_negative=True)
    cc = reader.get("category_count", shape=(len(header.classes), None), non_negative=True)
    sizes = [int(v) for v in k]
    if sum(sizes) != cc.shape[1]:
        raise ModelFileError(
            f"'n_categories' adds up to {sum(sizes)} categories but 'category_count' "
            f"has {cc.shape[1]} columns"
        )
    cats = _integer_codes(sizes, st) if coded else _labels(sizes, st, n_features)
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    blocks = tuple(
        np.ascontiguousarray(cc[:, bounds[j] : bounds[j + 1]]) for j in range(n_features)
    )
    for j, block in enumerate(blocks):  # every row of a class falls in one category
        not_above(block.sum(axis=1), class_count, f"the category counts of feature {j}",
                  "the class count")  # fmt: skip
    if coded:
        _check_min_categories(header, sizes)
    stats = CategoryStats(header.classes, class_count, blocks, tuple(cats), coded)
    model = header.model
    model._integer_coded = coded

    def derive() -> None:  # min_categories per feature, alpha, priors
        model._min_categories(n_features)
        model._check_derivation()

    return finish(header, stats, derive)


def _integer_codes(sizes: list[int], st: dict[str, Any]) -> list[np.ndarray]:
    if st["categories"] is not None:
        raise ModelFileError(f"{_STATS}['categories'] should be null for integer codes")
    return [np.arange(kj, dtype=np.int64) for kj in sizes]


def _labels(sizes: list[int], st: dict[str, Any], n_features: int) -> list[np.ndarray]:
    lists = expect_list(st["categories"], f"{_STATS}['categories']", n_features)
    cats = [decode_categories(v, f"{_STATS}['categories'][{j}]") for j, v in enumerate(lists)]
    for j, (c, kj) in enumerate(zip(cats, sizes, strict=True)):
        if len(c) != kj:
            raise ModelFileError(
                f"feature {j} has {len(c)} category labels but 'n_categories' says {kj}"
            )
    return cats


def _check_min_categories(header: Header, sizes: list[int]) -> None:
    """A fitted model of integer codes has at least ``min_categories`` per feature."""
    least_of = header.params.get("min_categories")
    if least_of is None:
        return
    n_features = header.n_features
    try:
        least = np.broadcast_to(np.asarray(least_of), (n_features,))
        too_few = [j for j in range(n_features) if sizes[j] < int(least[j])]
    except (ValueError, TypeError, OverflowError):
        raise ModelFileError("'min_categories' does not fit the number of features") from None
    if too_few:
        raise ModelFileError(
            f"feature {too_few[0]} has {sizes[too_few[0]]} categories, fewer than "
            "'min_categories'; a fitted model always has at least that many"
        )


SERIALIZERS = (Serializer("CategoricalNB", CategoricalNB, dump, load),)
