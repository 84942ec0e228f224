"""Verdicts of a saved spam filter without building its token table: :class:`SpamScorer`.

Loading a filter builds a dict of every token it has seen (a million tokens: a second);
one message needs only its own few hundred. A model file keeps its tokens ordered by a
64-bit hash of their UTF-8 bytes (:func:`token_hash`), so the scorer finds a message's
tokens by binary search in that column (the bytes of each candidate compared, so a hash
collision never mixes two tokens up) and scores the message with exactly the counts the
full filter would use: same verdicts, spamicities and clues, bit for bit.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from typing import Any

import numpy as np

from nbayes.spam._filter import Clues, MessageLike, SpamFilter, Verdict
from nbayes.spam._table import TokenTable, token_hash

__all__ = ["SpamScorer"]


class SpamScorer:
    """The read-only verdicts of a saved :class:`SpamFilter` (see the module docstring).

    Built by :func:`nbayes.io.serializers.spam.load_spam_scorer`; it answers
    :meth:`classify`, :meth:`spamicity`, :meth:`predict` and :meth:`clues` as the filter
    does.
    """

    def __init__(
        self,
        spam_filter: SpamFilter,
        hashes: np.ndarray,
        blob: bytes,
        offsets: np.ndarray,
        ham: np.ndarray,
        spam: np.ndarray,
        n_ham: int,
        n_spam: int,
    ) -> None:
        self.filter = spam_filter
        self._hashes = hashes
        self._blob = blob
        self._offsets = offsets
        self._ham = ham
        self._spam = spam
        self.n_ham = n_ham
        self.n_spam = n_spam
        self._sums = (int(ham.sum()), int(spam.sum()), len(ham))

    def __len__(self) -> int:
        return len(self._hashes)

    def _table(self, tokens: Iterable[str]) -> TokenTable:
        """A table of the given tokens' counts, with the whole filter's totals."""
        tokens = list(tokens)
        encoded = [t.encode("utf-8", "surrogatepass") for t in tokens]
        wanted = np.array([token_hash(b) for b in encoded], dtype=np.uint64)
        first = np.searchsorted(self._hashes, wanted, side="left").tolist()
        last = np.searchsorted(self._hashes, wanted, side="right").tolist()
        found: list[str] = []
        rows: list[int] = []
        offsets, blob = self._offsets, self._blob
        for t, b, a, z in zip(tokens, encoded, first, last, strict=True):
            for r in range(a, z):
                if blob[int(offsets[r]) : int(offsets[r + 1])] == b:
                    found.append(t)
                    rows.append(r)
                    break
        table = TokenTable.from_columns(
            found,
            array("q", self._ham[rows].tolist()),
            array("q", self._spam[rows].tolist()),
            self.n_ham,
            self.n_spam,
        )
        table.sum_ham, table.sum_spam, table.n_live = self._sums
        return table

    def _shell(self, tokens: frozenset[str]) -> SpamFilter:
        shell = SpamFilter(**self.filter.get_params())
        shell.table_, shell.tokenizer_ = self._table(tokens), self.filter.tokenizer_
        return shell

    def classify(self, messages: Iterable[MessageLike]) -> list[Verdict]:
        """The :class:`Verdict` of each message (as the saved filter gives it)."""
        out: list[Verdict] = []
        for tokens in self.filter._token_sets(messages):
            out.extend(self._shell(tokens)._verdicts([tokens]))
        return out

    def spamicity(self, messages: Iterable[MessageLike]) -> np.ndarray:
        return np.array([v.spamicity for v in self.classify(messages)], dtype=np.float64)

    def predict(self, messages: Iterable[MessageLike]) -> np.ndarray:
        ham_label, spam_label = self.filter._settings().labels
        names = {"ham": ham_label, "spam": spam_label, "unsure": "unsure"}
        return np.array([names[v.verdict] for v in self.classify(messages)], dtype=object)

    def clues(self, message: MessageLike) -> Clues:
        """Every token of ``message`` with its f(w) and side (:meth:`SpamFilter.clues`)."""
        tokens = self.filter._token_sets([message])[0]
        return self._shell(tokens).clues(tokens)

    def __repr__(self) -> str:
        return f"SpamScorer({self.filter!r}, {len(self)} tokens)"

    def __getstate__(self) -> dict[str, Any]:  # pragma: no cover - picklable as data
        return self.__dict__
