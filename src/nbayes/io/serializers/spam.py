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

import os
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from nbayes import _mail_native
from nbayes.exceptions import ModelFileError
from nbayes.io._arrays import ArrayReader, ArrayWriter
from nbayes.io._json import expect_dict
from nbayes.io._registry import Serializer
from nbayes.io.serializers._estimator import WHERE, check_fitted
from nbayes.io.serializers.spam_scorer import load_spam_scorer, spam_filter_of
from nbayes.spam import SpamFilter, TokenTable
from nbayes.spam._scorer import file_row
from nbayes.spam._table import token_hash

__all__ = ["SERIALIZERS", "change_counts", "dump", "dump_later", "load", "load_spam_scorer"]

_FLOATS = ("s", "x", "smoothing", "min_dev", "ham_cutoff", "spam_cutoff")
#: the model type a SpamFilter's file names (``metadata["model_type"]``)
MODEL_TYPE = "SpamFilter"


def _hyperparameters(model: SpamFilter) -> dict[str, Any]:
    hp: dict[str, Any] = {}
    for name, value in model.get_params(deep=False).items():
        if name == "tokenizer":
            value = None if value is None else value.to_dict()
        elif name == "labels":  # (numpy's ints as JSON's)
            value = [x.item() if isinstance(x, np.generic) else x for x in value]
        elif isinstance(value, np.generic):  # (a numpy scalar set by a grid search)
            value = value.item()
        hp[name] = value
    return hp


def dump(model: SpamFilter, writer: ArrayWriter) -> dict[str, Any]:
    return dump_later(model)(writer)


def dump_later(model: SpamFilter) -> Callable[[ArrayWriter], dict[str, Any]]:
    """:func:`dump` in two steps (:func:`nbayes.io._registry.encode_later`): the tokens
    packed as the store holds them and the count columns are copied now (three copies of
    memory: ~5 ms for 700k tokens); the function returned finds the rows with a count,
    hashes the tokens, sorts those rows by hash and packs them in that order (~0.3 s,
    without the GIL for the most part), from any thread, while the filter learns on."""
    check_fitted(model)
    model._settings()  # valid hyperparameters, or no file
    table = model.table_
    blob, cuts = table.store.packed()  # (every row's UTF-8: no str per token)
    ham = np.frombuffer(table.ham, dtype=np.int64).copy()
    spam = np.frombuffer(table.spam, dtype=np.int64).copy()
    metadata = _model_metadata(model, table.n_ham, table.n_spam, 0)

    def write(writer: ArrayWriter) -> dict[str, Any]:
        offsets = np.frombuffer(cuts, dtype=np.int64)
        live = np.flatnonzero((ham != 0) | (spam != 0))  # the rows with a count
        hashes = np.frombuffer(_mail_native.token_hashes(blob, offsets), dtype="<u8")
        order = live[np.argsort(hashes[live], kind="stable")]  # (ties: in row order)
        packed, in_order = _mail_native.packed_take(blob, offsets, order)
        _put_columns(writer, hashes[order], np.frombuffer(packed, dtype=np.uint8),
                     np.frombuffer(in_order, dtype=np.int64), ham[order],
                     spam[order])  # fmt: skip
        return {**metadata, "n_tokens": len(live)}

    return write


def _model_metadata(model: SpamFilter, n_ham: int, n_spam: int, n_tokens: int) -> dict[str, Any]:
    return {
        "hyperparameters": _hyperparameters(model),
        "tokenizer": model.tokenizer_.to_dict(),
        "n_ham": n_ham,
        "n_spam": n_spam,
        "n_tokens": n_tokens,
    }


def _put_columns(
    writer: ArrayWriter, hashes: Any, blob: Any, offsets: Any, ham: Any, spam: Any
) -> None:
    writer.put("tokens/hash", hashes, np.uint64)
    writer.put("tokens/bytes", blob, np.uint8)
    writer.put("tokens/offsets", offsets, np.int64)
    writer.put("ham", ham, np.int64)
    writer.put("spam", spam, np.int64)


def change_counts(
    path: str | os.PathLike[str],
    messages: Sequence[Any],
    *,
    spam: bool,
    unlearn: bool = False,
    correct: bool = False,
) -> tuple[int, int] | None:
    """Learn (or, ``unlearn``, unlearn) ``messages`` as spam (or ham) in the SpamFilter
    saved at ``path`` (``correct``: learnt as the other class before, moved to this one,
    as :meth:`~nbayes.spam.SpamFilter.correct` moves them), with the messages pending in
    its log (:mod:`nbayes.io.pending`) learnt first, without loading it: the file's
    columns are read, the messages' tokens found in its hash column (as the scorer finds
    them), their counts changed, new tokens inserted in hash order and rows left without
    a count dropped, and the file written again (atomically; the log is removed then).
    The file is the one :func:`nbayes.save` writes of the filter loaded, changed by
    ``partial_fit`` (``unlearn``, ``correct``) and saved, byte for byte; a registration
    of a model of 700k tokens costs a fraction of a second instead of one and a half.
    Returns the new ``(n_ham, n_spam)``, or None, with the file untouched, where this
    path does not decide: a file of another model type, or an unlearning the filter
    would refuse (its error says why: load the filter and unlearn). With no
    ``messages``, it folds the log into the file.

    Raises ModelFileError for a damaged file, and the tokenizer's errors for a message
    it cannot read (nothing is written then)."""
    from nbayes.io._modelfile import read_model_file
    from nbayes.io.pending import read_pending
    from nbayes.io.persist import write_model

    metadata, arrays = read_model_file(path)
    if metadata.get("model_type") != MODEL_TYPE:
        return None
    model, n_ham, n_spam, n = spam_filter_of(expect_dict(metadata["model"], WHERE))
    c = _read_columns(arrays, n, n_ham, n_spam)
    pending = read_pending(path, arrays.identity)  # type: ignore[attr-defined]
    sets = [model.tokenize(m) for m in messages]
    delta: dict[str, list[int]] = {}  # token -> [ham, spam] messages added (first seen first)

    def add(token_sets: Sequence[Iterable[str]], column: int, step: int) -> None:
        for s in token_sets:
            for t in s:
                d = delta.get(t)
                if d is None:
                    d = delta[t] = [0, 0]
                d[column] += step

    for is_spam, learnt in pending.records:
        add(learnt, int(is_spam), 1)
    more_ham, more_spam = pending.counts()
    n_ham, n_spam = n_ham + more_ham, n_spam + more_spam
    m, column = len(sets), int(spam)
    if correct:  # (unlearnt from the other class, learnt in this one)
        add(sets, 1 - column, -1)
    if correct or not unlearn:
        add(sets, column, 1)
    else:
        add(sets, column, -1)
    step = -m if unlearn else m
    n_ham, n_spam = (n_ham, n_spam + step) if spam else (n_ham + step, n_spam)
    if correct:
        n_ham, n_spam = (n_ham - m, n_spam) if spam else (n_ham, n_spam - m)
    if n_ham < 0 or n_spam < 0:
        return None
    tokens = list(delta)
    encoded = [t.encode("utf-8", "surrogatepass") for t in tokens]
    lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
    cuts = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=cuts[1:])
    wanted = np.frombuffer(_mail_native.token_hashes(b"".join(encoded), cuts), dtype="<u8")
    hashes, blob, offsets = c["hashes"], c["bytes"], c["offsets"]
    raw = memoryview(blob)  # (a slice compares equal to a token's bytes)
    pairs = zip(encoded, wanted.tolist(), strict=True)
    rows = np.array([file_row(hashes, offsets, raw, b, h) for b, h in pairs], dtype=np.int64)
    d_ham = np.array([delta[t][0] for t in tokens], dtype=np.int64)
    d_spam = np.array([delta[t][1] for t in tokens], dtype=np.int64)
    ham, spam_col = c["ham"].copy(), c["spam"].copy()
    found = rows >= 0
    ham[rows[found]] += d_ham[found]
    spam_col[rows[found]] += d_spam[found]
    new = np.flatnonzero(~found & ((d_ham != 0) | (d_spam != 0)))
    for col, d, n_class in ((ham, d_ham, n_ham), (spam_col, d_spam, n_spam)):
        if (
            (col < 0).any()
            or (col > n_class).any()
            or (d[new] < 0).any()
            or (d[new] > n_class).any()
        ):
            return None  # (the filter's own check words the refusal)
    keep = (ham + spam_col) > 0
    old_lengths = np.diff(offsets)
    kept_hashes, kept_lengths = hashes[keep], old_lengths[keep]
    kept_blob = blob[np.repeat(keep, old_lengths)] if not keep.all() else np.asarray(blob)
    new = new[np.argsort(wanted[new], kind="stable")]
    at = np.searchsorted(kept_hashes, wanted[new], side="right")
    kept_cuts = np.zeros(len(kept_lengths) + 1, dtype=np.int64)
    np.cumsum(kept_lengths, out=kept_cuts[1:])
    new_bytes = np.frombuffer(b"".join(encoded[i] for i in new.tolist()), dtype=np.uint8)
    out_blob = np.insert(kept_blob, np.repeat(kept_cuts[at], lengths[new]), new_bytes)
    out_lengths = np.insert(kept_lengths, at, lengths[new])
    out_offsets = np.zeros(len(out_lengths) + 1, dtype=np.int64)
    np.cumsum(out_lengths, out=out_offsets[1:])
    out_ham = np.insert(ham[keep], at, d_ham[new])
    out_spam = np.insert(spam_col[keep], at, d_spam[new])
    writer = ArrayWriter()
    _put_columns(writer, np.insert(kept_hashes, at, wanted[new]), out_blob, out_offsets,
                 out_ham, out_spam)  # fmt: skip
    write_model(path, MODEL_TYPE, _model_metadata(model, n_ham, n_spam, len(out_lengths)), writer)
    return n_ham, n_spam


def _read(d: dict[str, Any], reader: ArrayReader) -> tuple[SpamFilter, dict[str, Any]]:
    """The filter (hyperparameters checked, not fitted) and its checked columns."""
    model, n_ham, n_spam, n = spam_filter_of(d)
    return model, _checked_columns(reader, n, n_ham, n_spam)


def _read_columns(arrays: dict[str, Any], n: int, n_ham: int, n_spam: int) -> dict[str, Any]:
    reader = ArrayReader(arrays)
    columns = _checked_columns(reader, n, n_ham, n_spam)
    unused = reader.unused()
    if unused:
        raise ModelFileError(f"it holds arrays no model reads: {unused}")
    return columns


def _checked_columns(reader: ArrayReader, n: int, n_ham: int, n_spam: int) -> dict[str, Any]:
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
    return {"n_ham": n_ham, "n_spam": n_spam, **columns}


_HASHES_CHECKED = 4096


def load(d: dict[str, Any], reader: ArrayReader) -> SpamFilter:
    model, c = _read(d, reader)
    blob, offsets = c["bytes"], c["offsets"]
    try:  # the tokens stay packed (no str per token: what a loaded filter holds)
        table = TokenTable.from_packed(
            blob,
            offsets.astype("=i8", copy=False),
            array("q", c["ham"].astype("=i8").tobytes()),
            array("q", c["spam"].astype("=i8").tobytes()),
            c["n_ham"],
            c["n_spam"],
            (int(c["ham"].sum()), int(c["spam"].sum())),
        )
    except ValueError as exc:  # (the store's first problem, in the file's words)
        said = str(exc)
        if "not UTF-8" in said:
            said = "'tokens/bytes' is not UTF-8"
        elif "not distinct" in said:
            said = "the tokens are not distinct"
        raise ModelFileError(f"{WHERE}: {said}") from None
    # the hashes serve only the lean scorer: a spread sample of them is checked here
    n = len(offsets) - 1
    raw = memoryview(blob)
    step = max(1, n // _HASHES_CHECKED)
    for i in range(0, n, step):
        if token_hash(raw[offsets[i] : offsets[i + 1]]) != int(c["hashes"][i]):
            raise ModelFileError(f"{WHERE}: 'tokens/hash' does not hash the tokens")
    model.table_ = table
    return model


SERIALIZERS = (Serializer(MODEL_TYPE, SpamFilter, dump, load, dump_later=dump_later),)
