"""Registrations of a saved SpamFilter as a mail system makes them, one delivery or one
"this is spam" at a time: appended to the file's log of pending messages
(:mod:`nbayes.io.pending`), without numpy and without rewriting the file; the log is folded
into the file when it grows past :data:`~nbayes.io.pending.FOLD_BYTES`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from nbayes.exceptions import ModelFileError
from nbayes.io.pending import FOLD_BYTES, append, learn_record
from nbayes.io.serializers.spam_scorer import load_spam_scorer

if TYPE_CHECKING:
    from nbayes.spam._scorer import SpamScorer

__all__ = ["Registered", "fold_pending", "register"]


@dataclass(frozen=True)
class Registered:
    """What a registration did: the messages the filter has learnt now, and whether the
    log was folded into the model file (``fold_error``: why a fold failed; the
    registration holds, in the log, and the next one tries again); ``dropped``: the
    messages of a log of another version of the file (copied over since), not counted
    for this one, which the new log replaced; ``fold_due``: the log is full, and the
    caller asked to fold it itself (:func:`fold_pending`)."""

    n_ham: int
    n_spam: int
    folded: bool = False
    fold_error: str | None = None
    dropped: int = 0
    fold_due: bool = False


def register(
    path: str | os.PathLike[str],
    messages: Sequence[Any],
    *,
    spam: bool,
    scorer: SpamScorer | None = None,
    fold_at: int | None = None,
    fold: bool = True,
) -> Registered | None:
    """Learn ``messages`` as spam (or ham) in the SpamFilter saved at ``path``: their
    token sets appended to its log, durably, and the log folded into the file if it
    grew past ``fold_at`` bytes (:data:`~nbayes.io.pending.FOLD_BYTES`); messages whose
    token sets alone would fill the log (an mbox) are written into the file at once,
    with the log. The caller holds the model's lock (:class:`~nbayes.io.lock.ModelLock`);
    ``scorer`` is the file's scorer if the caller loaded it under that lock. Every reader
    of the file counts the messages from the moment this returns. None when the file
    holds another model type. ``fold=False``: a full log is left for the caller to fold
    (:func:`fold_pending`; ``Registered.fold_due``), as a delivery does once it has
    given its verdict.

    Raises ModelFileError for a damaged file, the tokenizer's errors for a message it
    cannot read, and OSError if the log cannot be written (nothing is learnt then)."""
    if scorer is None:
        scorer = load_spam_scorer(path, cached_check=True)  # (the file is not rewritten)
        if scorer is None:
            return None
    sets = [scorer.filter.tokenize(m) for m in messages]  # (a failure here learns nothing)
    limit = FOLD_BYTES if fold_at is None else fold_at
    if sum(len(t) + 3 for s in sets for t in s) > limit:  # (an mbox: the file written once)
        from nbayes.io.serializers.spam import change_counts

        counts = change_counts(path, sets, spam=spam)  # (the log folded with them)
        assert counts is not None  # (learning: the file's columns take it)
        return Registered(*counts, folded=True)
    size, dropped = append(path, scorer.file_identity, learn_record(sets, spam=spam))
    m = len(sets)
    n_ham, n_spam = (scorer.n_ham, scorer.n_spam + m) if spam else (scorer.n_ham + m, scorer.n_spam)
    if size <= limit or not fold:
        return Registered(n_ham, n_spam, dropped=dropped, fold_due=size > limit)
    error = fold_pending(path)
    return Registered(n_ham, n_spam, folded=error is None, fold_error=error, dropped=dropped)


def fold_pending(path: str | os.PathLike[str]) -> str | None:
    """The log of pending messages of the SpamFilter at ``path`` folded into the file (the
    caller holds the model's lock); why it failed, or None. A failed fold loses nothing:
    the log keeps the registrations, and the next fold tries again."""
    from nbayes.io.serializers.spam import change_counts

    try:
        change_counts(path, [], spam=True)  # (the log, folded into the file)
    except (OSError, ModelFileError) as exc:
        return str(exc)
    return None
