"""Journaled updates applied to a model loaded from a file that lacks them.

A server journals every update before it acknowledges it, and writes them into the model
file only at its next fold (:mod:`nbayes.serve.journal`). It replays the journal at its
start (:class:`~nbayes.serve.state.ModelState`); the commands that read a served model
(``nbayes predict``, ``eval``, ``explain``, ``filter``, ``sample``, ``plot``) replay it
too, in memory, so that they answer as the server does: before its next fold, and after
it was killed. The file is not changed.

A model is replayed into by :func:`apply_record`, the server's own step; the scorer of a
spam filter (which has no table to update) takes the updates as counts,
:class:`JournaledCounts`, as it takes the messages registered since the file was written
(without numpy: ``nbayes filter``'s verdict path imports none).
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import TYPE_CHECKING, Any

from nbayes.exceptions import ColumnFamiliesError

if TYPE_CHECKING:
    from nbayes.serve.inputs import TableSpec

__all__ = [
    "JournaledCounts",
    "REFUSALS",
    "apply_record",
    "is_spam",
    "is_text",
    "replay",
    "token_sets",
]

#: errors of the library that refuse a request's data (422), not a fault of the server
REFUSALS = (ValueError, TypeError, ArithmeticError)


def is_spam(model: Any) -> bool:
    """A spam filter: its texts are raw messages, its answers verdicts and clues."""
    import sys

    module = sys.modules.get("nbayes.spam._filter")  # not imported: no SpamFilter exists
    return module is not None and isinstance(model, module.SpamFilter)


def is_text(model: Any) -> bool:
    """A model of documents (a TextClassifier, a spam filter): records hold texts."""
    from nbayes import TextClassifier

    return isinstance(model, TextClassifier) or is_spam(model)


def apply_record(estimator: Any, record: dict[str, Any], table: TableSpec | None = None) -> int:
    """Apply a journal record (or a request in its form: ``{"op": "update" | "forget",
    "texts" | "messages" | "rows": [...], "labels": [...]}``) to ``estimator``; the number
    of examples. ``table``: the rows' reading of a table model (made of it if not given).

    Raises
    ------
    ApiError
        422 for data the model refuses (all or nothing: the model is unchanged).
    """
    import numpy as np

    from nbayes.serve.inputs import ApiError, TableSpec, labels_of, messages_of, texts_of

    field = "texts"
    if is_spam(estimator) and "sets" in record:  # (the tokens the server read: as they are)
        field = "messages" if "messages" in record else "texts"
        X: Any = token_sets(record)
    elif is_spam(estimator) and "messages" in record:  # (raw messages, base64)
        X = messages_of(record)
        field = "messages"
    elif is_text(estimator):
        X = texts_of(record, "texts")
    else:
        field = "rows"
        X = (table or TableSpec(estimator)).rows(record, "rows")
    n = len(X)
    y = labels_of(record, n, np.asarray(estimator.classes_))
    if n == 0:
        return 0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if record["op"] == "forget":
                estimator.unlearn(X, y)
            else:
                estimator.update(X, y)
    except ColumnFamiliesError as exc:  # (the library's advice is Python's columns={...})
        raise ApiError(422, f"{field}: {_families_said(exc)}", field) from None
    except REFUSALS as exc:
        raise ApiError(422, f"{field}: {exc}", field) from None
    return n


def _families_said(exc: ColumnFamiliesError) -> str:
    """A mixed model's refusal of rows that would give its columns other families, in an
    HTTP client's words (the library's advice is Python's ``columns={...}``)."""
    flag = ",".join(f"{c}={exc.theirs[c]}" for c in exc.changed())
    return (
        f"with the rows the model learnt before, these would give columns other families "
        f"than the model's ({exc.changes()}), so it would no longer be the model of all its rows; "
        f"nothing was learnt. Send rows of the model's families, or train it again on all "
        f"the data with the families named (nbayes train ... --columns {flag})."
    )


def replay(estimator: Any, records: list[dict[str, Any]]) -> int:
    """Apply ``records`` in order (:func:`apply_record`); the number of examples.
    ApiError (422) naming the record that no longer applies."""
    from nbayes.serve.inputs import ApiError, TableSpec

    table = None if is_text(estimator) else TableSpec(estimator)
    n = 0
    for i, record in enumerate(records):
        try:
            n += apply_record(estimator, record, table)
        except ApiError as exc:
            raise ApiError(422, f"journaled update {i + 1}: {exc}", exc.field) from None
    return n


def token_sets(record: dict[str, Any]) -> list[frozenset[str]]:
    """A spam filter's record's ``sets``: the tokens of each message, as the server read
    them (a list of lists of str). ValueError for anything else."""
    sets = record.get("sets")
    if not isinstance(sets, list) or not all(
        isinstance(s, list) and all(isinstance(t, str) for t in s) for s in sets
    ):
        raise ValueError("a journaled update's 'sets' are not lists of tokens")
    return [frozenset(s) for s in sets]


class JournaledCounts:
    """Journaled updates of a spam filter as counts (the pending counts a
    :class:`~nbayes.spam.SpamScorer` adds, ``add_pending``): in how many of the messages
    each token is, per class, a forgotten message counting -1; read with the filter's
    own tokens, so that the scorer gives the verdicts of the filter the server holds.

    Raises
    ------
    ValueError
        For a record that is not one of a spam filter's updates (the server checked each
        one before it journaled it).
    """

    def __init__(self, spam_filter: Any, records: list[dict[str, Any]]) -> None:
        import base64

        ham_label, spam_label = spam_filter.labels
        self._ham: Counter[str] = Counter()
        self._spam: Counter[str] = Counter()
        self._n = [0, 0]
        for i, record in enumerate(records):
            if "sets" in record:  # (the tokens the server read: no tokenizing again)
                X: list[Any] = token_sets(record)
            elif "messages" in record:  # (raw messages, base64: as /update decoded them)
                X = [base64.b64decode(m, validate=True) for m in record["messages"]]
            else:
                X = list(record["texts"])
            labels = record.get("labels")
            if (
                not isinstance(labels, list)
                or len(labels) != len(X)
                or not set(labels) <= {ham_label, spam_label}
            ):
                raise ValueError(f"journaled update {i + 1} is not one of this spam filter's")
            sign = -1 if record.get("op") == "forget" else 1
            for message, label in zip(X, labels, strict=True):
                is_spam_ = label == spam_label
                counts = self._spam if is_spam_ else self._ham
                tokens = spam_filter.tokenize(message)  # (a set of tokens: as it is)
                (counts.update if sign > 0 else counts.subtract)(tokens)
                self._n[is_spam_] += sign

    def deltas(self) -> tuple[Counter[str], Counter[str]]:
        """How many more ham and spam messages each token is in."""
        return self._ham, self._spam

    def counts(self) -> tuple[int, int]:
        """How many more ham and spam messages there are."""
        return self._n[0], self._n[1]
