"""Save and load fitted models: one safe file, no pickle, statistics included.

:func:`save` writes a fitted estimator to one model file (the container of
:mod:`nbayes.io._modelfile`: JSON metadata plus raw numeric arrays, written atomically) and
:func:`load` rebuilds it. The file holds the hyperparameters, the classes, the feature names
and the **sufficient statistics** themselves, so a loaded model predicts exactly as the saved
one did and can still be updated, unlearned and merged.

Metadata layout (``schema_version`` 1), inside the container's ``"metadata"`` object::

    {"nbayes_version": "0.1.0",          # the nbayes that wrote the file (informative)
     "schema_version": 1,                # the layout of this metadata (checked)
     "model_type": "MultinomialNB",      # selects the (de)serialiser in the registry
     "model": {...}}                     # the serialiser's own JSON

For the core estimators ``"model"`` is::

    {"hyperparameters": {"alpha": 1.0, "fit_prior": true, "class_prior": null, ...},
     "classes": {"dtype": "str", "values": ["ham", "spam"]},
     "n_features_in": 3,
     "feature_names_in": null,           # or the list of column names
     "stats": {"kind": "counts"}}        # or "moments", or "categories" (+ category labels)

and the arrays are the statistics: ``class_count`` and ``feature_count`` (Bernoulli,
multinomial, complement, Poisson); ``class_count``, ``mean``, ``m2``, ``n_rows``,
``row_mean``, ``row_m2`` (Gaussian); ``class_count``, ``n_categories`` and
``category_count`` (categorical: every feature's ``(n_classes, n_categories_j)`` block side by
side). Hyperparameter arrays (``alpha``, ``class_prior``, ...) are tagged JSON lists:
``{"type": "ndarray", "dtype": "float64", "values": [...]}`` (or ``"list"``/``"tuple"``), so
their type round-trips.

Loading checks everything before building the model: the model type is registered, the
hyperparameters are the estimator's own and valid (its ``_check_params``), the classes are of
a known type, unique and sorted, every array has the expected dtype and a shape consistent
with the metadata, counts are finite and non-negative, no array is left unused. Any failure
is a :class:`~nbayes.exceptions.ModelFileError` naming the file and what is wrong.

Model types plug in with :func:`register` (the core estimators when
:mod:`nbayes.naive_bayes` is imported, TextClassifier in :mod:`nbayes.text._persist`,
KernelNB and MixedNB in :mod:`nbayes._persist_extra`, each imported on first use through
``_LAZY_MODULES``): a ``dump`` function writes JSON and arrays through an
:class:`ArrayWriter`, a ``load`` function reads them back through an :class:`ArrayReader`
(which checks dtypes and shapes). Nested estimators are stored with :func:`encode` /
:func:`decode` under a prefix.

Examples
--------
>>> import os, tempfile
>>> from nbayes import MultinomialNB
>>> clf = MultinomialNB().fit([[2, 0, 1], [0, 3, 1]], ["spam", "ham"])
>>> path = os.path.join(tempfile.mkdtemp(), "spam.nbayes")
>>> save(clf, path)
>>> clf2 = load(path)
>>> clf2.predict([[3, 0, 0]]), clf2.feature_count_
(array(['spam'], dtype='<U4'), array([[0., 3., 1.],
       [2., 0., 1.]]))
>>> clf2.update([[1, 0, 0]], ["spam"]).class_count_   # still a live model
array([1., 2.])
"""

from __future__ import annotations

import importlib
import math
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from nbayes.exceptions import ModelFileError
from nbayes.io._modelfile import read_model_file, write_model_file

__all__ = [
    "SCHEMA_VERSION",
    "ArrayReader",
    "ArrayWriter",
    "Serializer",
    "decode",
    "decode_categories",
    "encode",
    "encode_categories",
    "load",
    "read_metadata",
    "register",
    "registered_types",
    "save",
]

SCHEMA_VERSION: int = 1
"""Version of the metadata layout this nbayes writes and the newest it reads."""

_TOP_KEYS = frozenset({"nbayes_version", "schema_version", "model_type", "model"})
_MAX_SHOWN = 60

# Serialisers register when the module defining them (or their estimators) is imported;
# this fixed table says which module to import for a model type (never a name taken from
# the file). The core estimators register from nbayes.naive_bayes, so reading a model file
# imports scikit-learn only when the model is built.
_LAZY_MODULES: dict[str, str] = {
    **{
        name: "nbayes.naive_bayes"
        for name in (
            "BernoulliNB", "CategoricalNB", "ComplementNB", "GaussianNB", "MultinomialNB",
            "PoissonNB",
        )
    },  # fmt: skip
    "TextClassifier": "nbayes.text._persist",
    "KernelNB": "nbayes._persist_extra",
    "MixedNB": "nbayes._persist_extra",
}


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _fail(message: str) -> ModelFileError:
    return ModelFileError(message)


# --------------------------------------------------------------------------------------
# array access with checks
# --------------------------------------------------------------------------------------


class ArrayWriter:
    """Collects the named arrays of a model file; :meth:`sub` nests a prefix.

    Parameters
    ----------
    store : dict, optional
        The shared name -> array dictionary (a new one by default).
    prefix : str, default ""
    """

    def __init__(self, store: dict[str, np.ndarray] | None = None, prefix: str = "") -> None:
        self.store: dict[str, np.ndarray] = {} if store is None else store
        self.prefix = prefix

    def put(self, name: str, array: Any, dtype: Any = np.float64) -> None:
        """Store ``array`` (converted to ``dtype``) under ``prefix + name``."""
        key = self.prefix + name
        if key in self.store:
            raise ValueError(f"array {key!r} is written twice")
        self.store[key] = np.asarray(array, dtype=dtype, order="C")

    def sub(self, prefix: str) -> ArrayWriter:
        """A writer for a nested object: its names get ``prefix + "/"`` in front."""
        return ArrayWriter(self.store, f"{self.prefix}{prefix}/")


class ArrayReader:
    """Hands out the arrays of a model file, checking dtype and shape; tracks what is used.

    Parameters
    ----------
    arrays : dict
        Name -> array, as read from the file.
    prefix : str, default ""
    used : set, optional
        Shared set of the names handed out (for the "no unused array" check).
    """

    def __init__(
        self, arrays: Mapping[str, np.ndarray], prefix: str = "", used: set[str] | None = None
    ) -> None:
        self.arrays = arrays
        self.prefix = prefix
        self.used: set[str] = set() if used is None else used

    def get(
        self,
        name: str,
        dtype: Any = np.float64,
        shape: tuple[int | None, ...] | None = None,
        *,
        finite: bool = True,
        non_negative: bool = False,
    ) -> np.ndarray:
        """The array ``prefix + name``, checked; ModelFileError if missing or wrong.

        ``shape`` entries that are ``None`` accept any length.
        """
        key = self.prefix + name
        if key not in self.arrays:
            raise _fail(f"the array {key!r} is missing")
        arr = self.arrays[key]
        want = np.dtype(dtype)
        if arr.dtype != want:
            raise _fail(f"the array {key!r} has dtype {arr.dtype}, expected {want}")
        if shape is not None and (
            len(arr.shape) != len(shape)
            or any(w is not None and w != s for w, s in zip(shape, arr.shape, strict=True))
        ):
            shown = tuple("any" if w is None else w for w in shape)
            raise _fail(f"the array {key!r} has shape {arr.shape}, expected {shown}")
        if arr.dtype.kind == "f":
            if finite and not np.isfinite(arr).all():
                raise _fail(f"the array {key!r} holds NaN or infinite values")
            if non_negative and np.any(arr < 0):
                raise _fail(
                    f"the array {key!r} holds negative values (down to {float(arr.min())!r}); "
                    "counts cannot be negative"
                )
        elif non_negative and arr.size and np.any(arr < 0):
            raise _fail(f"the array {key!r} holds negative values")
        self.used.add(key)
        return arr

    def sub(self, prefix: str) -> ArrayReader:
        """A reader for a nested object stored under ``prefix + "/"``."""
        return ArrayReader(self.arrays, f"{self.prefix}{prefix}/", self.used)

    def unused(self) -> list[str]:
        return [name for name in self.arrays if name not in self.used]


# --------------------------------------------------------------------------------------
# JSON checks
# --------------------------------------------------------------------------------------


def expect_dict(value: Any, where: str, keys: Iterable[str] | None = None) -> dict[str, Any]:
    """``value`` as a JSON object, with exactly ``keys`` if given; else ModelFileError."""
    if not isinstance(value, dict):
        raise _fail(f"{where} should be a JSON object, got {_show(value)}")
    if keys is not None:
        want = set(keys)
        have = set(value)
        if have != want:
            missing, extra = sorted(want - have), sorted(have - want)
            parts = []
            if missing:
                parts.append(f"missing {missing}")
            if extra:
                parts.append(f"unexpected {_show(extra)}")
            raise _fail(f"{where} has the wrong keys ({'; '.join(parts)})")
    return value


def expect_int(value: Any, where: str, low: int = 0, high: int = 2**62) -> int:
    """``value`` as an int in ``[low, high]``; else ModelFileError."""
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _fail(f"{where} should be an integer in [{low}, {high}], got {_show(value)}")
    return value


def expect_bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(f"{where} should be true or false, got {_show(value)}")
    return value


def expect_str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(f"{where} should be a string, got {_show(value)}")
    return value


def expect_list(value: Any, where: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(f"{where} should be a JSON list, got {_show(value)}")
    if length is not None and len(value) != length:
        raise _fail(f"{where} has {len(value)} entries, expected {length}")
    return value


def expect_str_list(value: Any, where: str, length: int | None = None) -> list[str]:
    items = expect_list(value, where, length)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise _fail(f"{where}[{i}] should be a string, got {_show(item)}")
    return items


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


# --------------------------------------------------------------------------------------
# labels (classes) with a type tag
# --------------------------------------------------------------------------------------

_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_FLOAT_DTYPES = ("float32", "float64")
_LABEL_DTYPES = ("str", "object", "bool", *_INT_DTYPES, *_FLOAT_DTYPES)


def encode_labels(labels: np.ndarray, what: str = "classes") -> dict[str, Any]:
    """JSON for a 1-D label array: ``{"dtype": tag, "values": [...]}`` (exact round trip)."""
    arr = np.asarray(labels)
    values = arr.tolist()
    kind = arr.dtype.kind
    if kind == "U":
        return {"dtype": "str", "values": values}
    if kind == "b":
        return {"dtype": "bool", "values": values}
    if kind in "iu" or (kind == "f" and arr.dtype.name in _FLOAT_DTYPES):
        if kind == "f" and not np.isfinite(arr).all():
            raise ValueError(f"Cannot save {what} {values!r}: NaN or infinite labels.")
        return {"dtype": arr.dtype.name, "values": values}
    if kind == "O":
        if all(isinstance(v, str) for v in values) or all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            return {"dtype": "object", "values": values}
    raise ValueError(
        f"Cannot save {what} of dtype {arr.dtype} ({_show(values)}): a model file stores "
        "labels that are strings, integers, floats or booleans. Convert them (e.g. to str)."
    )


def decode_labels(value: Any, where: str) -> np.ndarray:
    """Inverse of :func:`encode_labels`; checks the values are unique and sorted."""
    d = expect_dict(value, where, ("dtype", "values"))
    tag = d["dtype"]
    if tag not in _LABEL_DTYPES:
        raise _fail(f"{where}['dtype'] is {_show(tag)}; expected one of {list(_LABEL_DTYPES)}")
    values = expect_list(d["values"], f"{where}['values']")
    arr: np.ndarray
    if tag == "str":
        expect_str_list(values, f"{where}['values']")
        arr = np.array(values, dtype=str) if values else np.array([], dtype="<U1")
        if arr.tolist() != values:  # numpy drops trailing NUL characters
            raise _fail(f"{where} holds strings that end in NUL characters")
    elif tag == "object":
        if not (
            all(isinstance(v, str) for v in values)
            or all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        ):
            raise _fail(f"{where} (dtype object) should hold only strings or only integers")
        arr = np.empty(len(values), dtype=object)
        arr[:] = values
    elif tag == "bool":
        if not all(isinstance(v, bool) for v in values):
            raise _fail(f"{where} (dtype bool) should hold only true/false")
        arr = np.array(values, dtype=bool)
    elif tag in _INT_DTYPES:
        info = np.iinfo(np.dtype(tag))
        if not all(
            isinstance(v, int) and not isinstance(v, bool) and info.min <= v <= info.max
            for v in values
        ):
            raise _fail(f"{where} (dtype {tag}) should hold integers in [{info.min}, {info.max}]")
        arr = np.array(values, dtype=tag)
    else:
        top = float(np.finfo(np.dtype(tag)).max)
        if not all(_is_number(v) and abs(v) <= top for v in values):
            raise _fail(f"{where} (dtype {tag}) should hold numbers within its range")
        arr = np.array(values, dtype=tag)
        if not np.isfinite(arr).all() or arr.tolist() != [float(v) for v in values]:
            raise _fail(f"{where} holds values that {tag} cannot represent exactly")
    if len(arr) > 1 and not bool(np.all(arr[1:] > arr[:-1])):
        raise _fail(f"{where} should be unique and sorted, got {_show(values)}")
    return arr


# --------------------------------------------------------------------------------------
# hyperparameters
# --------------------------------------------------------------------------------------

_ARRAY_TAGS = ("ndarray", "list", "tuple")
_ARRAY_DTYPES = ("bool", *_INT_DTYPES, *_FLOAT_DTYPES)


def encode_param(name: str, value: Any) -> Any:
    """JSON for one hyperparameter value (scalars as is, arrays as tagged lists)."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        if not math.isfinite(float(value)):
            raise ValueError(
                f"Cannot save the hyperparameter {name}={value!r}: a model file stores finite "
                "numbers only. Set a finite value (set_params) and save again."
            )
        return float(value)
    if isinstance(value, np.ndarray | list | tuple):
        tag = "ndarray" if isinstance(value, np.ndarray) else type(value).__name__
        arr = np.asarray(value)
        if arr.ndim > 1 or arr.dtype.name not in _ARRAY_DTYPES:
            raise ValueError(
                f"Cannot save the hyperparameter {name}={_show(value)}: a model file stores "
                "scalars and 1-D arrays of booleans or numbers."
            )
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise ValueError(f"Cannot save the hyperparameter {name}: it holds NaN or infinity.")
        return {"type": tag, "dtype": arr.dtype.name, "values": arr.tolist()}
    raise ValueError(
        f"Cannot save the hyperparameter {name}={_show(value)} of type "
        f"{type(value).__name__}: a model file stores None, booleans, numbers, strings and "
        "1-D arrays."
    )


def decode_param(value: Any, where: str) -> Any:
    """Inverse of :func:`encode_param`."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    d = expect_dict(value, where, ("type", "dtype", "values"))
    tag, dtype, values = d["type"], d["dtype"], d["values"]
    if tag not in _ARRAY_TAGS:
        raise _fail(f"{where}['type'] is {_show(tag)}; expected one of {list(_ARRAY_TAGS)}")
    if dtype not in _ARRAY_DTYPES:
        raise _fail(f"{where}['dtype'] is {_show(dtype)}; expected one of {list(_ARRAY_DTYPES)}")
    scalar = not isinstance(values, list)
    items = [values] if scalar else values
    if dtype == "bool":
        ok = all(isinstance(v, bool) for v in items)
    elif dtype in _INT_DTYPES:
        info = np.iinfo(np.dtype(dtype))
        ok = all(
            isinstance(v, int) and not isinstance(v, bool) and info.min <= v <= info.max
            for v in items
        )
    else:
        top = float(np.finfo(np.dtype(dtype)).max)
        ok = all(_is_number(v) and abs(v) <= top for v in items)
    if not ok or (scalar and tag != "ndarray"):
        raise _fail(f"{where} holds values that are not of dtype {dtype}: {_show(values)}")
    arr = np.array(values, dtype=dtype)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise _fail(f"{where} holds values that overflow {dtype}")
    if tag == "ndarray":
        return arr
    out = arr.tolist()
    return tuple(out) if tag == "tuple" else out


# --------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------

DumpFn = Callable[[Any, ArrayWriter], dict[str, Any]]
LoadFn = Callable[[dict[str, Any], ArrayReader], Any]


@dataclass(frozen=True)
class Serializer:
    """How one model type is written to and read from a model file.

    Attributes
    ----------
    model_type : str
        The name stored in the file (``metadata["model_type"]``).
    cls : type
        The class of the models it handles (exact type, not subclasses).
    dump : callable ``(model, writer) -> dict``
        Returns the model's JSON and puts its arrays into the :class:`ArrayWriter`.
    load : callable ``(json, reader) -> model``
        Rebuilds the model; raises :class:`~nbayes.exceptions.ModelFileError` for anything
        invalid (the helpers ``expect_*``, :func:`decode_labels`, :meth:`ArrayReader.get`
        do).
    """

    model_type: str
    cls: type
    dump: DumpFn
    load: LoadFn


_REGISTRY: dict[str, Serializer] = {}


def register(model_type: str, cls: type, dump: DumpFn, load: LoadFn) -> None:
    """Register the (de)serialiser of a model type (replacing one of the same name).

    Parameters
    ----------
    model_type : str
        Name stored in model files. For the file to load in a fresh process, the module
        that calls :func:`register` must be imported by then (core types are registered
        here; others are listed in ``_LAZY_MODULES``).
    cls : type
    dump, load : callable
        See :class:`Serializer`.
    """
    for existing in list(_REGISTRY.values()):
        if existing.cls is cls and existing.model_type != model_type:
            del _REGISTRY[existing.model_type]
    _REGISTRY[model_type] = Serializer(model_type, cls, dump, load)


def registered_types() -> list[str]:
    """The model types :func:`load` knows (lazily registered ones included).

    >>> "GaussianNB" in registered_types()
    True
    """
    return sorted(set(_REGISTRY) | set(_LAZY_MODULES))


def _serializer_for_type(model_type: str) -> Serializer:
    if model_type not in _REGISTRY and model_type in _LAZY_MODULES:
        importlib.import_module(_LAZY_MODULES[model_type])
    if model_type not in _REGISTRY:
        raise _fail(
            f"the model type {_show(model_type)} is unknown to this nbayes (it knows "
            f"{', '.join(registered_types())}); it may need a newer nbayes"
        )
    return _REGISTRY[model_type]


def _serializer_for_model(model: Any) -> Serializer:
    for ser in _REGISTRY.values():
        if type(model) is ser.cls:
            return ser
    for model_type, module in _LAZY_MODULES.items():
        if type(model).__name__ == model_type:
            importlib.import_module(module)
            return _serializer_for_type(model_type)
    raise TypeError(
        f"Cannot save a {type(model).__module__}.{type(model).__qualname__}: nbayes.save "
        f"handles {', '.join(registered_types())}. Register a serialiser with "
        "nbayes.io.persist.register for other model types."
    )


def encode(model: Any, writer: ArrayWriter) -> dict[str, Any]:
    """``{"model_type": ..., "model": ...}`` for ``model``, its arrays put into ``writer``.

    Use it to store a nested estimator: ``encode(inner, writer.sub("estimator"))``.
    """
    ser = _serializer_for_model(model)
    return {"model_type": ser.model_type, "model": ser.dump(model, writer)}


def decode(value: Any, reader: ArrayReader, where: str = "metadata") -> Any:
    """Inverse of :func:`encode`: rebuild a (nested) model."""
    d = expect_dict(value, where, ("model_type", "model"))
    model_type = expect_str(d["model_type"], f"{where}['model_type']")
    ser = _serializer_for_type(model_type)
    return ser.load(expect_dict(d["model"], f"{where}['model']"), reader)


# --------------------------------------------------------------------------------------
# save / load
# --------------------------------------------------------------------------------------


def _nbayes_version() -> str:
    from nbayes import __version__

    return str(__version__)


def save(model: Any, path: str | os.PathLike[str]) -> None:
    """Write a fitted model to ``path`` atomically (one file, no pickle).

    Parameters
    ----------
    model : estimator
        A fitted nbayes estimator (or a registered model type).
    path : str or os.PathLike
        Destination; an existing file is replaced only once the new one is complete.

    Raises
    ------
    TypeError
        If the model type has no serialiser.
    ValueError
        If the model is not fitted or holds something a model file cannot store.
    OSError
        If the file cannot be written (an existing file is then left untouched).
    """
    writer = ArrayWriter()
    encoded = encode(model, writer)
    metadata = {
        "nbayes_version": _nbayes_version(),
        "schema_version": SCHEMA_VERSION,
        "model_type": encoded["model_type"],
        "model": encoded["model"],
    }
    write_model_file(path, metadata, writer.store)


def read_metadata(
    path: str | os.PathLike[str], *, max_bytes: int | None = None
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The checked top-level metadata and the arrays of a model file, without building it.

    Raises
    ------
    ModelFileError
        If the file is not a readable model file of a schema this nbayes knows.
    """
    metadata, arrays = read_model_file(path, max_bytes=max_bytes)
    try:
        _check_top(metadata)
    except ModelFileError as exc:
        raise ModelFileError(f"Cannot load the model file {os.fspath(path)!r}: {exc}") from None
    return metadata, arrays


def _check_top(metadata: dict[str, Any]) -> None:
    version = metadata.get("schema_version")
    if isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION:
        raise _fail(
            f"it uses model schema version {version}, but this nbayes "
            f"({_nbayes_version()}) reads versions up to {SCHEMA_VERSION}; upgrade nbayes "
            f"(the file was written by nbayes {_show(metadata.get('nbayes_version'))})"
        )
    expect_dict(metadata, "metadata", _TOP_KEYS)
    expect_int(metadata["schema_version"], "metadata['schema_version']", 1, SCHEMA_VERSION)
    expect_str(metadata["nbayes_version"], "metadata['nbayes_version']")
    expect_str(metadata["model_type"], "metadata['model_type']")
    expect_dict(metadata["model"], "metadata['model']")


# Set to False by the tests so that an exception escaping the explicit checks fails loudly.
_WRAP_UNEXPECTED = True


def load(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> Any:
    """Read a model written by :func:`save`.

    Parameters
    ----------
    path : str or os.PathLike
    max_bytes : int, optional
        Refuse files larger than this (a guard against unexpectedly large inputs).

    Returns
    -------
    estimator
        A fitted model, equal in statistics, hyperparameters and predictions to the one saved.

    Raises
    ------
    ModelFileError
        For every problem: missing, truncated, corrupted or hand-edited file, unknown model
        type, invalid hyperparameters, inconsistent shapes, negative or non-finite counts,
        or a file of a newer format or schema version (the message says which version).
    """
    metadata, arrays = read_metadata(path, max_bytes=max_bytes)
    reader = ArrayReader(arrays)
    try:
        model = decode({"model_type": metadata["model_type"], "model": metadata["model"]}, reader)
        unused = reader.unused()
        if unused:
            raise _fail(f"it holds arrays no model reads: {_show(unused)}")
    except ModelFileError as exc:
        raise ModelFileError(f"Cannot load the model file {os.fspath(path)!r}: {exc}") from None
    except Exception as exc:  # a safety net: a hostile file must only raise ModelFileError
        if not _WRAP_UNEXPECTED:
            raise
        raise ModelFileError(
            f"Cannot load the model file {os.fspath(path)!r}: its content is inconsistent "
            f"({type(exc).__name__}: {exc})"
        ) from exc
    return model


# --------------------------------------------------------------------------------------
# the core estimators
# --------------------------------------------------------------------------------------


def _core_dump(model: Any, writer: ArrayWriter) -> dict[str, Any]:
    from nbayes._stats import CategoryStats, MomentStats

    if not model.__sklearn_is_fitted__():
        raise ValueError(f"This {type(model).__name__} is not fitted yet: fit it before saving it.")
    stats = model._stats
    params = model.get_params(deep=False)
    names = getattr(model, "feature_names_in_", None)
    out: dict[str, Any] = {
        "hyperparameters": {k: encode_param(k, v) for k, v in params.items()},
        "classes": encode_labels(stats.classes),
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": None if names is None else [str(n) for n in names],
    }
    writer.put("class_count", stats.class_count)
    if isinstance(stats, MomentStats):
        out["stats"] = {"kind": "moments"}
        for name in ("mean", "m2", "row_mean", "row_m2"):
            writer.put(name, getattr(stats, name))
        writer.put("n_rows", np.float64(stats.n_rows))
    elif isinstance(stats, CategoryStats):
        categories = None
        if not stats.integer_coded:
            categories = [_encode_categories(c, j) for j, c in enumerate(stats.categories)]
        out["stats"] = {
            "kind": "categories",
            "integer_coded": bool(stats.integer_coded),
            "categories": categories,
        }
        writer.put("n_categories", [c.shape[1] for c in stats.category_count], np.int64)
        blocks = [np.asarray(c, dtype=np.float64) for c in stats.category_count]
        n = len(stats.classes)
        writer.put("category_count", np.concatenate(blocks, axis=1) if blocks else np.zeros((n, 0)))
    else:
        out["stats"] = {"kind": "counts"}
        writer.put("feature_count", stats.feature_count)
    return out


def _encode_categories(values: np.ndarray, j: int) -> list[Any]:
    """The labelled categories of feature ``j`` as plain JSON values."""
    items = [v.item() if isinstance(v, np.generic) else v for v in np.asarray(values).tolist()]
    if (
        all(isinstance(v, str) for v in items)
        or all(isinstance(v, bool) for v in items)
        or all(_is_number(v) and math.isfinite(v) for v in items)
    ):
        return items
    raise ValueError(
        f"Cannot save the categories of feature {j} ({_show(items)}): a model file stores "
        "categories that are all strings, all booleans or all finite numbers."
    )


def encode_categories(values: np.ndarray, j: int = 0) -> list[Any]:
    """JSON for the category labels of one feature (all strings, booleans or numbers)."""
    return _encode_categories(values, j)


def decode_categories(values: Any, where: str, sort: bool = True) -> np.ndarray:
    """Inverse of :func:`encode_categories`: an object array; sorted (or just unique)."""
    return _category_labels(values, where, sort)


def _category_labels(values: Any, where: str, sort: bool = True) -> np.ndarray:
    """The labelled categories of one feature: one type (str, bool or number), sorted."""
    items = expect_list(values, where)
    if all(isinstance(v, str) for v in items) or all(isinstance(v, bool) for v in items):
        pass
    elif all(_is_number(v) for v in items):
        if not all(math.isfinite(v) for v in items):
            raise _fail(f"{where} holds a non-finite number")
    else:
        raise _fail(f"{where} should hold only strings, only booleans or only numbers")
    arr = np.empty(len(items), dtype=object)
    arr[:] = items
    if sort and any(not a < b for a, b in zip(items, items[1:], strict=False)):
        raise _fail(f"{where} should be unique and sorted, got {_show(items)}")
    if not sort and len(set(items)) != len(items):
        raise _fail(f"{where} should be unique, got {_show(items)}")
    return arr


def _core_load_for(cls: type) -> LoadFn:
    def _load(d: dict[str, Any], reader: ArrayReader) -> Any:
        return _core_load(cls, d, reader)

    return _load


def _core_load(cls: type, d: dict[str, Any], reader: ArrayReader) -> Any:
    from nbayes._stats import CategoryStats, CountStats, MomentStats
    from nbayes.naive_bayes import CategoricalNB, GaussianNB

    where = "metadata['model']"
    keys = ("hyperparameters", "classes", "n_features_in", "feature_names_in", "stats")
    expect_dict(d, where, keys)
    # hyperparameters: exactly the estimator's own, then its own validation
    hp = expect_dict(d["hyperparameters"], f"{where}['hyperparameters']")
    expected = set(cls().get_params(deep=False))
    expect_dict(hp, f"{where}['hyperparameters']", expected)
    params = {k: decode_param(v, f"{where}['hyperparameters'][{k!r}]") for k, v in hp.items()}
    model = cls(**params)
    try:
        model._check_params()
    except (ValueError, TypeError) as exc:
        raise _fail(f"invalid hyperparameters: {exc}") from None

    classes = decode_labels(d["classes"], f"{where}['classes']")
    n_classes = len(classes)
    if n_classes < 1:
        raise _fail(f"{where}['classes'] is empty; a fitted model has at least one class")
    n_features = expect_int(d["n_features_in"], f"{where}['n_features_in']", 1)
    names = d["feature_names_in"]
    if names is not None:
        names = expect_str_list(names, f"{where}['feature_names_in']", n_features)
        if len(set(names)) != len(names):
            raise _fail(f"{where}['feature_names_in'] holds duplicate names")

    st = expect_dict(d["stats"], f"{where}['stats']")
    kind = st.get("kind")
    want_kind = (
        "moments" if cls is GaussianNB else "categories" if cls is CategoricalNB else "counts"
    )
    if kind != want_kind:
        raise _fail(
            f"{where}['stats']['kind'] is {_show(kind)}; a {cls.__name__} has {want_kind!r}"
        )
    class_count = reader.get("class_count", shape=(n_classes,), non_negative=True)
    stats: Any
    if kind == "counts":
        expect_dict(st, f"{where}['stats']", ("kind",))
        fc = reader.get("feature_count", shape=(n_classes, n_features), non_negative=True)
        stats = CountStats(classes, class_count, fc)
    elif kind == "moments":
        expect_dict(st, f"{where}['stats']", ("kind",))
        shape = (n_classes, n_features)
        mean = reader.get("mean", shape=shape)
        m2 = reader.get("m2", shape=shape, non_negative=True)
        n_rows = reader.get("n_rows", shape=(), non_negative=True)
        row_mean = reader.get("row_mean", shape=(n_features,))
        row_m2 = reader.get("row_m2", shape=(n_features,), non_negative=True)
        stats = MomentStats(classes, class_count, mean, m2, float(n_rows), row_mean, row_m2)
    else:
        expect_dict(st, f"{where}['stats']", ("kind", "integer_coded", "categories"))
        coded = expect_bool(st["integer_coded"], f"{where}['stats']['integer_coded']")
        k = reader.get("n_categories", np.int64, shape=(n_features,), non_negative=True)
        cc = reader.get("category_count", shape=(n_classes, None), non_negative=True)
        sizes = [int(v) for v in k]
        if sum(sizes) != cc.shape[1]:
            raise _fail(
                f"'n_categories' adds up to {sum(sizes)} categories but 'category_count' "
                f"has {cc.shape[1]} columns"
            )
        if coded:
            if st["categories"] is not None:
                raise _fail(f"{where}['stats']['categories'] should be null for integer codes")
            cats = [np.arange(kj, dtype=np.int64) for kj in sizes]
        else:
            lists = expect_list(st["categories"], f"{where}['stats']['categories']", n_features)
            cats = [
                _category_labels(v, f"{where}['stats']['categories'][{j}]")
                for j, v in enumerate(lists)
            ]
            for j, (c, kj) in enumerate(zip(cats, sizes, strict=True)):
                if len(c) != kj:
                    raise _fail(
                        f"feature {j} has {len(c)} category labels but 'n_categories' says {kj}"
                    )
        bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        blocks = tuple(
            np.ascontiguousarray(cc[:, bounds[j] : bounds[j + 1]]) for j in range(n_features)
        )
        if coded and params.get("min_categories") is not None:
            try:
                least = np.broadcast_to(np.asarray(params["min_categories"]), (n_features,))
                too_few = [j for j in range(n_features) if sizes[j] < int(least[j])]
            except (ValueError, TypeError, OverflowError):
                raise _fail("'min_categories' does not fit the number of features") from None
            if too_few:
                raise _fail(
                    f"feature {too_few[0]} has {sizes[too_few[0]]} categories, fewer than "
                    "'min_categories'; a fitted model always has at least that many"
                )
        stats = CategoryStats(classes, class_count, blocks, tuple(cats), coded)
        model._integer_coded = coded

    model.n_features_in_ = n_features
    if names is not None:
        model.feature_names_in_ = np.asarray(names, dtype=object)
    model._set_stats(stats)
    # Derivation-time checks (alpha per feature, one prior per class, min_categories).
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if cls is CategoricalNB:
                model._min_categories(n_features)
            model._check_derivation()
    except (ValueError, TypeError) as exc:
        raise _fail(f"the hyperparameters do not fit the statistics: {exc}") from None
    return model._set_stats(stats)  # drop the cache: derivation warnings show on first use


def _register_core() -> None:
    """Register the core estimators (called by :mod:`nbayes.naive_bayes` once they exist)."""
    from nbayes.naive_bayes import (
        BernoulliNB,
        CategoricalNB,
        ComplementNB,
        GaussianNB,
        MultinomialNB,
        PoissonNB,
    )

    for cls in (BernoulliNB, CategoricalNB, ComplementNB, GaussianNB, MultinomialNB, PoissonNB):
        register(cls.__name__, cls, _core_dump, _core_load_for(cls))
