"""MixedNB's text columns have a text model's statistics, counted by nbayes.text's compiled
counting: the same words and counts as scikit-learn's CountVectorizer, and through a kind of
their own n-grams, stop words and recipes."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sklearn.feature_extraction.text import CountVectorizer

from nbayes.io.persist import load, save
from nbayes.kinds import kind, register_kind
from nbayes.mixed import MixedNB
from nbayes.mixed._columns import TextKind
from nbayes.text._textstats import TextStats

pd = pytest.importorskip("pandas")

DOCS = ["Free money NOW", "free prize, free", "lunch at noon", "see you at lunch",
        "the money at noon", "not a prize", "the lunch is not free", "win win win"]  # fmt: skip
Y = np.array(["spam", "spam", "ham", "ham", "ham", "spam", "ham", "spam"])


def _frame(docs: list[str] = DOCS) -> object:
    return pd.DataFrame({"note": docs, "n": np.arange(len(docs), dtype=float)})


def _words(model: MixedNB, j: int = 0) -> dict[str, np.ndarray]:
    col = model._stats.columns[j]
    assert isinstance(col, TextStats)
    terms = list(col.vocabulary.terms)
    return {t: col.counts.feature_count[:, i] for i, t in enumerate(terms)}


def test_a_text_column_counts_as_count_vectorizer() -> None:
    model = MixedNB({"note": "text"}).fit(_frame(), Y)
    cv = CountVectorizer()
    X = cv.fit_transform(DOCS)
    want = {w: np.array([X[Y == c][:, i].sum() for c in ("ham", "spam")])
            for i, w in enumerate(cv.get_feature_names_out())}  # fmt: skip
    got = _words(model)
    assert set(got) == set(want)
    for w in want:
        np.testing.assert_array_equal(got[w], want[w])
    assert model.column_sizes_["note"] == len(want)


def test_weights_count_as_repeated_rows() -> None:
    w = np.array([1, 2, 1, 3, 1, 1, 2, 1], dtype=float)
    weighted = MixedNB({"note": "text"}).fit(_frame(), Y, sample_weight=w)
    rows = np.repeat(np.arange(len(DOCS)), w.astype(int))
    repeated = MixedNB({"note": "text"}).fit(_frame([DOCS[i] for i in rows]), Y[rows])
    a, b = _words(weighted), _words(repeated)
    assert set(a) == set(b)
    for word in a:
        np.testing.assert_array_equal(a[word], b[word])


def test_unlearning_forgets_the_words_no_document_uses() -> None:
    def notes(docs: list[str]) -> object:
        return pd.DataFrame({"note": docs})

    model = MixedNB({"note": "text"}).fit(notes(DOCS), Y)
    model.unlearn(notes(DOCS[-1:]), Y[-1:])
    assert "win" not in _words(model)
    fresh = MixedNB({"note": "text"}).fit(notes(DOCS[:-1]), Y[:-1])
    probe = notes(["free lunch", "win a prize"])
    np.testing.assert_allclose(model.predict_log_proba(probe), fresh.predict_log_proba(probe))
    with pytest.raises(ValueError, match="never learned"):
        model.unlearn(notes(["zebra crossing"]), Y[:1])


@pytest.fixture
def own_kinds() -> Iterator[None]:
    """Kinds registered by a test are gone after it."""
    from nbayes._families import kinds

    before = dict(kinds._KINDS)
    yield
    kinds._KINDS.clear()
    kinds._KINDS.update(before)


def test_a_text_kind_of_its_own_takes_ngrams_stop_words_and_recipes(
    own_kinds: None, tmp_path: Path
) -> None:
    register_kind(TextKind("text_bigrams", ngram_range=(1, 2), stop_words="english",
                           preprocess="ratings"))  # fmt: skip
    assert kind("text_bigrams").values == "documents"
    docs = [*DOCS[:-1], "a 9/10 film"]
    model = MixedNB({"note": "text_bigrams"}).fit(_frame(docs), Y)
    words = _words(model)
    assert "free money" in words and "the" not in words and "money" in words
    assert "9_out_of_10" in words  # the recipe's token (lowercased)
    path = tmp_path / "bigrams.nbayes"
    save(model, path)
    back = load(path)
    probe = _frame(["free money now", "lunch at noon", "a 9/10 film"])
    np.testing.assert_array_equal(back.predict_log_proba(probe), model.predict_log_proba(probe))


def test_new_files_keep_the_document_counts(tmp_path: Path) -> None:
    w = np.array([1, 2, 1, 3, 1, 1, 2, 1], dtype=float)
    model = MixedNB({"note": "text"}).fit(_frame(), Y, sample_weight=w)
    path = tmp_path / "m.nbayes"
    save(model, path)
    col, back = model._stats.columns[0], load(path)._stats.columns[0]
    order = np.argsort(np.asarray(list(col.vocabulary.terms), dtype=object))
    np.testing.assert_array_equal(back.doc_freq, col.doc_freq[order])
    np.testing.assert_array_equal(back.term_freq, col.term_freq[order])
    assert back.n_docs == col.n_docs == len(DOCS)
    again = tmp_path / "again.nbayes"
    save(load(path), again)
    assert again.read_bytes() == path.read_bytes()


def test_pickles_keep_text_columns() -> None:
    model = MixedNB({"note": "text"}).fit(_frame(), Y)
    back = pickle.loads(pickle.dumps(model))
    probe = _frame(["free lunch"])
    np.testing.assert_array_equal(back.predict_log_proba(probe), model.predict_log_proba(probe))
    assert list(back._stats.columns[0].vocabulary.terms) == list(
        model._stats.columns[0].vocabulary.terms
    )
