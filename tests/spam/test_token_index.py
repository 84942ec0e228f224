"""The compiled token index (``nbayes._mail_native.TokenIndex``) that the clues look tokens
up in: the same rows as the table's dict through every change to the table."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from nbayes import _mail_native
from nbayes.spam import SpamFilter, TokenTable


@pytest.fixture(autouse=True)
def _index_every_table(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tables are small: index them all the same (large ones are by default)."""
    monkeypatch.setattr(SpamFilter, "_INDEXED_ROWS", 0)


def _dict_logs(f: SpamFilter, tokens: frozenset[str]) -> object:
    st, t = f._settings(), f.table_
    return _mail_native.clue_logs(
        tokens, t.index, t.ham, t.spam, t.n_ham, t.n_spam, st.s, st.x, st.smoothing,
        st.min_dev, st.max_clues or 0,
    )  # fmt: skip


def _sets(n: int, seed: int) -> list[frozenset[str]]:
    return [frozenset(f"w{(i * seed + k * 7) % 997}" for k in range(1, 40)) for i in range(n)]


def test_the_index_finds_the_rows_the_dict_finds_as_the_table_grows() -> None:
    sets = _sets(60, 13)
    f = SpamFilter(min_dev=0.0, max_clues=None).fit(sets[:2], ["ham", "spam"])
    probe = [*_sets(20, 31), frozenset(), frozenset({"never seen"})]
    for i in range(2, len(sets)):
        for tokens in probe:
            assert f._clue_logs(tokens) == _dict_logs(f, tokens)
        f.partial_fit([sets[i]], ["spam" if i % 3 else "ham"])
    assert f._token_lookup().rows() == len(f.table_.row_tokens)


def test_small_tables_are_looked_up_in_their_dict(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SpamFilter, "_INDEXED_ROWS", 1000)
    f = SpamFilter().fit(_sets(4, 3), ["ham", "spam", "ham", "spam"])
    f._clue_logs(frozenset({"w1"}))
    assert "_lookup" not in f.__dict__


def test_a_failed_learn_truncates_and_the_index_starts_over() -> None:
    f = SpamFilter(min_dev=0.0).fit(_sets(4, 3), ["ham", "spam", "ham", "spam"])
    f._clue_logs(frozenset({"w1"}))  # the index is built

    def interrupted() -> Iterator[str]:
        yield "new token a"
        yield "new token b"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        f.table_.learn([interrupted()], spam=True)
    f.partial_fit([frozenset({"other c", "other d", "w3"})], ["ham"])  # the same rows, reused
    for tokens in (frozenset({"new token a", "other c", "w3"}), frozenset({"other d"})):
        assert f._clue_logs(tokens) == _dict_logs(f, tokens)


def test_tokens_that_are_not_exact_str_take_the_python_path() -> None:
    class Word(str):
        pass

    f = SpamFilter().fit(_sets(4, 5), ["ham", "spam", "ham", "spam"])
    assert f._clue_logs(frozenset({Word("w5"), "w10"})) is None
    table = TokenTable.from_rows([(Word("w5"), 1, 0), ("w6", 0, 1)], 1, 1)
    lookup = _mail_native.token_index()
    lookup.sync(table.row_tokens)
    args = (table.ham, table.spam, 1, 1, 0.1, 0.5, 1.0, 0.0, 0)
    assert _mail_native.clue_logs(frozenset({"w6"}), lookup, *args) is None


def test_a_pruned_or_copied_filter_is_indexed_afresh() -> None:
    sets = _sets(30, 7)
    f = SpamFilter(min_dev=0.0).fit(sets, ["ham", "spam"] * 15)
    probe = _sets(10, 11)
    before = [f._clue_logs(t) for t in probe]
    g = f.copy()
    assert [g._clue_logs(t) for t in probe] == before
    f.prune(min_count=2)
    assert [f._clue_logs(t) for t in probe] == [_dict_logs(f, t) for t in probe]


def test_sync_refuses_what_is_not_a_list() -> None:
    lookup = _mail_native.token_index()
    with pytest.raises(TypeError, match="list of str"):
        lookup.sync(("a", "b"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="dict or a TokenIndex"):
        _mail_native.clue_logs(frozenset(), [], b"", b"", 0, 0, 0.1, 0.5, 0.0, 0.0, 0)  # type: ignore[arg-type]


def test_a_filter_with_its_index_pickles_and_copies_without_it() -> None:
    import copy
    import pickle

    f = SpamFilter(min_dev=0.0).fit(_sets(30, 7), ["ham", "spam"] * 15)
    probe = _sets(10, 11)
    before = [f._clue_logs(t) for t in probe]
    assert "_lookup" in f.__dict__
    for g in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f)):
        assert "_lookup" not in g.__dict__
        assert [g._clue_logs(t) for t in probe] == before
