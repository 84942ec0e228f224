"""Model-file (de)serialisers of :class:`~nbayes.kernel.KernelNB` and
:class:`~nbayes.mixed.MixedNB` (registered lazily by :mod:`nbayes.io.persist`).

Both store their sufficient statistics, so a loaded model predicts exactly as the saved one
and can still be updated, unlearned and merged.

**KernelNB** (``"model"``)::

    {"hyperparameters": {...}, "classes": {...}, "n_features_in": 3,
     "feature_names_in": null or [...],
     "stats": {"kind": "points", "max_points": null or int}}

with the arrays ``class_count`` (n_classes,), ``n_values`` (int64, per feature: the number
of stored values), ``values`` (every feature's sorted distinct values, side by side),
``weights`` (n_classes, total values) and ``widths`` (per feature: 0.0, or the power-of-two
bin width of the binned estimate).

**MixedNB** (``"model"``)::

    {"hyperparameters": {..., "columns": null | {"type": "dict", "items": [[name, family]]}
                                       | {"type": "list" | "tuple", "values": [family, ...]}},
     "classes": {...},
     "input": {"source": "pandas" | "polars" | "numpy",
               "dtypes": [dtype, ...],          # per column, for sample()
               "reasons": [str, ...],           # why each family (summary())
               "feature_names": bool},          # feature_names_in_ is set
     "columns": [{"name": "age", "family": "gaussian", ...}, ...]}

A dtype is ``{"lib": "numpy" | "pandas" | "polars", "name": ...}``, plus ``"categories"``
(and ``"ordered"``) for pandas categoricals and polars enums. The arrays are the class
counts of the prior (``head/class_count``) and, under ``columns/<j>/``, each column's
statistics: ``class_count`` (rows where the column is present, per class) and

* gaussian: ``mean``, ``m2``, ``n_rows``, ``row_mean``, ``row_m2``;
* kde: ``values`` and ``weights`` (the stored points);
* poisson, bernoulli: ``feature_count``;
* categorical: ``category_count`` (the category labels are in the JSON);
* text: ``feature_count`` over the vocabulary (its sorted words are in the JSON).

Loading checks everything (types, shapes, signs, sortedness, the invariants ``fit``
guarantees) and raises :class:`~nbayes.exceptions.ModelFileError` for any problem.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from nbayes._kernel_stats import PointStats
from nbayes._stats import CategoryStats, CountStats, MomentStats
from nbayes.exceptions import ModelFileError
from nbayes.io import persist
from nbayes.io.persist import ArrayReader, ArrayWriter
from nbayes.kernel import KernelNB
from nbayes.mixed import FAMILIES, MixedNB, MixedStats, TextStats

__all__: list[str] = []

_WHERE = "metadata['model']"
# relative slack for sums of float weights compared after subtractions
_TOL = 1e-9


def _fail(message: str) -> ModelFileError:
    return ModelFileError(message)


def _check_fitted(model: Any) -> None:
    if not model.__sklearn_is_fitted__():
        raise ValueError(f"This {type(model).__name__} is not fitted yet: fit it before saving it.")


def _hyperparameters(cls: type, value: Any, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    where = f"{_WHERE}['hyperparameters']"
    hp = persist.expect_dict(value, where, set(cls().get_params(deep=False)))
    return {k: persist.decode_param(v, f"{where}[{k!r}]") for k, v in hp.items() if k not in skip}


def _check_params(model: Any) -> None:
    try:
        model._check_params()
    except (ValueError, TypeError) as exc:
        raise _fail(f"invalid hyperparameters: {exc}") from None


def _check_derivation(model: Any) -> None:
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            model._check_derivation()
    except (ValueError, TypeError) as exc:
        raise _fail(f"the hyperparameters do not fit the statistics: {exc}") from None


def _classes(value: Any) -> np.ndarray:
    classes = persist.decode_labels(value, f"{_WHERE}['classes']")
    if len(classes) < 1:
        raise _fail(f"{_WHERE}['classes'] is empty; a fitted model has at least one class")
    return classes


def _not_above(part: np.ndarray, total: np.ndarray, what: str, of: str) -> None:
    """``part <= total`` per class, up to rounding of float weights."""
    with np.errstate(all="ignore"):
        above = bool(np.any(part > total + _TOL * np.maximum(np.abs(total), 1.0)))
    if above:
        raise _fail(f"{what} exceeds {of} for some class")


# ------------------------------------------------------------------------- points (KDE)
def _dump_points(stats: PointStats, writer: ArrayWriter, exact_only: bool = False) -> None:
    """The points of a PointStats (class counts are written by the caller)."""
    n = len(stats.classes)
    writer.put("n_values", [len(v) for v in stats.values], np.int64)
    writer.put("values", np.concatenate(stats.values) if stats.values else np.zeros(0))
    blocks = [np.asarray(w, dtype=np.float64) for w in stats.weights]
    writer.put("weights", np.concatenate(blocks, axis=1) if blocks else np.zeros((n, 0)))
    if not exact_only:
        writer.put("widths", stats.widths)


def _load_points(
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
        raise _fail(
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
        if len(v) > 1 and not bool(np.all(v[1:] > v[:-1])):
            raise _fail(f"the stored values of feature {j} should be unique and sorted")
        if len(v) and not bool(np.all(w.sum(axis=0) > 0)):
            raise _fail(f"feature {j} stores a point that no class has (weight 0)")
        _not_above(w.sum(axis=1), class_count, f"the weight of feature {j}", "the class count")
        width = float(widths[j])
        if width > 0:
            if max_points is None:
                raise _fail(f"feature {j} is binned (width {width!r}) but max_points is null")
            if math.frexp(width)[0] != 0.5:
                raise _fail(f"the bin width of feature {j} ({width!r}) is not a power of two")
            if not bool(np.all(np.floor(v / width) * width == v)):
                raise _fail(f"the stored bins of feature {j} are not on its grid")
        if max_points is not None and len(v) > max_points:
            raise _fail(f"feature {j} stores {len(v)} points, more than max_points={max_points}")
        vs.append(v)
        ws.append(w)
    return vs, ws


# ----------------------------------------------------------------------------- KernelNB
_KERNEL_KEYS = ("hyperparameters", "classes", "n_features_in", "feature_names_in", "stats")


def _dump_kernel(model: KernelNB, writer: ArrayWriter) -> dict[str, Any]:
    _check_fitted(model)
    stats: PointStats = model._stats
    names = getattr(model, "feature_names_in_", None)
    writer.put("class_count", stats.class_count)
    _dump_points(stats, writer)
    return {
        "hyperparameters": {
            k: persist.encode_param(k, v) for k, v in model.get_params(deep=False).items()
        },
        "classes": persist.encode_labels(stats.classes),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names is None else [str(n) for n in names],
        "stats": {"kind": "points", "max_points": stats.max_points},
    }


def _load_kernel(d: dict[str, Any], reader: ArrayReader) -> KernelNB:
    persist.expect_dict(d, _WHERE, _KERNEL_KEYS)
    model = KernelNB(**_hyperparameters(KernelNB, d["hyperparameters"]))
    _check_params(model)
    classes = _classes(d["classes"])
    n_features = persist.expect_int(d["n_features_in"], f"{_WHERE}['n_features_in']", 1)
    names = d["feature_names_in"]
    if names is not None:
        names = persist.expect_str_list(names, f"{_WHERE}['feature_names_in']", n_features)
        if len(set(names)) != len(names):
            raise _fail(f"{_WHERE}['feature_names_in'] holds duplicate names")
    st = persist.expect_dict(d["stats"], f"{_WHERE}['stats']", ("kind", "max_points"))
    if st["kind"] != "points":
        raise _fail(f"{_WHERE}['stats']['kind'] is {st['kind']!r}; a KernelNB has 'points'")
    max_points = st["max_points"]
    if max_points is not None:
        max_points = persist.expect_int(max_points, f"{_WHERE}['stats']['max_points']", 2)
    class_count = reader.get("class_count", shape=(len(classes),), non_negative=True)
    stats = _load_points(reader, classes, class_count, n_features, max_points, binned=True)
    model.n_features_in_ = n_features
    if names is not None:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model._set_stats(stats)
    _check_derivation(model)
    return model._set_stats(stats)


# ------------------------------------------------------------------------------ MixedNB
_MIXED_KEYS = ("hyperparameters", "classes", "input", "columns")
_INPUT_KEYS = ("source", "dtypes", "reasons", "feature_names")
_SOURCES = ("pandas", "polars", "numpy")

_NUMPY_DTYPES = frozenset(
    ["bool", "object", "float32", "float64"]
    + [f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)]
)
_PANDAS_DTYPES = _NUMPY_DTYPES | frozenset(
    ["str", "string", "boolean", "Float32", "Float64"]
    + [f"{s}Int{b}" for s in ("", "U") for b in (8, 16, 32, 64)]
)
_POLARS_DTYPES = frozenset(
    ["Boolean", "Float32", "Float64", "String", "Categorical"]
    + [f"{s}Int{b}" for s in ("", "U") for b in (8, 16, 32, 64)]
)


def _encode_columns_param(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, dict):
        items = []
        for k, v in value.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise ValueError(
                    f"Cannot save columns={value!r}: a model file stores column names and "
                    "families as strings."
                )
            items.append([k, v])
        return {"type": "dict", "items": items}
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return {"type": type(value).__name__, "values": list(value)}
    raise ValueError(
        f"Cannot save columns={value!r}: use a dict of column name -> family or a list of families."
    )


def _decode_columns_param(value: Any, where: str) -> Any:
    if value is None:
        return None
    d = persist.expect_dict(value, where)
    tag = d.get("type")
    if tag == "dict":
        persist.expect_dict(d, where, ("type", "items"))
        out: dict[str, str] = {}
        for i, item in enumerate(persist.expect_list(d["items"], f"{where}['items']")):
            k, v = persist.expect_str_list(item, f"{where}['items'][{i}]", 2)
            if k in out:
                raise _fail(f"{where} names the column {k!r} twice")
            out[k] = v
        families: list[str] = list(out.values())
        result: Any = out
    elif tag in ("list", "tuple"):
        persist.expect_dict(d, where, ("type", "values"))
        families = persist.expect_str_list(d["values"], f"{where}['values']")
        result = list(families) if tag == "list" else tuple(families)
    else:
        raise _fail(f"{where}['type'] is {tag!r}; expected 'dict', 'list' or 'tuple'")
    bad = [f for f in families if f not in FAMILIES]
    if bad:
        raise _fail(f"{where} holds the unknown family {bad[0]!r}; families: {list(FAMILIES)}")
    return result


def _encode_dtype(dt: Any, source: str) -> dict[str, Any]:
    if source == "numpy":
        name = np.dtype(dt).name
        if name not in _NUMPY_DTYPES:
            raise ValueError(f"Cannot save a MixedNB fitted on a numpy array of dtype {name}.")
        return {"lib": "numpy", "name": name}
    if source == "pandas":
        import pandas as pd

        if isinstance(dt, pd.CategoricalDtype):
            cats = persist.encode_categories(np.asarray(dt.categories, dtype=object), 0)
            return {
                "lib": "pandas",
                "name": "category",
                "categories": cats,
                "ordered": bool(dt.ordered),
            }
        name = str(dt)
        if name not in _PANDAS_DTYPES:
            raise ValueError(f"Cannot save a MixedNB fitted on a pandas column of dtype {name}.")
        return {"lib": "pandas", "name": name}
    import polars as pl

    name = type(dt).__name__
    if isinstance(dt, pl.Enum):
        return {"lib": "polars", "name": "Enum", "categories": [str(c) for c in dt.categories]}
    if name not in _POLARS_DTYPES:
        raise ValueError(f"Cannot save a MixedNB fitted on a polars column of dtype {dt}.")
    return {"lib": "polars", "name": name}


def _decode_dtype(value: Any, source: str, where: str) -> Any:
    d = persist.expect_dict(value, where)
    lib, name = d.get("lib"), d.get("name")
    if not isinstance(name, str):
        raise _fail(f"{where}['name'] should be a string, got {name!r}")
    if lib != source:
        raise _fail(f"{where}['lib'] is {lib!r}; the model was fitted on {source} input")
    if source == "numpy":
        persist.expect_dict(d, where, ("lib", "name"))
        if name not in _NUMPY_DTYPES:
            raise _fail(f"{where}['name'] is {name!r}, not a numpy dtype a model file stores")
        return np.dtype(name)
    if source == "pandas":
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is a test dependency
            raise _fail("the model was fitted on a pandas DataFrame: install pandas") from None
        if name == "category":
            persist.expect_dict(d, where, ("lib", "name", "categories", "ordered"))
            cats = persist.expect_list(d["categories"], f"{where}['categories']")
            labels = persist.decode_categories(cats, f"{where}['categories']", sort=False)
            ordered = persist.expect_bool(d["ordered"], f"{where}['ordered']")
            return pd.CategoricalDtype(list(labels), ordered=ordered)
        persist.expect_dict(d, where, ("lib", "name"))
        if name not in _PANDAS_DTYPES:
            raise _fail(f"{where}['name'] is {name!r}, not a pandas dtype a model file stores")
        return pd.api.types.pandas_dtype(name)
    try:
        import polars as pl
    except ImportError:
        raise _fail("the model was fitted on a polars DataFrame: install polars") from None
    if name == "Enum":
        persist.expect_dict(d, where, ("lib", "name", "categories"))
        cats = persist.expect_str_list(d["categories"], f"{where}['categories']")
        if len(set(cats)) != len(cats):
            raise _fail(f"{where}['categories'] holds duplicates")
        return pl.Enum(cats)
    persist.expect_dict(d, where, ("lib", "name"))
    if name not in _POLARS_DTYPES:
        raise _fail(f"{where}['name'] is {name!r}, not a polars dtype a model file stores")
    return getattr(pl, str(name))()


def _dump_column(family: str, col: Any, writer: ArrayWriter) -> dict[str, Any]:
    out: dict[str, Any] = {}
    writer.put("class_count", col.class_count)
    if family == "gaussian":
        for name in ("mean", "m2", "row_mean", "row_m2"):
            writer.put(name, getattr(col, name))
        writer.put("n_rows", np.float64(col.n_rows))
    elif family == "kde":
        if col.max_points is not None or np.any(col.widths > 0):
            raise ValueError("Cannot save a binned kde column of a MixedNB.")
        _dump_points(col, writer, exact_only=True)
    elif family in ("poisson", "bernoulli"):
        writer.put("feature_count", col.feature_count)
    elif family == "categorical":
        out["categories"] = persist.encode_categories(col.categories[0], 0)
        writer.put("category_count", col.category_count[0])
    else:
        out["vocabulary"] = [str(w) for w in col.vocabulary]
        writer.put("feature_count", col.counts.feature_count)
    return out


def _load_column(
    family: str, extra: dict[str, Any], reader: ArrayReader, head: CountStats, where: str
) -> Any:
    classes, C = head.classes, len(head.classes)
    cc = reader.get("class_count", shape=(C,), non_negative=True)
    _not_above(cc, head.class_count, f"{where}: the observed count", "the class count")
    if family == "gaussian":
        persist.expect_dict(extra, where, ("name", "family"))
        mean = reader.get("mean", shape=(C, 1))
        m2 = reader.get("m2", shape=(C, 1), non_negative=True)
        n_rows = float(reader.get("n_rows", shape=(), non_negative=True))
        row_mean = reader.get("row_mean", shape=(1,))
        row_m2 = reader.get("row_m2", shape=(1,), non_negative=True)
        return MomentStats(classes, cc, mean, m2, n_rows, row_mean, row_m2)
    if family == "kde":
        persist.expect_dict(extra, where, ("name", "family"))
        return _load_points(reader, classes, cc, 1, None, binned=False)
    if family in ("poisson", "bernoulli"):
        persist.expect_dict(extra, where, ("name", "family"))
        fc = reader.get("feature_count", shape=(C, 1), non_negative=True)
        if family == "bernoulli":
            _not_above(fc[:, 0], cc, f"{where}: the count of true values", "the observed count")
        return CountStats(classes, cc, fc)
    if family == "categorical":
        persist.expect_dict(extra, where, ("name", "family", "categories"))
        cats = persist.decode_categories(extra["categories"], f"{where}['categories']")
        counts = reader.get("category_count", shape=(C, len(cats)), non_negative=True)
        return CategoryStats(classes, cc, (counts,), (cats,), False)
    persist.expect_dict(extra, where, ("name", "family", "vocabulary"))
    words = persist.expect_str_list(extra["vocabulary"], f"{where}['vocabulary']")
    if any(not a < b for a, b in zip(words, words[1:], strict=False)):
        raise _fail(f"{where}['vocabulary'] should be unique and sorted")
    vocab = np.empty(len(words), dtype=object)
    vocab[:] = words
    fc = reader.get("feature_count", shape=(C, len(words)), non_negative=True)
    return TextStats(vocab, CountStats(classes, cc, fc))


def _dump_mixed(model: MixedNB, writer: ArrayWriter) -> dict[str, Any]:
    _check_fitted(model)
    stats: MixedStats = model._stats
    params = model.get_params(deep=False)
    hp = {k: persist.encode_param(k, v) for k, v in params.items() if k != "columns"}
    hp["columns"] = _encode_columns_param(params["columns"])
    source = getattr(model, "_source", "numpy")
    dtypes = getattr(model, "_dtypes", None)
    if dtypes is None or len(dtypes) != stats.n_features:
        raise ValueError("This MixedNB lacks the column dtypes of its input: fit it again.")
    reasons = getattr(model, "_reasons", ["?"] * stats.n_features)
    writer.put("class_count", stats.head.class_count)
    columns = []
    cw = writer.sub("columns")
    for j, (name, fam, col) in enumerate(
        zip(stats.names, stats.families, stats.columns, strict=True)
    ):
        entry = {"name": str(name), "family": fam}
        entry.update(_dump_column(fam, col, cw.sub(str(j))))
        columns.append(entry)
    return {
        "hyperparameters": hp,
        "classes": persist.encode_labels(stats.classes),
        "input": {
            "source": source,
            "dtypes": [_encode_dtype(dt, source) for dt in dtypes],
            "reasons": [str(r) for r in reasons],
            "feature_names": hasattr(model, "feature_names_in_"),
        },
        "columns": columns,
    }


def _load_mixed(d: dict[str, Any], reader: ArrayReader) -> MixedNB:
    persist.expect_dict(d, _WHERE, _MIXED_KEYS)
    where_hp = f"{_WHERE}['hyperparameters']"
    params = _hyperparameters(MixedNB, d["hyperparameters"], skip=("columns",))
    params["columns"] = _decode_columns_param(
        d["hyperparameters"]["columns"], f"{where_hp}['columns']"
    )
    model = MixedNB(**params)
    _check_params(model)
    classes = _classes(d["classes"])
    cols = persist.expect_list(d["columns"], f"{_WHERE}['columns']")
    n = len(cols)
    if n < 1:
        raise _fail(f"{_WHERE}['columns'] is empty; a MixedNB has at least one column")
    inp = persist.expect_dict(d["input"], f"{_WHERE}['input']", _INPUT_KEYS)
    source = inp["source"]
    if source not in _SOURCES:
        raise _fail(f"{_WHERE}['input']['source'] is {source!r}; expected one of {_SOURCES}")
    dtypes = [
        _decode_dtype(v, source, f"{_WHERE}['input']['dtypes'][{j}]")
        for j, v in enumerate(persist.expect_list(inp["dtypes"], f"{_WHERE}['input']['dtypes']", n))
    ]
    reasons = persist.expect_str_list(inp["reasons"], f"{_WHERE}['input']['reasons']", n)
    has_names = persist.expect_bool(inp["feature_names"], f"{_WHERE}['input']['feature_names']")
    if has_names != (source != "numpy"):
        raise _fail(f"{_WHERE}['input']['feature_names'] does not fit the {source} input")

    head = CountStats(
        classes,
        reader.get("class_count", shape=(len(classes),), non_negative=True),
        np.zeros((len(classes), 0)),
    )
    names, families, columns = [], [], []
    cr = reader.sub("columns")
    for j, entry in enumerate(cols):
        where = f"{_WHERE}['columns'][{j}]"
        entry = persist.expect_dict(entry, where)
        name = persist.expect_str(entry.get("name"), f"{where}['name']")
        family = entry.get("family")
        if family not in FAMILIES:
            raise _fail(f"{where}['family'] is {family!r}; expected one of {list(FAMILIES)}")
        names.append(name)
        families.append(str(family))
        columns.append(_load_column(str(family), entry, cr.sub(str(j)), head, where))
    if len(set(names)) != len(names):
        raise _fail(f"{_WHERE}['columns'] holds duplicate column names")
    stats = MixedStats(head, tuple(names), tuple(families), tuple(columns))
    model.n_features_in_ = n
    if has_names:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model._source = source
    model._dtypes = dtypes
    model._reasons = reasons
    model._pending = (list(names), list(families))
    model._set_stats(stats)
    _check_derivation(model)
    return model._set_stats(stats)


persist.register("KernelNB", KernelNB, _dump_kernel, _load_kernel)
persist.register("MixedNB", MixedNB, _dump_mixed, _load_mixed)
