"""A loaded n-gram model looks a batch's terms up in its packed vocabulary (the UTF-8 bytes
of the model file) without a dict of str: one compiled call per batch, through an exact
hash index of the bytes made once per model (a few strings: binary searches, no index).
A loaded big (1, 3)-gram model predicted ~2x slower than the fitted one, its first call
paying for ~160,000 binary searches in Python and a dict of 5 million str, every call a
Python method per n-gram (benchmarks/bench_loaded_predict.py). The answers are those of
the dict, bit for bit."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nbayes._native as native
from nbayes import TextClassifier, load, load_scorer, save
from nbayes.text._drivers.lookup import TermColumns, term_columns
from nbayes.text._vocabulary import PackedTerms

from .conftest import ANY_TERM, PACKED_SETTINGS, load_slice

DOCS, LABELS = load_slice("sms_slice.csv")
TEST = [*DOCS[:60], "free lunch and a prize now", "zzz unknown words only", "", "Ünïcödé ☃ 𝔘"]


def _dict_answer(terms: list[str], strings: list[str]) -> np.ndarray:
    index = {t: i for i, t in enumerate(terms)}
    return np.array([index.get(s, -1) for s in strings], dtype=np.int64)


# ---------------------------------------------------------------- the compiled lookups
@PACKED_SETTINGS
@given(terms=st.lists(ANY_TERM, max_size=40, unique=True), others=st.lists(ANY_TERM, max_size=20))
def test_packed_find_is_the_dict_lookup(terms: list[str], others: list[str]) -> None:
    """Through the index (any order of terms) and by binary searches (sorted terms), every
    string of any width (1-, 2-, 4-byte str, lone surrogates, "") finds its term exactly."""
    strings = [*terms, *others, *[t + "x" for t in terms], *[t[:-1] for t in terms]]
    packed = PackedTerms.from_strings(terms)
    index = native.packed_index(packed.data, packed.offsets)
    got = native.packed_find(index, packed.data, packed.offsets, strings)
    np.testing.assert_array_equal(got, _dict_answer(terms, strings))
    ordered = sorted(terms)
    packed = PackedTerms.from_strings(ordered)
    got = native.packed_find(None, packed.data, packed.offsets, strings)
    np.testing.assert_array_equal(got, _dict_answer(ordered, strings))


def test_packed_find_takes_strings_of_every_width_and_many_of_them() -> None:
    terms = [f"w{i} n{i % 97}" for i in range(20_000)] + ["café", "naïve ☃", "𝔘nicode", "\udc80"]
    strings = [*reversed(terms), *(t.upper() for t in terms), "caf\u00e9", "cafe\u0301"]
    packed = PackedTerms.from_strings(terms)
    got = packed.find_all(strings)  # more than a block of the kernel
    np.testing.assert_array_equal(got, _dict_answer(terms, strings))
    assert packed.find("naïve ☃") == len(terms) - 3  # through the index once made


def test_a_repeated_term_maps_to_its_last_index_as_a_dict_does() -> None:
    # a checked packing never repeats a term: the kernel still answers as dict(zip(...))
    raw = [b"a", b"b", b"a"]
    data = np.frombuffer(b"".join(raw), dtype=np.uint8).copy()
    offsets = np.array([0, 1, 2, 3], dtype=np.int64)
    index = native.packed_index(data, offsets)
    assert native.packed_find(index, data, offsets, ["a", "b", "c"]).tolist() == [2, 1, -1]


def test_packed_find_refuses_another_packing_and_what_is_not_a_str() -> None:
    packed = PackedTerms.from_strings(["a", "bb"])
    other = PackedTerms.from_strings(["a", "bb", "ccc"])
    index = native.packed_index(packed.data, packed.offsets)
    with pytest.raises(ValueError, match="index was built for 2 terms"):
        native.packed_find(index, other.data, other.offsets, ["a"])
    with pytest.raises(TypeError, match=r"strings\[1\] is of type int"):
        native.packed_find(index, packed.data, packed.offsets, ["a", 1])
    with pytest.raises(TypeError, match="PackedIndex"):
        native.packed_find(object(), packed.data, packed.offsets, ["a"])


def test_binary_searches_need_sorted_terms() -> None:
    packed = PackedTerms.from_strings(["b", "a"])
    assert not packed.sorted
    with pytest.raises(ValueError, match="sorted"):
        packed.find_all(["a"], search=True)
    assert packed.find_all(["a", "b", "c"]).tolist() == [1, 0, -1]


def test_term_columns_of_a_packed_vocabulary_make_no_str_and_the_index_once() -> None:
    terms = sorted({f"t{i}" for i in range(5_000)} | {"a b", "c d e"})
    made = PackedTerms.from_strings(terms)
    columns = TermColumns(PackedTerms(made.data, made.offsets, True))  # as a file's: no str
    strings = ["t1", "a b", "nope", "c d e", "t4999"]
    want = _dict_answer(terms, strings)
    np.testing.assert_array_equal(term_columns(columns, strings), want)  # binary searches
    assert columns.terms.hash_index_if_made() is None and columns._searches == len(strings)
    many = [f"t{i}" for i in range(0, 10_000, 7)]
    np.testing.assert_array_equal(term_columns(columns, many), _dict_answer(terms, many))
    index = columns.terms.hash_index_if_made()
    assert index is not None  # beyond one search per 32 terms: the index, made once
    np.testing.assert_array_equal(term_columns(columns, strings), want)
    assert columns.terms.hash_index_if_made() is index
    assert columns._dict is None and columns.terms._strings is None
    # word pairs are looked up after the words, when a term holds a space
    got = term_columns(columns, ["t1"], lambda: ["a b", "x y"])
    assert got.tolist() == [terms.index("t1"), terms.index("a b"), -1]
    made = PackedTerms.from_strings(["a", "b"])
    spaceless = TermColumns(PackedTerms(made.data, made.offsets, True))
    assert term_columns(spaceless, ["a"], lambda: ["a b"]).tolist() == [0]
    assert spaceless._dict is None and spaceless.terms._strings is None


# ------------------------------------------------------------------- a loaded model
@pytest.mark.parametrize("ngram_range", [(1, 2), (1, 3), (2, 3)])
def test_a_loaded_n_gram_model_predicts_as_the_fitted_one(
    tmp_path: Path, ngram_range: tuple[int, int]
) -> None:
    """Bit for bit, through nbayes.load, load_scorer and a pickle of the loaded model; the
    batch's n-grams found through the index of the file's bytes, made once per model
    (no dict, no str per term), a second batch reusing it."""
    fitted = TextClassifier(ngram_range=ngram_range).fit(DOCS, LABELS)
    want = fitted.predict_proba(TEST)
    save(fitted, tmp_path / "m.nbayes")
    loaded = load(tmp_path / "m.nbayes")
    scorer = load_scorer(tmp_path / "m.nbayes")
    assert scorer is not None
    for model, columns in ((loaded, loaded._scorer()._vocabulary), (scorer, scorer._vocabulary)):
        assert isinstance(columns, TermColumns) and isinstance(columns.terms, PackedTerms)
        assert columns.terms.hash_index_if_made() is None
        np.testing.assert_array_equal(model.predict_proba(TEST), want)
        index = columns.terms.hash_index_if_made()
        assert index is not None
        assert columns._dict is None and columns.terms._strings is None
        np.testing.assert_array_equal(model.predict_proba(TEST[::-1]), want[::-1])
        assert columns.terms.hash_index_if_made() is index  # built once
    again = pickle.loads(pickle.dumps(loaded))
    np.testing.assert_array_equal(again.predict_proba(TEST), want)


def test_a_few_documents_of_a_loaded_model_are_binary_searches(tmp_path: Path) -> None:
    fitted = TextClassifier(ngram_range=(1, 3)).fit(DOCS, LABELS)
    save(fitted, tmp_path / "m.nbayes")
    loaded = load(tmp_path / "m.nbayes")
    few = ["free prize", "call me later"]
    np.testing.assert_array_equal(loaded.predict_proba(few), fitted.predict_proba(few))
    columns = loaded._scorer()._vocabulary
    assert columns._searches > 0 and columns.terms.hash_index_if_made() is None
    assert columns._dict is None and columns.terms._strings is None


def test_the_dict_once_made_answers_and_no_index_is_made(tmp_path: Path) -> None:
    fitted = TextClassifier(ngram_range=(1, 2)).fit(DOCS, LABELS)
    save(fitted, tmp_path / "m.nbayes")
    loaded = load(tmp_path / "m.nbayes")
    assert loaded.vocabulary_ == fitted.vocabulary_  # the dict, made for vocabulary_
    columns = loaded._scorer()._vocabulary
    assert columns._dict is not None
    np.testing.assert_array_equal(loaded.predict_proba(TEST), fitted.predict_proba(TEST))
    assert columns.terms.hash_index_if_made() is None
