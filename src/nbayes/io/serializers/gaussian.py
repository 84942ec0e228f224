"""Model-file (de)serialiser of :class:`~nbayes.GaussianNB`.

``"model"`` is the header of :mod:`nbayes.io.serializers._estimator` and
``"stats": {"kind": "moments"}``; the arrays are the moments: ``class_count``
(n_classes,), ``mean`` and ``m2`` (n_classes, n_features: per-class means and sums of
squared deviations), ``n_rows`` (0-d) and ``row_mean``, ``row_m2`` (n_features,: the
moments over all rows, which ``var_smoothing`` scales by).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbayes._statistics import MomentStats
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._invariants import check_moments, check_rows
from nbayes.io._json import expect_dict
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import WHERE, dump_start, finish, load_start
from nbayes.naive_bayes import GaussianNB


def dump_moments(stats: MomentStats, writer: ArrayWriter) -> None:
    """The moment arrays of ``stats`` (the class counts are written by the caller)."""
    names = ["mean", "m2", "row_mean", "row_m2"]
    if stats.mean_low.any() or stats.row_mean_low.any():
        # the low parts of the means (unlearning stays exact after a load); all zero, as
        # in the files written before them, they are left out
        names += ["mean_low", "row_mean_low"]
    for name in names:
        writer.put(name, getattr(stats, name))
    writer.put("n_rows", np.float64(stats.n_rows))


def load_moments(
    reader: ArrayReader, classes: np.ndarray, class_count: np.ndarray, n_features: int
) -> MomentStats:
    """Inverse of :func:`dump_moments`, every array checked."""
    shape = (len(classes), n_features)
    mean = reader.get("mean", shape=shape)
    m2 = reader.get("m2", shape=shape, non_negative=True, max_total=None)
    n_rows = reader.get("n_rows", shape=(), non_negative=True)
    row_mean = reader.get("row_mean", shape=(n_features,))
    row_m2 = reader.get("row_m2", shape=(n_features,), non_negative=True, max_total=None)
    check_moments(mean, m2, "mean")
    check_moments(row_mean, row_m2, "row_mean")
    check_rows(float(n_rows), class_count, "the number of rows 'n_rows'")
    # the low parts of the means (files written before them: None, zeros)
    has_low = reader.prefix + "mean_low" in reader.arrays
    low = reader.get("mean_low", shape=shape) if has_low else None
    row_low = reader.get("row_mean_low", shape=(n_features,)) if has_low else None
    # (None: zeros, as the dataclass documents)
    return MomentStats(classes, class_count, mean, m2, float(n_rows), row_mean, row_m2,
                       low, row_low)  # type: ignore[arg-type]  # fmt: skip


def dump(model: GaussianNB, writer: ArrayWriter) -> dict[str, Any]:
    out, stats = dump_start(model, writer)
    out["stats"] = {"kind": "moments"}
    dump_moments(stats, writer)
    return out


def load(d: dict[str, Any], reader: ArrayReader) -> GaussianNB:
    header, st = load_start(GaussianNB, d, "moments")
    class_count = header.class_count(reader)
    expect_dict(st, f"{WHERE}['stats']", ("kind",))
    stats = load_moments(reader, header.classes, class_count, header.n_features)
    return finish(header, stats)


SERIALIZERS = (Serializer("GaussianNB", GaussianNB, dump, load),)
