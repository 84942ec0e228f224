"""A saved SpamFilter's verdicts without numpy: :func:`load_spam_scorer`.

``nbayes filter`` runs once per delivered message, so opening a model must cost
milliseconds, not the import of numpy (0.1-0.4 s here) nor a pass over a million tokens.
The file is read by the model-file reader's numpy-free mode (every structural claim and
the SHA-256 digest checked as for :func:`nbayes.load`), the filter's hyperparameters and
recipe as :mod:`nbayes.io.serializers.spam` reads them, and the columns handed to
:class:`~nbayes.spam.SpamScorer` as they are; what a full load checks row by row
(offsets that cut the token bytes, counts within the messages learnt) the scorer checks
on the rows a message looks up (see :mod:`nbayes.spam._scorer`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from nbayes.exceptions import ModelFileError
from nbayes.io._json import expect_dict, expect_int
from nbayes.io._modelfile import read_model_file
from nbayes.io.pending import read_pending, snapshot

if TYPE_CHECKING:
    from nbayes.spam._filter import SpamFilter
    from nbayes.spam._scorer import SpamScorer

# the scoring (e-mail parsing, the filter) is imported by open_spam_scorer's second step:
# its import overlaps with the check of the file's digest

__all__ = ["load_spam_scorer", "open_spam_scorer", "spam_filter_of"]

WHERE = "metadata['model']"
#: the top-level keys of a model file's metadata (nbayes.io.persist's)
_TOP_KEYS = frozenset({"nbayes_version", "schema_version", "model_type", "model"})
#: the arrays of a SpamFilter, their dtype and whether they have one row per token
_COLUMNS = {
    "tokens/hash": ("uint64", 0),
    "tokens/bytes": ("uint8", None),
    "tokens/offsets": ("int64", 1),
    "ham": ("int64", 0),
    "spam": ("int64", 0),
}
#: rows whose hash order and hash are checked when the file is opened (spread evenly)
_SAMPLED = 256


def _tokenizer(value: Any, where: str) -> Any:
    from nbayes.mail import MailTokenizer

    try:
        return MailTokenizer.from_dict(expect_dict(value, where))
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(f"{where} is not a valid e-mail recipe: {exc}") from None


def spam_filter_of(d: dict[str, Any]) -> tuple[SpamFilter, int, int, int]:
    """The filter ``metadata['model']`` describes (hyperparameters checked, recipe set, no
    table), with its ``n_ham``, ``n_spam`` and ``n_tokens``."""
    from nbayes.spam._filter import SpamFilter

    expect_dict(d, WHERE, ("hyperparameters", "tokenizer", "n_ham", "n_spam", "n_tokens"))
    where = f"{WHERE}['hyperparameters']"
    hp = dict(expect_dict(d["hyperparameters"], where))
    # a file written before a parameter existed (tail_weight, same_counts_min, ham_bias,
    # tile_bigrams) scores as it did: with the value SpamFilter's class attribute gives a
    # pickle of then
    names = SpamFilter._get_param_names()
    hp = {**{n: v for n, v in vars(SpamFilter).items() if n in names}, **hp}
    hp = dict(expect_dict(hp, where, names))
    if hp["tokenizer"] is not None:
        hp["tokenizer"] = _tokenizer(hp["tokenizer"], f"{where}['tokenizer']")
    if isinstance(hp["labels"], list):
        hp["labels"] = tuple(hp["labels"])
    model = SpamFilter(**hp)
    try:
        model._settings()
    except (TypeError, ValueError) as exc:
        raise ModelFileError(f"invalid hyperparameters: {exc}") from None
    model.tokenizer_ = _tokenizer(d["tokenizer"], f"{WHERE}['tokenizer']")
    n_ham = expect_int(d["n_ham"], f"{WHERE}['n_ham']")
    n_spam = expect_int(d["n_spam"], f"{WHERE}['n_spam']")
    n = expect_int(d["n_tokens"], f"{WHERE}['n_tokens']")
    return model, n_ham, n_spam, n


def _columns(arrays: dict[str, Any], n: int) -> dict[str, Any]:
    extra = sorted(set(arrays) - set(_COLUMNS))
    if extra:
        raise ModelFileError(f"it holds arrays no model reads: {extra}")
    out = {}
    for name, (dtype, rows) in _COLUMNS.items():
        if name not in arrays:
            raise ModelFileError(f"{WHERE}: the array {name!r} is missing")
        got_dtype, shape, items = arrays[name]
        want = None if rows is None else n + rows
        if got_dtype != dtype or len(shape) != 1 or (want is not None and shape[0] != want):
            raise ModelFileError(
                f"{WHERE}: the array {name!r} is {got_dtype} of shape {list(shape)}; expected "
                f"{dtype} of shape [{'any' if want is None else want}]"
            )
        out[name] = items
    return out


def _check(c: dict[str, Any], n: int, n_ham: int, n_spam: int) -> None:
    """What can be checked without a pass over every row (the rest is checked by the
    scorer on the rows it reads)."""
    from nbayes.spam._table import token_hash

    offsets, blob = c["tokens/offsets"], c["tokens/bytes"]
    if offsets[0] != 0 or offsets[-1] != len(blob):
        raise ModelFileError(f"{WHERE}: 'tokens/offsets' do not cut 'tokens/bytes' into tokens")
    if n_ham < 0 or n_spam < 0:
        raise ModelFileError(f"{WHERE}: a negative number of messages learnt")
    hashes = c["tokens/hash"]
    step = max(1, n // _SAMPLED)
    previous = -1
    raw = memoryview(blob)  # compares equal to the bytes of a token
    for i in range(0, n, step):
        a, b = offsets[i], offsets[i + 1]
        if not 0 <= a <= b <= len(raw) or hashes[i] < previous:
            raise ModelFileError(f"{WHERE}: 'tokens/hash' is not sorted or the offsets are wrong")
        if token_hash(raw[a:b]) != hashes[i]:
            raise ModelFileError(f"{WHERE}: 'tokens/hash' does not hash the tokens")
        previous = hashes[i]
    c["tokens/bytes"] = raw


@contextmanager
def _naming(path: str | os.PathLike[str]) -> Iterator[None]:
    """A ModelFileError of the file's content, naming the file (the reading's own errors,
    such as a checksum mismatch, name it already)."""
    try:
        yield
    except ModelFileError as exc:
        raise ModelFileError(f"Cannot load the model file {os.fspath(path)!r}: {exc}") from None


def load_spam_scorer(
    path: str | os.PathLike[str], *, max_bytes: int | None = None, cached_check: bool = False
) -> SpamScorer | None:
    """The :class:`~nbayes.spam.SpamScorer` of the SpamFilter saved at ``path``: its
    verdicts, spamicities and clues (those of :func:`nbayes.load`'s filter, bit for bit,
    the messages pending in its log learnt: :mod:`nbayes.io.pending`) without building its
    token table and without numpy. None when the file holds another model type.
    ``cached_check``: as :func:`open_spam_scorer` takes it.

    Raises
    ------
    ModelFileError
        If the file is not a valid model file.
    """
    return open_spam_scorer(path, max_bytes=max_bytes, cached_check=cached_check)()


def open_spam_scorer(
    path: str | os.PathLike[str], *, max_bytes: int | None = None, cached_check: bool = False
) -> Callable[[], SpamScorer | None]:
    """:func:`load_spam_scorer` in two steps, for a program that starts per message: this
    call maps the file, checks its header and starts a thread on its SHA-256 digest (a
    second's worth of numbers of a large model); the function it returns imports the
    scoring, builds the scorer and waits for the digest (ModelFileError if the file is
    damaged), so that the digest costs no time of its own on two cores.

    With ``cached_check=True`` a file whose digest matched before and that is unchanged
    since is not hashed again (``read_model_file``'s ``cached_check``: the record of
    :mod:`nbayes.io._modelfile.verified`), for ``nbayes filter``."""
    log = snapshot(path)  # (before the file: a fold in between loses no registration)
    metadata, arrays = read_model_file(
        path, max_bytes=max_bytes, raw=True, verify_later=True, cached_check=cached_check
    )

    def finish() -> SpamScorer | None:
        from nbayes.spam._scorer import SpamScorer

        with _naming(path):
            expect_dict(metadata, "metadata", _TOP_KEYS)
            if metadata["model_type"] != "SpamFilter":
                return None
            version = metadata["schema_version"]
            if not isinstance(version, int) or isinstance(version, bool) or version < 1:
                raise ModelFileError(f"metadata['schema_version'] is {version!r}")
        if version > 2:  # nbayes.io.persist.SCHEMA_VERSION: its message (naming the file) is
            from nbayes.io.persist import read_metadata  # the full load's

            read_metadata(path, max_bytes=max_bytes)
        with _naming(path):
            model, n_ham, n_spam, n = spam_filter_of(expect_dict(metadata["model"], WHERE))
        arrays.verify()  # type: ignore[attr-defined]  # the digest, before any column is read
        with _naming(path):
            c = _columns(arrays, n)
            _check(c, n, n_ham, n_spam)
        identity = arrays.identity  # type: ignore[attr-defined]
        pending = read_pending(path, identity, log)  # (registered since it was written)
        scorer = SpamScorer(
            model,
            c["tokens/hash"],
            c["tokens/bytes"],
            c["tokens/offsets"],
            c["ham"],
            c["spam"],
            n_ham,
            n_spam,
            name=f"the model file {os.fspath(path)!r}",
            pending=pending,
        )
        scorer.file_identity, scorer.pending_bytes = identity, pending.size
        return scorer

    return finish
