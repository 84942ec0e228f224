"""Model-file (de)serialiser of :class:`~nbayes.SpamFilter`.

``"model"`` is::

    {"hyperparameters": {"preset": "nbayes", "s": null, ..., "labels": ["ham", "spam"],
                         "tokenizer": null},       # the SpamFilter's own (JSON values)
     "tokenizer": {"headers": [...], ...},          # the recipe it counted with (tokenizer_)
     "n_ham": 4150, "n_spam": 1896,                 # messages learnt
     "n_tokens": 250000}

with the arrays ``ham`` and ``spam`` (int64, n_tokens: the messages each token was in),
the tokens packed as the text models pack their vocabulary: ``tokens/bytes`` (uint8, the
tokens' UTF-8 one after the other, lone surrogates as ``"surrogatepass"`` writes them) and
``tokens/offsets`` (int64, n_tokens + 1), and ``tokens/hash`` (uint64: each token's
:func:`~nbayes.spam._table.token_hash`, ascending: the rows are written in hash order, so
that :func:`load_spam_scorer` finds a message's tokens by binary search without reading
the others). Only tokens with a count are written. The
recipe (``"tokenizer"``) is the one the filter tokenized with, so every program that loads
the file (filter, explain, eval, serve) reads mail alike.
"""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np

from nbayes import _mail_native
from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import WHERE, check_fitted
from nbayes.io.serializers.spam_scorer import load_spam_scorer, spam_filter_of
from nbayes.spam import SpamFilter, TokenTable
from nbayes.spam._table import token_hash

__all__ = ["SERIALIZERS", "dump", "load", "load_spam_scorer"]

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
    model._settings()  # valid hyperparameters, or no file
    table = model.table_
    ham = np.frombuffer(table.ham, dtype=np.int64)
    spam = np.frombuffer(table.spam, dtype=np.int64)
    live = np.flatnonzero((ham != 0) | (spam != 0))  # the rows with a count, in row order
    tokens = table.row_tokens
    encoded = [tokens[i].encode("utf-8", "surrogatepass") for i in live.tolist()]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    hashes = np.frombuffer(_mail_native.token_hashes(b"".join(encoded), offsets), dtype="<u8")
    order = np.argsort(hashes, kind="stable")
    encoded = [encoded[i] for i in order.tolist()]
    np.cumsum(lengths[order], out=offsets[1:])
    writer.put("tokens/hash", hashes[order], np.uint64)
    writer.put("tokens/bytes", np.frombuffer(b"".join(encoded), dtype=np.uint8), np.uint8)
    writer.put("tokens/offsets", offsets, np.int64)
    writer.put("ham", ham[live][order], np.int64)
    writer.put("spam", spam[live][order], np.int64)
    return {
        "hyperparameters": _hyperparameters(model),
        "tokenizer": model.tokenizer_.to_dict(),
        "n_ham": model.table_.n_ham,
        "n_spam": model.table_.n_spam,
        "n_tokens": len(encoded),
    }


def _read(d: dict[str, Any], reader: ArrayReader) -> tuple[SpamFilter, dict[str, Any]]:
    """The filter (hyperparameters checked, not fitted) and its checked columns."""
    model, n_ham, n_spam, n = spam_filter_of(d)
    hashes = reader.get("tokens/hash", np.uint64, (n,))
    data = reader.get("tokens/bytes", np.uint8, (None,), non_negative=True)
    offsets = reader.get("tokens/offsets", np.int64, (n + 1,), non_negative=True)
    ham = reader.get("ham", np.int64, (n,), non_negative=True)
    spam = reader.get("spam", np.int64, (n,), non_negative=True)
    if offsets[0] != 0 or offsets[-1] != len(data) or np.any(np.diff(offsets) < 0):
        raise ModelFileError(f"{WHERE}: 'tokens/offsets' do not cut 'tokens/bytes' into tokens")
    if n and np.any(hashes[1:] < hashes[:-1]):
        raise ModelFileError(f"{WHERE}: 'tokens/hash' is not sorted (a file nbayes did not write)")
    if np.any(ham > n_ham) or np.any(spam > n_spam):
        raise ModelFileError(
            f"{WHERE}: a token is counted in more messages than the filter learnt "
            f"({n_ham} ham, {n_spam} spam)"
        )
    if np.any((ham + spam) == 0):
        raise ModelFileError(f"{WHERE}: a token with no count (a file nbayes did not write)")
    columns = {"hashes": hashes, "bytes": data, "offsets": offsets, "ham": ham, "spam": spam}
    return model, {"n_ham": n_ham, "n_spam": n_spam, **columns}


_HASHES_CHECKED = 4096


def load(d: dict[str, Any], reader: ArrayReader) -> SpamFilter:
    model, c = _read(d, reader)
    try:
        tokens = _unpack(c["bytes"].tobytes(), c["offsets"])
    except UnicodeDecodeError:
        raise ModelFileError(f"{WHERE}: 'tokens/bytes' is not UTF-8") from None
    table = TokenTable.from_columns(
        tokens,
        array("q", c["ham"].astype("=i8").tobytes()),
        array("q", c["spam"].astype("=i8").tobytes()),
        c["n_ham"],
        c["n_spam"],
    )
    if len(table.index) != len(tokens):
        raise ModelFileError(f"{WHERE}: the tokens are not distinct")
    # the hashes serve only the lean scorer: a spread sample of them is checked here
    step = max(1, len(tokens) // _HASHES_CHECKED)
    for i in range(0, len(tokens), step):
        if token_hash(tokens[i].encode("utf-8", "surrogatepass")) != int(c["hashes"][i]):
            raise ModelFileError(f"{WHERE}: 'tokens/hash' does not hash the tokens")
    model.table_ = table
    return model


def _unpack(raw: bytes, offsets: np.ndarray) -> list[str]:
    """The tokens packed in ``raw`` at byte ``offsets``, from one decode of the whole
    blob: a code point starts at every byte that is not a UTF-8 continuation byte, so the
    character offsets are the byte offsets less the continuation bytes before them."""
    text = raw.decode("utf-8", "surrogatepass")
    if len(text) != len(raw):
        blob = np.frombuffer(raw, dtype=np.uint8)
        continuation = np.zeros(len(raw) + 1, dtype=np.int64)
        np.cumsum((blob & 0xC0) == 0x80, out=continuation[1:])
        offsets = offsets - continuation[offsets]
    bounds = offsets.tolist()
    return [text[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


SERIALIZERS = (Serializer("SpamFilter", SpamFilter, dump, load),)
