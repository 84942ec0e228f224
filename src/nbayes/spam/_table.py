"""A spam filter's statistics: per token, the number of ham and of spam messages it was in.

:class:`TokenTable` grows by amortised appends (its tokens packed in a compiled store,
``nbayes._mail_native.TokenStore``: their UTF-8 bytes, offsets and a token -> row index,
no Python object per token; two ``array`` columns of counts): learning a message costs
one look-up and one increment per distinct token, whatever the vocabulary's size, and
nothing is rebuilt after an update. A token becomes a ``str`` only when asked for
(:meth:`TokenTable.token_at`, :attr:`~TokenTable.row_tokens`, :meth:`~TokenTable.rows`):
the corpus' 694,155 tokens take ~40 MB so, against ~145 MB as str in a dict and a list.
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
        "_store",
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
        self._store = _mail_native.token_store()
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
    def store(self) -> _mail_native.TokenStore:
        """The tokens by row, packed, with their index (what the compiled clues read)."""
        return self._store

    @property
    def n_rows(self) -> int:
        """The rows (tokens seen, those unlearnt back to no count included)."""
        return self._store.rows()

    @property
    def index(self) -> dict[str, int]:
        """Token -> row (rows whose counts fell back to zero included): a dict made at each
        call (a str per token: :meth:`row` finds one token without it)."""
        tokens = self._store.tokens()
        return dict(zip(tokens, range(len(tokens)), strict=True))

    def row(self, token: str) -> int | None:
        """The row of ``token``, None if it has none."""
        i = self._store.row(token)
        return None if i < 0 else i

    def counts(self, token: str) -> tuple[int, int]:
        """``(ham, spam)`` messages ``token`` was in."""
        i = self._store.row(token)
        return (0, 0) if i < 0 else (self.ham[i], self.spam[i])

    def token_at(self, row: int) -> str:
        return self._store.token(row)

    @property
    def row_tokens(self) -> list[str]:
        """The tokens by row: a list made at each call (a str per token)."""
        return self._store.tokens()

    # ------------------------------------------------------------------ learning
    def learn(self, messages: Iterable[Iterable[str]], *, spam: bool) -> None:
        """Count each message's distinct tokens once, in ``spam`` or ham.

        All or nothing: an exception (a Ctrl-C included) in the middle undoes what the
        call had counted before it propagates. The compiled kernel counts
        (``_mail_native.learn_counts``, ~15x faster); :meth:`_learn_reference` is what it
        does, in Python.
        """
        first_new = self._store.rows()
        try:
            n, live, total = _mail_native.learn_counts(
                self._store, self.ham, self.spam, messages, spam
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

    def _row_or_new(self, token: str) -> int:
        """The row of ``token``, a new one (a zero count in each column) if it has none."""
        i = self._store.row(token)
        if i < 0:
            if not isinstance(token, str):
                hash(token)  # (an unhashable token's TypeError, as a dict's)
                raise TypeError(f"a token must be a str, not {type(token).__name__}")
            i = self._store.rows()
            self._store.extend([token])
            self.ham.append(0)
            self.spam.append(0)
        return i

    def _learn_reference(self, messages: Iterable[Iterable[str]], *, spam: bool) -> None:
        """:meth:`learn` in Python (the specification the kernel is tested against)."""
        col = self.spam if spam else self.ham
        other = self.ham if spam else self.spam
        n = 0
        live = 0
        total = 0
        first_new = self._store.rows()
        touched: list[int] = []
        try:
            for message in messages:
                n += 1
                for t in message:
                    total += 1
                    i = self._row_or_new(t)
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
        self._store.truncate(n_rows)
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
        row = self._store.row
        for t, k in need.items():
            i = row(t)
            have = 0 if i < 0 else col[i]
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
            t = self._store.token(i)
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
        row = self._store.row
        col = self.spam if spam else self.ham
        other = self.ham if spam else self.spam
        total = 0
        dead = 0
        touched: list[int] = []
        try:
            for message in messages:
                for t in message:
                    total += 1
                    i = row(t)
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
        first_new = self._store.rows()
        try:
            live = _mail_native.merge_counts(
                self._store, self.ham, self.spam, other._store, other.ham, other.spam
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
        ham, spam = self.ham, self.spam
        first_new = self._store.rows()
        touched: list[tuple[int, int, int]] = []
        live = 0
        try:
            for j, t in enumerate(other._store.tokens()):
                g, b = other.ham[j], other.spam[j]
                if g == 0 and b == 0:
                    continue
                i = self._row_or_new(t)
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
        new._store = self._store.copy()
        new.ham = array("q", self.ham)
        new.spam = array("q", self.spam)
        new.n_ham, new.n_spam, new.n_live = self.n_ham, self.n_spam, self.n_live
        new.sum_ham, new.sum_spam = self.sum_ham, self.sum_spam
        return new

    def rows(self) -> Iterable[tuple[str, int, int]]:
        """``(token, ham, spam)`` of every token seen in a learnt message, by row."""
        if not self.ham:
            return iter(())
        live, ham, spam = self._live_counts()
        tokens = self._store.tokens(live)
        return zip(tokens, ham.tolist(), spam.tolist(), strict=True)

    def _live_counts(self) -> tuple[Any, Any, Any]:
        """The rows with a count (int64 numpy array) and their ham and spam counts."""
        import numpy as np  # here only: `nbayes filter` verdicts do not import numpy

        ham = np.frombuffer(self.ham, dtype=np.int64)
        spam = np.frombuffer(self.spam, dtype=np.int64)
        live = np.flatnonzero((ham != 0) | (spam != 0)).astype(np.int64)
        return live, ham[live], spam[live]

    def strongest(
        self, top: int, s: float, x: float, c: float = 0.0, *, spam: bool
    ) -> list[tuple[str, float, int, int]]:
        """``(token, f, ham, spam)`` of the ``top`` tokens of highest f(w) (``spam``) or
        lowest (Robinson's, :func:`~nbayes.spam.robinson_f`, with ``s``, ``x`` and
        ``c``), ties by more messages, then by token: what ``heapq.nlargest`` of every
        row gives, with a ``str`` made only for the rows that can be among them.

        >>> t = TokenTable()
        >>> t.learn([{"cheap", "pills"}, {"pills"}], spam=True)
        >>> t.learn([{"meeting", "pills"}], spam=False)
        >>> t.strongest(2, 0.1, 0.5, spam=True)
        [('cheap', 0.9545454545454545, 0, 1), ('pills', 0.5, 1, 2)]
        """
        if top <= 0 or not self.n_live:
            return []
        import heapq

        import numpy as np

        from nbayes.spam._combining import robinson_f_columns

        live, g, b = self._live_counts()
        f = robinson_f_columns(g, b, self.n_ham, self.n_spam, s, x, c)
        key, n = (f if spam else -f), g + b
        if len(live) > top:  # the rows ranked at least as high as the top-th, ties included
            order = np.lexsort((-n, -key))
            k = order[top - 1]
            near = np.flatnonzero((key > key[k]) | ((key == key[k]) & (n >= n[k])))
        else:
            near = np.arange(len(live))
        tokens = self._store.tokens(live[near])
        rows = zip(key[near].tolist(), n[near].tolist(), tokens, near.tolist(), strict=True)
        best = heapq.nlargest(top, rows, key=lambda r: r[:3])
        return [(t, float(f[i]), int(g[i]), int(b[i])) for _, _, t, i in best]

    def filtered(self, keep: Callable[[str, int, int], bool]) -> TokenTable:
        """A table of the rows ``keep(token, ham, spam)`` accepts (message totals kept)."""
        return TokenTable.from_rows(
            [(t, g, b) for t, g, b in self.rows() if keep(t, g, b)], self.n_ham, self.n_spam
        )

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, int, int]], n_ham: int, n_spam: int) -> TokenTable:
        """The table of the given ``(token, ham, spam)`` rows (distinct tokens: ValueError
        if one comes twice)."""
        new = cls()
        tokens = []
        for t, g, b in rows:
            tokens.append(t)
            new.ham.append(g)
            new.spam.append(b)
            if g or b:
                new.n_live += 1
            new.sum_ham += g
            new.sum_spam += b
        new._store.extend(tokens)
        new.n_ham, new.n_spam = n_ham, n_spam
        return new

    @classmethod
    def from_columns(
        cls, tokens: list[str], ham: array, spam: array, n_ham: int, n_spam: int
    ) -> TokenTable:
        """The table of distinct ``tokens`` with their count columns (``array("q")``, each
        row with a count), taken as they are (no per-row Python work)."""
        new = cls()
        new._store.extend(tokens)
        return new._with_columns(ham, spam, n_ham, n_spam)

    @classmethod
    def from_packed(
        cls, blob: bytes, offsets: Any, ham: array, spam: array, n_ham: int, n_spam: int,
        sums: tuple[int, int] | None = None,
    ) -> TokenTable:  # fmt: skip
        """:meth:`from_columns` of the tokens packed as a model file holds them (their
        UTF-8 ``blob`` cut at the int64 ``offsets``), without a str per token: ValueError
        if the offsets do not cut the blob, a token is not UTF-8 or comes twice.
        ``sums``: the totals of ``ham`` and ``spam``, if the caller has them (a reader of
        a model file sums with numpy: ``sum`` of 700k counts holds the GIL ~10 ms)."""
        new = cls()
        new._store = _mail_native.token_store(blob, offsets)
        return new._with_columns(ham, spam, n_ham, n_spam, sums)

    def _with_columns(
        self, ham: array, spam: array, n_ham: int, n_spam: int,
        sums: tuple[int, int] | None = None,
    ) -> TokenTable:  # fmt: skip
        if len(ham) != self._store.rows() or len(spam) != len(ham):
            raise ValueError(f"{len(ham)} and {len(spam)} counts for {self._store.rows()} tokens")
        self.ham, self.spam = ham, spam
        self.n_live = len(ham)
        self.sum_ham, self.sum_spam = (sum(ham), sum(spam)) if sums is None else sums
        self.n_ham, self.n_spam = n_ham, n_spam
        return self

    def packed(self) -> tuple[bytes, memoryview]:
        """The tokens by row packed (their UTF-8 bytes, and the int64 offsets that cut
        them): what :meth:`from_packed` reads."""
        blob, offsets = self._store.packed()
        return blob, memoryview(offsets).cast("q")

    # ------------------------------------------------------------------ pickling
    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self.__slots__ if name != "_store"}
        state["_packed"] = self._store.packed()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if isinstance(state, tuple):  # (a pickle of the slots only: (None, slots))
            state = state[1]
        state = dict(state)
        self._store = _mail_native.token_store()
        packed = state.pop("_packed", None)
        if packed is not None:
            self._store = _mail_native.token_store(packed[0], memoryview(packed[1]).cast("q"))
        else:  # a table pickled before the packed store: its list of tokens by row
            self._store.extend(state.pop("_tokens", []))
            state.pop("_index", None)
        state.setdefault("_high", [None, None])
        for name, value in state.items():
            setattr(self, name, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TokenTable):
            return NotImplemented
        return (self.n_ham, self.n_spam) == (other.n_ham, other.n_spam) and dict(
            (t, (g, b)) for t, g, b in self.rows()
        ) == dict((t, (g, b)) for t, g, b in other.rows())

    __hash__ = None  # type: ignore[assignment]
