"""The packed vocabulary (issue 14 item 9): terms as UTF-8 bytes plus offsets in the model
file, in memory, in pickles and in the compiled lookup table; str objects made only on
first use; every forged packing refused with ModelFileError, never a crash."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes import TextClassifier, load, load_scorer, save
from nbayes.exceptions import ModelFileError
from nbayes.io import persist
from nbayes.io._modelfile import read_model_file, write_model_file
from nbayes.text._vocabulary import PackedTerms, Vocabulary, packed_problem

from .conftest import ANY_TERM, PACKED_SETTINGS, load_slice

DOCS, LABELS = load_slice("sms_slice.csv")
TEST = [*DOCS[:40], "free lunch and a prize now", "zzz unknown words only", ""]


def _packed(terms: list[str]) -> tuple[np.ndarray, np.ndarray]:
    raw = [t.encode("utf-8", "surrogatepass") for t in terms]
    data = np.frombuffer(b"".join(raw), dtype=np.uint8).copy()
    offsets = np.zeros(len(raw) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in raw], out=offsets[1:])
    return data, offsets


def _untouched(model: Any) -> None:
    """No str per term was made: the packed terms were never decoded, no dict built."""
    vocabulary = model._stats.vocabulary
    assert isinstance(vocabulary.terms, PackedTerms)
    assert vocabulary._index is None
    assert vocabulary.terms._strings is None


# ---------------------------------------------------------------------- PackedTerms
@PACKED_SETTINGS
@given(terms=st.lists(ANY_TERM, max_size=30, unique=True))
def test_packing_round_trips_any_distinct_terms(terms: list[str]) -> None:
    packed = PackedTerms.from_strings(terms)
    data, offsets = _packed(terms)
    np.testing.assert_array_equal(packed.data, data)
    np.testing.assert_array_equal(packed.offsets, offsets)
    fresh = PackedTerms(data, offsets)  # decoded from the bytes, not the given list
    assert [fresh[i] for i in range(len(terms))] == terms
    assert fresh.strings() == terms
    assert fresh == terms and len(fresh) == len(terms)
    problem, is_sorted = packed_problem(data, offsets)
    assert problem is None
    assert is_sorted == all(a < b for a, b in zip(terms, terms[1:], strict=False))
    cols = np.arange(len(terms))
    assert fresh.order(cols).tolist() == sorted(cols.tolist(), key=terms.__getitem__)
    some = cols[::2][::-1]
    assert fresh.take(some).strings() == [terms[j] for j in some.tolist()]


@PACKED_SETTINGS
@given(terms=st.lists(ANY_TERM, max_size=30, unique=True), others=st.lists(ANY_TERM))
def test_sorted_terms_are_found_by_binary_search(terms: list[str], others: list[str]) -> None:
    terms = sorted(terms)
    packed = PackedTerms(*_packed(terms))
    assert packed.sorted
    assert [packed.find(t) for t in terms] == list(range(len(terms)))
    for t in others:
        assert packed.find(t) == (terms.index(t) if t in terms else -1)
    assert packed._strings is None  # no str made
    cols = np.arange(0, len(terms), 2)
    taken = packed.take(cols, in_order=True)
    assert taken._sorted and taken.strings() == terms[::2]


@PACKED_SETTINGS
@given(terms=st.lists(ANY_TERM, min_size=2, max_size=12))
def test_a_repeated_term_is_found_in_any_order(terms: list[str]) -> None:
    terms = [*terms, terms[0]]
    problem, _ = packed_problem(*_packed(terms))
    if len(set(terms)) < len(terms):
        assert problem is not None and "duplicate terms" in problem


@PACKED_SETTINGS
@given(raw=st.lists(st.binary(max_size=6), max_size=8))
def test_bytes_are_valid_exactly_when_python_decodes_them(raw: list[bytes]) -> None:
    data = np.frombuffer(b"".join(raw), dtype=np.uint8).copy()
    offsets = np.zeros(len(raw) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in raw], out=offsets[1:])
    try:
        terms = [r.decode("utf-8", "surrogatepass") for r in raw]
    except UnicodeDecodeError:
        terms = None
    problem, _ = packed_problem(data, offsets)
    if terms is None:
        assert problem is not None and "not valid UTF-8" in problem
    elif len(set(terms)) == len(terms):
        assert problem is None
        assert PackedTerms(data, offsets).strings() == terms
    else:
        assert problem is not None and "duplicate" in problem


@PACKED_SETTINGS
@given(
    data=st.binary(max_size=40),
    offsets=st.lists(st.integers(-(2**63), 2**63 - 1) | st.integers(-3, 45), max_size=12),
)
def test_forged_offsets_are_a_message_never_a_crash(data: bytes, offsets: list[int]) -> None:
    d = np.frombuffer(data, dtype=np.uint8).copy()
    off = np.asarray(offsets, dtype=np.int64)
    problem, _ = packed_problem(d, off)
    valid = (
        len(off) >= 1
        and off[0] == 0
        and off[-1] == len(d)
        and all(a <= b for a, b in zip(offsets, offsets[1:], strict=False))
    )
    if not valid:
        assert problem is not None
    from nbayes.text._chars import char_table

    import nbayes._native as native

    # the kernels refuse a packing they cannot index safely, whoever calls them
    safe = (
        len(off) >= 1
        and off[0] == 0
        and all(a <= b for a, b in zip(offsets, offsets[1:], strict=False))
        and off[-1] <= len(d)
    )
    cols = np.arange(max(len(off) - 1, 0), dtype=np.int64)
    for call in (
        lambda: native.packed_sort(d, off, cols),
        lambda: native.build_lookup_packed(d, off, cols, char_table(False)),
    ):
        if safe:
            call()
        else:
            with pytest.raises(ValueError):
                call()


def test_a_loop_over_the_terms_decodes_them_once() -> None:
    terms = [f"t{i:05d}" for i in range(3000)]
    packed = PackedTerms(*_packed(terms))
    assert [packed[i] for i in range(10)] == terms[:10] and packed._strings is None
    assert [packed[i] for i in range(3000)] == terms  # past 1024 reads: all at once
    assert packed._strings == terms


def test_the_packing_of_a_fit_is_that_of_its_strings() -> None:
    model = TextClassifier().fit(DOCS, LABELS)
    terms = model._stats.vocabulary.terms
    assert type(terms).__name__ == "Terms"  # a fit's code points
    packed = model._stats.vocabulary.packed()
    assert packed == PackedTerms.from_strings(list(terms)) and packed.sorted


# ------------------------------------------------------------------------- files
def test_the_file_holds_the_packed_vocabulary_in_schema_2(tmp_path: Path) -> None:
    model = TextClassifier().fit(DOCS, LABELS)
    save(model, tmp_path / "m.nbayes")
    metadata, arrays = read_model_file(tmp_path / "m.nbayes")
    assert metadata["schema_version"] == 2
    terms = list(model.get_feature_names_out())
    assert metadata["model"]["vocabulary"] == {"n_terms": len(terms)}
    data, offsets = _packed(terms)
    np.testing.assert_array_equal(arrays["vocabulary/bytes"], data)
    np.testing.assert_array_equal(arrays["vocabulary/offsets"], offsets)
    hashed = TextClassifier(hashing=True, n_features=64).fit(DOCS, LABELS)
    save(hashed, tmp_path / "h.nbayes")
    metadata, arrays = read_model_file(tmp_path / "h.nbayes")
    assert metadata["schema_version"] == 1  # unchanged layout: older nbayes read it
    assert metadata["model"]["vocabulary"] is None


def test_an_nbayes_of_schema_1_refuses_the_new_file_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save(TextClassifier().fit(DOCS, LABELS), tmp_path / "m.nbayes")
    monkeypatch.setattr(persist, "SCHEMA_VERSION", 1)  # the reader of nbayes 0.1.0
    with pytest.raises(ModelFileError, match="schema version 2.*upgrade nbayes"):
        load(tmp_path / "m.nbayes")


def test_load_predict_explain_and_save_make_no_str_per_term(tmp_path: Path) -> None:
    fitted = TextClassifier().fit(DOCS, LABELS)
    save(fitted, tmp_path / "m.nbayes")
    model = load(tmp_path / "m.nbayes")
    _untouched(model)
    np.testing.assert_array_equal(model.predict(TEST), fitted.predict(TEST))
    np.testing.assert_array_equal(model.predict_proba(TEST), fitted.predict_proba(TEST))
    np.testing.assert_array_equal(model.predict_proba(TEST[:1]), fitted.predict_proba(TEST[:1]))
    got, want = model.explain(TEST[0]), fitted.explain(TEST[0])
    assert got.feature_names == want.feature_names
    np.testing.assert_array_equal(got.terms, want.terms)
    long = " ".join(DOCS[:60])  # a long document: hundreds of its own terms named
    assert model.explain(long).feature_names == fitted.explain(long).feature_names
    save(model, tmp_path / "again.nbayes")
    _untouched(model)
    assert (tmp_path / "again.nbayes").read_bytes() == (tmp_path / "m.nbayes").read_bytes()
    scorer = load_scorer(tmp_path / "m.nbayes")
    assert scorer is not None
    np.testing.assert_array_equal(scorer.predict_proba(TEST), fitted.predict_proba(TEST))
    assert isinstance(scorer.feature_names, PackedTerms)
    assert scorer.feature_names._strings is None
    # the strings on first use, equal to the fit's
    assert list(model.get_feature_names_out()) == list(fitted.get_feature_names_out())
    assert model.vocabulary_ == fitted.vocabulary_


@pytest.mark.parametrize(
    "params",
    [
        {"stop_words": "english"},
        {"min_df": 2},
        {"max_features": 50},
        {"model": "bernoulli"},
        {"ngram_range": (1, 2)},
    ],
    ids=lambda p: next(iter(p)),
)
def test_a_loaded_model_predicts_as_the_fit(tmp_path: Path, params: dict[str, Any]) -> None:
    fitted = TextClassifier(**params).fit(DOCS, LABELS)
    save(fitted, tmp_path / "m.nbayes")
    model = load(tmp_path / "m.nbayes")
    # (a Bernoulli model loaded differs from its fit by rounding, as before the packing)
    np.testing.assert_allclose(model.predict_proba(TEST), fitted.predict_proba(TEST), 1e-12, 1e-15)
    np.testing.assert_allclose(
        model.predict_proba(TEST[:1]), fitted.predict_proba(TEST[:1]), 1e-12, 1e-15
    )
    if params.get("ngram_range") is None:  # unigrams: the compiled table, no str
        _untouched(model)
    assert list(model.get_feature_names_out()) == list(fitted.get_feature_names_out())


def test_an_unsorted_vocabulary_is_written_in_term_order(tmp_path: Path) -> None:
    """A model that learnt its terms in batches (new terms appended) is written with its
    columns in term order: the file is that of one fit of the same documents, and a load
    selects without a sort or a copy; it predicts, updates and saves as the fitted one."""
    fitted = TextClassifier(min_df=2)
    fitted.partial_fit(DOCS[:100], LABELS[:100], classes=np.unique(LABELS))
    fitted.partial_fit(DOCS[100:], LABELS[100:])  # new terms after the first ones
    terms = list(fitted._stats.vocabulary.terms)
    assert terms != sorted(terms)
    save(fitted, tmp_path / "m.nbayes")
    save(TextClassifier(min_df=2).fit(DOCS, LABELS), tmp_path / "one-fit.nbayes")
    assert _content(tmp_path / "m.nbayes") == _content(tmp_path / "one-fit.nbayes")
    model = load(tmp_path / "m.nbayes")
    assert model._stats.vocabulary.terms.sorted
    np.testing.assert_array_equal(model.predict_proba(TEST), fitted.predict_proba(TEST))
    np.testing.assert_array_equal(model.predict_proba(TEST[:1]), fitted.predict_proba(TEST[:1]))
    _untouched(model)
    assert list(model._stats.vocabulary.terms) == sorted(terms)
    order = sorted(range(len(terms)), key=terms.__getitem__)
    np.testing.assert_array_equal(
        model._stats.counts.feature_count, fitted._stats.counts.feature_count[:, order]
    )
    assert list(model.get_feature_names_out()) == list(fitted.get_feature_names_out())
    model.partial_fit(["brand new words here"], [LABELS[0]])  # still a live model
    fitted.partial_fit(["brand new words here"], [LABELS[0]])
    assert "brand" in model._stats.vocabulary.index
    np.testing.assert_array_equal(model.predict_proba(TEST), fitted.predict_proba(TEST))
    save(model, tmp_path / "a.nbayes")
    save(fitted, tmp_path / "b.nbayes")
    assert _content(tmp_path / "a.nbayes") == _content(tmp_path / "b.nbayes")


def _content(path: Path) -> tuple[Any, dict[str, bytes]]:
    """A model file's metadata (without the writer's version) and its arrays' bytes."""
    metadata, arrays = read_model_file(path)
    metadata.pop("nbayes_version")
    return metadata, {name: a.tobytes() for name, a in arrays.items()}


def test_one_document_of_a_loaded_n_gram_model_makes_no_dict(tmp_path: Path) -> None:
    """The n-grams of one document are looked up by binary search in the file's packed
    terms (a dict of a million bigrams cost ~0.4 s at the first prediction); after enough
    searches the compiled index of the bytes is made once (still no dict, nor a str per
    term), and the answers never change."""
    fitted = TextClassifier(ngram_range=(1, 2), min_df=2)
    fitted.partial_fit(DOCS[:100], LABELS[:100], classes=np.unique(LABELS))
    fitted.partial_fit(DOCS[100:], LABELS[100:])  # an unsorted vocabulary in the file
    save(fitted, tmp_path / "m.nbayes")
    for model in (load(tmp_path / "m.nbayes"), load_scorer(tmp_path / "m.nbayes")):
        assert model is not None
        for doc in TEST[:3]:
            np.testing.assert_allclose(
                model.predict_proba([doc]), fitted.predict_proba([doc]), 1e-12, 1e-15
            )
        scorer = model._scorer() if isinstance(model, TextClassifier) else model
        columns = scorer._vocabulary
        assert columns._dict is None and columns.terms._strings is None
        assert 0 < columns._searches <= 64 + len(columns) // 32
        assert columns.terms.hash_index_if_made() is None
        for doc in DOCS:  # one by one: the searches stop, the index is made once
            assert model.predict([doc]) == fitted.predict([doc])
        index = columns.terms.hash_index_if_made()
        assert index is not None
        assert columns._dict is None and columns.terms._strings is None
        assert columns._searches <= 64 + len(columns) // 32
        for doc in TEST:
            assert model.predict([doc]) == fitted.predict([doc])
        assert columns.terms.hash_index_if_made() is index


def test_a_stop_word_among_the_terms_is_left_out_as_before(tmp_path: Path) -> None:
    # a forged file: a stop word in the vocabulary of a stop-word model; the dict path
    # (files of schema 1) never looks it up, the packed table must not either
    fitted = TextClassifier(stop_words=["free"]).fit(DOCS, LABELS)
    save(fitted, tmp_path / "m.nbayes")
    metadata, arrays = read_model_file(tmp_path / "m.nbayes")
    terms = PackedTerms(arrays["vocabulary/bytes"], arrays["vocabulary/offsets"]).strings()
    terms[terms.index("call")] = "free"
    old = {**metadata, "schema_version": 1, "model": {**metadata["model"], "vocabulary": terms}}
    old_arrays = {k: v for k, v in arrays.items() if not k.startswith("vocabulary/")}
    write_model_file(tmp_path / "old.nbayes", old, old_arrays)
    new_data, new_offsets = _packed(terms)
    arrays.update({"vocabulary/bytes": new_data, "vocabulary/offsets": new_offsets})
    write_model_file(tmp_path / "new.nbayes", metadata, arrays)
    want = load(tmp_path / "old.nbayes").predict_proba(["free call now", "free free"])
    model = load(tmp_path / "new.nbayes")
    np.testing.assert_array_equal(model.predict_proba(["free call now", "free free"]), want)
    _untouched(model)


def test_lone_surrogates_and_split_pairs_in_terms_are_kept(tmp_path: Path) -> None:
    fitted = TextClassifier().fit(DOCS, LABELS)
    terms = list(fitted._stats.vocabulary.terms)
    terms[0], terms[1] = "a\ud800", "\ud83d\ude00"  # a lone one; a pair as two code points
    model = TextClassifier().fit(DOCS, LABELS)._set(fitted._stats, terms)
    save(model, tmp_path / "m.nbayes")
    back = load(tmp_path / "m.nbayes")
    kept = list(back._stats.vocabulary.terms)
    assert "a\ud800" in kept and "\ud83d\ude00" in kept
    assert kept == sorted(terms)  # written in term order: UTF-8 byte order is code point order


def _forged(tmp_path: Path, change: Any) -> Path:
    path = tmp_path / "m.nbayes"
    save(TextClassifier().fit(DOCS, LABELS), path)
    metadata, arrays = read_model_file(path)
    change(metadata["model"], arrays)
    write_model_file(path, metadata, arrays)
    return path


def _set_offsets(values: Any) -> Any:
    def change(d: dict[str, Any], a: dict[str, np.ndarray]) -> None:
        off = a["vocabulary/offsets"].copy()
        values(off, len(a["vocabulary/bytes"]))
        a["vocabulary/offsets"] = off

    return change


def _swap(off: np.ndarray, n: int) -> None:
    off[5], off[6] = off[6], off[5]


def _dup(d: dict[str, Any], a: dict[str, np.ndarray]) -> None:
    terms = PackedTerms(a["vocabulary/bytes"], a["vocabulary/offsets"]).strings()
    terms[7] = terms[3]
    a["vocabulary/bytes"], a["vocabulary/offsets"] = _packed(terms)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set_offsets(lambda off, n: off.__setitem__(3, off[2] - 1)), "offsets"),  # decreasing
        (_set_offsets(_swap), "offsets"),
        (_set_offsets(lambda off, n: off.__setitem__(-1, n + 1)), "offsets"),  # past the end
        (_set_offsets(lambda off, n: off.__setitem__(4, 2**62)), "offsets"),  # huge
        (_set_offsets(lambda off, n: off.__setitem__(0, -1)), "offsets"),
        (_set_offsets(lambda off, n: off.__setitem__(-1, n - 1)), "offsets"),  # ends early
        (_dup, "duplicate terms"),
        (lambda d, a: a["vocabulary/bytes"].__setitem__(0, 0xC0), "not valid UTF-8"),
        (lambda d, a: a["vocabulary/bytes"].__setitem__(slice(0, 2), [0xED, 0x80]), "UTF-8"),
        (lambda d, a: d.update(vocabulary={"n_terms": 3}), "shape"),
        (lambda d, a: d.update(vocabulary={"n_terms": -1}), "n_terms"),
        (lambda d, a: d.update(vocabulary={"n_terms": 2**70}), "n_terms"),
        (lambda d, a: d.update(vocabulary={"terms": 3}), "wrong keys"),
        (lambda d, a: d.update(vocabulary="abc"), "JSON object"),
        (lambda d, a: a.pop("vocabulary/bytes"), "missing"),
        (
            lambda d, a: a.update({"vocabulary/bytes": a["vocabulary/bytes"].astype(np.int8)}),
            "dtype",
        ),
        (
            lambda d, a: a.update(
                {"vocabulary/offsets": a["vocabulary/offsets"].astype(np.uint32)}
            ),
            "dtype",
        ),
    ],
)
def test_a_forged_packing_is_a_model_file_error(tmp_path: Path, change: Any, message: str) -> None:
    path = _forged(tmp_path, change)
    with pytest.raises(ModelFileError, match=message):
        load(path)
    with pytest.raises(ModelFileError, match=message):
        load_scorer(path)


@settings(PACKED_SETTINGS, max_examples=60)
@given(data=st.data())
def test_any_forged_offsets_in_a_file_load_or_are_refused(tmp_path: Path, data: Any) -> None:
    path = tmp_path / "m.nbayes"
    if not path.exists():
        save(TextClassifier().fit(DOCS[:30], LABELS[:30]), path)
    metadata, arrays = read_model_file(path)
    off = arrays["vocabulary/offsets"].copy()
    n, end = len(off), int(off[-1])  # the bound of the near values: before any is forged
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, n - 1))
        off[i] = data.draw(st.integers(-(2**63), 2**63 - 1) | st.integers(-2, end + 2))
    arrays["vocabulary/offsets"] = off
    forged = tmp_path / "forged.nbayes"
    write_model_file(forged, metadata, arrays)
    try:
        model = load(forged)
    except ModelFileError:
        return
    model.predict_proba(TEST[:3])  # a packing that loads is a working vocabulary


# ----------------------------------------------------------------------- pickles
def test_a_pickled_vocabulary_carries_the_bytes_not_strings() -> None:
    model = TextClassifier().fit(DOCS, LABELS)
    vocabulary = model._stats.vocabulary
    state = vocabulary.__getstate__()
    assert set(state) == {"bytes", "lengths", "sorted"}
    assert state["bytes"].dtype == np.uint8 and state["lengths"].dtype == np.uint8
    back = pickle.loads(pickle.dumps(vocabulary))
    assert isinstance(back.terms, PackedTerms) and back == vocabulary
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(TEST), model.predict_proba(TEST))
    _untouched(again)
    # a vocabulary of an earlier release's pickle: (terms, index)
    old = Vocabulary.__new__(Vocabulary)
    old.__setstate__((["a", "b"], None))
    assert old.terms == ["a", "b"] and old.index == {"a": 0, "b": 1}
    grown = Vocabulary(index={"b": 0, "a": 1})  # a vocabulary being extended: a dict only
    assert pickle.loads(pickle.dumps(grown)).terms == ["b", "a"]
    long = Vocabulary(terms=["é" * 200, "a\ud800", ""])  # a term of 400 bytes: uint16
    assert long.__getstate__()["lengths"].dtype == np.uint16
    assert pickle.loads(pickle.dumps(long)).terms == ["é" * 200, "a\ud800", ""]


def test_merged_and_unpickled_partition_models_equal_one_fit() -> None:
    parts = [TextClassifier().fit(DOCS[i::3], LABELS[i::3]) for i in range(3)]
    shipped = [pickle.loads(pickle.dumps(p)) for p in parts]  # as Dask ships them
    merged = shipped[0].merge(shipped[1], shipped[2])
    whole = TextClassifier().fit([d for i in range(3) for d in DOCS[i::3]],
                                 np.concatenate([LABELS[i::3] for i in range(3)]))  # fmt: skip
    assert list(merged.get_feature_names_out()) == list(whole.get_feature_names_out())
    np.testing.assert_allclose(merged.predict_proba(TEST), whole.predict_proba(TEST))


def test_nbayes_exposes_nothing_new() -> None:
    assert not hasattr(nbayes, "PackedTerms")
