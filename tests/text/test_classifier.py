"""TextClassifier equals a scikit-learn Pipeline, and keeps every promise of the core."""

from __future__ import annotations

import csv
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.naive_bayes import BernoulliNB, ComplementNB, MultinomialNB
from sklearn.pipeline import make_pipeline

from nbayes import TextClassifier, UndecidableWarning

from .conftest import load_slice

SMS, SMS_Y = load_slice("sms_slice.csv")
RT, RT_Y = load_slice("rt_slice.csv")

SETTINGS = [
    ("multinomial", MultinomialNB, {}),
    ("bernoulli", BernoulliNB, {}),
    ("complement", ComplementNB, {}),
    ("multinomial", MultinomialNB, {"binary": True, "ngram_range": (1, 2)}),
    ("multinomial", MultinomialNB, {"min_df": 2, "max_df": 0.5, "stop_words": "english"}),
    ("multinomial", MultinomialNB, {"max_features": 300, "lowercase": False}),
    ("bernoulli", BernoulliNB, {"ngram_range": (1, 2), "min_df": 2}),
]


@pytest.mark.parametrize(("model", "Sk", "kw"), SETTINGS)
@pytest.mark.parametrize("data", ["sms", "rt"])
def test_equals_sklearn_pipeline(model: str, Sk: type, kw: dict, data: str) -> None:
    docs, y = (SMS, SMS_Y) if data == "sms" else (RT, RT_Y)
    train, test = docs[:200], docs[200:]
    ours = TextClassifier(model=model, alpha=0.7, **kw).fit(train, y[:200])
    ref = make_pipeline(CountVectorizer(**kw), Sk(alpha=0.7)).fit(train, y[:200])
    assert ours.vocabulary_ == ref[0].vocabulary_
    np.testing.assert_allclose(ours.feature_count_, ref[-1].feature_count_)
    np.testing.assert_allclose(
        ours.predict_log_proba(test), ref.predict_log_proba(test), rtol=1e-10, atol=1e-10
    )
    assert (ours.predict(test) == ref.predict(test)).all()
    # the one-document fast path agrees with the batch path
    for doc in test[:5]:
        np.testing.assert_allclose(
            ours.predict_joint_log_proba([doc]),
            ours.predict_joint_log_proba([doc, ""])[:1],
            rtol=1e-12,
        )


def test_update_with_open_vocabulary_equals_fit() -> None:
    whole = TextClassifier().fit(SMS, SMS_Y)
    parts = TextClassifier().fit(SMS[:50], SMS_Y[:50])
    for start in range(50, len(SMS), 70):
        parts.update(SMS[start : start + 70], SMS_Y[start : start + 70])
    assert parts.vocabulary_ == whole.vocabulary_
    np.testing.assert_allclose(parts.predict_log_proba(RT), whole.predict_log_proba(RT))


def test_partial_fit_needs_classes_then_streams() -> None:
    clf = TextClassifier()
    with pytest.raises(ValueError, match="classes must be passed"):
        clf.partial_fit(SMS[:10], SMS_Y[:10])
    clf.partial_fit(SMS[:100], SMS_Y[:100], classes=["ham", "spam"])
    clf.partial_fit(SMS[100:], SMS_Y[100:])
    whole = TextClassifier().fit(SMS, SMS_Y)
    np.testing.assert_allclose(clf.predict_proba(RT[:20]), whole.predict_proba(RT[:20]))
    with pytest.raises(ValueError, match="do not exist in the initial classes"):
        clf.partial_fit(["hello"], ["other"])


def test_update_adds_classes() -> None:
    clf = TextClassifier().fit(SMS, SMS_Y).update(RT[::7], RT_Y[::7])
    assert clf.classes_.tolist() == ["ham", "neg", "pos", "spam"]


def test_unlearn_is_exact_and_drops_words() -> None:
    both = TextClassifier(min_df=2).fit(SMS + RT, np.concatenate([SMS_Y, RT_Y]))
    both.unlearn(RT, RT_Y)
    ref = TextClassifier(min_df=2).fit(SMS, SMS_Y)
    assert both.classes_.tolist() == ["ham", "spam"]
    assert both.vocabulary_ == ref.vocabulary_
    np.testing.assert_allclose(both.predict_log_proba(SMS), ref.predict_log_proba(SMS), rtol=1e-9)
    before = both.predict_log_proba(SMS[:5])
    with pytest.raises(ValueError, match="never learned"):
        both.unlearn(["zzzunknownword"], ["ham"])
    with pytest.raises(ValueError, match="never seen"):
        both.unlearn([SMS[0]], ["pos"])
    np.testing.assert_array_equal(both.predict_log_proba(SMS[:5]), before)


def test_merge_unites_vocabularies() -> None:
    a = TextClassifier(binary=True).fit(SMS[:150], SMS_Y[:150])
    b = TextClassifier(binary=True).fit(SMS[150:], SMS_Y[150:])
    whole = TextClassifier(binary=True).fit(SMS, SMS_Y)
    merged = a + b
    assert merged.vocabulary_ == whole.vocabulary_
    np.testing.assert_allclose(merged.predict_log_proba(RT), whole.predict_log_proba(RT))
    with pytest.raises(ValueError, match="different hyperparameters"):
        a.merge(TextClassifier().fit(SMS, SMS_Y))


def test_hashing_smooths_over_seen_buckets() -> None:
    clf = TextClassifier(hashing=True, n_features=2**18).fit(SMS, SMS_Y)
    exact = TextClassifier().fit(SMS, SMS_Y)
    # with few collisions, hashing equals the exact vocabulary model
    agree = (clf.predict(RT) == exact.predict(RT)).mean()
    assert agree > 0.95
    assert clf.feature_count_.shape[1] <= len(exact.vocabulary_)
    with pytest.raises(AttributeError):
        clf.vocabulary_  # noqa: B018


def test_unknown_words_give_the_prior() -> None:
    clf = TextClassifier().fit(SMS, SMS_Y)
    np.testing.assert_allclose(
        clf.predict_proba(["qqqq zzzz", ""]), np.exp([clf.class_log_prior_] * 2)
    )


def test_explain_words_and_exact_seed_example() -> None:
    docs = ["free win", "free money", "win money", "meeting today", "free today", "lunch today"]
    y = ["spam", "spam", "spam", "ham", "ham", "ham"]
    clf = TextClassifier().fit(docs, y)
    e = clf.explain("free money money unknownword")
    assert sorted(e.feature_names) == ["free", "money"]
    assert e.top(1)["spam"]["for"][0][0] == "money"
    exact = clf.explain("free money", exact=True)
    assert exact.joint == {"ham": Fraction(1, 144), "spam": Fraction(1, 32)}
    assert "Decision: spam" in str(exact)
    with pytest.raises(ValueError, match="one document"):
        clf.explain(["free"])  # type: ignore[arg-type]


def test_bernoulli_mle_cannot_decide() -> None:
    docs = [
        "keeper was sharp and composed",
        "match was composed",
        "brilliant match",
        "match was not sharp",
        "match was not composed",
    ]
    y = ["positive", "positive", "positive", "negative", "negative"]
    clf = TextClassifier(model="bernoulli", alpha=0).fit(docs, y)
    e = clf.explain("match was sharp", exact=True)
    assert "≈ 0.00878" in str(e)
    assert "cannot decide" in str(clf.explain("not sharp match", exact=True))
    with pytest.warns(UndecidableWarning):
        assert np.isnan(clf.predict_proba(["not sharp match"])).all()


def test_sample_and_informative_words() -> None:
    clf = TextClassifier().fit(SMS, SMS_Y)
    docs, labels = clf.sample(3, random_state=0)
    assert len(docs) == 3 and all(isinstance(w, str) for d in docs for w in d)
    assert set(labels) <= {"ham", "spam"}
    words = [w for w, _, _ in clf.most_informative_features(20)]
    assert len(words) == 20
    assert clf.n_parameters() == 2 * (len(clf.vocabulary_) - 1) + 1


def test_sklearn_tools() -> None:
    clf = TextClassifier(binary=True)
    assert clone(clf).get_params()["binary"] is True
    scores = cross_val_score(clf, SMS, SMS_Y, cv=3)
    assert scores.mean() > 0.8
    grid = GridSearchCV(TextClassifier(), {"alpha": [0.1, 1.0]}, cv=3).fit(RT, RT_Y)
    assert grid.best_params_["alpha"] in (0.1, 1.0)


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="string object received"):
        TextClassifier().fit("just one string", ["a"])
    with pytest.raises(ValueError, match="Document 1 is a int"):
        TextClassifier().fit(["ok", 3], ["a", "b"])
    with pytest.raises(ValueError, match="2 documents but 1 labels"):
        TextClassifier().fit(["a b", "c d"], ["x"])
    with pytest.raises(ValueError, match="0 documents"):
        TextClassifier().fit([], [])
    with pytest.raises(ValueError, match="NoneType received"):
        TextClassifier().fit(None, ["a"])
    with pytest.raises(ValueError, match=r"NaN or None for document\(s\) \[1\]"):
        TextClassifier().fit(["aa bb", "cc dd"], [1.0, np.nan])
    with pytest.raises(ValueError, match="Unknown label type"):
        TextClassifier().fit(["aa bb", "cc dd"], [0.5, 1.5])
    with pytest.raises(ValueError, match="'model' parameter"):
        TextClassifier(model="gaussian").fit(["a"], ["b"])
    with pytest.raises(ValueError, match="min_df"):
        TextClassifier(min_df=-1).fit(["a"], ["b"])
    with pytest.raises(ValueError, match="no terms remain"):
        TextClassifier(min_df=0.9).fit(SMS, SMS_Y).predict(["hello"])


def test_fit_files(tmp_path: Path) -> None:
    path = tmp_path / "sms.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        w.writerows(zip(SMS, SMS_Y, strict=True))
    from_files = TextClassifier().fit_files(path, chunk_size=37)
    whole = TextClassifier().fit(SMS, SMS_Y)
    np.testing.assert_allclose(from_files.predict_proba(RT), whole.predict_proba(RT))


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(alphabet=st.sampled_from(list("ab cdé_1 ΣİßxY\n")), max_size=30),
            st.sampled_from(["p", "q", "r"]),
        ),
        min_size=2,
        max_size=25,
    ),
    st.booleans(),
)
def test_random_text_equals_sklearn(rows: list[tuple[str, str]], binary: bool) -> None:
    docs = [d for d, _ in rows]
    y = np.array([c for _, c in rows])
    try:
        ref = make_pipeline(CountVectorizer(binary=binary), MultinomialNB()).fit(docs, y)
    except ValueError:
        with pytest.raises(ValueError):
            TextClassifier(binary=binary).fit(docs, y).predict(docs)
        return
    ours = TextClassifier(binary=binary).fit(docs, y)
    assert ours.vocabulary_ == ref[0].vocabulary_
    np.testing.assert_allclose(
        ours.predict_log_proba(docs), ref.predict_log_proba(docs), rtol=1e-9, atol=1e-9
    )


def test_preprocess_recipes_apply_everywhere(tmp_path: Path) -> None:
    import nbayes

    docs = ["a 7/10 film, great", "awful 2/10 film", "loved it 9/10", "boring 3/10"]
    y = ["p", "n", "p", "n"]
    clf = TextClassifier(preprocess="sentiment").fit(docs, y)
    assert "9_out_of_10" in clf.vocabulary_
    assert "9_out_of_10" in clf.explain("a 9/10 film").feature_names
    assert "9_out_of_10" in clf.analyze("a 9/10 film")
    # the one-document fast path and the batch path agree
    np.testing.assert_allclose(
        clf.predict_proba(["a 9/10 film"]), clf.predict_proba(["a 9/10 film", "x"])[:1]
    )
    nbayes.save(clf, tmp_path / "m.nbayes")
    assert nbayes.load(tmp_path / "m.nbayes").get_params()["preprocess"] == "sentiment"
    custom = TextClassifier(preprocess=str.upper, lowercase=False).fit(docs, y)
    assert "AWFUL" in custom.vocabulary_
    with pytest.raises(ValueError, match="'preprocess' parameter"):
        TextClassifier(preprocess="nope").fit(docs, y)


@pytest.mark.parametrize("kw", [{}, {"hashing": True, "n_features": 2**12}, {"binary": True}])
def test_fit_files_with_late_classes_equals_fit(tmp_path: Path, kw: dict) -> None:
    path = tmp_path / "rt.csv"
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        w.writerows(zip(RT, RT_Y, strict=True))  # all "pos" first, then "neg"
    streamed = TextClassifier(**kw).fit_files(path, chunk_size=50)
    whole = TextClassifier(**kw).fit(RT, RT_Y)
    assert streamed.classes_.tolist() == whole.classes_.tolist()
    np.testing.assert_array_equal(streamed.class_count_, whole.class_count_)
    np.testing.assert_allclose(streamed.predict_log_proba(SMS), whole.predict_log_proba(SMS))
    if not kw.get("hashing"):
        assert streamed.vocabulary_ == whole.vocabulary_


@pytest.mark.parametrize(
    "kw",
    [
        {"max_features": 60},
        {"max_features": 40, "min_df": 2, "binary": True},
        {"max_df": 0.3, "ngram_range": (1, 2), "max_features": 100},
    ],
)
def test_fit_files_prune_first_equals_fit(tmp_path: Path, kw: dict) -> None:
    path = tmp_path / "mixed.csv"
    docs = SMS + RT
    labels = np.concatenate([SMS_Y, RT_Y])
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        w.writerows(zip(docs, labels, strict=True))
    pruned = TextClassifier(**kw).fit_files(path, chunk_size=64, prune_first=True)
    whole = TextClassifier(**kw).fit(docs, labels)
    assert pruned.vocabulary_ == whole.vocabulary_
    # only the kept terms' statistics are held
    assert pruned._stats.n_columns == len(whole.vocabulary_)
    np.testing.assert_allclose(pruned.predict_log_proba(docs), whole.predict_log_proba(docs))


@pytest.mark.parametrize(
    "model, binary, ref",
    [
        ("multinomial", False, MultinomialNB),
        ("multinomial", True, MultinomialNB),
        ("complement", False, ComplementNB),
        ("bernoulli", True, BernoulliNB),
    ],
)
def test_hashed_model_equals_sklearn_on_the_seen_buckets(model, binary, ref) -> None:
    """Hashing = scikit-learn's HashingVectorizer + NB over the buckets seen in training
    (fit through the compiled kernel, scored on the columns the documents use)."""
    from sklearn.feature_extraction.text import HashingVectorizer

    n = 2**10  # collisions and cancellations included
    clf = TextClassifier(model=model, binary=binary, hashing=True, n_features=n).fit(SMS, SMS_Y)
    streamed = TextClassifier(model=model, binary=binary, hashing=True, n_features=n)
    streamed.fit_chunks([(SMS[:70], SMS_Y[:70]), (SMS[70:], SMS_Y[70:])])
    hv = HashingVectorizer(n_features=n, alternate_sign=False, norm=None, binary=binary)
    X = hv.transform(SMS)
    seen = np.flatnonzero(np.asarray((X > 0).sum(axis=0)).ravel())
    kw = {"binarize": None} if ref is BernoulliNB else {}
    nb = ref(**kw).fit(X[:, seen], SMS_Y)
    want = nb.predict_joint_log_proba(hv.transform(RT)[:, seen])
    np.testing.assert_allclose(clf.predict_joint_log_proba(RT), want, rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(streamed.predict_joint_log_proba(RT), want, rtol=1e-10, atol=1e-9)
    np.testing.assert_array_equal(clf.feature_count_, nb.feature_count_)


_ONE_DOC_TEXT = st.text(
    alphabet="abcAB é\u00c9\u0130\u03a3\u03c3\u0100z中文😀 .,'\n", min_size=0, max_size=40
)


@settings(max_examples=40, deadline=None)
@given(
    train=st.lists(_ONE_DOC_TEXT, min_size=2, max_size=12),
    queries=st.lists(_ONE_DOC_TEXT, min_size=1, max_size=5),
    lowercase=st.booleans(),
    binary=st.booleans(),
)
def test_one_document_path_equals_the_batch_path(train, queries, lowercase, binary) -> None:
    """predict on one document (compiled lookup of the fit's code points, or the dict
    for documents the zero-copy reader cannot take) scores as the batch path does, bit for
    bit (the one document's sum of its rows of W was a matrix-vector product, adding in
    another order: a last digit differed in half of the SMS collection's messages)."""
    train = [*train, "seed words here", "other seed words"]
    y = np.arange(len(train)) % 2
    clf = TextClassifier(lowercase=lowercase, binary=binary).fit(train, y)
    from nbayes.text._tokenize import TermColumns

    assert isinstance(clf._scorer().selection.vocabulary, TermColumns)  # the compiled path
    for q in [*queries, *train[:3]]:
        one = clf.predict_joint_log_proba([q])[0]
        batch = clf.predict_joint_log_proba([q, q])[0]
        np.testing.assert_array_equal(one, batch)


def test_compiled_fit_saves_and_loads_with_its_code_point_vocabulary(tmp_path: Path) -> None:
    """A unigram fit keeps its terms as code points and its counts F-ordered; the model
    file, pickle and every reader of the vocabulary see the same model."""
    import pickle

    from nbayes.io.persist import load, save
    from nbayes.text._tokenize import Terms

    docs = SMS[:300] + ["Ölfeld ÉCOLE naïve ĀŐ €uro 😀 emoji"]
    y = [*SMS_Y[:300], "ham"]
    clf = TextClassifier().fit(docs, y)
    assert isinstance(clf._stats.vocabulary.terms, Terms)
    assert clf.feature_count_.flags.f_contiguous
    ref = make_pipeline(CountVectorizer(), MultinomialNB()).fit(docs, y)
    np.testing.assert_array_equal(clf.feature_count_, ref[-1].feature_count_)
    queries = SMS[300:340] + ["naïve école", ""]
    want = clf.predict_proba(queries)
    np.testing.assert_allclose(want, ref.predict_proba(queries), rtol=1e-9, atol=1e-12)
    save(clf, tmp_path / "text.nbayes")
    for other in (load(tmp_path / "text.nbayes"), pickle.loads(pickle.dumps(clf))):
        np.testing.assert_array_equal(other.predict_proba(queries), want)
        assert other.vocabulary_ == ref[0].vocabulary_
        assert list(other.get_feature_names_out()) == list(ref[0].get_feature_names_out())


def test_derivation_cache_sees_every_hyperparameter_change() -> None:
    """Prediction reuses the derivation while the statistics and hyperparameters are the
    same; a new value (assigned or set_params) or a list changed in place re-derives."""
    docs = ["free money now", "money money win", "lunch at noon", "see you at lunch"]
    y = ["spam", "spam", "ham", "ham"]
    clf = TextClassifier().fit(docs, y)
    first = clf._scorer()
    assert clf._scorer() is first
    p1 = clf.predict_proba(["free lunch"])
    clf.alpha = 0.01
    assert clf._scorer() is not first
    assert not np.allclose(clf.predict_proba(["free lunch"]), p1)
    clf.set_params(alpha=1.0)
    np.testing.assert_allclose(clf.predict_proba(["free lunch"]), p1)
    listed = TextClassifier(stop_words=["at"]).fit(docs, y)
    before = listed._scorer()
    assert listed._scorer() is before  # a list: compared by its repr, still the same
    listed.stop_words.append("lunch")
    assert listed._scorer() is not before


def test_pickles_of_the_vocabulary_beside_the_statistics_still_load() -> None:
    """Earlier releases pickled the vocabulary as ``_vocab_terms``/``_vocab_dict`` next to
    statistics without one; such a pickle predicts, updates and unlearns as before."""
    from dataclasses import replace

    docs, y = SMS[:200], SMS_Y[:200]
    for kw in ({}, {"ngram_range": (1, 2)}):
        clf = TextClassifier(**kw).fit(docs, y)
        state = dict(clf.__getstate__())
        vocabulary = clf._stats.vocabulary
        state["_stats"] = replace(clf._stats)  # the statistics of earlier releases: unnamed
        state["_vocab_terms"], state["_vocab_dict"] = vocabulary.terms, None
        old = TextClassifier.__new__(TextClassifier)
        old.__setstate__(state)
        test = SMS[200:240]
        np.testing.assert_array_equal(old.predict_proba(test), clf.predict_proba(test))
        old.update(SMS[200:220], SMS_Y[200:220]).unlearn(SMS[200:220], SMS_Y[200:220])
        np.testing.assert_allclose(old.predict_proba(test), clf.predict_proba(test))
        assert old.vocabulary_ == clf.vocabulary_


@pytest.mark.parametrize("kw", [{}, {"model": "bernoulli"}, {"ngram_range": (1, 2)}])
def test_merging_two_fits_lays_out_columns_as_one_fit(kw: dict) -> None:
    """fit(A).merge(fit(B)) is fit(A + B), column for column (sorted vocabularies unite in
    sorted order), so a cluster's partition models reduce to the single machine's."""
    a_docs, a_y = ["free prize now", "lunch at noon", "win cash"], ["s", "h", "s"]
    b_docs, b_y = ["zebra lunch", "a free zebra", "cash now please"], ["h", "s", "s"]
    merged = TextClassifier(**kw).fit(a_docs, a_y).merge(TextClassifier(**kw).fit(b_docs, b_y))
    whole = TextClassifier(**kw).fit(a_docs + b_docs, a_y + b_y)
    assert merged.vocabulary_ == whole.vocabulary_
    assert list(merged.get_feature_names_out()) == list(whole.get_feature_names_out())
    np.testing.assert_array_equal(merged.feature_count_, whole.feature_count_)
    np.testing.assert_array_equal(merged.predict_proba(b_docs), whole.predict_proba(b_docs))


def test_pickle_keeps_a_sparse_count_table_compact_and_exact() -> None:
    import pickle

    docs = [f"word{i} common" for i in range(3000)]
    y = [f"class{i % 20}" for i in range(3000)]
    clf = TextClassifier().fit(docs, y)
    blob = pickle.dumps(clf)
    dense = clf.feature_count_.nbytes
    assert len(blob) < dense / 4, (len(blob), dense)
    back = pickle.loads(blob)
    np.testing.assert_array_equal(back.feature_count_, clf.feature_count_)
    assert back.feature_count_.flags.c_contiguous or back.feature_count_.flags.f_contiguous
    np.testing.assert_array_equal(back.predict_proba(docs[:50]), clf.predict_proba(docs[:50]))
    back.update(["word1 new"], ["class1"])  # still a live model
    assert back.feature_count_.shape[1] == clf.feature_count_.shape[1] + 1


def test_exact_explain_of_a_long_document() -> None:
    """exact=True at any length: long fractions in scientific form, the factors folded."""
    from fractions import Fraction

    docs, y = load_slice("sms_slice.csv")
    clf = TextClassifier().fit(docs, y)
    long_doc = " ".join(docs[:150])  # > 1,000 tokens: joint probabilities of thousands of digits
    assert len(long_doc.split()) > 1000
    e = clf.explain(long_doc, exact=True)
    text = e.derivation()
    assert "more factors" in text and "exactly a fraction of" in text
    assert f"Decision: {clf.predict([long_doc])[0]}" in text
    post = e.posterior
    assert sum(post.values(), Fraction(0)) == 1
    best = max(post, key=post.get)
    assert best == clf.predict([long_doc])[0]
    assert str(e)  # printing the explanation never raises
    assert all(len(line) < 2000 for line in text.splitlines())


def test_labels_that_are_lists_are_said_so() -> None:
    """fit(docs, [[1, 2], [3, 4]]) said "Found 2 documents but 2 labels" (a fuzz)."""
    with pytest.raises(ValueError, match=r"one label per document \(a 1-D y\); got labels "
                                         r"of shape \(2, 2\)"):  # fmt: skip
        TextClassifier().fit(["free cash", "lunch now"], [[1, 2], [3, 4]])
