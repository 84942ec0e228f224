"""Request bodies checked and turned into what the model takes: documents, rows, labels.

Every problem is an :class:`ApiError` with the HTTP status and a message naming the
field (``texts[3]``, ``rows[0].petal_width``, ``labels``): 400 for a body that is not
JSON (not UTF-8, a byte order mark, UTF-16, ``NaN`` or ``Infinity``, nested too deeply),
413 for one over the size limit, 422 for JSON of the wrong shape or types, or text that
is not valid Unicode (a lone surrogate such as ``"\\udfff"``: no file, journal or answer
could hold it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["ApiError", "TableSpec", "check_fields", "labels_of", "parse_json", "texts_of", "top_of"]


class ApiError(Exception):
    """A request the service refuses: HTTP ``status`` and a message for the client."""

    def __init__(
        self, status: int, message: str, field: str | None = None, limit: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:  # fmt: skip
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.limit = limit  # the server flag whose limit the request is over
        self.headers = headers or {}  # of the answer (Retry-After)

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": self.message}
        if self.field is not None:
            out["field"] = self.field
        if self.limit is not None:
            out["limit"] = self.limit
        return out


def _unprocessable(field: str, message: str) -> ApiError:
    return ApiError(422, f"{field}: {message}", field)


#: nesting deeper than this is refused (400): no request of the service nests beyond 4
MAX_DEPTH = 64


def _not_json(constant: str) -> Any:
    raise ValueError(f"{constant} is not JSON (JSON numbers are finite)")


def parse_json(body: bytes) -> dict[str, Any]:
    """The JSON object of a request body: 400 if it is not UTF-8 JSON (a byte order mark,
    UTF-16, ``NaN``, nested deeper than :data:`MAX_DEPTH`), 422 if not an object or if it
    holds text that is not valid Unicode (a lone surrogate), naming where."""
    try:
        text = body.decode("utf-8")  # strict: json.loads(bytes) would take UTF-16 and BOMs
    except UnicodeDecodeError:
        raise ApiError(400, "The body is not UTF-8 text: send JSON encoded in UTF-8.") from None
    if text.startswith("\ufeff"):
        raise ApiError(
            400, "The body starts with a byte order mark: send JSON in UTF-8 without one."
        )
    try:
        value = json.loads(text, parse_constant=_not_json)
    except RecursionError:
        raise ApiError(400, f"The body is nested more than {MAX_DEPTH} levels deep.") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # (valid JSON: Python's own limit,
            # whose message advises Python's set_int_max_str_digits)
            raise _unprocessable(
                "body", "holds an integer of more than 4,300 digits; no model takes numbers "
                "beyond what a float holds (about 1.8e308)",
            ) from None  # fmt: skip
        raise ApiError(400, f"The body is not valid JSON ({exc}).") from None
    if not isinstance(value, dict):
        raise _unprocessable("body", f"expected a JSON object, got {_kind(value)}")
    where = _invalid_text(value, "")
    if where is not None:
        field, text_value = where
        raise _unprocessable(
            field or "body",
            f"holds {_surrogate(text_value)}, a lone surrogate: not valid Unicode text, so no "
            "model file, journal or answer can hold it. Send valid UTF-8 text.",
        )
    return value


def _valid_text(s: str) -> bool:
    if s.isascii():
        return True
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _surrogate(s: str) -> str:
    for ch in s:
        if "\ud800" <= ch <= "\udfff":
            return f"U+{ord(ch):04X}"
    return "a character"  # pragma: no cover


def _invalid_text(value: Any, path: str, depth: int = 0) -> tuple[str, str] | None:
    """``(field, text)`` of the first string (or key) in ``value`` that is not valid
    Unicode, or None; 400 for nesting deeper than :data:`MAX_DEPTH`."""
    if isinstance(value, str):
        return None if _valid_text(value) else (path, value)
    if depth >= MAX_DEPTH:
        raise ApiError(400, f"The body is nested more than {MAX_DEPTH} levels deep.")
    if isinstance(value, list):
        for i, v in enumerate(value):
            if isinstance(v, (str, list, dict)):
                found = _invalid_text(v, f"{path}[{i}]", depth + 1)
                if found is not None:
                    return found
    elif isinstance(value, dict):
        for k, v in value.items():
            if not _valid_text(k):
                return (path or "body", k)
            if isinstance(v, (str, list, dict)):
                found = _invalid_text(v, f"{path}.{k}" if path else k, depth + 1)
                if found is not None:
                    return found
    return None


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def check_fields(body: dict[str, Any], allowed: Sequence[str]) -> None:
    """422 for a field the endpoint does not know (a typo would otherwise be ignored)."""
    for key in body:
        if key not in allowed:
            raise _unprocessable(key, f"unknown field; this endpoint takes {', '.join(allowed)}")


def texts_of(body: dict[str, Any], field: str = "texts") -> list[str]:
    """``body[field]``: a list of strings."""
    value = body.get(field)
    if not isinstance(value, list):
        raise _unprocessable(field, f"expected an array of strings, got {_kind(value)}")
    for i, text in enumerate(value):
        if not isinstance(text, str):
            raise _unprocessable(f"{field}[{i}]", f"expected a string, got {_kind(text)}")
    return value


def messages_of(body: dict[str, Any], field: str = "messages") -> list[bytes]:
    """``body[field]``: raw e-mail messages, each as base64 of its bytes (a spam filter's:
    a message in a legacy charset is learnt as its bytes, as ``/filter`` reads it, where
    a JSON string would have to be its characters)."""
    import base64
    import binascii

    value = body.get(field)
    if not isinstance(value, list):
        raise _unprocessable(
            field, f"expected an array of base64 strings (raw messages), got {_kind(value)}"
        )
    out = []
    for i, text in enumerate(value):
        if not isinstance(text, str):
            raise _unprocessable(f"{field}[{i}]", f"expected a base64 string, got {_kind(text)}")
        try:
            out.append(base64.b64decode(text, validate=True))
        except (binascii.Error, ValueError):
            raise _unprocessable(
                f"{field}[{i}]",
                "is not base64 (the message's bytes, e.g. `base64 -w0 m.eml`); send a message "
                'as its text in "texts" instead',
            ) from None
    return out


def text_of(body: dict[str, Any]) -> str:
    value = body.get("text")
    if not isinstance(value, str):
        raise _unprocessable("text", f"expected a string, got {_kind(value)}")
    return value


def top_of(body: dict[str, Any], n_classes: int) -> int | None:
    """``body["top"]``: a positive integer (at most the number of classes), or absent."""
    value = body.get("top")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _unprocessable("top", f"expected a positive integer, got {value!r}")
    return min(value, n_classes)


def flag_of(body: dict[str, Any], field: str) -> bool:
    value = body.get(field, False)
    if not isinstance(value, bool):
        raise _unprocessable(field, f"expected true or false, got {_kind(value)}")
    return value


def labels_of(body: dict[str, Any], n: int, classes: np.ndarray) -> np.ndarray:
    """``body["labels"]``: ``n`` labels of the type of the model's classes."""
    value = body.get("labels")
    if not isinstance(value, list):
        raise _unprocessable("labels", f"expected an array of labels, got {_kind(value)}")
    if len(value) != n:
        raise _unprocessable("labels", f"expected {n} label(s), one per example; got {len(value)}")
    kind = classes.dtype.kind
    for i, label in enumerate(value):
        if not _fits(label, kind):
            want = {"U": "a string", "b": "true or false", "i": "an integer", "u": "an integer"}
            raise _unprocessable(
                f"labels[{i}]",
                f"expected {want.get(kind, 'a number')} like the model's classes "
                f"{classes.tolist()[:5]!r}, got {_short(label)}",
            )
        if kind in "iu" and not np.iinfo(classes.dtype).min <= label <= np.iinfo(classes.dtype).max:
            raise _unprocessable(
                f"labels[{i}]",
                f"{_short(label)} does not fit the model's classes ({classes.dtype} integers "
                f"from {np.iinfo(classes.dtype).min} to {np.iinfo(classes.dtype).max})",
            )
        if kind == "O" and isinstance(label, int) and not -(2**63) <= label < 2**63:
            raise _unprocessable(
                f"labels[{i}]", f"{_short(label)} is beyond the 64-bit integers a label can be"
            )
    if kind == "U":
        return np.array(value, dtype=str)
    if kind in "biuf":
        return np.array(value, dtype=classes.dtype if kind != "f" else np.float64)
    return np.array(value, dtype=object)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text):,} characters)"


def _fits(label: Any, kind: str) -> bool:
    if kind == "U":
        return isinstance(label, str)
    if kind == "b":
        return isinstance(label, bool)
    if kind in "iu":
        return isinstance(label, int) and not isinstance(label, bool)
    if kind == "f":
        return isinstance(label, (int, float)) and not isinstance(label, bool) and _finite(label)
    if isinstance(label, float):
        return _finite(label)
    return isinstance(label, (str, int, bool))


def _finite(v: int | float) -> bool:
    """Whether a JSON number is a finite float (1e400 parses as inf; 10**400 as an int
    no float holds)."""
    try:
        return math.isfinite(v)
    except OverflowError:
        return False


class TableSpec:
    """The columns a table model takes, and how JSON rows become its input.

    ``kind`` is ``"numeric"`` (numbers only), ``"categorical"`` (strings or integers) or
    ``"mixed"`` (anything; null is a missing value).
    """

    def __init__(self, model: Any) -> None:
        name = type(model).__name__
        self.kind = {"CategoricalNB": "categorical", "MixedNB": "mixed"}.get(name, "numeric")
        names = getattr(model, "feature_names_in_", None)
        self.named = names is not None
        self.n_features = int(model.n_features_in_)
        self.columns: list[str] = (
            [str(c) for c in names] if names is not None
            else [f"x{j}" for j in range(self.n_features)]
        )  # fmt: skip
        self._raw_names = list(names) if names is not None else None
        cats = getattr(model, "categories_", None) if self.kind == "categorical" else None
        self.categories = (
            [[_plain(v) for v in c.tolist()] for c in cats] if cats is not None else None
        )

    def describe(self) -> list[dict[str, Any]]:
        """The columns for ``/info`` (and the page's form)."""
        out = []
        for j, name in enumerate(self.columns):
            col: dict[str, Any] = {"name": name, "type": self.kind}
            if self.categories is not None:
                col["categories"] = self.categories[j]
            out.append(col)
        return out

    def rows(self, body: dict[str, Any], field: str = "rows") -> Any:
        """``body[field]`` (a list of rows) as the model's input."""
        value = body.get(field)
        if not isinstance(value, list):
            raise _unprocessable(field, f"expected an array of rows, got {_kind(value)}")
        return self.table([self._row(r, f"{field}[{i}]") for i, r in enumerate(value)])

    def row(self, body: dict[str, Any], field: str = "row") -> Any:
        return self.table([self._row(body.get(field), field)])

    def _row(self, row: Any, where: str) -> list[Any]:
        if isinstance(row, dict):
            unknown = [k for k in row if k not in self.columns]
            if unknown:
                raise _unprocessable(
                    f"{where}.{unknown[0]}", f"unknown column; the columns are {self.columns}"
                )
            missing = [c for c in self.columns if c not in row]
            if missing and self.kind != "mixed":
                raise _unprocessable(f"{where}.{missing[0]}", "missing column")
            values = [row.get(c) for c in self.columns]
        elif isinstance(row, list):
            if len(row) != self.n_features:
                raise _unprocessable(
                    where, f"expected {self.n_features} values (columns {self.columns})"
                )
            values = list(row)
        else:
            raise _unprocessable(
                where, f"expected an object {{column: value}} or an array, got {_kind(row)}"
            )
        for name, v in zip(self.columns, values, strict=True):
            if not self._fits(v):
                want = {"numeric": "a finite number", "categorical": "a string or a 64-bit "
                        "integer"}  # fmt: skip
                raise _unprocessable(
                    f"{where}.{name}",
                    f"expected {want.get(self.kind, 'a value (finite numbers)')}, got {_short(v)}",
                )
        return values

    def _fits(self, v: Any) -> bool:
        if self.kind == "numeric":
            return isinstance(v, (int, float)) and not isinstance(v, bool) and _finite(v)
        if self.kind == "categorical":
            if isinstance(v, int) and not isinstance(v, bool):
                return -(2**63) <= v < 2**63
            return isinstance(v, str)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return _finite(v)
        return v is None or isinstance(v, (str, bool))

    def table(self, rows: list[list[Any]]) -> Any:
        """Rows as the model's input: a DataFrame with the fitted column names, else an
        array (float for numeric models)."""
        if self.named:
            import pandas as pd

            return pd.DataFrame(rows, columns=self._raw_names)
        if self.kind == "numeric":
            return np.array(rows, dtype=np.float64).reshape(len(rows), self.n_features)
        if self.kind == "categorical" and all(
            isinstance(v, int) and not isinstance(v, bool) for r in rows for v in r
        ):  # integer category codes: what a model fitted on codes takes
            return np.array(rows, dtype=np.int64).reshape(len(rows), self.n_features)
        return np.array(rows, dtype=object).reshape(len(rows), self.n_features)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value
