"""Model-file (de)serialiser of :class:`~nbayes.MixedNB`: one family of statistics per
column, the column dtypes of the input (for ``sample``) and why each family was chosen.

**MixedNB** (``"model"``)::

    {"hyperparameters": {..., "columns": null | {"type": "dict", "items": [[name, family]]}
                                       | {"type": "list" | "tuple", "values": [family, ...]}},
     "classes": {...},
     "input": {"source": "pandas" | "polars" | "numpy",
               "dtypes": [dtype, ...],          # per column, for sample()
               "reasons": [str, ...],           # why each family (summary())
               "feature_names": bool,           # feature_names_in_ is set
               "evidence": [null | {...}, ...]},  # schema 3: what each inferred family
                                                # was inferred from (FamilyEvidence)
     "columns": [{"name": "age", "family": "gaussian", ...}, ...]}

A dtype is ``{"lib": "numpy" | "pandas" | "polars", "name": ...}``, plus ``"categories"``
(and ``"ordered"``) for pandas categoricals and polars enums. The arrays are the class
counts of the prior (``class_count``) and, under ``columns/<j>/``, each column's
statistics: ``class_count`` (rows where the column is present, per class) and

* gaussian: ``mean``, ``m2``, ``n_rows``, ``row_mean``, ``row_m2``;
* kde: ``values`` and ``weights`` (the stored points);
* poisson, bernoulli: ``feature_count``;
* categorical: ``category_count`` (the category labels are in the JSON);
* text: ``feature_count`` over the vocabulary (its sorted words are in the JSON), and, since
  nbayes 0.3, ``doc_freq``, ``term_freq`` and ``n_docs`` where they are not the word totals
  and the rows (which stand in for them in older files);
* a registered kind (:mod:`nbayes.kinds`): the arrays of its codec.

``"evidence"`` (metadata schema 3) keeps, per column whose family was inferred
(null where it was given in ``columns=``), what the inference read of the rows learnt
(:class:`~nbayes.mixed._table.FamilyEvidence`: the kind, and the integers' count, range and
codes or the strings' word counts), so that a model loaded from its file refuses, as the
one fitted, a batch that would give a column another family (``partial_fit``, ``update``,
``nbayes update``, the service's /update). Files without it (written before nbayes kept it) load as
before, and learn without that check.

Each column is written and read by its kind's codec (:mod:`nbayes.io.serializers._kinds`).

Loading checks everything (types, shapes, signs, sortedness, the invariants ``fit``
guarantees) and raises :class:`~nbayes.exceptions.ModelFileError` for any problem.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbayes._families.kinds import Head, column_kinds, kind
from nbayes._statistics import CountStats
from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._codecs import decode_categories, encode_categories, encode_labels, encode_params
from nbayes.io._invariants import check_class_prior, not_above
from nbayes.io._json import (
    expect_bool,
    expect_dict,
    expect_int,
    expect_list,
    expect_str,
    expect_str_list,
)
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import (
    WHERE,
    check_derivation,
    check_fitted,
    check_params,
    check_saved_prior,
    decode_classes,
    decode_hyperparameters,
)
from nbayes.io.serializers._kinds import codec_of
from nbayes.mixed import MAX_CODES, MixedNB, MixedStats
from nbayes.mixed._table import FamilyEvidence

_MIXED_KEYS = ("hyperparameters", "classes", "input", "columns")
_INPUT_KEYS = ("source", "dtypes", "reasons", "feature_names")
_EVIDENCE_SCHEMA = 3  # (the metadata schema of a file with the families' evidence)
_EVIDENCE_KINDS = ("bool", "float", "int", "category", "string", "empty", "parts")
_EVIDENCE_KEYS = ("kind", "count", "least", "greatest", "codes", "words", "parts", "family")
_INT64 = 2**63
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
    d = expect_dict(value, where)
    tag = d.get("type")
    if tag == "dict":
        expect_dict(d, where, ("type", "items"))
        out: dict[str, str] = {}
        for i, item in enumerate(expect_list(d["items"], f"{where}['items']")):
            k, v = expect_str_list(item, f"{where}['items'][{i}]", 2)
            if k in out:
                raise ModelFileError(f"{where} names the column {k!r} twice")
            out[k] = v
        families: list[str] = list(out.values())
        result: Any = out
    elif tag in ("list", "tuple"):
        expect_dict(d, where, ("type", "values"))
        families = expect_str_list(d["values"], f"{where}['values']")
        result = list(families) if tag == "list" else tuple(families)
    else:
        raise ModelFileError(f"{where}['type'] is {tag!r}; expected 'dict', 'list' or 'tuple'")
    known = column_kinds()
    bad = [f for f in families if f not in known]
    if bad:
        raise ModelFileError(
            f"{where} holds the unknown family {bad[0]!r}; families: {list(known)}"
        )
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
            cats = encode_categories(np.asarray(dt.categories, dtype=object), 0)
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
    d = expect_dict(value, where)
    lib, name = d.get("lib"), d.get("name")
    if not isinstance(name, str):
        raise ModelFileError(f"{where}['name'] should be a string, got {name!r}")
    if lib != source:
        raise ModelFileError(f"{where}['lib'] is {lib!r}; the model was fitted on {source} input")
    if source == "numpy":
        expect_dict(d, where, ("lib", "name"))
        if name not in _NUMPY_DTYPES:
            raise ModelFileError(
                f"{where}['name'] is {name!r}, not a numpy dtype a model file stores"
            )
        return np.dtype(name)
    if source == "pandas":
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is a test dependency
            raise ModelFileError(
                "the model was fitted on a pandas DataFrame: install pandas"
            ) from None
        if name == "category":
            expect_dict(d, where, ("lib", "name", "categories", "ordered"))
            cats = expect_list(d["categories"], f"{where}['categories']")
            labels = decode_categories(cats, f"{where}['categories']", sort=False)
            ordered = expect_bool(d["ordered"], f"{where}['ordered']")
            return pd.CategoricalDtype(list(labels), ordered=ordered)
        expect_dict(d, where, ("lib", "name"))
        if name not in _PANDAS_DTYPES:
            raise ModelFileError(
                f"{where}['name'] is {name!r}, not a pandas dtype a model file stores"
            )
        dtype = pd.api.types.pandas_dtype(name)
        if name == "str" and isinstance(dtype, np.dtype):  # pandas 3's strings, read by
            # pandas 2, which takes "str" for numpy's '<U' (a model it could not save back)
            try:
                dtype = pd.StringDtype(na_value=np.nan)  # (pandas 2.3: pandas 3's "str")
            except TypeError:  # pandas < 2.3: strings are objects
                dtype = np.dtype(object)
        return dtype
    try:
        import polars as pl
    except ImportError:
        raise ModelFileError("the model was fitted on a polars DataFrame: install polars") from None
    if name == "Enum":
        expect_dict(d, where, ("lib", "name", "categories"))
        cats = expect_str_list(d["categories"], f"{where}['categories']")
        if len(set(cats)) != len(cats):
            raise ModelFileError(f"{where}['categories'] holds duplicates")
        return pl.Enum(cats)
    expect_dict(d, where, ("lib", "name"))
    if name not in _POLARS_DTYPES:
        raise ModelFileError(f"{where}['name'] is {name!r}, not a polars dtype a model file stores")
    return getattr(pl, str(name))()


def _dump_column(family: str, col: Any, writer: ArrayWriter) -> dict[str, Any]:
    writer.put("class_count", col.class_count)
    return codec_of(kind(family)).dump(col, writer)


def _load_column(
    family: str, extra: dict[str, Any], reader: ArrayReader, head: CountStats, where: str
) -> Any:
    classes, C = head.classes, len(head.classes)
    cc = reader.get("class_count", shape=(C,), non_negative=True)
    not_above(cc, head.class_count, f"{where}: the observed count", "the class count")
    codec = codec_of(kind(family))
    expect_dict(extra, where, ("name", "family", *codec.keys))
    return codec.load(reader, Head(classes, cc, 1), extra, where)


def dump(model: MixedNB, writer: ArrayWriter) -> dict[str, Any]:
    check_fitted(model)
    stats: MixedStats = model._stats
    check_saved_prior(model, len(stats.classes))
    params = model.get_params(deep=False)
    hp = encode_params({k: v for k, v in params.items() if k != "columns"})
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
    inputs = {
        "source": source,
        "dtypes": [_encode_dtype(dt, source) for dt in dtypes],
        "reasons": [str(r) for r in reasons],
        "feature_names": hasattr(model, "feature_names_in_"),
    }
    evidence = getattr(model, "_evidence", None)
    if evidence is not None and any(e is not None for e in evidence):
        writer.require_schema(_EVIDENCE_SCHEMA)
        inputs["evidence"] = [None if e is None else _encode_evidence(e) for e in evidence]
    return {
        "hyperparameters": hp,
        "classes": encode_labels(stats.classes),
        "input": inputs,
        "columns": columns,
    }


def _encode_evidence(e: FamilyEvidence) -> dict[str, Any]:
    return {
        "kind": e.kind,
        "count": int(e.count),
        "least": int(e.least),
        "greatest": int(e.greatest),
        "codes": None if e.codes is None else sorted(int(c) for c in e.codes),
        "words": [[int(w), int(n)] for w, n in e.words],
        "parts": list(e.parts),
        "family": e.family,
    }


def _decode_evidence(value: Any, family: str, where: str) -> FamilyEvidence | None:
    """A column's evidence, checked: of a known kind, its numbers in range, and deciding
    the column's ``family`` (else the file contradicts itself)."""
    if value is None:
        return None
    d = expect_dict(value, where, _EVIDENCE_KEYS)
    kind_ = d["kind"]
    if kind_ not in _EVIDENCE_KINDS:
        raise ModelFileError(f"{where}['kind'] is {kind_!r}; expected one of {_EVIDENCE_KINDS}")
    count = expect_int(d["count"], f"{where}['count']")
    least = expect_int(d["least"], f"{where}['least']", -_INT64, _INT64 - 1)
    greatest = expect_int(d["greatest"], f"{where}['greatest']", least, _INT64 - 1)
    codes = None
    if d["codes"] is not None:
        listed = expect_list(d["codes"], f"{where}['codes']")
        codes = frozenset(
            expect_int(c, f"{where}['codes'][{i}]", 0, MAX_CODES) for i, c in enumerate(listed)
        )
        if len(codes) != len(listed) or len(codes) > count:
            raise ModelFileError(f"{where}['codes'] holds repeated or more codes than values")
    words = []
    for i, pair in enumerate(expect_list(d["words"], f"{where}['words']")):
        w, n = expect_list(pair, f"{where}['words'][{i}]", 2)
        words.append((expect_int(w, f"{where}['words'][{i}][0]"),
                      expect_int(n, f"{where}['words'][{i}][1]", 1)))  # fmt: skip
    parts = tuple(expect_str_list(d["parts"], f"{where}['parts']"))
    said = expect_str(d["family"], f"{where}['family']")
    if (kind_ == "parts") != bool(parts) or (said and said not in column_kinds()):
        raise ModelFileError(f"{where} is not the evidence of a column's family")
    evidence = FamilyEvidence(kind_, count, least, greatest, codes, tuple(words), parts, said)
    if evidence.decide()[0] != family:
        raise ModelFileError(
            f"{where} gives the family {evidence.decide()[0]!r}, but the column's is {family!r}"
        )
    return evidence


def load(d: dict[str, Any], reader: ArrayReader) -> MixedNB:
    expect_dict(d, WHERE, _MIXED_KEYS)
    where_hp = f"{WHERE}['hyperparameters']"
    params = decode_hyperparameters(MixedNB, d["hyperparameters"], skip=("columns",))
    params["columns"] = _decode_columns_param(
        d["hyperparameters"]["columns"], f"{where_hp}['columns']"
    )
    model = MixedNB(**params)
    check_params(model)
    classes = decode_classes(d["classes"])
    check_class_prior(params.get("class_prior"), len(classes))
    cols = expect_list(d["columns"], f"{WHERE}['columns']")
    n = len(cols)
    if n < 1:
        raise ModelFileError(f"{WHERE}['columns'] is empty; a MixedNB has at least one column")
    inp = expect_dict(d["input"], f"{WHERE}['input']")
    has_evidence = "evidence" in inp  # (schema 3)
    keys = (*_INPUT_KEYS, "evidence") if has_evidence else _INPUT_KEYS
    expect_dict(inp, f"{WHERE}['input']", keys)
    source = inp["source"]
    if source not in _SOURCES:
        raise ModelFileError(
            f"{WHERE}['input']['source'] is {source!r}; expected one of {_SOURCES}"
        )
    dtypes = [
        _decode_dtype(v, source, f"{WHERE}['input']['dtypes'][{j}]")
        for j, v in enumerate(expect_list(inp["dtypes"], f"{WHERE}['input']['dtypes']", n))
    ]
    reasons = expect_str_list(inp["reasons"], f"{WHERE}['input']['reasons']", n)
    has_names = expect_bool(inp["feature_names"], f"{WHERE}['input']['feature_names']")
    if has_names != (source != "numpy"):
        raise ModelFileError(f"{WHERE}['input']['feature_names'] does not fit the {source} input")

    head = CountStats(
        classes,
        reader.get("class_count", shape=(len(classes),), non_negative=True),
        np.zeros((len(classes), 0)),
    )
    names, families, columns = [], [], []
    cr = reader.sub("columns")
    for j, entry in enumerate(cols):
        where = f"{WHERE}['columns'][{j}]"
        entry = expect_dict(entry, where)
        name = expect_str(entry.get("name"), f"{where}['name']")
        family = entry.get("family")
        known = column_kinds()
        if family not in known:
            raise ModelFileError(f"{where}['family'] is {family!r}; expected one of {list(known)}")
        names.append(name)
        families.append(str(family))
        columns.append(_load_column(str(family), entry, cr.sub(str(j)), head, where))
    if len(set(names)) != len(names):
        raise ModelFileError(f"{WHERE}['columns'] holds duplicate column names")
    stats = MixedStats(head, tuple(names), tuple(families), tuple(columns))
    model.n_features_in_ = n
    if has_names:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model._source = source
    model._dtypes = dtypes
    model._reasons = reasons
    if has_evidence:
        listed = expect_list(inp["evidence"], f"{WHERE}['input']['evidence']", n)
        model._evidence = [
            _decode_evidence(e, families[j], f"{WHERE}['input']['evidence'][{j}]")
            for j, e in enumerate(listed)
        ]
    model._pending = (list(names), list(families))
    model._set_stats(stats)
    check_derivation(model._check_derivation)
    return model._set_stats(stats)


SERIALIZERS = (Serializer("MixedNB", MixedNB, dump, load),)
