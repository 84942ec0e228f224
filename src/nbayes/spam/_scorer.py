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
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from nbayes import _mail_native
from nbayes.exceptions import ModelFileError
from nbayes.spam._filter import Clues, MessageLike, SpamFilter, Verdict
from nbayes.spam._table import TokenTable, token_hash

if TYPE_CHECKING:
    import numpy as np

__all__ = ["PendingCounts", "SpamScorer", "file_row"]


class PendingCounts(Protocol):
    """Messages learnt since a model file was written (:class:`nbayes.io.pending.Pending`)."""

    def deltas(self) -> tuple[Mapping[str, int], Mapping[str, int]]:
        """How many of them, ham and spam, each token is in."""

    def counts(self) -> tuple[int, int]:
        """How many of them are ham and spam."""


def file_row(hashes: Any, offsets: Any, blob: Any, encoded: bytes, h: int) -> int:
    """The row of the token whose UTF-8 bytes are ``encoded`` (and whose
    :func:`token_hash` is ``h``) in a spam model file's columns, or -1: ``h`` searched in
    the sorted hash column ``hashes``, the bytes of each row of that hash compared with
    ``blob[offsets[r]:offsets[r + 1]]`` (a hash collision never mixes two tokens up).
    ValueError if the offsets of a row it reads do not cut ``blob``.

    >>> file_row([5, 7, 7], [0, 1, 3, 5], b"abcde", b"de", 7)
    2
    """
    first = bisect_left(hashes, h)
    last = bisect_right(hashes, h, first)
    size = len(blob)
    for r in range(first, last):
        start, end = offsets[r], offsets[r + 1]
        if not 0 <= start <= end <= size:
            raise ValueError("'tokens/offsets' do not cut 'tokens/bytes' into tokens")
        if blob[start:end] == encoded:
            return r
    return -1


class SpamScorer:
    """The read-only verdicts of a saved :class:`SpamFilter` (see the module docstring).

    Built by :func:`nbayes.io.serializers.spam.load_spam_scorer`; it answers
    :meth:`classify`, :meth:`spamicity`, :meth:`predict` and :meth:`clues` as the filter
    does. The columns are sequences of ints (the standard library's ``array``: the scorer
    needs no numpy); the rows a message looks up are checked as they are read (a file's
    checksum says it is the one written, these checks that a writer did it right), so that
    opening a file costs no pass over its million rows.
    """

    #: the model file's identity (the SHA-256 digest stored in it, its modification time
    #: in nanoseconds: nbayes.io.pending names it), set by the loader
    file_identity: tuple[bytes, int] = (b"", 0)
    #: the size of the file's log of pending messages (nbayes.io.pending), set alike
    pending_bytes: int = 0

    def __init__(
        self,
        spam_filter: SpamFilter,
        hashes: Sequence[int],
        blob: bytes | memoryview,
        offsets: Sequence[int],
        ham: Sequence[int],
        spam: Sequence[int],
        n_ham: int,
        n_spam: int,
        name: str = "the model file",
        pending: PendingCounts | None = None,
    ) -> None:
        self.filter = spam_filter
        self._hashes = hashes
        self._blob = blob
        self._offsets = offsets
        self._ham = ham
        self._spam = spam
        #: the messages the file itself has learnt, ``(n_ham, n_spam)`` (its counts are
        #: checked against these); :attr:`n_ham` and :attr:`n_spam` add the pending ones
        self.file_counts = (n_ham, n_spam)
        self._name = name
        self._totals: tuple[int, int, int] | None = None
        #: the messages learnt since the file was written (its log, nbayes.io.pending):
        #: how many pending ham and spam each token is in
        self._pending_ham: Mapping[str, int] = {}
        self._pending_spam: Mapping[str, int] = {}
        if pending is not None:
            self._pending_ham, self._pending_spam = pending.deltas()
            more_ham, more_spam = pending.counts()
            n_ham, n_spam = n_ham + more_ham, n_spam + more_spam
        self.n_ham = n_ham
        self.n_spam = n_spam

    def add_pending(self, more: PendingCounts) -> None:
        """Count ``more`` messages too, as the pending ones (their deltas may be negative:
        messages forgotten). ``nbayes filter`` and the other readers of a served model add
        the updates its server journaled and the file lacks."""
        ham, spam = dict(self._pending_ham), dict(self._pending_spam)
        more_ham, more_spam = more.deltas()
        for mine, theirs in ((ham, more_ham), (spam, more_spam)):
            for token, n in theirs.items():
                mine[token] = mine.get(token, 0) + n
        self._pending_ham, self._pending_spam = ham, spam
        n_ham, n_spam = more.counts()
        self.n_ham, self.n_spam = self.n_ham + n_ham, self.n_spam + n_spam
        self._totals = None

    def __len__(self) -> int:
        return len(self._hashes) + self._new_tokens()

    def _new_tokens(self) -> int:
        """The rows the pending messages add to the file's: the tokens the file does not
        hold, less the file's that they forget to no message at all."""
        more_ham, more_spam = self._pending_ham, self._pending_spam
        pending = set(more_ham).union(more_spam)
        if not pending:
            return 0
        found, g_col, b_col = self._lookup_file(list(pending))
        held = set(found)
        new = sum(more_ham.get(t, 0) + more_spam.get(t, 0) > 0 for t in pending - held)
        gone = sum(
            g + more_ham.get(t, 0) == 0 and b + more_spam.get(t, 0) == 0
            for t, g, b in zip(found, g_col, b_col, strict=True)
        )
        return new - gone

    def _sums(self) -> tuple[int, int, int]:
        """The columns' totals and the number of rows (the Naive Bayes posterior's
        denominators; summed on first use only), pending messages included."""
        if self._totals is None:
            self._totals = (
                sum(self._ham) + sum(self._pending_ham.values()),
                sum(self._spam) + sum(self._pending_spam.values()),
                len(self._ham) + self._new_tokens(),
            )
        return self._totals

    def _bad(self, what: str) -> ModelFileError:
        return ModelFileError(f"{self._name}: {what} (a file nbayes did not write)")

    def _lookup_file(self, tokens: list[str]) -> tuple[list[str], array, array]:
        """The tokens the file holds, in order, and their ham and spam counts in it."""
        n_ham, n_spam = self.file_counts
        try:  # (the kernel: the hash, the binary search, the bytes compared, all in C)
            found, ham, spam = _mail_native.scorer_counts(
                tokens, self._hashes, self._offsets, self._blob, self._ham, self._spam,
                n_ham, n_spam,
            )  # fmt: skip
        except TypeError:  # columns that are not buffers of the file's types (built in code)
            return self._counts_reference(tokens)
        except ValueError as exc:  # what the file holds wrong
            raise self._bad(str(exc)) from None
        g_col, b_col = array("q"), array("q")
        g_col.frombytes(ham)
        b_col.frombytes(spam)
        return found, g_col, b_col

    def _table(self, tokens: Iterable[str]) -> TokenTable:
        """A table of the given tokens' counts, with the whole filter's totals (the
        pending messages' counts added)."""
        tokens = list(tokens)
        found, g_col, b_col = self._lookup_file(tokens)
        more_ham, more_spam = self._pending_ham, self._pending_spam
        if more_ham or more_spam:  # (in the tokens' order, as the file's are found)
            have = dict(zip(found, zip(g_col, b_col, strict=True), strict=True))
            found, g_col, b_col = [], array("q"), array("q")
            for t in tokens:
                g, b = have.get(t, (0, 0))
                g, b = g + more_ham.get(t, 0), b + more_spam.get(t, 0)
                if g or b:
                    found.append(t)
                    g_col.append(g)
                    b_col.append(b)
        table = TokenTable.from_columns(found, g_col, b_col, self.n_ham, self.n_spam)
        if self.filter._settings().combining == "naive_bayes":
            table.sum_ham, table.sum_spam, table.n_live = self._sums()
        return table

    def _counts_reference(self, tokens: list[str]) -> tuple[list[str], array, array]:
        """The tokens the file holds, in order, and their ham and spam counts, in Python
        (what ``_mail_native.scorer_counts`` computes, ~6x faster): each token's 64-bit
        hash (:func:`token_hash` of its UTF-8 bytes) searched in the sorted hash column,
        the bytes of each row of that hash compared (a hash collision never mixes two
        tokens up), the counts checked as they are read."""
        hashes, offsets, blob = self._hashes, self._offsets, self._blob
        (ham, spam), (n_ham, n_spam) = (self._ham, self._spam), self.file_counts
        found: list[str] = []
        g_col = array("q")
        b_col = array("q")
        for t in tokens:
            b = t.encode("utf-8", "surrogatepass")
            try:
                r = file_row(hashes, offsets, blob, b, token_hash(b))
            except ValueError as exc:
                raise self._bad(str(exc)) from None
            if r < 0:
                continue
            g, s = ham[r], spam[r]
            if not (0 <= g <= n_ham and 0 <= s <= n_spam and g + s > 0):
                raise self._bad(
                    f"the token {t!r} is counted in {g} ham and {s} spam messages of "
                    f"{n_ham} ham and {n_spam} spam learnt"
                )
            found.append(t)
            g_col.append(g)
            b_col.append(s)
        return found, g_col, b_col

    def _shell(self, tokens: frozenset[str]) -> SpamFilter:
        shell = SpamFilter(**self.filter.get_params(deep=False))
        shell.table_, shell.tokenizer_ = self._table(tokens), self.filter.tokenizer_
        return shell

    def classify(self, messages: Iterable[MessageLike]) -> list[Verdict]:
        """The :class:`Verdict` of each message (as the saved filter gives it)."""
        out: list[Verdict] = []
        for tokens in self.filter._token_sets(messages):
            out.extend(self._shell(tokens)._verdicts([tokens]))
        return out

    def spamicity(self, messages: Iterable[MessageLike]) -> np.ndarray:
        import numpy as np

        return np.array([v.spamicity for v in self.classify(messages)], dtype=np.float64)

    def predict(self, messages: Iterable[MessageLike]) -> np.ndarray:
        import numpy as np

        ham_label, spam_label = self.filter._settings().labels
        names = {"ham": ham_label, "spam": spam_label, "unsure": "unsure"}
        return np.array([names[v.verdict] for v in self.classify(messages)], dtype=object)

    def clues(self, message: MessageLike, *, unused: bool = True) -> Clues:
        """Every token of ``message`` with its f(w) and side (:meth:`SpamFilter.clues`)."""
        tokens = self.filter._token_sets([message])[0]
        return self._shell(tokens).clues(tokens, unused=unused)

    def __repr__(self) -> str:
        return f"SpamScorer({self.filter!r}, {len(self)} tokens)"

    def __getstate__(self) -> dict[str, Any]:  # pragma: no cover - picklable as data
        return self.__dict__
