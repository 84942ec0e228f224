"""Learning in the kernel (``_mail_native.learn_counts``) is learning in Python
(``TokenTable._learn_reference``): the same rows, counts and totals, and the same table
after an error; a model file's hash column (``_mail_native.token_hashes``) is
``token_hash`` of each token."""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes import _mail_native
from nbayes.spam import TokenTable
from nbayes.spam._table import token_hash

_TOKENS = st.sampled_from(
    ["cheap", "pills", "caf\u00e9", "\u043f\u0440\u0438", "\U0001f389", "bi:a b", "\udc80x", ""]
) | st.text(max_size=6)
_CALLS = st.lists(
    st.tuples(st.lists(st.frozensets(_TOKENS, max_size=8), max_size=5), st.booleans()),
    max_size=8,
)


def _state(t: TokenTable) -> tuple[Any, ...]:
    return (
        list(t.index.items()),
        list(t.row_tokens),
        t.ham.tolist(),
        t.spam.tolist(),
        (t.n_ham, t.n_spam, t.n_live, t.sum_ham, t.sum_spam, t.version),
    )


@settings(max_examples=300, deadline=None)
@given(_CALLS)
def test_the_kernel_learns_as_the_python_reading(
    calls: list[tuple[list[frozenset[str]], bool]],
) -> None:
    kernel, reference = TokenTable(), TokenTable()
    for messages, spam in calls:
        kernel.learn(messages, spam=spam)
        reference._learn_reference(messages, spam=spam)
        assert _state(kernel) == _state(reference)


@settings(max_examples=100, deadline=None)
@given(_CALLS, st.lists(st.frozensets(_TOKENS, max_size=8), min_size=1, max_size=4))
def test_learning_after_unlearning_counts_rows_coming_back_to_life(
    calls: list[tuple[list[frozenset[str]], bool]], again: list[frozenset[str]]
) -> None:
    kernel, reference = TokenTable(), TokenTable()
    for messages, spam in calls:
        kernel.learn(messages, spam=spam)
        reference._learn_reference(messages, spam=spam)
    kernel.learn(again, spam=True)
    reference._learn_reference(again, spam=True)
    kernel.unlearn(again, spam=True)  # rows back to no count...
    reference.unlearn(again, spam=True)
    kernel.learn(again[:1], spam=True)  # ...and back to life (n_live)
    reference._learn_reference(again[:1], spam=True)
    assert _state(kernel) == _state(reference)


def test_a_generator_of_lists_counts_every_item_as_the_reading_does() -> None:
    kernel, reference = TokenTable(), TokenTable()
    kernel.learn((m for m in [["a", "a", "b"], iter(["c"])]), spam=False)
    reference._learn_reference((m for m in [["a", "a", "b"], iter(["c"])]), spam=False)
    assert _state(kernel) == _state(reference) and kernel.counts("a") == (2, 0)


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ([frozenset({"new-1", "cheap"}), 7], "not iterable"),
        ([frozenset({"new-1"}), [["unhashable"]]], "unhashable"),
        (5, "not iterable"),
    ],
)
def test_an_error_leaves_the_table_as_it_was(messages: Any, error: str) -> None:
    t = TokenTable()
    t.learn([frozenset({"cheap", "pills"})], spam=True)
    before = _state(t)
    with pytest.raises(TypeError, match=error):
        t.learn(messages, spam=False)
    assert _state(t) == before and "new-1" not in t.index


def test_columns_that_are_not_int64_arrays_are_refused() -> None:
    store = _mail_native.token_store()
    with pytest.raises(TypeError, match=r"array\('q'\)"):
        _mail_native.learn_counts(store, array("d"), array("d"), [["a"]], True)
    with pytest.raises(TypeError):
        _mail_native.learn_counts({}, array("q"), array("q"), [["a"]], True)  # type: ignore[arg-type]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=20))
def test_the_hash_column_is_token_hash_of_each_token(pieces: list[bytes]) -> None:
    offsets = np.zeros(len(pieces) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in pieces], out=offsets[1:])
    got = np.frombuffer(_mail_native.token_hashes(b"".join(pieces), offsets), dtype="<u8")
    assert got.tolist() == [token_hash(p) for p in pieces]


@pytest.mark.parametrize(
    "offsets",
    [[], [1, 3], [0, 2], [0, 3, 2, 3], [0, 4]],
    ids=["none", "not-0", "short", "down", "past"],
)
def test_offsets_that_do_not_cut_the_blob_are_refused(offsets: list[int]) -> None:
    with pytest.raises(ValueError, match="ascend from 0"):
        _mail_native.token_hashes(b"abc", np.array(offsets, dtype=np.int64))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=30), max_size=20), st.data())
def test_packed_take_is_the_store_s_packed_of_those_rows(pieces: list[bytes], data: Any) -> None:
    """A model file's writer sorts the tokens it packed once (from a snapshot, without the
    store): ``packed_take`` gives what ``TokenStore.packed(rows)`` gives."""
    tokens = list(dict.fromkeys(p.decode("utf-8", "surrogateescape") for p in pieces))
    tokens = [t for t in tokens if t.encode("utf-8", "surrogatepass")]  # (valid UTF-8)
    store = _mail_native.token_store()
    store.extend(tokens)
    blob, cuts = store.packed()
    rows = np.array(data.draw(st.lists(st.integers(0, max(len(tokens) - 1, 0)),
                                       max_size=3 * len(tokens))) if tokens else [],
                    dtype=np.int64)  # fmt: skip
    assert _mail_native.packed_take(blob, cuts, rows) == store.packed(rows)


def test_packed_take_refuses_what_does_not_fit() -> None:
    offsets = np.array([0, 1, 3], dtype=np.int64)
    with pytest.raises(ValueError, match="ascend from 0"):
        _mail_native.packed_take(b"abcd", offsets, np.array([0], dtype=np.int64))
    with pytest.raises(IndexError, match="row 2 out of range"):
        _mail_native.packed_take(b"abc", offsets, np.array([1, 2], dtype=np.int64))
    with pytest.raises(ValueError, match="int64"):
        _mail_native.packed_take(b"abc", offsets, b"\x00\x01")


@pytest.mark.parametrize("call", ["token_hashes", "token_store", "packed_take"])
def test_the_long_calls_on_packed_tokens_let_other_threads_run(call: str) -> None:
    """A server's fold hashes, indexes and reorders a spam model's 700k tokens on a thread
    of its own (~0.5 s in all): with the GIL held, every other thread of the server (the
    event loop's /health, the model's reads) waited for each call."""
    import threading
    import time

    n = 600_000
    store = _mail_native.token_store()
    store.extend(f"token number {i}" for i in range(n))
    blob, packed_cuts = store.packed()
    cuts = np.frombuffer(packed_cuts, dtype=np.int64)
    rows = np.arange(n, dtype=np.int64)[::-1].copy()
    run = {
        "token_hashes": lambda: _mail_native.token_hashes(blob, cuts),
        "token_store": lambda: _mail_native.token_store(blob, cuts),
        "packed_take": lambda: _mail_native.packed_take(blob, cuts, rows),
    }[call]
    run()  # (warm)
    ticks = 0
    running = threading.Event()
    done = threading.Event()

    def tick() -> None:
        nonlocal ticks
        running.set()
        while not done.is_set():
            ticks += 1
            time.sleep(0.0002)

    other = threading.Thread(target=tick)
    other.start()
    running.wait(10)
    calls, busy = 0, 0.0
    seen = ticks
    while busy < 0.3:  # repeated: each call lasts 10-300 ms
        t0 = time.perf_counter()
        run()
        busy += time.perf_counter() - t0
        calls += 1
    during = ticks - seen
    done.set()
    other.join()
    # a thread that waits for the GIL ticks at most once per call (at its end)
    assert during > 3 * calls, (during, calls)


def _table(calls: list[tuple[list[frozenset[str]], bool]], forget: int) -> TokenTable:
    t = TokenTable()
    for messages, spam in calls:
        t.learn(messages, spam=spam)
    for messages, spam in calls[:forget]:  # rows back to no count: merged as absent
        t.unlearn(messages, spam=spam)
    return t


@settings(max_examples=200, deadline=None)
@given(_CALLS, _CALLS, st.integers(0, 3))
def test_the_kernel_merges_as_the_python_reading(
    a: list[tuple[list[frozenset[str]], bool]],
    b: list[tuple[list[frozenset[str]], bool]],
    forget: int,
) -> None:
    kernel, reference = _table(a, 0), _table(a, 0)
    kernel.merge(_table(b, forget))
    reference._merge_reference(_table(b, forget))
    assert _state(kernel) == _state(reference)
    kernel.merge(kernel)  # a table and itself: every count doubled
    reference._merge_reference(reference)
    assert _state(kernel) == _state(reference)


def test_a_merge_that_fails_leaves_the_table_as_it_was() -> None:
    t = TokenTable()
    t.learn([frozenset({"cheap", "pills"})], spam=True)
    before = _state(t)
    other = TokenTable.from_rows([("new-1", 1, 0), ("new-2", 1, 0)], 1, 0)
    other.ham, other.spam = array("q", [1]), array("q", [0])  # (columns short of its rows)
    with pytest.raises(ValueError, match="shorter"):
        t.merge(other)
    assert _state(t) == before and "new-1" not in t.index
    with pytest.raises(TypeError, match="unhashable"):  # (a table holds str tokens only)
        TokenTable.from_rows([("new-1", 1, 0), (["unhashable"], 1, 0)], 2, 0)  # type: ignore[list-item]
