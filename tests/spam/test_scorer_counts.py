"""The scorer's look-ups in the kernel (``_mail_native.scorer_counts``, its BLAKE2b in
src/native/blake2b.hpp) find what its Python reading (``SpamScorer._counts_reference``,
``token_hash`` with hashlib) finds: the same tokens, counts and errors."""

from __future__ import annotations

import hashlib
from array import array
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes import _mail_native
from nbayes.exceptions import ModelFileError
from nbayes.io.serializers.spam_scorer import load_spam_scorer
from nbayes.spam import SpamFilter
from nbayes.spam._scorer import SpamScorer
from nbayes.spam._table import token_hash


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=600))
def test_the_kernels_blake2b_is_hashlibs(data: bytes) -> None:
    expected = int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")
    assert _mail_native.token_hash(data) == expected == token_hash(data)


@pytest.mark.parametrize("n", [0, 1, 127, 128, 129, 255, 256, 257, 1000])
def test_the_kernels_blake2b_at_block_boundaries(n: int) -> None:
    data = bytes(range(256)) * 4
    assert _mail_native.token_hash(data[:n]) == token_hash(data[:n])


_LEARNT = ["cheap", "pills", "caf\u00e9", "\u043f\u0440\u0438\u0432\u0435\u0442", "\U0001f389",
           "bi:cheap pills", "subject:win", "x" * 300, "\udc80abc", ""]  # fmt: skip


@pytest.fixture(scope="module")
def scorer(tmp_path_factory: pytest.TempPathFactory) -> SpamScorer:
    sets = [frozenset(_LEARNT[:5]), frozenset(_LEARNT[3:]), frozenset(_LEARNT[::2])]
    f = SpamFilter(min_learned=1).fit(sets, ["ham", "spam", "spam"])
    path = tmp_path_factory.mktemp("scorer") / "f.nbayes"
    nbayes.save(f, path)
    s = load_spam_scorer(path)
    assert s is not None
    return s


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(st.sampled_from([*_LEARNT, "unseen", "caf\u00e9s"]), st.text(max_size=8)),
        max_size=20,
        unique=True,
    )
)
def test_scorer_counts_are_its_python_reading(scorer: SpamScorer, tokens: list[str]) -> None:
    found, ham, spam = _mail_native.scorer_counts(
        tokens, scorer._hashes, scorer._offsets, scorer._blob, scorer._ham, scorer._spam,
        scorer.n_ham, scorer.n_spam,
    )  # fmt: skip
    want = scorer._counts_reference(tokens)
    assert found == want[0]
    assert array("q", ham) == want[1] and array("q", spam) == want[2]


def test_a_hash_shared_by_two_rows_compares_their_bytes(scorer: SpamScorer) -> None:
    # two rows of one hash (a collision, made here): the token is the row whose bytes
    # it has, whichever comes first
    h = token_hash(b"aa")
    for order in ([b"zz", b"aa"], [b"aa", b"zz"]):
        blob = b"".join(order)
        s = SpamScorer(
            scorer.filter, memoryview(array("Q", [h, h])), memoryview(blob),
            memoryview(array("q", [0, 2, 4])), memoryview(array("q", [1, 0])),
            memoryview(array("q", [0, 1])), 1, 1,
        )  # fmt: skip
        row = order.index(b"aa")
        table = s._table(["aa", "zz", "b"])
        assert list(table.row_tokens) == ["aa"]
        assert (table.ham[0], table.spam[0]) == ([1, 0][row], [0, 1][row])
        assert s._counts_reference(["aa", "zz", "b"])[0] == ["aa"]


@pytest.mark.parametrize("fakes", [0, 1, 50, 5000])
def test_the_search_finds_rows_among_crowded_and_neighbouring_hashes(
    scorer: SpamScorer, fakes: int
) -> None:
    # rows of hashes crowded at the bottom and the top of the range, and one on each side
    # of real rows' hashes: the kernel's search finds what the Python reading finds
    words = [f"w{k}" for k in range(200)]
    real = [(token_hash(w.encode()), w.encode(), k % 7 + 1, k % 5) for k, w in enumerate(words)]
    fake = [(k, b"fake%d" % k, 1, 0) for k in range(fakes)]
    fake += [(2**64 - 1 - k, b"top%d" % k, 1, 0) for k in range(fakes // 2)]
    fake += [(h + d, b"near", 1, 0) for h, _, _, _ in real[:20] for d in (-1, 1)]
    rows = sorted(real + fake)
    blob = b"".join(r[1] for r in rows)
    offsets = [0]
    for r in rows:
        offsets.append(offsets[-1] + len(r[1]))
    s = SpamScorer(
        scorer.filter, memoryview(array("Q", [r[0] for r in rows])), memoryview(blob),
        memoryview(array("q", offsets)), memoryview(array("q", [r[2] for r in rows])),
        memoryview(array("q", [r[3] for r in rows])), 10, 10,
    )  # fmt: skip
    probe = [*words, "absent", "w200", "fake1", "near"]
    table = s._table(probe)
    found, ham, spam = s._counts_reference(probe)
    assert list(table.row_tokens) == found == words
    assert list(table.ham) == list(ham) and list(table.spam) == list(spam)


def test_what_a_file_holds_wrong_is_a_model_file_error(scorer: SpamScorer) -> None:
    def damaged(**cols: Any) -> SpamScorer:
        base: dict[str, Any] = {
            "hashes": scorer._hashes, "blob": scorer._blob, "offsets": scorer._offsets,
            "ham": scorer._ham, "spam": scorer._spam,
        }  # fmt: skip
        base.update(cols)
        return SpamScorer(scorer.filter, base["hashes"], base["blob"], base["offsets"],
                          base["ham"], base["spam"], scorer.n_ham, scorer.n_spam)  # fmt: skip

    n = len(scorer)
    too_many = memoryview(array("q", [99] * n))
    with pytest.raises(ModelFileError, match=r"the token 'cheap' is counted in 99 ham"):
        damaged(ham=too_many)._table(["cheap"])
    with pytest.raises(ModelFileError, match=r"the token 'cheap' is counted in 99 ham"):
        damaged(ham=[99] * n)._table(["cheap"])  # (not a buffer: the Python reading)
    past = memoryview(array("q", [0] + [10**9] * n))
    with pytest.raises(ModelFileError, match="do not cut 'tokens/bytes'"):
        damaged(offsets=past)._table(["cheap"])
    with pytest.raises(TypeError, match="hashes must be a buffer of format 'Q'"):
        _mail_native.scorer_counts(["cheap"], scorer._offsets, scorer._offsets, scorer._blob,
                                   scorer._ham, scorer._spam, 1, 1)  # fmt: skip
    with pytest.raises(TypeError, match="tokens must be str"):
        not_str: list[Any] = [b"cheap"]
        _mail_native.scorer_counts(not_str, scorer._hashes, scorer._offsets, scorer._blob,
                                   scorer._ham, scorer._spam, 1, 1)  # fmt: skip


def test_the_scorer_scores_as_the_filter(tmp_path: Path) -> None:
    ham = [b"Subject: lunch\n\nmeeting at noon, caf\xc3\xa9", b"Subject: report\n\nthe report"]
    spam = [b"Subject: win\n\ncheap pills " + b"x" * 300, b"Subject: cheap\n\nwin a prize"]
    f = SpamFilter(min_learned=1).fit(ham + spam, ["ham", "ham", "spam", "spam"])
    nbayes.save(f, tmp_path / "f.nbayes")
    scorer = load_spam_scorer(tmp_path / "f.nbayes")
    assert scorer is not None
    probe = [*ham, *spam, b"Subject: lunch prize\n\ncheap caf\xc3\xa9 \xff\xfe", b""]
    assert scorer.classify(probe) == f.classify(probe)
    assert scorer.clues(probe[4]) == f.clues(probe[4])
