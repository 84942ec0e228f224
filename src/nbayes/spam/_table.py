"""A spam filter's statistics: per token, the number of ham and of spam messages it was in.

:class:`TokenTable` grows by amortised appends (a dict from token to row, two ``array``
columns of counts): learning a message costs one dict look-up and one increment per
distinct token, whatever the vocabulary's size, and nothing is rebuilt after an update.
Counts are integers, so learning, unlearning (subtracting, refused where a count would go
negative) and merging (adding) are exact: a model's scores depend only on its counts.
"""

from __future__ import annotations

import hashlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from nbayes import _mail_native

__all__ = ["TokenTable", "token_hash"]

#: how far below a class's message count :meth:`TokenTable._rows_near_n` keeps the rows it
#: found (how many messages may be unlearnt before it looks at every row again)
_HIGH_DEPTH = 64


def token_hash(encoded: bytes | memoryview) -> int:
    """The 64-bit hash (BLAKE2b, little-endian) of a token's UTF-8 bytes, by which a model
    file orders its tokens (:class:`~nbayes.spam._scorer.SpamScorer` searches it).

    >>> token_hash(b"viagra")
    6279434352747552626
    """
    return int.from_bytes(hashlib.blake2b(encoded, digest_size=8).digest(), "little")


class TokenTable:
    """Document frequencies of tokens in ham and spam, and the number of messages of each.

    >>> t = TokenTable()
    >>> t.learn([{"cheap", "pills"}, {"pills"}], spam=True)
    >>> t.learn([{"meeting"}], spam=False)
    >>> t.counts("pills"), t.n_spam, t.n_ham, len(t)
    ((0, 2), 2, 1, 3)
    """

    __slots__ = (
        "_index",
        "_tokens",
        "ham",
        "spam",
        "n_ham",
        "n_spam",
        "n_live",
        "sum_ham",
        "sum_spam",
        "version",
        "_high",
    )

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self._tokens: list[str] = []
        self.ham = array("q")
        self.spam = array("q")
        self.n_ham = 0
        self.n_spam = 0
        self.n_live = 0  # rows with a count above zero
        self.sum_ham = 0  # the ham column's total (a multinomial NB's denominator)
        self.sum_spam = 0
        self.version = 0  # bumped by every change (caches of derived values key on it)
        self._high: list[list[Any] | None] = [None, None]  # per class: see _rows_near_n

    def __len__(self) -> int:
        return self.n_live

    @property
    def index(self) -> dict[str, int]:
        """Token -> row (rows whose counts fell back to zero included)."""
        return self._index

    def counts(self, token: str) -> tuple[int, int]:
        """``(ham, spam)`` messages ``token`` was in."""
        i = self._index.get(token)
        return (0, 0) if i is None else (self.ham[i], self.spam[i])

    def token_at(self, row: int) -> str:
        return self._tokens[row]

    @property
    def row_tokens(self) -> list[str]:
        """The tokens by row (read only: rows are appended, and a truncation replaces the
        list, so that an index of it, ``nbayes._mail_native.TokenIndex``, sees it)."""
        return self._tokens

    # ------------------------------------------------------------------ learning
    def learn(self, messages: Iterable[Iterable[str]], *, spam: bool) -> None:
        """Count each message's distinct tokens once, in ``spam`` or ham.

        All or nothing: an exception (a Ctrl-C included) in the middle undoes what the
        call had counted before it propagates. The compiled kernel counts
        (``_mail_native.learn_counts``, ~15x faster); :meth:`_learn_reference` is what it
        does, in Python.
        """
        first_new = len(self._tokens)
        try:
            n, live, total = _mail_native.learn_counts(
                self._index, self._tokens, self.ham, self.spam, messages, spam
            )
        except BaseException:
            self._truncate(first_new)
            raise
        self._counted(n, live, total, spam=spam)

    def _counted(self, n: int, live: int, total: int, *, spam: bool) -> None:
        """Record ``n`` messages learnt (``total`` tokens, ``live`` new rows with a count)."""
        self.n_live += live
        if spam:
            self.n_spam += n
            self.sum_spam += total
        else:
            self.n_ham += n
            self.sum_ham += total
        self.version += 1

    def _learn_reference(self, messages: Iterable[Iterable[str]], *, spam: bool) -> None:
        """:meth:`learn` in Python (the specification the kernel is tested against)."""
        index, tokens = self._index, self._tokens
        col = self.spam if spam else self.ham
        other = self.ham if spam else self.spam
        n = 0
        live = 0
        total = 0
        first_new = len(tokens)
        touched: list[int] = []
        try:
            for message in messages:
                n += 1
                for t in message:
                    total += 1
                    i = index.get(t)
                    if i is None:
                        i = len(tokens)
                        index[t] = i
                        tokens.append(t)
                        self.ham.append(0)
                        self.spam.append(0)
                    c = col[i]
                    if c == 0 and other[i] == 0:
                        live += 1
                    col[i] = c + 1
                    touched.append(i)
        except BaseException:
            for i in touched:
                col[i] -= 1
            self._truncate(first_new)
            raise
        self._counted(n, live, total, spam=spam)

    def _truncate(self, n_rows: int) -> None:
        """Drop the rows from ``n_rows`` on (rows a failed call had added)."""
        for t in self._tokens[n_rows:]:
            self._index.pop(t, None)
        self._tokens = self._tokens[:n_rows]  # a new list: see row_tokens
        del self.ham[n_rows:]
        del self.spam[n_rows:]

    def check_unlearn(self, messages: Sequence[Iterable[str]], *, spam: bool) -> str | None:
        """None if the messages can be unlearnt as ``spam`` (or ham), else why not."""
        n_class = self.n_spam if spam else self.n_ham
        label = "spam" if spam else "ham"
        if len(messages) > n_class:
            return (
                f"cannot unlearn {len(messages)} {label} message(s): the filter has learnt "
                f"only {n_class} {label}"
            )
        need = Counter(t for message in messages for t in message)
        col = self.spam if spam else self.ham
        for t, k in need.items():
            i = self._index.get(t)
            have = 0 if i is None else col[i]
            if have < k:
                return (
                    f"cannot unlearn these {label} message(s): the token {t!r} is in {k} of "
                    f"them but in only {have} learnt {label} message(s) (unlearn only "
                    "messages learnt with that label)"
                )
        # A token in every learnt spam but not in these messages would, after them, be in
        # more spam than the filter had learnt: these were not all learnt as spam.
        left = n_class - len(messages)
        for i in self._rows_near_n(spam, len(messages)):
            t = self._tokens[i]
            if col[i] - need.get(t, 0) > left:
                return (
                    f"cannot unlearn these {label} message(s): the token {t!r} is in "
                    f"{col[i]} of the {n_class} learnt {label} and in {need.get(t, 0)} of "
                    f"them, so it would be left in more {label} messages than the "
                    f"{left} left (these were not all learnt as {label}: unlearn only "
                    "messages learnt with that label)"
                )
        return None

    def _rows_near_n(self, spam: bool, m: int) -> list[int]:
        """Rows that may be counted in more than ``n - m`` messages of the class (``n`` its
        messages learnt): every row whose count can exceed what unlearning ``m`` messages
        leaves.

        Finding them looks at every row (numpy, about 1 ms at 700,000 tokens), so the rows
        within :data:`_HIGH_DEPTH` of ``n`` are kept and reused while few messages are
        unlearnt. A row outside them was counted in at most ``n0 - D - 1`` messages when
        they were found (``n0`` messages learnt then, ``D`` the depth), or is new since;
        learning ``L`` messages (or merging them) raises its count by at most ``L`` and
        ``n`` by ``L``, and unlearning ``U`` lowers ``n`` by ``U``. So it stays at most
        ``n - m`` while ``U + m <= min(n0, D)``: no pass over the rows is needed until then.
        """
        col = self.spam if spam else self.ham
        n = self.n_spam if spam else self.n_ham
        high = getattr(self, "_high", None)  # (a pickle of a table from before it)
        if high is None:
            high = self._high = [None, None]
        state = high[spam]
        if state is not None and state[1] + m <= state[2]:
            return [i for i in state[0] if i < len(col)]  # (rows a failed learn dropped)
        if not col:
            return []
        import numpy as np  # here only: `nbayes filter` verdicts do not import numpy

        counts = np.frombuffer(col, dtype=np.int64)
        if m > _HIGH_DEPTH:  # a large batch (a fold of a cross-validation): no reuse
            return np.flatnonzero(counts > n - m).tolist()
        rows = np.flatnonzero(counts >= n - _HIGH_DEPTH).tolist()
        high[spam] = [rows, 0, min(n, _HIGH_DEPTH)]  # rows, unlearnt since, slack
        return rows

    def unlearn(self, messages: Sequence[Iterable[str]], *, spam: bool) -> None:
        """Subtract messages learnt as ``spam`` (or ham); ValueError, and no change, if
        they were not (a count would go negative)."""
        problem = self.check_unlearn(messages, spam=spam)
        if problem is not None:
            raise ValueError(problem)
        index = self._index
        col = self.spam if spam else self.ham
        other = self.ham if spam else self.spam
        total = 0
        dead = 0
        touched: list[int] = []
        try:
            for message in messages:
                for t in message:
                    total += 1
                    i = index[t]
                    c = col[i] - 1
                    col[i] = c
                    touched.append(i)
                    if c == 0 and other[i] == 0:
                        dead += 1
        except BaseException:
            for i in touched:
                col[i] += 1
            raise
        self.n_live -= dead
        if spam:
            self.n_spam -= len(messages)
            self.sum_spam -= total
        else:
            self.n_ham -= len(messages)
            self.sum_ham -= total
        state = self._high[spam] if getattr(self, "_high", None) else None
        if state is not None:
            state[1] += len(messages)
        self.version += 1

    # ------------------------------------------------------------------ whole tables
    def merge(self, other: TokenTable) -> None:
        """Add ``other``'s counts to these (all or nothing, as :meth:`learn`; in the
        kernel, ``_mail_native.merge_counts``: :meth:`_merge_reference` is what it does)."""
        first_new = len(self._tokens)
        try:
            live = _mail_native.merge_counts(
                self._index, self._tokens, self.ham, self.spam, other._tokens, other.ham, other.spam
            )
        except BaseException:
            self._truncate(first_new)
            raise
        self._merged(other, live)

    def _merged(self, other: TokenTable, live: int) -> None:
        self.n_live += live
        self.sum_ham += other.sum_ham
        self.sum_spam += other.sum_spam
        self.n_ham += other.n_ham
        self.n_spam += other.n_spam
        self.version += 1

    def _merge_reference(self, other: TokenTable) -> None:
        """:meth:`merge` in Python (the specification the kernel is tested against)."""
        index, tokens, ham, spam = self._index, self._tokens, self.ham, self.spam
        first_new = len(tokens)
        touched: list[tuple[int, int, int]] = []
        live = 0
        try:
            for t, j in other._index.items():
                g, b = other.ham[j], other.spam[j]
                if g == 0 and b == 0:
                    continue
                i = index.get(t)
                if i is None:
                    i = len(tokens)
                    index[t] = i
                    tokens.append(t)
                    ham.append(0)
                    spam.append(0)
                if ham[i] == 0 and spam[i] == 0:
                    live += 1
                ham[i] += g
                spam[i] += b
                touched.append((i, g, b))
        except BaseException:
            for i, g, b in touched:
                ham[i] -= g
                spam[i] -= b
            self._truncate(first_new)
            raise
        self._merged(other, live)

    def copy(self) -> TokenTable:
        new = TokenTable()
        new._index = dict(self._index)
        new._tokens = list(self._tokens)
        new.ham = array("q", self.ham)
        new.spam = array("q", self.spam)
        new.n_ham, new.n_spam, new.n_live = self.n_ham, self.n_spam, self.n_live
        new.sum_ham, new.sum_spam = self.sum_ham, self.sum_spam
        return new

    def rows(self) -> Iterable[tuple[str, int, int]]:
        """``(token, ham, spam)`` of every token seen in a learnt message."""
        for t, i in self._index.items():
            g, b = self.ham[i], self.spam[i]
            if g or b:
                yield t, g, b

    def filtered(self, keep: Callable[[str, int, int], bool]) -> TokenTable:
        """A table of the rows ``keep(token, ham, spam)`` accepts (message totals kept)."""
        return TokenTable.from_rows(
            [(t, g, b) for t, g, b in self.rows() if keep(t, g, b)], self.n_ham, self.n_spam
        )

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, int, int]], n_ham: int, n_spam: int) -> TokenTable:
        """The table of the given ``(token, ham, spam)`` rows (distinct tokens)."""
        new = cls()
        for t, g, b in rows:
            new._index[t] = len(new._tokens)
            new._tokens.append(t)
            new.ham.append(g)
            new.spam.append(b)
            if g or b:
                new.n_live += 1
            new.sum_ham += g
            new.sum_spam += b
        new.n_ham, new.n_spam = n_ham, n_spam
        return new

    @classmethod
    def from_columns(
        cls, tokens: list[str], ham: array, spam: array, n_ham: int, n_spam: int
    ) -> TokenTable:
        """The table of distinct ``tokens`` with their count columns (``array("q")``, each
        row with a count), taken as they are (no per-row Python work: a model file of a
        million tokens loads in a fraction of a second)."""
        new = cls()
        new._tokens = tokens
        new._index = dict(zip(tokens, range(len(tokens)), strict=True))
        new.ham, new.spam = ham, spam
        new.n_live = len(tokens)
        new.sum_ham, new.sum_spam = sum(ham), sum(spam)
        new.n_ham, new.n_spam = n_ham, n_spam
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TokenTable):
            return NotImplemented
        return (self.n_ham, self.n_spam) == (other.n_ham, other.n_spam) and dict(
            (t, (g, b)) for t, g, b in self.rows()
        ) == dict((t, (g, b)) for t, g, b in other.rows())

    __hash__ = None  # type: ignore[assignment]
