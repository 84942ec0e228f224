"""TextClassifier and the vectorizers against scikit-learn's Pipeline (issue 15, items 1-6):
the same vocabulary, the same probabilities to 1e-12, the same exceptions and warnings."""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import DataConversionWarning
from sklearn.feature_extraction.text import CountVectorizer as SkCount
from sklearn.feature_extraction.text import HashingVectorizer as SkHash
from sklearn.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB
from sklearn.pipeline import make_pipeline

from nbayes import TextClassifier
from nbayes.text import CountVectorizer, HashingVectorizer, count_by_class, hashing_transform
from nbayes.text import _routes as routes
from nbayes.text.vectorizers import transform_counts

from .conftest import load_slice
from .test_vectorizers import docs_strategy

RT, RT_Y = load_slice("rt_slice.csv")
SMS, SMS_Y = load_slice("sms_slice.csv")
NB = {"multinomial": MultinomialNB, "bernoulli": BernoulliNB, "complement": ComplementNB}


def pipeline(model: str = "multinomial", **kw: Any) -> Any:
    return make_pipeline(SkCount(**kw), NB[model]())


def assert_same_model(ours: TextClassifier, ref: Any, docs: list[str]) -> None:
    """The same vocabulary and counts, the same joint log-likelihoods to 1e-12 relative
    (a Bernoulli model sums the log-probabilities of ~10^4 absent terms: its posteriors
    then agree to ~1e-11 absolute, the rounding of that sum), the same predictions."""
    assert ours.vocabulary_ == ref[0].vocabulary_
    np.testing.assert_array_equal(ours.feature_count_, ref[-1].feature_count_)
    jll = ours.predict_joint_log_proba(docs)
    want = ref[-1].predict_joint_log_proba(ref[0].transform(docs))
    np.testing.assert_allclose(jll, want, rtol=1e-12, atol=1e-12)
    atol = 1e-10 if isinstance(ref[-1], BernoulliNB) else 1e-12
    np.testing.assert_allclose(ours.predict_proba(docs), ref.predict_proba(docs),
                               rtol=0, atol=atol)  # fmt: skip
    np.testing.assert_array_equal(ours.predict(docs), ref.predict(docs))


# ----------------------------------------------------------------- 1. max_features


@pytest.mark.parametrize("k", [20, 200, 1000])
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
def test_bernoulli_max_features_ranks_by_raw_counts_as_the_pipeline(k, ngram_range) -> None:
    ref = pipeline("bernoulli", max_features=k, ngram_range=ngram_range).fit(RT, RT_Y)
    fits = {
        "fit": TextClassifier(model="bernoulli", max_features=k, ngram_range=ngram_range)
        .fit(RT, RT_Y),
        "weighted": TextClassifier(model="bernoulli", max_features=k, ngram_range=ngram_range)
        .fit(RT, RT_Y, sample_weight=np.ones(len(RT))),
        "chunks": TextClassifier(model="bernoulli", max_features=k, ngram_range=ngram_range)
        .fit_chunks([(RT[:120], RT_Y[:120]), (RT[120:], RT_Y[120:])]),
        "update": TextClassifier(model="bernoulli", max_features=k, ngram_range=ngram_range)
        .fit(RT[:150], RT_Y[:150]).update(RT[150:], RT_Y[150:]),
    }  # fmt: skip
    for ours in fits.values():
        assert_same_model(ours, ref, RT + SMS[:50])


def test_bernoulli_max_features_small_case_predicts_as_the_pipeline() -> None:
    # "bb" is in two documents once each (presence 2, count 2); "aa" in one document
    # three times (presence 1, count 3): with one term kept, the Pipeline keeps "aa"
    docs, y = ["aa aa aa", "bb cc", "bb"], [1, 0, 0]
    ref = pipeline("bernoulli", max_features=1).fit(docs, y)
    ours = TextClassifier(model="bernoulli", max_features=1).fit(docs, y)
    assert ours.vocabulary_ == ref[0].vocabulary_ == {"aa": 0}
    assert_same_model(ours, ref, ["aa", "bb", "cc"])


def test_bernoulli_prune_first_ranks_by_raw_counts(tmp_path) -> None:
    import csv

    path = tmp_path / "rt.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("text", "label"), *zip(RT, RT_Y, strict=True)])
    ours = TextClassifier(model="bernoulli", max_features=100).fit_files(
        path, chunk_size=70, prune_first=True
    )
    assert_same_model(ours, pipeline("bernoulli", max_features=100).fit(RT, RT_Y), RT)


# ------------------------------------------------------ 2. pruning that keeps nothing


@pytest.mark.parametrize(
    ("docs", "kw"),
    [
        (["", "", "", "aa"], {"min_df": 0.3}),
        (["aa"], {"max_df": 0.5}),
        (["aa bb", "aa cc"], {"min_df": 3}),
        (["aa bb", "aa cc"], {"min_df": 2, "max_df": 1}),  # max_df < min_df
    ],
)
def test_pruning_that_keeps_nothing_fails_at_fit_as_sklearn(docs, kw) -> None:
    y = [i % 2 for i in range(len(docs))]
    with pytest.raises(ValueError) as sk_error:
        pipeline(**kw).fit(docs, y)
    for fit in (
        lambda m: m.fit(docs, y),
        lambda m: m.fit_chunks([(docs, y)]),
        lambda m: m.update(docs, y),
    ):
        model = TextClassifier(**kw)
        with pytest.raises(ValueError) as ours:
            fit(model)
        assert str(ours.value) == str(sk_error.value)
        assert not model.__sklearn_is_fitted__()


# ----------------------------------------------------- 3. inputs the Pipeline takes


class Doc(str):
    """A str subclass (as numpy's str_ and pandas' string types are)."""


@pytest.mark.parametrize("model", ["multinomial", "bernoulli", "complement"])
def test_numpy_unicode_arrays_and_str_subclasses(model: str) -> None:
    docs = RT[:60]
    ref = pipeline(model).fit(docs, RT_Y[:60])
    for given_docs in (np.array(docs), [Doc(d) for d in docs], np.array(docs, dtype=object)):
        ours = TextClassifier(model=model).fit(given_docs, RT_Y[:60])
        assert_same_model(ours, ref, docs)
        np.testing.assert_allclose(ours.predict_proba(np.array(docs)),
                                   ref.predict_proba(docs), atol=1e-12, rtol=0)  # fmt: skip
        assert ours.transform(np.array(docs[:5])).shape == (5, len(ref[0].vocabulary_))
    assert str(ours.explain(np.str_(docs[0]))) == str(ours.explain(docs[0]))
    counts = count_by_class(np.array(docs), np.zeros(60, dtype=np.int64), 1)[1]
    np.testing.assert_array_equal(counts[0], ref[0].transform(docs).sum(axis=0).A1)


def test_column_vector_labels_warn_and_fit_as_sklearn() -> None:
    y = RT_Y[:80].reshape(-1, 1)
    with pytest.warns(DataConversionWarning) as sk_warned:
        ref = pipeline().fit(RT[:80], y)
    with pytest.warns(DataConversionWarning) as warned:
        ours = TextClassifier().fit(RT[:80], y)
    assert str(warned[0].message) == str(sk_warned[0].message)
    assert_same_model(ours, ref, RT)
    with pytest.warns(DataConversionWarning):
        ours.partial_fit(RT[80:90], RT_Y[80:90].reshape(-1, 1))
    with pytest.raises(ValueError, match="one label per document"):
        TextClassifier().fit(RT[:80], np.c_[RT_Y[:80], RT_Y[:80]])


NGRAMS = [(1, 3), (2, 3), (3, 3), (1, 4), (2, 4), (3, 5)]


@pytest.mark.parametrize("ngram_range", NGRAMS)
@pytest.mark.parametrize(
    "kw", [{}, {"model": "bernoulli"}, {"binary": True, "stop_words": "english"}]
)
def test_any_ngram_range_equals_the_pipeline(ngram_range, kw) -> None:
    model = kw.get("model", "multinomial")
    sk_kw = {k: v for k, v in kw.items() if k != "model"}
    ref = pipeline(model, ngram_range=ngram_range, **sk_kw).fit(SMS, SMS_Y)
    ours = TextClassifier(ngram_range=ngram_range, **kw).fit(SMS, SMS_Y)
    assert_same_model(ours, ref, SMS + RT[:40])
    assert ours.analyze(SMS[3]) == ref[0].build_analyzer()(SMS[3])
    one = TextClassifier(ngram_range=ngram_range, **kw).fit(SMS[:100], SMS_Y[:100])
    assert_same_model(one.update(SMS[100:], SMS_Y[100:]), ref, SMS)


@pytest.mark.parametrize("ngram_range", NGRAMS)
def test_any_ngram_range_is_counted_by_the_compiled_route(ngram_range) -> None:
    assert routes.vectorizer(CountVectorizer(ngram_range=ngram_range), SMS)[0] == (
        routes.COMPOSED_NGRAMS
    )
    for stop_words in (None, ["the", "to", "you"]):
        sk = SkCount(ngram_range=ngram_range, stop_words=stop_words)
        ours = CountVectorizer(ngram_range=ngram_range, stop_words=stop_words)
        X, ref = ours.fit_transform(SMS), sk.fit_transform(SMS)
        assert list(ours.vocabulary_.items()) == list(sk.vocabulary_.items())  # same order
        assert (X != ref).nnz == 0 and X.dtype == ref.dtype
        assert (ours.transform(RT) != sk.transform(RT)).nnz == 0
        assert (transform_counts(RT, sk.vocabulary_, ngram_range=ngram_range,
                                 stop_words=stop_words) != sk.transform(RT)).nnz == 0  # fmt: skip
        for norm in (None, "l2"):
            hashed = HashingVectorizer(ngram_range=ngram_range, stop_words=stop_words, norm=norm)
            sk_hashed = SkHash(ngram_range=ngram_range, stop_words=stop_words, norm=norm)
            diff = hashed.transform(SMS) - sk_hashed.transform(SMS)
            assert abs(diff).max() < 1e-12 if diff.nnz else True
    # a hashed model: scikit-learn's hashed counts, smoothed over the buckets seen
    hashed = TextClassifier(ngram_range=ngram_range, hashing=True, n_features=2**12)
    hv = SkHash(ngram_range=ngram_range, n_features=2**12, alternate_sign=False, norm=None)
    X = hv.transform(SMS)
    seen = np.flatnonzero(X.getnnz(axis=0))
    nb = MultinomialNB().fit(X[:, seen], SMS_Y)
    np.testing.assert_array_equal(hashed.fit(SMS, SMS_Y).feature_count_, nb.feature_count_)
    np.testing.assert_allclose(hashed.predict_joint_log_proba(RT),
                               nb.predict_joint_log_proba(hv.transform(RT)[:, seen]),
                               rtol=1e-12)  # fmt: skip


# every kind of string: ASCII, Latin-1, the BMP, astral planes; words that repeat
WORDS = ["aa", "bb", "the", "Ünï", "çé", "ΣΑΣ", "日本語", "x\U0001d41ay", "\U0001f600ok", "zz"]
word_docs = st.lists(
    st.lists(st.sampled_from(WORDS), max_size=12).map(" ".join), min_size=1, max_size=25
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=word_docs,
    ngram_range=st.sampled_from([(1, 1), (1, 2), (2, 2), *NGRAMS]),
    stop=st.sampled_from([None, ["the", "zz"]]),
)
def test_random_documents_any_range_equal_sklearn(docs, ngram_range, stop) -> None:
    sk = SkCount(ngram_range=ngram_range, stop_words=stop)
    try:
        ref = sk.fit_transform(docs)
    except ValueError as exc:  # empty vocabulary: the same error
        with pytest.raises(ValueError, match=str(exc).split(";")[0]):
            CountVectorizer(ngram_range=ngram_range, stop_words=stop).fit(docs * 5)
        return
    docs5 = docs * 5  # past the tiny-batch threshold only for long lists: both routes
    for batch in (docs, docs5):
        ours = CountVectorizer(ngram_range=ngram_range, stop_words=stop)
        X = ours.fit_transform(batch)
        sk_X = SkCount(ngram_range=ngram_range, stop_words=stop).fit_transform(batch)
        assert ours.vocabulary_ == sk.vocabulary_
        assert (X != sk_X).nnz == 0
    y = np.arange(len(docs5)) % 2
    clf = TextClassifier(ngram_range=ngram_range, stop_words=stop).fit(docs5, y)
    pipe = make_pipeline(SkCount(ngram_range=ngram_range, stop_words=stop), MultinomialNB())
    assert_same_model(clf, pipe.fit(docs5, y), docs)
    del ref


# ---------------------------------------------------------------- 4. stop-word warning


@pytest.mark.parametrize("stop_words", [["Don't", "the"], ["ab-cd"], ["The"]])
def test_inconsistent_stop_words_warn_as_the_pipeline(stop_words) -> None:
    docs, y = ["dont stop the music", "the ab cd"] * 6, [0, 1] * 6
    with pytest.warns(UserWarning, match="inconsistent with your preprocessing") as sk_w:
        ref = pipeline(stop_words=stop_words).fit(docs, y)
    for fit in (
        lambda m: m.fit(docs, y),
        lambda m: m.partial_fit(docs, y, classes=[0, 1]),
        lambda m: m.fit_chunks([(docs, y)]),
    ):
        with pytest.warns(UserWarning) as warned:
            model = fit(TextClassifier(stop_words=stop_words))
        messages = [str(w.message) for w in warned]
        assert str(sk_w[0].message) in messages
    assert_same_model(model, ref, docs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # predicting does not warn again, as sklearn
        model.predict(docs)
        TextClassifier(stop_words=["the", "dont"]).fit(docs, y)  # consistent: silent
        TextClassifier(stop_words="english").fit(docs, y)


# --------------------------------------------------------- 5. Python ints in vocabulary_


@pytest.mark.parametrize(
    "kw",
    [{"min_df": 2}, {"max_df": 0.5}, {"max_features": 5}, {"min_df": 2, "ngram_range": (1, 3)}],
)
@pytest.mark.parametrize("docs", [SMS, SMS[:6]], ids=["compiled", "tiny"])
def test_vocabulary_values_are_python_ints(kw, docs) -> None:
    vocabulary = CountVectorizer(**kw).fit(docs).vocabulary_
    assert {type(v) for v in vocabulary.values()} == {int}
    json.dumps(vocabulary)
    assert vocabulary == SkCount(**kw).fit(docs).vocabulary_


# ----------------------------------------------------------------- 6. float16 hashing


@pytest.mark.parametrize("norm", [None, "l2", "l1"])
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
def test_float16_hashing_raises_sklearns_value_error(norm, ngram_range) -> None:
    with pytest.raises(ValueError) as sk_error:
        SkHash(dtype=np.float16, norm=norm, ngram_range=ngram_range).transform(SMS)
    with pytest.raises(ValueError) as ours:
        HashingVectorizer(dtype=np.float16, norm=norm, ngram_range=ngram_range).transform(SMS)
    assert str(ours.value) == str(sk_error.value)
    with pytest.raises(ValueError, match="float16"):
        hashing_transform(SMS, dtype=np.float16, norm=norm)
    X = HashingVectorizer(dtype=np.float32, norm=norm).transform(SMS)
    assert X.dtype == np.float32


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=docs_strategy,
    ngram_range=st.sampled_from(NGRAMS),
    lowercase=st.booleans(),
)
def test_tricky_characters_any_range_on_the_compiled_route(docs, ngram_range, lowercase) -> None:
    docs = docs * 9  # past the tiny-batch threshold: the compiled route
    kw = {"ngram_range": ngram_range, "lowercase": lowercase}
    assert routes.vectorizer(CountVectorizer(**kw), docs)[0] == routes.COMPOSED_NGRAMS
    try:
        ref = SkCount(**kw).fit(docs)
    except ValueError:  # empty vocabulary: the same error
        with pytest.raises(ValueError, match="empty vocabulary"):
            CountVectorizer(**kw).fit(docs)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # upper-case terms with lowercase=False: both warn
        ours = CountVectorizer(**kw).fit(docs)
    assert list(ours.vocabulary_.items()) == list(ref.vocabulary_.items())
    assert (ours.transform(docs) != ref.transform(docs)).nnz == 0
