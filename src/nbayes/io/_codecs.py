"""Typed JSON for the values a model file stores: labels, hyperparameters, categories.

JSON has strings, numbers, booleans and lists; a model has numpy label arrays of a
dtype, hyperparameters that may be arrays, lists or tuples, and category labels of one
type per feature. Each pair here writes such a value with a type tag and reads it back
exactly, checking on the way back that the file's claim is one ``save`` can write:

* labels (the classes): ``{"dtype": tag, "values": [...]}``, unique and sorted; the
  values of ``datetime64[unit]`` and ``timedelta64[unit]`` labels are their int64 ticks;
* hyperparameters: scalars as they are, arrays, sequences and sets as
  ``{"type": "ndarray" | "list" | "tuple" | "set" | "frozenset", "dtype": ..., "values":
  [...]}`` (``dtype`` a numeric one, ``"bool"`` or ``"str"``; a set's values sorted), a
  function as its import reference (:mod:`nbayes.io._functions`);
* category labels of one feature: all strings, all booleans or all finite numbers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import numpy as np

from nbayes.io._functions import decode_function, encode_function
from nbayes.io._json import _fail, _is_number, _show, expect_dict, expect_list, expect_str_list

__all__ = [
    "decode_categories",
    "decode_labels",
    "decode_param",
    "encode_categories",
    "encode_labels",
    "encode_param",
    "encode_params",
]

# --------------------------------------------------------------------------------------
# labels (classes) with a type tag
# --------------------------------------------------------------------------------------

_INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_FLOAT_DTYPES = ("float32", "float64")
_LABEL_FLOATS = ("float16", *_FLOAT_DTYPES)
_LABEL_DTYPES = ("str", "object", "bool", *_INT_DTYPES, *_LABEL_FLOATS)
# datetime64[D], timedelta64[25s], ...: the labels are stored as their int64 values
_TIME_TAG = re.compile(
    r"(datetime64|timedelta64)\[([1-9][0-9]{0,8})?(Y|M|W|D|h|m|s|ms|us|ns|ps|fs|as)\]\Z"
)
_NAT = np.iinfo(np.int64).min


def encode_labels(labels: np.ndarray, what: str = "classes") -> dict[str, Any]:
    """JSON for a 1-D label array: ``{"dtype": tag, "values": [...]}`` (exact round trip)."""
    arr = np.asarray(labels)
    kind = arr.dtype.kind
    if kind in "Mm":
        ticks = arr.view(np.int64)
        if arr.dtype.name.endswith("]") and not np.any(ticks == _NAT):
            return {"dtype": arr.dtype.name, "values": ticks.tolist()}
        raise ValueError(f"Cannot save {what} {_show(arr.tolist())}: NaT (not a time) labels.")
    values = arr.tolist()
    if kind == "U":
        return {"dtype": "str", "values": values}
    if kind == "b":
        return {"dtype": "bool", "values": values}
    if kind in "iu" or (kind == "f" and arr.dtype.name in _LABEL_FLOATS):
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
        "labels that are strings, integers, floats, booleans, datetime64 or timedelta64. "
        "Convert them (e.g. to str)."
    )


def decode_labels(value: Any, where: str) -> np.ndarray:
    """Inverse of :func:`encode_labels`; checks the values are unique and sorted."""
    d = expect_dict(value, where, ("dtype", "values"))
    tag = d["dtype"]
    if isinstance(tag, str) and _TIME_TAG.match(tag):
        return _sorted_labels(_decode_times(tag, d["values"], where), d["values"], where)
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
    return _sorted_labels(arr, values, where)


def _decode_times(tag: str, values: Any, where: str) -> np.ndarray:
    items = expect_list(values, f"{where}['values']")
    if not all(isinstance(v, int) and not isinstance(v, bool) and _NAT < v < 2**63 for v in items):
        raise _fail(f"{where} (dtype {tag}) should hold int64 ticks other than NaT")
    return np.array(items, dtype=np.int64).view(tag)


def _sorted_labels(arr: np.ndarray, values: list[Any], where: str) -> np.ndarray:
    if len(arr) > 1 and not bool(np.all(arr[1:] > arr[:-1])):
        raise _fail(f"{where} should be unique and sorted, got {_show(values)}")
    return arr


# --------------------------------------------------------------------------------------
# hyperparameters
# --------------------------------------------------------------------------------------

_ARRAY_TAGS = ("ndarray", "list", "tuple", "set", "frozenset")
_TAG_TYPES: dict[str, type] = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}
_ARRAY_DTYPES = ("bool", *_INT_DTYPES, *_FLOAT_DTYPES)


def encode_param(name: str, value: Any) -> Any:
    """JSON for one hyperparameter value (scalars as is, arrays, sequences and sets as
    tagged lists, a function as its import reference)."""
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
    if isinstance(value, np.ndarray | list | tuple | set | frozenset):
        return _encode_sequence(name, value)
    if callable(value):
        return encode_function(name, value)
    raise ValueError(
        f"Cannot save the hyperparameter {name}={_show(value)} of type "
        f"{type(value).__name__}: a model file stores None, booleans, numbers, strings, "
        "1-D arrays, lists, tuples and sets of them, and named functions."
    )


def _encode_sequence(name: str, value: Any) -> dict[str, Any]:
    tag = "ndarray" if isinstance(value, np.ndarray) else type(value).__name__
    if tag not in _ARRAY_TAGS:  # a subclass of list, tuple, set
        tag = next(t for t in _ARRAY_TAGS[1:] if isinstance(value, _TAG_TYPES[t]))
    try:
        items = sorted(value) if isinstance(value, set | frozenset) else value
        arr = np.asarray(items)
    except (TypeError, ValueError):
        arr = np.asarray([], dtype=object)  # unsortable or ragged: refused below
    text = arr.dtype.kind == "U" and all(isinstance(v, str) for v in items)
    if arr.ndim > 1 or arr.dtype.name not in _ARRAY_DTYPES and not text:
        raise ValueError(
            f"Cannot save the hyperparameter {name}={_show(value)}: a model file stores "
            "1-D arrays, lists, tuples and sets of booleans, numbers or strings (one type)."
        )
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"Cannot save the hyperparameter {name}: it holds NaN or infinity.")
    values = list(items) if text and tag != "ndarray" else arr.tolist()
    return {"type": tag, "dtype": "str" if text else arr.dtype.name, "values": values}


def decode_param(value: Any, where: str) -> Any:
    """Inverse of :func:`encode_param` (a function is taken from those passed to
    :func:`nbayes.load`, see :mod:`nbayes.io._functions`)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dict) and value.get("type") == "function":
        return decode_function(value, where)
    d = expect_dict(value, where, ("type", "dtype", "values"))
    tag, dtype, values = d["type"], d["dtype"], d["values"]
    if tag not in _ARRAY_TAGS:
        raise _fail(
            f"{where}['type'] is {_show(tag)}; expected one of {[*_ARRAY_TAGS, 'function']}"
        )
    if dtype not in _ARRAY_DTYPES and dtype != "str":
        raise _fail(
            f"{where}['dtype'] is {_show(dtype)}; expected one of {[*_ARRAY_DTYPES, 'str']}"
        )
    scalar = not isinstance(values, list)
    items = [values] if scalar else values
    if dtype == "str":
        ok = all(isinstance(v, str) for v in items)
    elif dtype == "bool":
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
    if tag in ("set", "frozenset"):
        if any(not a < b for a, b in zip(items, items[1:], strict=False)):
            raise _fail(f"{where} (a {tag}) should list its values once each, sorted")
        return _TAG_TYPES[tag](items)
    if dtype == "str" and tag != "ndarray":
        return tuple(items) if tag == "tuple" else list(items)
    arr = np.array(values, dtype=dtype)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise _fail(f"{where} holds values that overflow {dtype}")
    if dtype == "str" and arr.tolist() != values:
        raise _fail(f"{where} holds strings that end in NUL characters")
    if tag == "ndarray":
        return arr
    out = arr.tolist()
    return tuple(out) if tag == "tuple" else out


def encode_params(params: Mapping[str, Any]) -> dict[str, Any]:
    """JSON for every hyperparameter of ``params`` (``get_params(deep=False)``)."""
    return {k: encode_param(k, v) for k, v in params.items()}


# --------------------------------------------------------------------------------------
# category labels
# --------------------------------------------------------------------------------------


def encode_categories(values: np.ndarray, j: int = 0) -> list[Any]:
    """JSON for the category labels of feature ``j`` (all strings, booleans or numbers)."""
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


def decode_categories(values: Any, where: str, sort: bool = True) -> np.ndarray:
    """Inverse of :func:`encode_categories`: an object array of one type (str, bool or
    number), checked to be sorted (or, with ``sort=False``, just unique)."""
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
