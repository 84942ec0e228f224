"""Hashed word n-grams by the compiled kernels (``hash_run``, ``hash_transform_run`` with
an n-gram range) against scikit-learn's HashingVectorizer and against the route before
them, the token streams (``_hashing.NGRAMS = False``): same buckets, signs, sums and
model files."""

from __future__ import annotations

import csv
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import HashingVectorizer as SkHash

import nbayes._native as _native
from nbayes.cli import main
from nbayes.io.persist import load
from nbayes.text import HashingVectorizer, TextClassifier, hash_into
from nbayes.text._drivers import hashing as _hashing
from nbayes.text._drivers.chars import read
from nbayes.text._drivers.hash_counts import hash_rows
from nbayes.text.vectorizers import hash_by_class

from .conftest import load_slice

SMS, SMS_Y = load_slice("sms_slice.csv")
RANGES = [(1, 2), (2, 2), (1, 3), (2, 3)]

# Word characters of every width (Latin-1, BMP, non-BMP), combining marks (word characters
# for \w), the letters Python lowercases specially (U+0130, U+03A3), separators.
WORD_CHARS = "abzAZ09_éÉßẞİΣσςΑάж中文字한ﾃＡ١²ǅﬁ😀\U0001d400\U00010400\u0301\u0308\u200d"
SEPARATORS = " \t\n.,;:!?'\"-()/\\@#\x00\x85\u2028\u00a0\u3000"
word = st.text(alphabet=WORD_CHARS, min_size=1, max_size=7)
sentence = st.builds(
    lambda words, seps: "".join(w + s for w, s in zip(words, seps, strict=False)),
    st.lists(word, max_size=14),
    st.lists(st.text(alphabet=SEPARATORS, min_size=1, max_size=2), min_size=14, max_size=14),
)
one_token = st.text(alphabet=WORD_CHARS, min_size=2, max_size=9)
document = st.one_of(sentence, one_token, st.text(max_size=30), st.just(""))
docs_strategy = st.lists(document, min_size=1, max_size=8)
STOP = ["ab", "σας", "ß", "中文", "the", "a😀", "zz", "ab cd"]


@contextmanager
def counted_kernel_calls() -> Iterator[list[tuple[int, int]]]:
    """The n-gram ranges the hashing kernels were called with, as they are called (the
    tests assert the kernels did the work: no route of tiny batches went elsewhere)."""
    seen: list[tuple[int, int]] = []
    run, transform = _native.hash_run, _native.hash_transform_run

    def spy_run(*args: Any) -> Any:
        seen.append(tuple(args[9:11]))  # type: ignore[arg-type]
        return run(*args)

    def spy_transform(*args: Any) -> Any:
        seen.append(tuple(args[8:10]))  # type: ignore[arg-type]
        return transform(*args)

    with (
        mock.patch.object(_native, "hash_run", spy_run),
        mock.patch.object(_native, "hash_transform_run", spy_transform),
    ):
        yield seen


@contextmanager
def old_route() -> Iterator[None]:
    """Hashed n-grams through the token streams, as before the kernels took them."""
    with mock.patch.object(_hashing, "NGRAMS", False):
        yield


def assert_same_csr(a: Any, b: Any) -> None:
    assert a.shape == b.shape and a.dtype == b.dtype
    assert a.indices.dtype == b.indices.dtype and a.indptr.dtype == b.indptr.dtype
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.data, b.data)


HASH_SETTINGS = [
    {"n_features": 2**10},
    {"n_features": 7, "alternate_sign": False, "norm": None},
    {"n_features": 31, "lowercase": False, "norm": None},
    {"n_features": 2**18, "binary": True, "norm": "l1"},
    {"n_features": 64, "stop_words": STOP, "norm": None},
    {"n_features": 2**12, "stop_words": "english", "lowercase": False, "alternate_sign": False},
    {"n_features": 5, "binary": True, "alternate_sign": False, "norm": None, "dtype": np.float32},
]


@pytest.mark.parametrize("ngram_range", RANGES)
@pytest.mark.parametrize("kw", HASH_SETTINGS, ids=lambda kw: str(sorted(kw.items())))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=docs_strategy)
def test_hashing_vectorizer_matches_sklearn_random_unicode(
    docs: list[str], kw: dict, ngram_range: tuple[int, int]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # stop words inconsistent with lowercase: both warn
        want = SkHash(ngram_range=ngram_range, **kw).transform(docs)
        with counted_kernel_calls() as seen:
            got = HashingVectorizer(ngram_range=ngram_range, **kw).transform(docs)
    assert seen and set(seen) == {ngram_range}
    assert_same_csr(got, want)


@pytest.mark.parametrize("ngram_range", RANGES)
@pytest.mark.parametrize(
    "kw",
    [{}, {"binary": True}, {"lowercase": False, "stop_words": STOP}, {"stop_words": "english"}],
    ids=lambda kw: str(sorted(kw.items())),
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=docs_strategy, data=st.data())
def test_class_sums_equal_the_token_streams_and_sklearn(
    docs: list[str], kw: dict, ngram_range: tuple[int, int], data: st.DataObject
) -> None:
    y = np.array(data.draw(st.lists(st.integers(0, 2), min_size=len(docs), max_size=len(docs))))
    with old_route(), counted_kernel_calls() as seen:
        old_sums, old_df = hash_by_class(docs, y, 3, n_features=61, ngram_range=ngram_range, **kw)
    assert set(seen) <= {(1, 1)}  # the n-grams went the token streams
    with counted_kernel_calls() as seen:
        sums, df = hash_by_class(docs, y, 3, n_features=61, ngram_range=ngram_range, **kw)
    assert set(seen) == {ngram_range}
    np.testing.assert_array_equal(sums, old_sums)
    np.testing.assert_array_equal(df, old_df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        X = SkHash(n_features=61, ngram_range=ngram_range, alternate_sign=False, norm=None,
                   **kw).transform(docs)  # fmt: skip
    Y = sp.csr_array((np.ones(len(y)), y, np.arange(len(y) + 1)), shape=(len(y), 3))
    np.testing.assert_array_equal(sums, (Y.T @ sp.csr_array(X)).toarray())
    np.testing.assert_array_equal(df, np.bincount(X.indices, minlength=61))


def _long_documents() -> list[str]:
    """Documents longer than a block of tokens (4096) and than the window's bytes (64 KiB),
    some words of several UTF-8 widths, stop words among them."""
    rng = np.random.default_rng(7)
    words = np.array(["ab", "Cd", "é_é", "σας", "中文字", "x😀", "the", "ℵ0", "w" * 23])
    out = []
    for n in (9000, 3, 20000, 0, 4097):
        picks = words[rng.integers(0, len(words), n)]
        seps = np.array([" ", ", ", "\n", " - "])[rng.integers(0, 4, n)]
        out.append("".join(np.char.add(picks, seps).tolist()))
    return out


@pytest.mark.parametrize("ngram_range", [(1, 2), (2, 3), (1, 4)])
def test_long_documents_cross_blocks_and_windows(ngram_range: tuple[int, int]) -> None:
    docs = _long_documents()
    for kw in ({"stop_words": ["the", "ab"]}, {"lowercase": False}, {"n_features": 2**23}):
        with counted_kernel_calls() as seen:
            got = HashingVectorizer(ngram_range=ngram_range, norm=None, **kw).transform(docs)
        assert seen
        assert_same_csr(got, SkHash(ngram_range=ngram_range, norm=None, **kw).transform(docs))
    y = np.array([0, 1, 1, 0, 1])
    sums, df = hash_by_class(docs, y, 2, n_features=2**16, ngram_range=ngram_range)
    with old_route():
        old = hash_by_class(docs, y, 2, n_features=2**16, ngram_range=ngram_range)
    np.testing.assert_array_equal(sums, old[0])
    np.testing.assert_array_equal(df, old[1])


@pytest.mark.parametrize("ngram_range", RANGES)
def test_hash_into_and_hash_rows_equal_the_token_streams(ngram_range: tuple[int, int]) -> None:
    y = (np.arange(len(SMS)) % 3).astype(np.int64)
    results = []
    for route in (old_route, _new_route):
        sums = np.zeros((3, 2**14))
        df = np.zeros(2**14, dtype=np.int64)
        columns_first = np.zeros((2**14, 3)).T  # rows not contiguous: hashed into a copy
        with route():
            for part in (slice(0, 100), slice(100, None)):  # added in place, twice
                assert hash_into(SMS[part], y[part], sums, df, n_features=2**14,
                                 ngram_range=ngram_range, stop_words="english")  # fmt: skip
                assert hash_into(SMS[part], y[part], columns_first, np.zeros(2**14, np.int64),
                                 n_features=2**14, ngram_range=ngram_range,
                                 stop_words="english")  # fmt: skip
            rows = hash_rows(SMS, n_features=2**14, ngram_range=ngram_range)
        np.testing.assert_array_equal(columns_first, sums)
        results.append((sums, df, rows))
    (old_sums, old_df, old_rows), (sums, df, rows) = results
    np.testing.assert_array_equal(sums, old_sums)
    np.testing.assert_array_equal(df, old_df)
    for got, want in zip(rows, old_rows, strict=True):
        np.testing.assert_array_equal(got, want)


@contextmanager
def _new_route() -> Iterator[None]:
    with counted_kernel_calls() as seen:
        yield
    assert seen and all(r != (1, 1) for r in seen)


def test_text_classifier_predicts_as_through_the_token_streams() -> None:
    kw = {"hashing": True, "ngram_range": (1, 3), "n_features": 2**15}
    with old_route():
        old = TextClassifier(**kw).fit(SMS, SMS_Y)
        old_proba = old.predict_proba(SMS[:60])
    with counted_kernel_calls() as seen:
        new = TextClassifier(**kw).fit(SMS, SMS_Y)
        proba = new.predict_proba(SMS[:60])
    assert seen
    np.testing.assert_array_equal(new.feature_count_, old.feature_count_)
    np.testing.assert_array_equal(proba, old_proba)
    np.testing.assert_array_equal(old.predict_proba(SMS[:60]), proba)  # each scores the other's


def test_train_hashing_ngrams_model_file_is_the_old_routes(tmp_path: Path) -> None:
    """``nbayes train --hashing --ngrams 1-2``: the same model file, byte for byte, as the
    token streams made."""
    data = tmp_path / "sms.csv"
    with open(data, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        w.writerows(zip(SMS, SMS_Y, strict=True))
    argv = ["train", str(data), "--hashing", "--ngrams", "1-2", "-q", "-o"]
    with old_route():
        assert main([*argv, str(tmp_path / "old.nbayes")]) == 0
    with counted_kernel_calls() as seen:
        assert main([*argv, str(tmp_path / "new.nbayes")]) == 0
    assert (1, 2) in seen
    old, new = load(tmp_path / "old.nbayes"), load(tmp_path / "new.nbayes")
    np.testing.assert_array_equal(new.feature_count_, old.feature_count_)
    np.testing.assert_array_equal(new.class_count_, old.class_count_)
    assert (tmp_path / "new.nbayes").read_bytes() == (tmp_path / "old.nbayes").read_bytes()


def test_the_kernels_refuse_a_range_that_is_not_one() -> None:
    r = read(["ab cd"], True)
    assert r is not None
    with pytest.raises(ValueError, match="not an n-gram range: 1 <= min_n <= max_n"):
        _native.hash_transform_run(r.docs, 0, 1, r.lower, r.ident, 8, True, None, 2, 1)
    with pytest.raises(ValueError, match="not an n-gram range"):
        _native.hash_run(r.docs, np.zeros(1, np.int64), r.lower, r.ident, False, 8,
                         np.zeros((1, 8)), np.zeros(8, np.uint64), None, 0, 2)  # fmt: skip


def test_a_very_wide_range_of_short_documents() -> None:
    # the class sums reserved a block's n-grams times the width of the range: (1, 10**6)
    # was a MemoryError on three words (scikit-learn takes it; a review)
    docs = ["free money now", "lunch at noon today", "", "win"]
    sk = SkHash(n_features=2**10, ngram_range=(1, 10**6), alternate_sign=False, norm=None)
    expected = sk.transform(docs).toarray()
    with counted_kernel_calls() as seen:
        sums = np.zeros((2, 2**10))
        df = np.zeros(2**10, dtype=np.int64)
        hash_into(docs, np.array([0, 1, 0, 1]), sums, df, n_features=2**10,
                  ngram_range=(1, 10**6))  # fmt: skip
    assert (1, 10**6) in seen
    np.testing.assert_array_equal(sums[0], expected[[0, 2]].sum(axis=0))
    np.testing.assert_array_equal(sums[1], expected[[1, 3]].sum(axis=0))
