"""Model-file (de)serialiser of :class:`~nbayes.SpamFilter`.

``"model"`` is::

    {"hyperparameters": {"preset": "nbayes", "s": null, ..., "labels": ["ham", "spam"],
                         "tokenizer": null},       # the SpamFilter's own (JSON values)
     "tokenizer": {"headers": [...], ...},          # the e-mail recipe in force
     "n_ham": 4150, "n_spam": 1896,                 # messages learnt
     "n_tokens": 250000}

with the arrays ``ham`` and ``spam`` (int64, n_tokens: the messages each token was in) and
the tokens packed as the text models pack their vocabulary: ``tokens/bytes`` (uint8, the
tokens' UTF-8 one after the other, lone surrogates as ``"surrogatepass"`` writes them) and
``tokens/offsets`` (int64, n_tokens + 1). Only tokens with a count are written. The
recipe (``"tokenizer"``) is the one the filter tokenized with, so every program that loads
the file (filter, explain, eval, serve) reads mail alike.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._json import expect_dict, expect_int
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import WHERE, check_fitted
from nbayes.mail import MailTokenizer
from nbayes.spam import SpamFilter, TokenTable

_FLOATS = ("s", "x", "smoothing", "min_dev", "ham_cutoff", "spam_cutoff")


def _hyperparameters(model: SpamFilter) -> dict[str, Any]:
    hp: dict[str, Any] = {}
    for name, value in model.get_params().items():
        if name == "tokenizer":
            value = None if value is None else value.to_dict()
        elif name == "labels":
            value = list(value)
        hp[name] = value
    return hp


def dump(model: SpamFilter, writer: ArrayWriter) -> dict[str, Any]:
    check_fitted(model)
    settings = model._settings()
    rows = list(model.table_.rows())
    encoded = [t.encode("utf-8", "surrogatepass") for t, _, _ in rows]
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    writer.put("tokens/bytes", np.frombuffer(b"".join(encoded), dtype=np.uint8), np.uint8)
    writer.put("tokens/offsets", offsets, np.int64)
    writer.put("ham", [g for _, g, _ in rows], np.int64)
    writer.put("spam", [b for _, _, b in rows], np.int64)
    return {
        "hyperparameters": _hyperparameters(model),
        "tokenizer": settings.tokenizer.to_dict(),
        "n_ham": model.table_.n_ham,
        "n_spam": model.table_.n_spam,
        "n_tokens": len(rows),
    }


def _tokenizer(value: Any, where: str) -> MailTokenizer:
    try:
        return MailTokenizer.from_dict(expect_dict(value, where))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(f"{where} is not a valid e-mail recipe: {exc}") from None


def load(d: dict[str, Any], reader: ArrayReader) -> SpamFilter:
    expect_dict(d, WHERE, ("hyperparameters", "tokenizer", "n_ham", "n_spam", "n_tokens"))
    where = f"{WHERE}['hyperparameters']"
    hp = dict(expect_dict(d["hyperparameters"], where, SpamFilter._get_param_names()))
    if hp["tokenizer"] is not None:
        hp["tokenizer"] = _tokenizer(hp["tokenizer"], f"{where}['tokenizer']")
    if isinstance(hp["labels"], list):
        hp["labels"] = tuple(hp["labels"])
    model = SpamFilter(**hp)
    try:
        settings = model._settings()
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"invalid hyperparameters: {exc}") from None
    recipe = _tokenizer(d["tokenizer"], f"{WHERE}['tokenizer']")
    if recipe != settings.tokenizer:
        raise ModelFileError(
            f"{WHERE}['tokenizer'] is not the recipe the hyperparameters give "
            f"({recipe!r} vs {settings.tokenizer!r}): a corrupted or hand-edited file"
        )
    n_ham = expect_int(d["n_ham"], f"{WHERE}['n_ham']")
    n_spam = expect_int(d["n_spam"], f"{WHERE}['n_spam']")
    n = expect_int(d["n_tokens"], f"{WHERE}['n_tokens']")
    data = reader.get("tokens/bytes", np.uint8, (None,), non_negative=True)
    offsets = reader.get("tokens/offsets", np.int64, (n + 1,), non_negative=True)
    ham = reader.get("ham", np.int64, (n,), non_negative=True)
    spam = reader.get("spam", np.int64, (n,), non_negative=True)
    if n and (offsets[0] != 0 or offsets[-1] != len(data) or np.any(np.diff(offsets) < 0)):
        raise ModelFileError(f"{WHERE}: 'tokens/offsets' do not cut 'tokens/bytes' into tokens")
    if np.any(ham > n_ham) or np.any(spam > n_spam):
        raise ModelFileError(
            f"{WHERE}: a token is counted in more messages than the filter learnt "
            f"({n_ham} ham, {n_spam} spam)"
        )
    if np.any((ham + spam) == 0):
        raise ModelFileError(f"{WHERE}: a token with no count (a file nbayes did not write)")
    raw = data.tobytes()
    try:
        tokens = [
            raw[a:b].decode("utf-8", "surrogatepass")
            for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(), strict=True)
        ]
    except UnicodeDecodeError:
        raise ModelFileError(f"{WHERE}: 'tokens/bytes' is not UTF-8") from None
    if len(set(tokens)) != len(tokens):
        raise ModelFileError(f"{WHERE}: the tokens are not distinct")
    model.table_ = TokenTable.from_rows(
        zip(tokens, ham.tolist(), spam.tolist(), strict=True), n_ham, n_spam
    )
    return model


SERIALIZERS = (Serializer("SpamFilter", SpamFilter, dump, load),)
