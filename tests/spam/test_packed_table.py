"""A spam filter's table keeps its tokens packed (``nbayes._mail_native.TokenStore``: UTF-8
bytes, offsets and an index, no str per token) and makes them str only when asked: the
same tokens, in the same order, as a table of str by row (the reading below, a dict and a
list, as the table held them before) after learning, unlearning, merging, pruning, copying,
pickling and saving."""

from __future__ import annotations

import copy
import pickle
from array import array
from collections.abc import Iterable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.spam import SpamFilter, TokenTable

_TOKENS = st.sampled_from(
    ["cheap", "pills", "caf\u00e9", "\u043f\u0440\u0438", "\U0001f389", "bi:a b", "\udc80x", ""]
) | st.text(max_size=5)
_MESSAGES = st.lists(st.frozensets(_TOKENS, max_size=6), min_size=1, max_size=4)


class _Reading:
    """Rows as a dict and a list of str (the table before the packed store)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.tokens: list[str] = []
        self.ham: list[int] = []
        self.spam: list[int] = []

    def add(self, messages: Iterable[Iterable[str]], spam: bool, step: int = 1) -> None:
        for message in messages:
            for t in message:
                i = self.index.get(t)
                if i is None:
                    i = self.index[t] = len(self.tokens)
                    self.tokens.append(t)
                    self.ham.append(0)
                    self.spam.append(0)
                (self.spam if spam else self.ham)[i] += step

    def rows(self) -> list[tuple[str, int, int]]:
        return [
            (t, g, b) for t, g, b in zip(self.tokens, self.ham, self.spam, strict=True) if g or b
        ]


def _same(table: TokenTable, reading: _Reading) -> None:
    assert table.row_tokens == reading.tokens
    assert table.index == reading.index
    assert [table.token_at(i) for i in range(table.n_rows)] == reading.tokens
    assert list(table.rows()) == reading.rows()
    assert (table.ham.tolist(), table.spam.tolist()) == (reading.ham, reading.spam)
    for t in reading.tokens:
        assert table.row(t) == reading.index[t]
    assert table.row("never seen \u2603") is None and table.counts("never seen") == (0, 0)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(_MESSAGES, st.booleans()), min_size=1, max_size=6), st.data())
def test_learnt_and_unlearnt_tokens_come_back_in_row_order(
    calls: list[tuple[list[frozenset[str]], bool]], data: st.DataObject
) -> None:
    table, reading = TokenTable(), _Reading()
    for messages, spam in calls:
        table.learn(messages, spam=spam)
        reading.add(messages, spam)
        _same(table, reading)
    messages, spam = data.draw(st.sampled_from(calls))
    table.unlearn(messages, spam=spam)  # rows back to no count stay rows
    reading.add(messages, spam, -1)
    _same(table, reading)
    for again in (copy.deepcopy(table), pickle.loads(pickle.dumps(table)), table.copy()):
        _same(again, reading)
        assert again == table


@settings(max_examples=100, deadline=None)
@given(_MESSAGES, _MESSAGES)
def test_merged_tables_add_the_other_s_new_tokens_in_its_row_order(
    a: list[frozenset[str]], b: list[frozenset[str]]
) -> None:
    t, other = TokenTable(), TokenTable()
    t.learn(a, spam=False)
    other.learn(b, spam=True)
    reading = _Reading()
    reading.add(a, False)
    reading.add(b, True)
    t.merge(other)
    _same(t, reading)


def test_a_failed_learn_drops_its_new_rows_and_the_index_finds_the_next_ones() -> None:
    t = TokenTable()
    t.learn([frozenset({"a", "b"})], spam=True)

    def interrupted() -> Iterable[str]:
        yield "new c"
        yield "new d"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        t.learn([interrupted()], spam=False)
    assert t.n_rows == 2 and t.row("new c") is None
    t.learn([["new d", "e"]], spam=False)
    assert set(t.row_tokens[:2]) == {"a", "b"}
    assert t.row_tokens[2:] == ["new d", "e"] and t.row("new d") == 2 and t.row("e") == 3


def _messages(n: int) -> list[frozenset[str]]:
    return [frozenset({f"w{(i * 7 + k) % 50}", f"caf\u00e9 {k % 3}"} | {f"u{i}"}) for i in range(n)
            for k in range(3)]  # fmt: skip


def test_prune_and_save_keep_the_tokens_and_their_counts(tmp_path: Path) -> None:
    msgs = _messages(40)
    labels = ["ham", "spam"] * (len(msgs) // 2)
    f = SpamFilter(min_dev=0.0).fit(msgs, labels)
    rows = list(f.table_.rows())
    pruned = f.copy().prune(min_count=1)
    assert list(pruned.table_.rows()) == [r for r in rows if r[1] + r[2] > 1]
    top = f.copy().prune(top_k=10)
    assert len(top.table_) == 10 and all(
        f.table_.counts(t) == (g, b) for t, g, b in top.table_.rows()
    )
    path = tmp_path / "m.nbm"
    nbayes.save(f, path)
    g = nbayes.load(path)
    assert sorted(g.table_.rows()) == sorted(rows)  # (the file orders rows by hash)
    assert g.classify(msgs[:5]) == f.classify(msgs[:5])
    g.partial_fit([frozenset({"brand new", "w1"})], ["spam"])
    assert g.table_.counts("brand new") == (0, 1) and g.table_.row_tokens[-1] == "brand new"


def test_a_table_pickled_before_the_store_loads() -> None:
    # (a pickle of the table when it held a dict and a list: the slots as its state)
    t = TokenTable.__new__(TokenTable)
    state = {
        "_index": {"a": 0, "b": 1}, "_tokens": ["a", "b"], "ham": array("q", [1, 0]),
        "spam": array("q", [0, 1]), "n_ham": 1, "n_spam": 1, "n_live": 2, "sum_ham": 1,
        "sum_spam": 1, "version": 3,
    }  # fmt: skip
    t.__setstate__((None, state))
    assert t.row_tokens == ["a", "b"] and t.counts("b") == (0, 1) and t.row("a") == 0
    t.learn([["c", "a"]], spam=False)
    assert t.row_tokens == ["a", "b", "c"] and t.counts("a") == (2, 0)


def test_a_loaded_filter_holds_no_str_per_token(tmp_path: Path) -> None:
    f = SpamFilter().fit(_messages(20), ["ham", "spam"] * 30)
    path = tmp_path / "m.nbm"
    nbayes.save(f, path)
    table = nbayes.load(path).table_
    assert not hasattr(table, "_tokens") and not hasattr(table, "_index")
    assert table.store.nbytes() < 64 * 1024  # (a small table: the index's first 1,024 slots)


def test_a_failed_learn_is_undone_without_memory_to_spare() -> None:
    # the undo of a failed learn allocated a second slot table: with the address space
    # nearly used up (a MemoryError's moment) its bad_alloc aborted the process
    import os
    import subprocess
    import sys

    script = """
import resource
from nbayes.spam._table import TokenTable
t = TokenTable()
t.learn([[f"w{i}" for i in range(300_000)]], spam=False)
vm = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (vm + 2 * 2**20, resource.RLIM_INFINITY))
def messages():
    yield ["new-token"]
    raise TypeError("a bad message")
try:
    t.learn(messages(), spam=True)
except TypeError as e:
    print("TypeError", e)
print(t.n_rows, t.row("w5"), t.row("w299999"), t.row("new-token"), t.counts("w7"))
"""
    if not Path("/proc/self/statm").exists():
        pytest.skip("no /proc here")
    # (large blocks mapped and unmapped alone: no freed heap left for the undo to reuse)
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"}
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-500:]
    assert out.stdout.splitlines() == ["TypeError a bad message", "300000 5 299999 None (1, 0)"]


@given(st.integers(min_value=0, max_value=3000), st.integers(min_value=0, max_value=3000))
@settings(max_examples=30, deadline=None)
def test_a_truncated_store_finds_every_row_it_kept(n: int, keep: int) -> None:
    # the rows dropped in place leave holes in the probe sequences: every kept token must
    # still be found, the dropped ones not, and new ones added after
    from nbayes import _mail_native

    store = _mail_native.token_store()
    tokens = [f"t{i}" for i in range(n)]
    store.extend(tokens)
    keep = min(keep, n)
    store.truncate(keep)
    assert store.rows() == keep
    assert all(store.row(t) == i for i, t in enumerate(tokens[:keep]))
    assert all(store.row(t) == -1 for t in tokens[keep:])
    store.extend(tokens[keep:])
    assert [store.row(t) for t in tokens] == list(range(n))


# ---------------------------------------------------------------- the strongest tokens
def _strongest_reference(
    table: TokenTable, top: int, s: float, x: float, c: float, spam: bool
) -> list[tuple[str, float, int, int]]:
    """Every row's robinson_f and heapq.nlargest of them all (as `nbayes info` ranked)."""
    import heapq

    from nbayes.spam import robinson_f

    sign = 1.0 if spam else -1.0
    rows = [
        (robinson_f(g, b, table.n_ham, table.n_spam, s, x, c), g + b, t, g, b)
        for t, g, b in table.rows()
    ]
    best = heapq.nlargest(top, rows, key=lambda r: (sign * r[0], r[1], r[2]))
    return [(t, f, g, b) for f, _, t, g, b in best]


@settings(max_examples=300, deadline=None)
@given(
    _MESSAGES,
    _MESSAGES,
    _MESSAGES,
    st.integers(0, 8),
    st.sampled_from([(0.1, 0.5, 1.0), (0.0178, 0.52, 0.0), (1.0, 0.4, 3.0)]),
)
def test_the_strongest_tokens_are_every_row_s_ranking(
    hams: list[frozenset[str]],
    spams: list[frozenset[str]],
    unlearnt: list[frozenset[str]],
    top: int,
    params: tuple[float, float, float],
) -> None:
    table = TokenTable()
    table.learn(hams, spam=False)
    table.learn(spams + unlearnt, spam=True)
    table.unlearn(unlearnt, spam=True)  # (rows of no message left: never among them)
    s, x, c = params
    for spam in (True, False):
        got = table.strongest(top, s, x, c, spam=spam)
        assert got == _strongest_reference(table, top, s, x, c, spam)  # f bit for bit


def test_the_strongest_of_ties_are_those_of_more_messages_then_by_token() -> None:
    table = TokenTable()
    table.learn([{f"t{i:03d}" for i in range(300)}, {"u", "v"}], spam=True)
    table.learn([{"w"}], spam=False)
    # 300 tokens in one spam tie; "u" and "v" likewise: by token, past the top-th's tie
    assert [t for t, *_ in table.strongest(3, 0.1, 0.5, spam=True)] == ["v", "u", "t299"]
    assert table.strongest(3, 0.1, 0.5, spam=True) == _strongest_reference(
        table, 3, 0.1, 0.5, 0.0, True
    )
