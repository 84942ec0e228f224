"""The counting route chooser: each setting takes the route its table documents."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from nbayes.text import CountVectorizer, HashingVectorizer, TextClassifier
from nbayes.text import _routes as routes

DOCS = ["the cat sat on the mat " * 100, "a dog barked " * 100] * 5


@pytest.mark.parametrize(
    ("settings", "route"),
    [
        ({}, routes.ZERO_COPY),
        ({"ngram_range": (1, 2)}, routes.TOKEN_STREAMS),
        ({"ngram_range": (2, 2)}, routes.TOKEN_STREAMS),
        ({"ngram_range": (1, 3)}, routes.COMPOSED_NGRAMS),
        ({"ngram_range": (2, 3)}, routes.COMPOSED_NGRAMS),
        ({"ngram_range": (3, 5)}, routes.COMPOSED_NGRAMS),
        ({"ngram_range": (2, 1)}, routes.SKLEARN),  # invalid: scikit-learn's own error
        ({"ngram_range": (1.0, 2.0)}, routes.SKLEARN),  # floats: scikit-learn's TypeError
        ({"ngram_range": (np.int64(1), np.int64(2))}, routes.TOKEN_STREAMS),
        ({"analyzer": "char"}, routes.SKLEARN),
        ({"input": "filename"}, routes.SKLEARN),
        ({"preprocessor": str.upper}, routes.SKLEARN),
        ({"tokenizer": str.split}, routes.SKLEARN),
        ({"strip_accents": "ascii"}, routes.SKLEARN),
        ({"token_pattern": r"\w+"}, routes.SKLEARN),
        ({"token_pattern": r"\b\w\w+\b"}, routes.ZERO_COPY),
    ],
)
def test_vectorizer_routes_follow_the_table(settings: dict, route: str) -> None:
    for cls in (CountVectorizer, HashingVectorizer):
        choose = routes.vectorizer if cls is CountVectorizer else routes.hashing_vectorizer
        assert choose(cls(**settings), DOCS)[0] == route


@pytest.mark.parametrize("n_docs", [2, 20, 200])
def test_a_float_ngram_range_is_refused_at_every_batch_size(n_docs: int) -> None:
    """(1.0, 2.0) is scikit-learn's TypeError at fit, whatever the batch (the kernels took
    it as (1, 2), and a fitted vectorizer then refused a small batch: a differential fuzz);
    TextClassifier refuses 1.5 (it was read as 1)."""
    from sklearn.feature_extraction.text import CountVectorizer as Theirs

    from nbayes.text import TfidfVectorizer

    docs = [f"w{i} w{i + 1}" for i in range(n_docs)]
    with pytest.raises(TypeError) as theirs:
        Theirs(ngram_range=(1.0, 2.0)).fit(docs)
    for make in (CountVectorizer(ngram_range=(1.0, 2.0)).fit,
                 TfidfVectorizer(ngram_range=(1.0, 2.0)).fit,
                 HashingVectorizer(ngram_range=(1.0, 2.0)).transform):  # fmt: skip
        with pytest.raises(TypeError) as ours:
            make(docs)
        assert str(ours.value) == str(theirs.value)
    with pytest.raises(ValueError, match=r"two integers .* got \(1.5, 2\)"):
        TextClassifier(ngram_range=(1.5, 2)).fit(docs, np.arange(n_docs) % 2)


def test_documents_and_batch_size_decide_too() -> None:
    est = CountVectorizer()
    assert routes.vectorizer(est, [*DOCS, b"bytes"])[0] == routes.SKLEARN
    assert routes.vectorizer(est, ["tiny", "batch"])[0] == routes.SKLEARN  # no kernel setup
    for bad in ({"dtype": np.int64}, {"norm": "l3"}, {"n_features": 0}, {"n_features": True}):
        assert routes.hashing_vectorizer(HashingVectorizer(**bad), DOCS)[0] == routes.SKLEARN


@pytest.mark.parametrize(
    ("kw", "plan"),
    [
        ({"hashing": False, "weighted": False}, ("vocabulary", "class-sums")),
        ({"hashing": False, "weighted": True}, ("vocabulary", "weighted-rows")),
        ({"hashing": False, "weighted": False, "stream": True},
         ("vocabulary", "running-totals")),
        ({"hashing": True, "weighted": False}, ("hashed", "class-sums")),
        ({"hashing": True, "weighted": True}, ("hashed", "weighted-rows")),
        ({"hashing": True, "weighted": False, "stream": True}, ("hashed", "running-totals")),
    ],
)  # fmt: skip
def test_classifier_batches_are_three_orthogonal_steps(kw: dict, plan: tuple) -> None:
    """The index and the accumulation do not depend on the tokenizing step."""
    for ngram, tokens in [((1, 1), routes.ZERO_COPY), ((1, 2), routes.TOKEN_STREAMS),
                          ((1, 3), routes.COMPOSED_NGRAMS)]:  # fmt: skip
        assert routes.batch(ngram=ngram, **kw) == (tokens, *plan)


def test_counting_settings_choose_the_plan() -> None:
    """The counting settings are read once from the hyperparameters, and choose the
    tokenizing step from the n-gram range."""
    from nbayes.text._model import Counting

    for ngram, tokens in [((1, 1), routes.ZERO_COPY), ((1, 2), routes.TOKEN_STREAMS),
                          ((2, 4), routes.COMPOSED_NGRAMS)]:  # fmt: skip
        counting = TextClassifier(ngram_range=ngram, hashing=True)._counting()
        assert counting.plan(weighted=True) == (tokens, routes.HASHED, routes.WEIGHTED_ROWS)
    bern = Counting.of(TextClassifier(model="bernoulli", stop_words="english").get_params())
    assert bern.clip and not bern.binary and bern.raw_frequencies
    assert bern.stop is not None and "the" in bern.stop
    assert not Counting.of(TextClassifier(model="bernoulli", binary=True)).raw_frequencies


def test_every_classifier_route_counts_the_same() -> None:
    """Weighted (rows) and unweighted (class sums) routes agree when every weight is 1,
    hashed or not, fitted at once or streamed."""
    docs = ["free money now", "free prize now", "lunch at noon", "noon meeting today"] * 3
    y = ["spam", "spam", "ham", "ham"] * 3
    for kw in ({}, {"ngram_range": (1, 2)}, {"hashing": True, "n_features": 256}):
        plain = TextClassifier(**kw).fit(docs, y)
        weighted = TextClassifier(**kw).fit(docs, y, sample_weight=np.ones(len(docs)))
        streamed = TextClassifier(**kw).fit_chunks([(docs[:5], y[:5]), (docs[5:], y[5:])])
        for other in (weighted, streamed):
            np.testing.assert_allclose(other.feature_count_, plain.feature_count_)
            np.testing.assert_allclose(other.predict_proba(docs), plain.predict_proba(docs))


def test_one_document_routes_follow_the_table() -> None:
    assert routes.one_document((1, 1), None) == routes.ONE_COMPILED
    assert routes.one_document((1, 2), None) == routes.ONE_PYTHON
    # stop words are left out of the compiled table itself
    assert routes.one_document((1, 1), frozenset({"the"})) == routes.ONE_COMPILED
    # the scorer of a compiled fit scores one document through the compiled table
    clf = TextClassifier().fit(DOCS, ["a", "b"] * 5)
    scorer = clf._scorer()
    assert scorer._one_route == routes.ONE_COMPILED
    cols, counts = scorer.count_one("the cat and the dog")
    assert [scorer.feature_names[j] for j in cols] == ["cat", "dog", "the"]
    assert counts.tolist() == [1, 1, 2]
    cols, counts = clf._scorer()._vocabulary.count_one(
        "the cat and the dog", True, frozenset({"the"})
    )
    assert [scorer.feature_names[j] for j in cols] == ["cat", "dog"]


#: the modules that choose and compose a batch's steps, and the kernel-level counts
COMPOSING = (
    "nbayes.text.classifier", "nbayes.text._batch", "nbayes.text._model",
    "nbayes.text._drivers.class_counts", "nbayes.text._drivers.hash_counts",
    "nbayes.text._drivers.token_streams", "nbayes.text.scoring",
)  # fmt: skip


@pytest.mark.parametrize(
    "params",
    [{}, {"model": "bernoulli"}, {"ngram_range": (1, 2)}, {"ngram_range": (1, 3)},
     {"stop_words": "english"}, {"hashing": True, "n_features": 256}],
)  # fmt: skip
def test_a_batch_enters_each_composing_module_at_most_twice(
    params: dict, benchmark_script: Any
) -> None:
    """The plan is chosen once: a batch (fit, weighted fit, partial_fit of a fitted model,
    predict) passes through the modules that compose its steps at most twice each."""
    docs = [f"{w} cat sat on the mat {w} dog" for w in ("red", "blue", "green")] * 4
    y = ["a", "b", "c"] * 4
    fitted = TextClassifier(**params).fit(docs, y)
    fitted.predict(docs[:2])
    calls = {
        "fit": lambda: TextClassifier(**params)._batch(docs, y, None, True),
        "weighted": lambda: TextClassifier(**params)._batch(docs, y, np.ones(len(y)), True),
        "partial_fit": lambda: fitted._batch(["zebra yak cat"] * 3, y[:3], None, False),
        "predict": lambda: fitted.predict(docs),
    }
    entries = benchmark_script("trace_batch_path").entries  # (a call back into a module
    # still on the stack is not an entry)
    for what, call in calls.items():
        call()  # first-use caches and imports are not a batch's way
        seen = entries(call)
        over = {m: k for m, k in seen.items() if m in COMPOSING and k > 2}
        assert not over, (what, over)


def test_every_traced_batch_enters_each_text_module_at_most_twice(benchmark_script: Any) -> None:
    """Issue 25 item 7: ``python benchmarks/trace_batch_path.py --max 2`` holds, i.e. in
    every scenario of the tracer (fits, Bernoulli, weighted, partial_fit, n-grams, hashed,
    fit_chunks, predict) no module of ``nbayes.text`` is entered more than twice: one
    hand-off to the kernel threads per counting, the character tables read with the
    documents, the plan's steps composed rather than re-entered."""
    trace = benchmark_script("trace_batch_path")
    over = {}
    for name, fn in trace.scenarios().items():
        fn()  # first-use caches and imports are not a batch's way
        seen = trace.entries(fn)
        assert seen, name  # the tracer sees the batch
        worst = {m: k for m, k in seen.items() if k > 2}
        if worst:
            over[name] = worst
    assert not over, over
