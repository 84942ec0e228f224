"""The compiled token index (``nbayes._mail_native.TokenStore``, the table's packed tokens)
that the clues look tokens up in: the same rows as the table's dict through every change to
the table."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

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
        st.min_dev, st.max_clues or 0, st.same_counts_min, st.tile_bigrams,
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
    assert f.table_.store.rows() == len(f.table_.row_tokens)


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
    # a table keeps a str subclass's characters: a str of them finds its row
    table = TokenTable.from_rows([(Word("w5"), 1, 0), ("w6", 0, 1)], 1, 1)
    assert table.row_tokens == ["w5", "w6"] and type(table.row_tokens[0]) is str
    args = (table.ham, table.spam, 1, 1, 0.1, 0.5, 1.0, 0.0, 0, 0, True)
    assert _mail_native.clue_logs(frozenset({"w5"}), table.store, *args) is not None
    assert _mail_native.clue_logs(frozenset({Word("w5")}), table.store, *args) is None


def test_a_pruned_or_copied_filter_is_indexed_afresh() -> None:
    sets = _sets(30, 7)
    f = SpamFilter(min_dev=0.0).fit(sets, ["ham", "spam"] * 15)
    probe = _sets(10, 11)
    before = [f._clue_logs(t) for t in probe]
    g = f.copy()
    assert [g._clue_logs(t) for t in probe] == before
    f.prune(min_count=2)
    assert [f._clue_logs(t) for t in probe] == [_dict_logs(f, t) for t in probe]


def test_the_store_refuses_what_is_not_str_tokens() -> None:
    from array import array

    store = _mail_native.token_store()
    with pytest.raises(TypeError, match="must be a str, not int"):
        store.extend(["a", 1])  # type: ignore[list-item]
    assert store.rows() == 0  # (nothing added)
    with pytest.raises(ValueError, match="not distinct"):
        store.extend(["a", "b", "a"])
    with pytest.raises(TypeError, match="int64 buffer"):
        _mail_native.token_store(b"ab", array("d", [0.0, 2.0]))
    with pytest.raises(TypeError, match="dict or a TokenStore"):
        _mail_native.clue_logs(frozenset(), [], b"", b"", 0, 0, 0.1, 0.5, 0.0, 0.0, 0, 0, False)  # type: ignore[arg-type]


def test_a_filter_with_its_store_pickles_and_copies() -> None:
    import copy
    import pickle

    f = SpamFilter(min_dev=0.0).fit(_sets(30, 7), ["ham", "spam"] * 15)
    probe = _sets(10, 11)
    before = [f._clue_logs(t) for t in probe]
    for g in (pickle.loads(pickle.dumps(f)), copy.deepcopy(f)):
        assert g.table_.store is not f.table_.store
        assert g.table_.row_tokens == f.table_.row_tokens
        assert [g._clue_logs(t) for t in probe] == before


# ---------------------------------------------------------------- body words from the text
_TEXTS = [
    "cheap pills now cheap pills now! buy buy buy",
    "café crème brûlée crème café",  # 1-byte kind beyond ASCII
    "привет мир привет друг мир",  # 2-byte
    "emoji 🎉🎉 party 🎉🎉 party time",  # 4-byte
    "mixed ascii and ελληνικά words: proto:http url:pills.example",
    "a bb ccc dddd averyveryverylongword ccc dddd ccc",
    "",
    "   \t\n  ",
    "w1 w2 w3 w4 w5 w6 w7 w8 w9 w10 w11 w12 w13 w1 w2 w3",
    # bigrams whose first words are prefixes of each other (" " against the next letter,
    # below and above it): the ties between them are broken by the token, as Python's
    "ab q ab\x01 q ab~ q abc q ab q",
    "ab qq абв qq ab\x01 qq ab qq",
]


def _text_logs(
    f: SpamFilter, tokens: set[str], text: str, **kw: int
) -> tuple[list[float], list[float]] | None:
    st, t, tok = f._settings(), f.table_, f._tokenizer()
    lo, hi, bigrams = kw.get("lo", tok.min_length), kw.get("hi", tok.max_length), tok.bigrams
    return _mail_native.clue_logs_text(
        frozenset(tokens), text, lo, hi, bool(kw.get("bigrams", bigrams)), f.table_.store,
        t.ham, t.spam, t.n_ham, t.n_spam, st.s, st.x, st.smoothing, st.min_dev,
        st.max_clues or 0, st.same_counts_min, st.tile_bigrams,
    )  # fmt: skip


def _word_sets(text: str, **kw: int) -> frozenset[str]:
    out: set[str] = set()
    _mail_native.words(text, kw.get("lo", 3), kw.get("hi", 12), bool(kw.get("bigrams", 1)), out)
    return frozenset(out)


@pytest.mark.parametrize("max_clues", [None, 3, 150])
@pytest.mark.parametrize("bigrams", [1, 0])
@pytest.mark.parametrize("same_counts_min", [None, 2])
@pytest.mark.parametrize("tile_bigrams", [None, False])
def test_words_read_from_the_text_score_as_the_token_set(
    max_clues: int | None, bigrams: int, same_counts_min: int | None, tile_bigrams: bool | None
) -> None:
    # the table holds the texts' words and bigrams (some once, some in both classes), the
    # set tokens overlap the words ("proto:http" is both): the same clues either way
    learnt = [_word_sets(t, bigrams=bigrams) | {"proto:http", "url:x"} for t in _TEXTS[:6]]
    learnt += [frozenset(f"w{k}" for k in range(1, 14, 2)), frozenset({"w2", "w4", "party"})]
    labels = ["ham", "spam", "spam", "ham", "spam", "ham", "spam", "ham"]
    f = SpamFilter(
        min_dev=0.0, max_clues=max_clues, same_counts_min=same_counts_min, tile_bigrams=tile_bigrams
    )
    f.fit(learnt, labels)
    for text in _TEXTS:
        # (a bigram of the set overlapping the text's: tiled across the two readings)
        extras = ({"proto:http", "subject:cheap"}, {"café", "bi:cheap pills", "bi:café now"})
        for extra in (set(), *extras):
            full = _word_sets(text, bigrams=bigrams) | extra
            clues = f._clue_values(full)  # the Python reading: the spec
            got = _text_logs(f, extra, text, bigrams=bigrams)
            assert got is not None
            assert sorted(got[0]) == sorted(c[3] for c in clues), (text, extra)
            assert sorted(got[1]) == sorted(c[4] for c in clues), (text, extra)


def test_ties_at_the_clue_cap_are_broken_by_the_token_as_the_set_path() -> None:
    # every token seen once: equal |f - 0.5| in ham and in spam, the cap cuts through ties
    words = [f"t{k:02d}" for k in range(40)]
    f = SpamFilter(min_dev=0.0, max_clues=7).fit(
        [frozenset(words[::2]), frozenset(words[1::2])], ["ham", "spam"]
    )
    text = " ".join(reversed(words))
    for cut in (0, 5, 20):
        extra = set(words[:cut]) | {"t99"}
        clues = f._clue_values(_word_sets(text) | extra)  # the Python reading: the spec
        got = _text_logs(f, extra, text)
        assert got is not None
        assert sorted(got[0]) == sorted(c[3] for c in clues)
        assert sorted(got[1]) == sorted(c[4] for c in clues)


def test_columns_of_the_wrong_type_are_refused() -> None:
    from array import array

    from nbayes.spam._filter import _lgamma_table

    f = SpamFilter().fit(_sets(4, 5), ["ham", "spam", "ham", "spam"])
    st, t = f._settings(), f.table_
    rest = (t.n_ham, t.n_spam, st.s, st.x, st.smoothing, st.min_dev, 0, 0, True)
    doubles = array("d", [0.0] * len(t.row_tokens))
    with pytest.raises(TypeError, match=r"count columns must be array\('q'\)"):
        _mail_native.clue_logs(frozenset({"w5"}), t.index, doubles, t.spam, *rest)
    args = (t.ham, t.spam, *rest, st.tail_weight, st.ham_bias)
    call = (frozenset({"w5"}), "a b", 3, 12, True, f.table_.store, *args)
    assert _mail_native.fisher_text(*call, _lgamma_table()) is not None
    with pytest.raises(TypeError, match=r"lgamma must be an array\('d'\)"):
        _mail_native.fisher_text(*call, array("q", [0, 0]))


def test_the_text_path_declines_what_the_index_cannot_read() -> None:
    class Word(str):
        pass

    f = SpamFilter().fit(_sets(4, 5), ["ham", "spam", "ham", "spam"])
    st, t = f._settings(), f.table_
    args = (t.ham, t.spam, t.n_ham, t.n_spam, st.s, st.x, st.smoothing, st.min_dev, 0, 0, True)
    lookup = f.table_.store
    assert (
        _mail_native.clue_logs_text(frozenset({Word("w5")}), "a b", 3, 12, True, lookup, *args)
        is None
    )
    assert _mail_native.clue_logs_text(["w5"], "a b", 3, 12, True, lookup, *args) is None  # type: ignore[arg-type]
    assert _mail_native.clue_logs_text(frozenset(), "a b", 3, 12, True, t.index, *args) is None  # type: ignore[arg-type]


def test_bulk_classify_gives_the_verdicts_of_the_token_sets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ham = [
        b"Subject: lunch\n\nlunch at noon with the team, caf\xc3\xa9 cr\xc3\xa8me",
        b"From: Ann <ann@example.com>\nSubject: re: lunch\n\nnoon is fine http://example.com/menu",
    ]
    spam = [
        b"Subject: win\n\ncheap pills now cheap pills now www.pills.example",
        (
            b"Subject: =?utf-8?q?gagnez?=\nContent-Type: text/html\n\n"
            b"<html><body>cheap <b>pills</b> averyveryveryverylongword</body></html>"
        ),
        "Subject: \u4eca\u3059\u3050\n\n\u7121\u6599\u30dd\u30a4\u30f3\u30c8 cheap".encode(),
    ]
    msgs = ham + spam
    f = SpamFilter(min_dev=0.0, min_learned=1).fit(msgs, ["ham", "ham", "spam", "spam", "spam"])
    probe: list[Any] = [
        *msgs,
        b"Subject: lunch pills\n\ncheap lunch now",
        "\n\nlunch \u7121\u6599 now \u30dd\u30a4\u30f3\u30c8\u30fc\u30ba".encode(),
        b"",
        frozenset({"pills"}),
    ]
    expected = list(f._verdicts(f._token_sets(probe)))
    calls = []
    kernel = _mail_native.fisher_text

    def counted(*args: object) -> object:
        calls.append(1)
        return kernel(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_mail_native, "fisher_text", counted)
    assert f.classify(probe) == expected  # _INDEXED_ROWS is 0 here: the bulk path
    assert len(calls) == len(probe) - 1  # (the token set is scored as one)
    with pytest.raises(TypeError, match="wrap it in a list"):
        f.classify(b"Subject: one\n\nmessage")  # type: ignore[arg-type]


@pytest.mark.parametrize("preset", ["nbayes", "bogofilter", "spambayes"])
@pytest.mark.parametrize("same_counts_min", [0, 2])
@pytest.mark.parametrize("tile_bigrams", [False, True])
def test_the_compiled_fisher_combining_is_the_python_one_bit_for_bit(
    preset: str, same_counts_min: int, tile_bigrams: bool
) -> None:
    from array import array

    from nbayes.spam._filter import _fisher, _lgamma_table

    learnt = [_word_sets(t) | {"proto:http"} for t in _TEXTS[:6]]
    learnt += [frozenset(f"w{k}" for k in range(1, 14, 2)), frozenset({"w2", "w4", "party"})]
    labels = ["ham", "spam", "spam", "ham", "spam", "ham", "spam", "ham"]
    f = SpamFilter(preset=preset, min_dev=0.0).fit(learnt, labels)
    st, t = f._settings(), f.table_
    args = (t.ham, t.spam, t.n_ham, t.n_spam, st.s, st.x, st.smoothing, st.min_dev)
    texts = [*_TEXTS, " ".join(_TEXTS), " ".join(reversed(_TEXTS)) * 3]
    for text in texts:
        for cap in (0, 1, 2, 5, 150):
            for extra in (set(), {"proto:http", "subject:cheap"}):
                call = (frozenset(extra), text, 3, 12, True, f.table_.store, *args, cap,
                        same_counts_min, tile_bigrams)  # fmt: skip
                logs = _mail_native.clue_logs_text(*call)
                assert logs is not None
                for tail_weight in {0.0, st.tail_weight, 0.5}:  # (the tails' log ratio)
                    for bias in {0.0, st.ham_bias, 8.0, 0.3}:  # (and the few clues' bias)
                        got = _mail_native.fisher_text(*call, tail_weight, bias, _lgamma_table())
                        want = _fisher(logs, tail_weight, bias)
                        assert got == want, (text, cap, extra, tail_weight, bias)
                # a table too short for the number of clues: the Python path answers
                short = array("d", [math.inf, 0.0])
                if len(logs[0]) >= 1:
                    tail = (st.tail_weight, st.ham_bias)
                    assert _mail_native.fisher_text(*call, *tail, short) is None


def test_fisher_text_adds_the_long_words_tokens_to_the_set() -> None:
    from nbayes.spam._filter import _lgamma_table

    longs = [
        "averyveryverylongword", "someone@mail.example.com", "caf\u00e9caf\u00e9caf\u00e9caf\u00e9",
        "\U0001f389" * 14, "a@b.c@d.efghijklmn",
    ]  # fmt: skip
    learnt = [
        _word_sets(" ".join(_TEXTS[:3])) | {"email addr:example", "skip:a 20"},
        _word_sets(" ".join(_TEXTS[3:6])) | {"email name:someone", "8bit%:100", "skip:c 10"},
    ]
    f = SpamFilter(min_dev=0.0).fit(learnt, ["ham", "spam"])
    st, t = f._settings(), f.table_
    args = (t.ham, t.spam, t.n_ham, t.n_spam, st.s, st.x, st.smoothing, st.min_dev, 150,
            st.same_counts_min, st.tile_bigrams, st.tail_weight, st.ham_bias,
            _lgamma_table())  # fmt: skip
    for text in [*_TEXTS, " ".join(longs), " ".join(_TEXTS + longs + longs)]:
        expected = {"subject:x"}
        _mail_native.long_words(_mail_native.words(text, 3, 12, True, None), expected, "")
        tokens = {"subject:x"}
        got = _mail_native.fisher_text(tokens, text, 3, 12, True, f.table_.store, *args, True)
        assert tokens == expected  # the long words' tokens joined the set
        assert got == _mail_native.fisher_text(
            frozenset(expected), text, 3, 12, True, f.table_.store, *args
        )
        # without the flag the set is left alone; a frozenset cannot take them: None
        untouched = {"subject:x"}
        _mail_native.fisher_text(untouched, text, 3, 12, True, f.table_.store, *args, False)
        assert untouched == {"subject:x"}
        frozen = frozenset({"subject:x"})
        assert (
            _mail_native.fisher_text(frozen, text, 3, 12, True, f.table_.store, *args, True) is None
        )


@pytest.mark.parametrize(
    ("spammy", "hammy"),
    [
        ("bi:ab zz", "bi:ab\x01 zz"),  # " " above the next letter of the longer first word
        ("bi:ab~ yy", "bi:ab yy"),  # ... and below it
        ("bi:абв zz", "bi:аб zz"),  # 2-byte words
        ("bi:ab zz", "bi:ab\U0001f389 zz"),  # a 1-byte word against a 4-byte one
    ],
)
def test_tied_overlapping_bigrams_keep_the_greater_token_on_every_path(
    spammy: str, hammy: str
) -> None:
    # f and 1 - f: the same strength, so the token decides which bigram the tiling keeps
    # (the greater, as Python's sort); the two share a word, so the other is dropped
    f = SpamFilter(min_dev=0.0).fit([frozenset({"x"}), frozenset({"y"})], ["ham", "spam"])
    f.table_ = TokenTable.from_rows([(spammy, 0, 1), (hammy, 1, 0)], 1, 1)
    tokens = frozenset({spammy, hammy})
    clues = f._clue_values(tokens)
    assert [c[1] for c in clues] == [max(spammy, hammy)]
    want = ([c[3] for c in clues], [c[4] for c in clues])
    assert f._clue_logs(tokens) == want == _dict_logs(f, tokens)
    # the greater one read from a text (with its two words), the other from the set
    first, _, second = max(spammy, hammy)[3:].partition(" ")
    text = f"{first} {second}"
    full = _word_sets(text, lo=1, hi=12) | {min(spammy, hammy)}
    clues = f._clue_values(full)
    kept = {c[1] for c in clues}
    assert max(spammy, hammy) in kept and min(spammy, hammy) not in kept
    got = _text_logs(f, {min(spammy, hammy)}, text, lo=1, hi=12)
    assert got is not None
    assert sorted(got[0]) == sorted(c[3] for c in clues)
    assert sorted(got[1]) == sorted(c[4] for c in clues)


def test_the_strongest_clues_merged_below_the_cap_take_the_full_reading() -> None:
    # the compiled clues tile and merge only the strongest 2 * max_clues + 16 when as
    # many as max_clues survive; here the 30 strongest share their counts (one clue),
    # so the weaker ones fill the cap, as in the Python reading
    rows = [(f"m{k:02d}", 1, 39) for k in range(30)]
    rows += [(f"w{k}", 1, 2 + k) for k in range(8)]
    rows += [("bi:w0 w1", 0, 4), ("bi:w1 w2", 0, 4)]
    f = SpamFilter(max_clues=5, same_counts_min=2, min_dev=0.0)
    f.fit([frozenset({"x"}), frozenset({"y"})], ["ham", "spam"])
    f.table_ = TokenTable.from_rows(rows, 10, 40)
    tokens = frozenset(t for t, _, _ in rows)
    clues = f._clue_values(tokens)
    assert len(clues) == 5 and sum(c[1].startswith("m") for c in clues) == 1
    want = ([c[3] for c in clues], [c[4] for c in clues])
    got = f._clue_logs(tokens)
    assert got is not None
    assert sorted(got[0]) == sorted(want[0]) and sorted(got[1]) == sorted(want[1])


@settings(max_examples=300, deadline=None)
@given(
    hst.lists(hst.tuples(hst.integers(0, 3), hst.integers(0, 3)), min_size=6, max_size=6),
    hst.lists(hst.integers(0, 5), min_size=0, max_size=60),
    hst.integers(1, 6),
    hst.sampled_from([None, 2]),
    hst.sampled_from([None, False]),
)
def test_the_clues_chosen_from_a_text_are_the_python_readings(
    counts: list[tuple[int, int]],
    text_words: list[int],
    max_clues: int,
    same_counts_min: int | None,
    tile_bigrams: bool | None,
) -> None:
    # six words of few counts (so that many clues tie in strength, at the cap and at the
    # 2 * max_clues + 16 strongest the kernel tiles first), their bigrams counted too: the
    # clues read from a text are those of the Python reading of its token set, whatever
    # the ties
    words = ["aa", "bb", "cc", "dd", "ee", "ff"]
    rows = [(w, g, b) for w, (g, b) in zip(words, counts, strict=True) if g or b]
    rows += [
        (f"bi:{a} {b}", (i + j) % 3, (i * j) % 4 or 1)
        for i, a in enumerate(words)
        for j, b in enumerate(words)
    ]
    f = SpamFilter(
        min_dev=0.0, max_clues=max_clues, same_counts_min=same_counts_min, tile_bigrams=tile_bigrams
    )
    f.fit([frozenset({"x"}), frozenset({"y"})], ["ham", "spam"])
    f.table_ = TokenTable.from_rows(rows, 5, 5)
    text = " ".join(words[k] for k in text_words)
    clues = f._clue_values(_word_sets(text, lo=2))  # the Python reading: the spec
    got = _text_logs(f, set(), text, lo=2)
    assert got is not None
    assert sorted(got[0]) == sorted(c[3] for c in clues)
    assert sorted(got[1]) == sorted(c[4] for c in clues)
