"""The counting route chooser: each setting takes the route its table documents."""

from __future__ import annotations

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


def test_documents_and_batch_size_decide_too() -> None:
    est = CountVectorizer()
    assert routes.vectorizer(est, [*DOCS, b"bytes"])[0] == routes.SKLEARN
    assert routes.vectorizer(est, ["tiny", "batch"])[0] == routes.SKLEARN  # no kernel setup
    for bad in ({"dtype": np.int64}, {"norm": "l3"}, {"n_features": 0}, {"n_features": True}):
        assert routes.hashing_vectorizer(HashingVectorizer(**bad), DOCS)[0] == routes.SKLEARN


@pytest.mark.parametrize(
    ("kw", "route"),
    [
        ({"hashing": False, "weighted": False, "ngram": (1, 1), "fresh": True}, routes.FIT_TERMS),
        ({"hashing": False, "weighted": False, "ngram": (1, 2), "fresh": True}, routes.CLASS_SUMS),
        ({"hashing": False, "weighted": False, "ngram": (1, 1)}, routes.CLASS_SUMS),
        ({"hashing": False, "weighted": True, "ngram": (1, 1), "fresh": True},
         routes.WEIGHTED_ROWS),
        ({"hashing": True, "weighted": False, "ngram": (1, 1)}, routes.HASHED_SUMS),
        ({"hashing": True, "weighted": True, "ngram": (1, 1)}, routes.HASHED_WEIGHTED),
        ({"hashing": True, "weighted": False, "ngram": (1, 1), "stream": True},
         routes.HASHED_INTO),
        # n-grams too: hash_into counts them through the token streams (no sparse table)
        ({"hashing": True, "weighted": False, "ngram": (1, 2), "stream": True},
         routes.HASHED_INTO),
    ],
)  # fmt: skip
def test_classifier_batches_follow_the_table(kw: dict, route: str) -> None:
    assert routes.batch(**kw) == route


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
