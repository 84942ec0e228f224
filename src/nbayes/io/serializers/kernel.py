"""Model-file (de)serialiser of :class:`~nbayes.KernelNB`, and of the stored points of a
kernel density estimate (also a MixedNB's ``kde`` columns).

``"model"`` is the header of :mod:`nbayes.io.serializers._estimator` and
``"stats": {"kind": "points", "max_points": null or int}``, with the arrays
``class_count`` (n_classes,), ``n_values`` (int64, per feature: the number of stored
values), ``values`` (every feature's sorted distinct values, side by side), ``weights``
(n_classes, total values) and ``widths`` (per feature: 0.0, or the power-of-two bin width
of the binned estimate).

The hyperparameter ``point_mass`` is written only when it is set: a file without it (every
file written before point masses existed, and a model with ``point_mass=None``) loads with
``point_mass=None``, the plain kernel density it was saved with, so such a file loads to
the same predictions and saves back byte for byte.

Loading checks what ``fit`` guarantees: values unique, sorted and within
``MAX_MOMENT`` (1e150) in absolute value, every point weighed by
some class, no class weighing more than its count, bins on their power-of-two grid, at
most ``max_points`` points per feature.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from nbayes._statistics.points import PointStats
from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._invariants import MAX_MOMENT, not_above
from nbayes.io._json import expect_int
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import WHERE, dump_start, finish, load_start
from nbayes.kernel import KernelNB


def dump_points(stats: PointStats, writer: ArrayWriter, exact_only: bool = False) -> None:
    """The points of a PointStats (the class counts are written by the caller); without
    ``widths`` when ``exact_only`` (a MixedNB's kde columns are never binned)."""
    n = len(stats.classes)
    writer.put("n_values", [len(v) for v in stats.values], np.int64)
    writer.put("values", np.concatenate(stats.values) if stats.values else np.zeros(0))
    blocks = [np.asarray(w, dtype=np.float64) for w in stats.weights]
    writer.put("weights", np.concatenate(blocks, axis=1) if blocks else np.zeros((n, 0)))
    if not exact_only:
        writer.put("widths", stats.widths)


def load_points(
    reader: ArrayReader,
    classes: np.ndarray,
    class_count: np.ndarray,
    n_features: int,
    max_points: int | None,
    binned: bool,
) -> PointStats:
    C = len(classes)
    sizes = [
        int(v) for v in reader.get("n_values", np.int64, shape=(n_features,), non_negative=True)
    ]
    values = reader.get("values", shape=(None,))
    weights = reader.get("weights", shape=(C, None), non_negative=True)
    if sum(sizes) != len(values) or sum(sizes) != weights.shape[1]:
        raise ModelFileError(
            f"'n_values' adds up to {sum(sizes)} points but 'values' has {len(values)} and "
            f"'weights' {weights.shape[1]} columns"
        )
    widths = (
        reader.get("widths", shape=(n_features,), non_negative=True)
        if binned
        else np.zeros(n_features)
    )
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    with np.errstate(all="ignore"):  # hostile values may overflow: the checks still hold
        vs, ws = _check_points(values, weights, widths, bounds, class_count, max_points)
    return PointStats(classes, class_count, tuple(vs), tuple(ws), np.array(widths), max_points)


def _check_points(
    values: np.ndarray,
    weights: np.ndarray,
    widths: np.ndarray,
    bounds: np.ndarray,
    class_count: np.ndarray,
    max_points: int | None,
) -> tuple[list[np.ndarray], list[np.ndarray]]:
    vs, ws = [], []
    for j in range(len(bounds) - 1):
        v = np.ascontiguousarray(values[bounds[j] : bounds[j + 1]])
        w = np.ascontiguousarray(weights[:, bounds[j] : bounds[j + 1]])
        if len(v) and not float(np.max(np.abs(v))) <= MAX_MOMENT:
            raise ModelFileError(
                f"the stored values of feature {j} reach {float(np.max(np.abs(v)))!r}, beyond "
                f"the {MAX_MOMENT:g} a fit ever reaches (a hostile or corrupted file)"
            )
        if len(v) > 1 and not bool(np.all(v[1:] > v[:-1])):
            raise ModelFileError(f"the stored values of feature {j} should be unique and sorted")
        if len(v) and not bool(np.all(w.sum(axis=0) > 0)):
            raise ModelFileError(f"feature {j} stores a point that no class has (weight 0)")
        not_above(w.sum(axis=1), class_count, f"the weight of feature {j}", "the class count")
        width = float(widths[j])
        if width > 0:
            if max_points is None:
                raise ModelFileError(
                    f"feature {j} is binned (width {width!r}) but max_points is null"
                )
            if math.frexp(width)[0] != 0.5:
                raise ModelFileError(
                    f"the bin width of feature {j} ({width!r}) is not a power of two"
                )
            if not bool(np.all(np.floor(v / width) * width == v)):
                raise ModelFileError(f"the stored bins of feature {j} are not on its grid")
        if max_points is not None and len(v) > max_points:
            raise ModelFileError(
                f"feature {j} stores {len(v)} points, more than max_points={max_points}"
            )
        vs.append(v)
        ws.append(w)
    return vs, ws


# ----------------------------------------------------------------------------- KernelNB


def dump(model: KernelNB, writer: ArrayWriter) -> dict[str, Any]:
    out, stats = dump_start(model, writer)
    if model.point_mass is None:
        del out["hyperparameters"]["point_mass"]
    dump_points(stats, writer)
    out["stats"] = {"kind": "points", "max_points": stats.max_points}
    return out


def load(d: dict[str, Any], reader: ArrayReader) -> KernelNB:
    hp = d.get("hyperparameters") if isinstance(d, dict) else None
    if isinstance(hp, dict) and "point_mass" not in hp:
        d = {**d, "hyperparameters": {**hp, "point_mass": None}}  # written before point masses
    header, st = load_start(KernelNB, d, "points", ("kind", "max_points"))
    max_points = st["max_points"]
    if max_points is not None:
        max_points = expect_int(max_points, f"{WHERE}['stats']['max_points']", 2)
    class_count = header.class_count(reader)
    stats = load_points(reader, header.classes, class_count, header.n_features, max_points, True)
    return finish(header, stats)


SERIALIZERS = (Serializer("KernelNB", KernelNB, dump, load),)
