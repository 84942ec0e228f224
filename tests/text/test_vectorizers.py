"""Exactness of nbayes.text against scikit-learn (vocabulary, CSR arrays, dtypes)."""

from __future__ import annotations

import csv
import warnings
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS
from sklearn.feature_extraction.text import CountVectorizer as SkCount
from sklearn.feature_extraction.text import HashingVectorizer as SkHash

from nbayes.text import (
    CountVectorizer,
    HashingVectorizer,
    count_by_class,
    hash_into,
    hashing_transform,
)
from nbayes.text import _routes as routes
from nbayes.text.vectorizers import hash_by_class, transform_counts, transform_one

DATA = Path(__file__).resolve().parents[1] / "data"


def _read_slice(name: str) -> tuple[list[str], list[str]]:
    with open(DATA / name, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    assert rows[0] == ["text", "label"]
    return [r[0] for r in rows[1:]], [r[1] for r in rows[1:]]


SMS, SMS_Y = _read_slice("sms_slice.csv")
RT, RT_Y = _read_slice("rt_slice.csv")

# Characters where a hand-written \w or lower() would go wrong.
TRICKY = (
    "aAzZ09_ éÉèàçñÑüÜöÖßẞİıIiΣσςΑΩάΆ\u0301\u0307\u0308\u200d\u200c"
    "中文字日本語한국어ﾃｽﾄＡＢ１２٣٤۵०१२²³½ⅣǅǄǆﬁﬂ😀👍🏽ЖжЁё"
    "ΐǰ\u0345ͅ\u1e9e\u2160\u2170ꙮ\U0001d400\U0001d41a"
    " \t\n\r.,;:!?'\"-()/\\@#$%&*+=<>[]{}|~^`\x00\x85\u2028\u00a0\u3000"
)
tricky_text = st.text(alphabet=TRICKY, max_size=60)
any_text = st.text(max_size=40)
docs_strategy = st.lists(st.one_of(tricky_text, any_text, st.just("")), min_size=1, max_size=8)


def assert_same_csr(a: sp.spmatrix, b: sp.spmatrix) -> None:
    assert type(a) is type(b)
    assert a.format == b.format == "csr"
    assert a.shape == b.shape
    assert a.dtype == b.dtype
    assert a.indices.dtype == b.indices.dtype
    assert a.indptr.dtype == b.indptr.dtype
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.data, b.data)


def check_count(docs: list[str], **kw: object) -> None:
    ours, ref = CountVectorizer(**kw), SkCount(**kw)
    try:
        want = ref.fit_transform(docs)
    except ValueError as exc:
        with pytest.raises(ValueError, match=str(exc)[:20]):
            ours.fit_transform(docs)
        return
    got = ours.fit_transform(docs)
    assert ours.vocabulary_ == ref.vocabulary_
    assert list(ours.vocabulary_) == list(ref.vocabulary_)
    assert_same_csr(got, want)
    assert_same_csr(ours.transform(docs[::-1]), ref.transform(docs[::-1]))


COUNT_SETTINGS = [
    {},
    {"lowercase": False},
    {"ngram_range": (1, 2)},
    {"ngram_range": (2, 2), "lowercase": False},
    {"binary": True},
    {"min_df": 2},
    {"max_df": 0.5, "min_df": 1},
    {"max_features": 5},
    {"max_features": 7, "ngram_range": (1, 2), "binary": True},
    {"stop_words": "english"},
    {"stop_words": ["the", "a", "xx", "σας", "ab cd"], "ngram_range": (1, 2)},
    {"dtype": np.float32},
]


def kernels_even_for_tiny_batches() -> Any:
    """The compiled kernels count even the tiny batches hypothesis draws: the routes leave
    batches of at most 8 short documents to scikit-learn's code (faster for them), so
    these tests compared scikit-learn with itself (a helper's finding)."""
    return mock.patch.object(routes, "_small", lambda docs: False)


@pytest.mark.parametrize("kw", COUNT_SETTINGS, ids=lambda kw: str(sorted(kw.items())))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=docs_strategy)
def test_count_vectorizer_matches_sklearn_random_unicode(docs: list[str], kw: dict) -> None:
    with kernels_even_for_tiny_batches():
        check_count(docs, **kw)


@pytest.mark.parametrize("kw", COUNT_SETTINGS, ids=lambda kw: str(sorted(kw.items())))
@pytest.mark.parametrize("corpus", ["sms", "rt"])
def test_count_vectorizer_matches_sklearn_real(corpus: str, kw: dict) -> None:
    check_count(SMS if corpus == "sms" else RT, **kw)


def test_special_lowercasing() -> None:
    docs = ["İSTANBUL İi", "ΟΔΟΣ ΟΔΟΣ.", "ΣΑΣ Σ ΑΣ'Β", "STRASSE ẞ", "ǅemal ǄEMAL", "ΑΣ", "Β"]
    for kw in ({}, {"ngram_range": (1, 2)}, {"lowercase": False}):
        check_count(docs, **kw)


@settings(max_examples=30, deadline=None)
@given(docs=docs_strategy, data=st.data())
def test_fixed_vocabulary_matches_sklearn(docs: list[str], data: st.DataObject) -> None:
    fitted = SkCount(ngram_range=(1, 2)).fit(SMS[:50] + docs)
    terms = sorted(fitted.vocabulary_)
    chosen = data.draw(st.lists(st.sampled_from(terms), min_size=1, max_size=30, unique=True))
    vocab = {t: i for i, t in enumerate(chosen)}
    for kw in ({}, {"ngram_range": (1, 2)}, {"binary": True, "ngram_range": (1, 2)}):
        with warnings.catch_warnings(), kernels_even_for_tiny_batches():
            warnings.simplefilter("ignore")  # upper-case terms warning, same in both
            check_count(docs, vocabulary=vocab, **kw)


@pytest.mark.parametrize(
    "kw",
    [
        {"tokenizer": str.split, "token_pattern": None},
        {"strip_accents": "unicode"},
        {"analyzer": "char", "ngram_range": (2, 3)},
        {"token_pattern": r"(?u)\b\w+\b"},
        {"ngram_range": (1, 3)},
        {"preprocessor": str.upper, "lowercase": False},
    ],
)
def test_fallback_settings_match_sklearn(kw: dict) -> None:
    check_count(SMS[:80], **kw)


def test_non_str_inputs_fall_back() -> None:
    docs = [d.encode("utf-8") for d in RT[:30]]
    check_count(docs)  # type: ignore[arg-type]
    ours = CountVectorizer().fit_transform(iter(RT[:30]))
    assert_same_csr(ours, SkCount().fit_transform(RT[:30]))
    with pytest.raises(ValueError, match="string object received"):
        CountVectorizer().fit_transform("just one string")


def test_sklearn_api() -> None:
    cv = CountVectorizer(ngram_range=(1, 2), min_df=2)
    cv2 = clone(cv)
    assert cv2.get_params() == cv.get_params()
    cv2.fit(RT)
    ref = SkCount(ngram_range=(1, 2), min_df=2).fit(RT)
    assert list(cv2.get_feature_names_out()) == list(ref.get_feature_names_out())
    with pytest.raises(ValueError):
        CountVectorizer(max_df=-1.0).fit(RT)


HASH_SETTINGS = [
    {"n_features": 2**10},
    {"n_features": 7, "alternate_sign": False, "norm": None},
    {"n_features": 2**18, "norm": "l1", "binary": True},
    {"n_features": 31, "ngram_range": (1, 2), "stop_words": "english"},
    {"n_features": 2**20, "lowercase": False, "dtype": np.float32},
    # unigram kernel: stop words, signs cancelling to stored zeros in 3 buckets
    {"n_features": 3, "stop_words": ["ab", "σας", "été", "x" * 20], "norm": None},
]


@pytest.mark.parametrize("kw", HASH_SETTINGS, ids=lambda kw: str(sorted(kw.items())))
@settings(max_examples=25, deadline=None)
@given(docs=docs_strategy)
def test_hashing_matches_sklearn_random_unicode(docs: list[str], kw: dict) -> None:
    assert_same_csr(HashingVectorizer(**kw).fit_transform(docs), SkHash(**kw).transform(docs))


@pytest.mark.parametrize("kw", HASH_SETTINGS, ids=lambda kw: str(sorted(kw.items())))
def test_hashing_matches_sklearn_real(kw: dict) -> None:
    assert_same_csr(HashingVectorizer(**kw).transform(SMS), SkHash(**kw).transform(SMS))
    assert_same_csr(hashing_transform(RT, **kw), SkHash(**kw).transform(RT))


def _reference_class_sums(docs: list[str], y: np.ndarray, n_classes: int, **kw: object):
    cv = SkCount(**kw)
    X = cv.fit_transform(docs)
    Y = np.eye(n_classes, dtype=np.int64)[y]
    return cv.vocabulary_, Y.T @ X.toarray(), (X.toarray() > 0).sum(axis=0)


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"binary": True},
        {"lowercase": False, "ngram_range": (1, 2)},
        {"stop_words": "english", "ngram_range": (2, 2)},
    ],
)
def test_count_by_class_matches_sklearn(kw: dict) -> None:
    docs = SMS + [""]
    labels, y = np.unique(SMS_Y + ["ham"], return_inverse=True)
    vocab, counts, df = count_by_class(docs, y, len(labels), **kw)
    ref_vocab, ref_counts, ref_df = _reference_class_sums(docs, y, len(labels), **kw)
    assert vocab == ref_vocab
    assert list(vocab.values()) == list(range(len(vocab)))
    assert counts.dtype == np.int64
    np.testing.assert_array_equal(counts, ref_counts)
    np.testing.assert_array_equal(df, ref_df)


@settings(max_examples=30, deadline=None)
@given(docs=docs_strategy, split=st.integers(0, 8))
def test_count_by_class_incremental(docs: list[str], split: int) -> None:
    docs = docs + ["common words here", "Words"]
    y = np.arange(len(docs)) % 3
    vocab: dict[str, int] = {}
    v1, c1, d1 = count_by_class(docs[:split], y[:split], 3, vocabulary=vocab)
    assert v1 is vocab
    n1 = len(vocab)
    _, c2, d2 = count_by_class(docs[split:], y[split:], 3, vocabulary=vocab)
    assert list(vocab.values()) == list(range(len(vocab)))
    total = c2.copy()
    total[:, :n1] += c1
    dtot = d2.copy()
    dtot[:n1] += d1
    ref_vocab, ref_counts, ref_df = _reference_class_sums(docs, y, 3)
    perm = np.array([ref_vocab[t] for t in vocab])
    assert set(vocab) == set(ref_vocab)
    np.testing.assert_array_equal(total, ref_counts[:, perm])
    np.testing.assert_array_equal(dtot, ref_df[perm])
    # the new terms of the second call are appended in sorted order
    new = list(vocab)[n1:]
    assert new == sorted(new)
    # fixed vocabulary: unknown words ignored
    _, c3, _ = count_by_class(docs, y, 3, vocabulary=vocab, fixed_vocabulary=True)
    np.testing.assert_array_equal(c3, total)
    assert len(vocab) == c3.shape[1]


def test_transform_helpers() -> None:
    ref = SkCount(ngram_range=(1, 2), stop_words="english").fit(SMS)
    vocab = ref.vocabulary_
    kw = {"ngram_range": (1, 2), "stop_words": "english"}
    assert_same_csr(transform_counts(RT, vocab, **kw), ref.transform(RT))
    want = ref.transform(RT[:40])
    for i, doc in enumerate(RT[:40]):
        cols, vals = transform_one(doc, vocab, ngram_range=(1, 2), stop_words=ENGLISH_STOP_WORDS)
        row = want[[i]]
        np.testing.assert_array_equal(cols, np.sort(row.indices))
        np.testing.assert_array_equal(vals, row.toarray()[0, cols])
    cols, vals = transform_one("FREE free Free win", vocab, binary=True)
    assert vals.tolist() == [1] * len(cols)


def test_hash_by_class() -> None:
    labels, y = np.unique(SMS_Y, return_inverse=True)
    sums, df = hash_by_class(SMS, y, len(labels), n_features=2**12)
    X = SkHash(n_features=2**12, alternate_sign=False, norm=None).transform(SMS)
    np.testing.assert_array_equal(sums, np.eye(len(labels))[y].T @ X.toarray())
    np.testing.assert_array_equal(df, (X.toarray() > 0).sum(axis=0))


def test_errors_are_advice() -> None:
    with pytest.raises(ValueError, match="in \\[0, 2\\)"):
        count_by_class(["a b", "cc dd"], np.array([0, 2]), 2)
    with pytest.raises(ValueError, match="ngram_range"):
        count_by_class(["aa bb"], np.array([0]), 1, ngram_range=(3, 2))
    with pytest.raises(TypeError, match="decode"):
        count_by_class([b"aa bb"], np.array([0]), 1)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="single string"):
        transform_counts("aa bb", {"aa": 0})


# --------------------------------------------------------------------------------------
# zero-copy kernels: every string width, long keys, threads, growth, lookup cache
# --------------------------------------------------------------------------------------

from nbayes.text import _chars  # noqa: E402
from nbayes.text import _tokenize as _tk  # noqa: E402

MIXED = [
    "Plain ASCII text, with Words words WORDS and numbers 123 4567.",  # kind 1, ascii
    "Café crème brûlée: ÉTÉ été ÿÿ ßtraße",  # kind 1, latin-1
    "ΟΔΟΣ οδος ΣΑΣ Σ ΑΣ'Β — “quoted” İSTANBUL İi",  # kind 2, with Σ and İ (Python lower)
    "Ǆemal ǅemal ǆemal ＡＢＣ ａｂｃ Ⅳ ⅳ ﬁne",  # kind 2, no special
    "𝐀𝐁𝐂 𝐚𝐛𝐜 😀ab ab😀 \U00010400\U00010401 \U00010428x",  # kind 4
    "averyveryverylongtokenoverSixteen AVERYVERYVERYLONGTOKENOVERSIXTEEN exactly16charsxx",
    "ĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀĀ āāāāāāāāāāāāāāāāāāāā wide_long_token_ĀbcdefghijklmnopQ",
    "",
    "a b c",  # no token
    "x" * 40 + " " + "x" * 40 + " " + "X" * 40,
]


def _mixed_corpus(n: int = 300) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(0)
    words = " ".join(MIXED).split()
    docs = [" ".join(rng.choice(words, size=rng.integers(0, 30)).tolist()) for _ in range(n)]
    docs = MIXED + docs
    return docs, np.arange(len(docs)) % 3


@pytest.mark.parametrize(
    "kw",
    [{}, {"lowercase": False}, {"binary": True}, {"stop_words": ["ab", "été", "words"]}],
)
def test_direct_count_mixed_widths_match_sklearn(kw: dict) -> None:
    docs, y = _mixed_corpus()
    vocab, counts, df = count_by_class(docs, y, 3, **kw)
    ref_vocab, ref_counts, ref_df = _reference_class_sums(docs, y, 3, **kw)
    assert vocab == ref_vocab and list(vocab) == sorted(vocab)
    np.testing.assert_array_equal(counts, ref_counts)
    np.testing.assert_array_equal(df, ref_df)


def test_direct_count_threads_identical() -> None:
    docs, y = _mixed_corpus(2000)
    lo = [d.lower() for d in docs]
    ref = _tk.direct_count(docs, y, 3, True, False, n_threads=1)
    assert ref is not None
    for n_threads in (2, 3, 7):
        got = _tk.direct_count(docs, y, 3, True, False, n_threads=n_threads)
        assert got is not None
        assert got.terms == ref.terms
        np.testing.assert_array_equal(got.counts, ref.counts)
        np.testing.assert_array_equal(got.df, ref.df)
    # pre-lowered input gives the same statistics
    same = _tk.direct_count(lo, y, 3, False, False, n_threads=2)
    assert same is not None and same.terms == ref.terms
    np.testing.assert_array_equal(same.counts, ref.counts)


@settings(max_examples=40, deadline=None)
@given(docs=docs_strategy, n_threads=st.integers(1, 4), binary=st.booleans())
def test_direct_count_threads_random_unicode(docs: list[str], n_threads: int, binary: bool):
    y = np.arange(len(docs)) % 2
    got = _tk.direct_count(docs, y, 2, True, binary, n_threads=n_threads)
    assert got is not None
    ref_vocab, ref_counts, ref_df = (
        _reference_class_sums(docs, y, 2, binary=binary)
        if any(_tk._SINGLE.search(d.lower()) for d in docs)
        else ({}, np.zeros((2, 0), dtype=np.int64), np.zeros(0, dtype=np.int64))
    )
    assert got.terms == sorted(ref_vocab)
    np.testing.assert_array_equal(got.counts, ref_counts)
    np.testing.assert_array_equal(got.df, ref_df)


def test_direct_count_table_growth() -> None:
    rng = np.random.default_rng(1)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyzé"))
    words = ["".join(rng.choice(letters, size=rng.integers(2, 24))) for _ in range(40_000)]
    docs = [" ".join(words[i : i + 200]) for i in range(0, len(words), 150)]
    y = np.arange(len(docs)) % 4
    vocab, counts, df = count_by_class(docs, y, 4)
    ref_vocab, ref_counts, ref_df = _reference_class_sums(docs, y, 4)
    assert vocab == ref_vocab and list(vocab) == sorted(vocab)
    np.testing.assert_array_equal(counts, ref_counts)
    np.testing.assert_array_equal(df, ref_df)


def test_copying_path_when_zero_copy_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    docs, y = _mixed_corpus()
    want = count_by_class(docs, y, 3)
    vocab = SkCount().fit(docs).vocabulary_
    want_x = transform_counts(docs, vocab)
    monkeypatch.setattr(_chars, "ZERO_COPY", False)
    assert _tk.direct_count(docs, y, 3, True, False) is None
    got = count_by_class(docs, y, 3)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])
    assert_same_csr(transform_counts(docs, vocab), want_x)


@pytest.mark.parametrize("kw", [{}, {"lowercase": False}, {"stop_words": ["ab", "words"]}])
def test_direct_transform_matches_sklearn(kw: dict) -> None:
    docs, _ = _mixed_corpus()
    vocab = dict(SkCount(lowercase=False).fit(docs).vocabulary_)
    # keys no token can equal, a stop word, and upper-case keys (never hit when lowercasing)
    for extra in ("ab cd", " ab", "a", "", "x" * 40 + "!", "WORDS", "words"):
        vocab.setdefault(extra, len(vocab))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # upper-case vocabulary warning, same in both
        want = SkCount(vocabulary=vocab, **kw).transform(docs)
    got = transform_counts(docs, vocab, **kw)
    assert_same_csr(got, want)
    for n_threads in (1, 2, 5):
        pieces = _tk.direct_transform(
            docs, vocab, kw.get("lowercase", True), _stop_set_for(kw), n_threads=n_threads
        )
        assert pieces is not None
        np.testing.assert_array_equal(pieces[0], want.indptr)
        np.testing.assert_array_equal(pieces[1], want.indices)
        np.testing.assert_array_equal(pieces[2], want.data)


def _stop_set_for(kw: dict) -> frozenset[str] | None:
    sw = kw.get("stop_words")
    return None if sw is None else frozenset(sw)


def test_lookup_cache_sees_in_place_changes() -> None:
    docs = ["alpha beta gamma", "beta beta delta"]
    vocab = {"alpha": 0, "beta": 1, "gamma": 2}
    first = transform_counts(docs, vocab).toarray()
    vocab["delta"] = vocab.pop("gamma")  # same object, same length, other content
    second = transform_counts(docs, vocab).toarray()
    assert first.tolist() == [[1, 1, 1], [0, 2, 0]]
    assert second.tolist() == [[1, 1, 0], [0, 2, 1]]


@pytest.mark.parametrize("kw", [{}, {"ngram_range": (1, 2)}, {"stop_words": ["ab"]}])
def test_count_by_class_float_counts(kw: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    docs, y = _mixed_corpus()
    vocab, counts, df = count_by_class(docs, y, 3, **kw)
    monkeypatch.setenv("NBAYES_NUM_THREADS", "3")
    monkeypatch.setattr(_tk, "PARALLEL_MIN_CHARS", 0)
    assert _tk.default_threads() == 3
    v2, c2, d2 = count_by_class(docs, y, 3, dtype=np.float64, **kw)
    assert v2 == vocab and c2.dtype == np.float64
    np.testing.assert_array_equal(c2, counts)
    np.testing.assert_array_equal(d2, df)
    with pytest.raises(ValueError, match="dtype"):
        count_by_class(docs, y, 3, dtype=np.float32)


# The 1-byte (Latin-1) scanner reads 8 characters at a time: tokens of 1, 7, 8, 9, 15, 16,
# 17 characters, at string ends, upper case, digits, "_", bytes >= 0x80 (word or not).
latin1_text = st.text(
    alphabet=st.sampled_from(list("aAzZ09_ /:@[^`{.\t\n") + ["é", "Ö", "ÿ", "×", "µ", "ª", "\xa0"]),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(docs=st.lists(latin1_text, min_size=1, max_size=6), lowercase=st.booleans())
def test_latin1_scanner_matches_sklearn(docs: list[str], lowercase: bool) -> None:
    y = np.arange(len(docs)) % 2
    got = _tk.direct_count(docs, y, 2, lowercase, False, n_threads=1)
    assert got is not None
    analyze = SkCount(lowercase=lowercase).build_analyzer()
    want: dict[str, list[int]] = {}
    for d, c in zip(docs, y.tolist(), strict=True):
        for tok in analyze(d):
            want.setdefault(tok, [0, 0])[c] += 1
    assert got.terms == sorted(want)
    np.testing.assert_array_equal(
        got.counts, np.array([want[t] for t in sorted(want)], dtype=np.int64).T.reshape(2, -1)
    )


@settings(max_examples=60, deadline=None)
@given(
    docs=docs_strategy,
    binary=st.booleans(),
    lowercase=st.booleans(),
    stop=st.sampled_from([None, "english", ["ab", "été", "σας", "x" * 20, "can't", "i̇ab"]]),
    n_features=st.sampled_from([1, 7, 2**10]),
    ngram_range=st.sampled_from([(1, 1), (1, 2), (2, 2), (1, 3)]),
)
def test_hash_into_matches_sklearn(docs, binary, lowercase, stop, n_features, ngram_range) -> None:
    """The compiled hashing kernel (murmurhash3 of UTF-8) equals scikit-learn, and so do
    the n-grams' counts (the token streams, each term hashed in numpy)."""
    import warnings as _w

    y = np.arange(len(docs)) % 2
    sums = np.zeros((2, n_features))
    df = np.zeros(n_features, dtype=np.int64)
    with _w.catch_warnings():
        _w.simplefilter("ignore")  # scikit-learn warns about inconsistent stop lists
        X = SkHash(
            n_features=n_features, alternate_sign=False, norm=None, binary=binary,
            lowercase=lowercase, stop_words=stop, ngram_range=ngram_range,
        ).transform(docs)  # fmt: skip
    assert hash_into(
        docs, y, sums, df, n_features=n_features, binary=binary, lowercase=lowercase,
        stop_words=stop, ngram_range=ngram_range,
    )  # fmt: skip
    Y = sp.csr_matrix((np.ones(len(y)), (y, np.arange(len(y)))), shape=(2, len(y)))
    np.testing.assert_array_equal(sums, (Y @ X).toarray())
    np.testing.assert_array_equal(df, np.bincount(X.indices, minlength=n_features))


def test_hash_into_adds_in_place_and_validates() -> None:
    y = np.array([0, 1, 0])
    docs = ["spam spam eggs", "ham", "eggs"]
    sums = np.zeros((2, 64))
    df = np.zeros(64, dtype=np.int64)
    assert hash_into(docs, y, sums, df, n_features=64)
    assert hash_into(docs, y, sums, df, n_features=64)  # adds again
    ref, ref_df = hash_by_class(docs, y, 2, n_features=64)
    np.testing.assert_array_equal(sums, 2 * ref)
    np.testing.assert_array_equal(df, 2 * ref_df)

    class Doc(str):
        pass

    assert not hash_into([Doc(d) for d in docs], y, sums, df, n_features=64)
    np.testing.assert_array_equal(sums, 2 * ref)  # nothing added when it declines
    bigrams, bigram_df = hash_by_class(docs, y, 2, n_features=64, ngram_range=(1, 2))
    assert hash_into(docs, y, sums, df, n_features=64, ngram_range=(1, 2))
    np.testing.assert_array_equal(sums, 2 * ref + bigrams)
    np.testing.assert_array_equal(df, 2 * ref_df + bigram_df)
    columns_first = np.zeros((64, 2)).T  # not C-contiguous: added in place all the same
    assert hash_into(docs, y, columns_first, np.zeros(64, np.int64), n_features=64,
                     ngram_range=(1, 2))  # fmt: skip
    np.testing.assert_array_equal(columns_first, bigrams)
    with pytest.raises(ValueError, match="rows must hold one row"):
        hash_into(docs, np.array([0, 2, 0]), sums, df, n_features=64)
    with pytest.raises(ValueError, match="n_features=128"):
        hash_into(docs, y, sums, df, n_features=128)


@pytest.mark.parametrize("alphabet", ["abcXYZ019_", "aé_Ö", "aΣж中", "a😀b"])
def test_hash_into_every_token_length(alphabet: str) -> None:
    """MurmurHash3 blocks and tails: tokens of every length from 2 to 40 characters."""
    rng = np.random.default_rng(len(alphabet))
    docs = [
        " ".join("".join(rng.choice(list(alphabet), size=n)) for _ in range(3))
        for n in range(2, 41)
    ]
    y = np.arange(len(docs)) % 3
    sums = np.zeros((3, 2**16))
    df = np.zeros(2**16, dtype=np.int64)
    assert hash_into(docs, y, sums, df, n_features=2**16)
    X = SkHash(n_features=2**16, alternate_sign=False, norm=None).transform(docs)
    Y = sp.csr_matrix((np.ones(len(y)), (y, np.arange(len(y)))), shape=(3, len(y)))
    np.testing.assert_array_equal(sums, (Y @ X).toarray())
    np.testing.assert_array_equal(df, np.bincount(X.indices, minlength=2**16))


@settings(max_examples=60, deadline=None)
@given(terms=st.lists(st.one_of(tricky_text, any_text, st.just("")), max_size=12))
def test_murmurhash_in_numpy_is_sklearns(terms: list[str]) -> None:
    from sklearn.utils import murmurhash3_32 as sk_murmur

    from nbayes.text._murmur import murmurhash3_32

    terms = [t for t in terms if not any(0xD800 <= ord(c) < 0xE000 for c in t)]
    want = [sk_murmur(t, seed=0) for t in terms]
    assert murmurhash3_32(terms).tolist() == want


def test_murmurhash_in_numpy_of_every_length() -> None:
    """Blocks and tails of every length, terms longer than the vectorized blocks."""
    from sklearn.utils import murmurhash3_32 as sk_murmur

    from nbayes.text._murmur import murmurhash3_32

    terms = ["aé中😀"[: n % 4 + 1] * (n // 3) + "x" * (n % 5) for n in range(700)]
    terms += ["", "z" * 10_001, "a b", "😀" * 65]
    assert murmurhash3_32(terms).tolist() == [sk_murmur(t, seed=0) for t in terms]
    assert murmurhash3_32([]).shape == (0,)


@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2), (2, 2), (2, 4)])
@pytest.mark.parametrize("stop", [None, "english"])
def test_hash_rows_are_sklearns_hashed_counts(ngram_range, stop) -> None:
    from nbayes.text._class_counts import stop_set
    from nbayes.text._hash_counts import hash_rows

    want = SkHash(n_features=2**10, alternate_sign=False, norm=None, ngram_range=ngram_range,
                  stop_words=stop).transform(SMS)  # fmt: skip
    indptr, indices, counts = hash_rows(SMS, n_features=2**10, ngram_range=ngram_range,
                                        stop_words=stop_set(stop))  # fmt: skip
    got = sp.csr_matrix((counts, indices, indptr), shape=want.shape)
    assert got.has_sorted_indices and counts.dtype == np.float64
    np.testing.assert_array_equal(got.toarray(), want.toarray())


def test_frozen_vocabulary_is_read_only_and_pickles() -> None:
    import pickle

    from nbayes.text._tokenize import FrozenVocabulary

    v = FrozenVocabulary({"aa": 0, "bb": 1})
    for mutate in (
        lambda: v.__setitem__("cc", 2), lambda: v.update(cc=2), lambda: v.pop("aa"),
        lambda: v.clear(), lambda: v.setdefault("cc", 2), lambda: v.__delitem__("aa"),
        lambda: v.popitem(),
    ):  # fmt: skip
        with pytest.raises(TypeError, match="read-only"):
            mutate()
    back = pickle.loads(pickle.dumps(v))
    assert type(back) is FrozenVocabulary and back == v
    X = transform_counts(["aa bb aa", "cc"], v)
    np.testing.assert_array_equal(X.toarray(), [[2, 1], [0, 0]])
    assert transform_counts(["bb"], v).toarray().tolist() == [[0, 1]]  # cached table


@settings(max_examples=80, deadline=None)
@given(
    docs=st.lists(
        st.lists(
            st.sampled_from(["ab", "abc", "a", "b", "é", "Σ", "中", " ", "_", "0"]), max_size=20
        ).map("".join),
        min_size=1,
        max_size=6,
    ),
    ngram=st.sampled_from([(1, 2), (2, 2)]),
)
def test_ngram_vocabulary_order_matches_sklearn(docs: list[str], ngram) -> None:
    """Word pairs are ordered by (rank of first word, rank of second) without making the
    strings: prefixes ("ab" / "ab cd" / "abc"), spaces and wide characters."""
    docs = ["ab cd abc ab ab_ abc d", *docs]
    y = np.arange(len(docs)) % 2
    vocab, counts, _ = count_by_class(docs, y, 2, ngram_range=ngram)
    ref = SkCount(ngram_range=ngram).fit(docs)
    assert list(vocab) == sorted(ref.vocabulary_) and vocab == ref.vocabulary_
    X = ref.transform(docs)
    Y = np.eye(2)[y].T
    np.testing.assert_array_equal(counts, Y @ X.toarray())


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(0, 40),
    m=st.integers(1, 30),
    k=st.integers(1, 5),
    density=st.floats(0.0, 1.0),
    n_threads=st.sampled_from([None, 1, 2, 3]),
    seed=st.integers(0, 2**16),
)
def test_csr_dot_equals_scipy_bit_for_bit(n, m, k, density, n_threads, seed) -> None:
    from nbayes.text._scoring import csr_dot

    rng = np.random.default_rng(seed)
    X = sp.random(n, m, density=density, format="csr", random_state=seed)
    X.data = rng.integers(1, 4, X.nnz).astype(np.float64)
    W = rng.standard_normal((m, k)) * 10
    np.testing.assert_array_equal(csr_dot(X, W, n_threads=n_threads), X @ W)
    with pytest.raises(ValueError, match="columns"):
        csr_dot(X, W[:-1] if m > 1 else np.zeros((2, k)))


@pytest.mark.parametrize("alphabet", ["ab_z09", "abé\xff", "aĀŐ€b", "a\U0001f600\U0010fffbz"])
def test_sort_terms_is_python_str_order(alphabet: str) -> None:
    """The radix passes over packed prefixes order terms as Python orders str, including
    long shared prefixes (several passes), every key width and runs past the radix cut-off."""
    rng = np.random.default_rng(len(alphabet))
    chars = list(alphabet)
    words = {"".join(rng.choice(chars, size=int(rng.integers(1, 30)))) for _ in range(3000)}
    words |= {"a" * k for k in range(1, 40)} | {"ab" * k + "z" for k in range(1, 25)}
    words |= {"prefix" * 3 + w for w in list(words)[:200]}
    terms = list(words)
    rng.shuffle(terms)
    pool = np.array([ord(c) for t in terms for c in t], dtype=np.uint32)
    tlen = np.array([len(t) for t in terms], dtype=np.int64)
    tstart = np.concatenate([[0], np.cumsum(tlen)[:-1]]).astype(np.int64)
    order, first, per, skeys, slen = _tk.sort_terms(pool, tstart, tlen)
    assert [terms[i] for i in order] == sorted(terms)
    np.testing.assert_array_equal(first, _tk.prefix_keys(pool, tstart, tlen))
    np.testing.assert_array_equal(skeys, first[order])
    np.testing.assert_array_equal(slen, tlen[order])
    top = max(map(ord, alphabet))
    assert per == (8 if top < 0x100 else 4 if top < 0x10000 else 3)


def test_terms_decode_only_when_read_and_pickle_as_a_list() -> None:
    import pickle

    docs, y = _mixed_corpus(300)
    got = _tk.direct_count(docs, y, 3, True, False, n_threads=2)
    assert got is not None
    terms = got.terms
    assert isinstance(terms, _tk.Terms)
    n = len(terms)
    assert terms._strings is None  # len() needs no strings
    ref_vocab, _, _ = _reference_class_sums(docs, y, 3)
    assert n == len(ref_vocab)
    assert terms == sorted(ref_vocab) and terms == tuple(sorted(ref_vocab))
    assert terms[0] == min(ref_vocab) and list(terms) == sorted(ref_vocab)
    assert pickle.loads(pickle.dumps(terms)) == sorted(ref_vocab)
    assert type(pickle.loads(pickle.dumps(terms))) is list


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=docs_strategy, data=st.data())
def test_term_columns_score_like_their_dict(docs: list[str], data: st.DataObject) -> None:
    """The lookup built from code points finds exactly the columns the dict gives."""
    y = np.arange(len(docs)) % 2
    got = _tk.direct_count(docs, y, 2, True, False, n_threads=1)
    assert got is not None
    terms = got.terms
    every = data.draw(st.booleans())
    kept = None
    if not every and len(terms):
        kept = np.asarray(sorted(data.draw(st.sets(st.integers(0, len(terms) - 1), min_size=1))))
    cols = _tk.TermColumns(terms, kept)
    names = list(terms) if kept is None else [terms[j] for j in kept.tolist()]
    plain = dict(zip(names, range(len(names)), strict=True))
    assert cols == plain and len(cols) == len(plain)
    queries = docs + [" ".join(names[::-1]), "".join(names)]
    assert_same_csr(transform_counts(queries, cols), transform_counts(queries, plain))
    assert_same_csr(
        transform_counts(queries, cols, stop_words=list(names[:1])),
        transform_counts(queries, plain, stop_words=list(names[:1])),
    )
    import pickle

    back = pickle.loads(pickle.dumps(cols))
    assert type(back) is _tk.FrozenVocabulary and back == plain


@pytest.mark.parametrize("alphabet", ["abcé_", "abĀ", "a\U0001f600b"])
def test_direct_count_merge_of_long_shared_prefixes(alphabet: str) -> None:
    """Workers' vocabularies that share many terms longer than one packed key (equal
    first keys: compared in full) and many short ones (equal keys: equal terms)."""
    rng = np.random.default_rng(3)
    stems = ["".join(rng.choice(list(alphabet), size=int(rng.integers(2, 12)))) for _ in range(300)]
    words = [s + "".join(rng.choice(list(alphabet), size=int(rng.integers(0, 6)))) for s in stems]
    words += stems
    docs = [" ".join(rng.choice(words, size=60)) for _ in range(400)]
    y = np.arange(len(docs)) % 3
    ref = _tk.direct_count(docs, y, 3, True, False, n_threads=1)
    assert ref is not None
    ref_vocab, ref_counts, ref_df = _reference_class_sums(docs, y, 3)
    assert ref.terms == sorted(ref_vocab)
    for n_threads in (2, 3, 5):
        got = _tk.direct_count(docs, y, 3, True, False, n_threads=n_threads)
        assert got is not None and got.terms == ref.terms
        np.testing.assert_array_equal(got.counts, ref_counts)
        np.testing.assert_array_equal(got.df, ref_df)
