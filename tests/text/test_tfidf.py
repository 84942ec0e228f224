"""nbayes.text.TfidfVectorizer is scikit-learn's, counted by nbayes's compiled kernels.

Its counts are the very matrix scikit-learn's CountVectorizer makes (same values, same order
of the entries in each row), and scikit-learn's own TfidfTransformer weights and normalises
them: the results are compared bit for bit, never to a tolerance (the row norms sum the
same entries in the same order).
"""

from __future__ import annotations

import inspect
import pickle
import warnings
from collections.abc import Callable, Iterator
from typing import Any
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn import config_context
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction import text as sk_text
from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidf
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import Pipeline

from nbayes import ComplementNB, MultinomialNB
from nbayes.text import CountVectorizer, TfidfTransformer, TfidfVectorizer
from nbayes.text import _routes as routes
from nbayes.text.vectorizers import CountVectorizer as NbCount

from .conftest import load_slice

SMS, SMS_Y = load_slice("sms_slice.csv")
RT, RT_Y = load_slice("rt_slice.csv")

#: every weighting: norm x use_idf x smooth_idf x sublinear_tf x binary
WEIGHTINGS = [
    {"norm": norm, "use_idf": idf, "smooth_idf": smooth, "sublinear_tf": sub, "binary": binary}
    for norm in ("l1", "l2", None)
    for idf in (True, False)
    for smooth in (True, False)
    for sub in (False, True)
    for binary in (False, True)
]

#: a pairwise covering of WEIGHTINGS: every two settings meet in each of their values
PAIRWISE = [
    {"norm": norm, "use_idf": idf, "smooth_idf": smooth, "sublinear_tf": sub, "binary": binary}
    for norm, idf, smooth, sub, binary in [
        ("l1", True, True, False, False),
        ("l1", False, False, True, True),
        ("l2", True, False, True, False),
        ("l2", False, True, False, True),
        (None, True, True, True, True),
        (None, False, False, False, False),
    ]
]

#: counting settings: each compiled route (unigrams, pairs, composed n-grams, a fixed
#: vocabulary), pruning, stop words, float32, and scikit-learn's own analyzers
COUNTINGS = [
    {},
    {"lowercase": False},
    {"ngram_range": (1, 2)},
    {"ngram_range": (2, 2), "stop_words": "english"},
    {"ngram_range": (1, 3), "min_df": 2},
    {"min_df": 2, "max_df": 0.5},
    {"max_df": 3},
    {"max_features": 40},
    {"max_features": 25, "ngram_range": (1, 2), "min_df": 2},
    {"stop_words": "english"},
    {"stop_words": ["the", "to", "you", "σας"]},
    {"dtype": np.float32},
    {"dtype": np.float32, "ngram_range": (1, 2), "max_df": 0.9},
    {"vocabulary": ["free", "call", "the", "love", "movie", "zzz"]},
    {"analyzer": "char", "ngram_range": (2, 3)},
    {"analyzer": "char_wb", "ngram_range": (1, 4), "min_df": 2},
]


def _name(kw: dict) -> str:
    return ",".join(f"{k}={getattr(v, '__name__', v)}" for k, v in sorted(kw.items())) or "default"


def assert_same_csr(a: Any, b: Any) -> None:
    """Equal bit for bit: type, shape, dtypes, and every array in stored order."""
    assert type(a) is type(b)
    assert a.format == b.format == "csr"
    assert a.shape == b.shape
    assert a.dtype == b.dtype
    assert a.indices.dtype == b.indices.dtype and a.indptr.dtype == b.indptr.dtype
    np.testing.assert_array_equal(a.indptr, b.indptr)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.data, b.data)


class Outcome:
    """A call's result, or its exception, and the warnings it gave."""

    def __init__(self, call: Callable[[], Any]) -> None:
        self.value: Any = None
        self.error: BaseException | None = None
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                self.value = call()
            except Exception as exc:  # noqa: BLE001 - compared with scikit-learn's
                self.error = exc
        self.warnings = [(w.category, str(w.message)) for w in seen]

    def same_as(self, ref: Outcome) -> bool:
        """Same warnings and the same exception (type and message), or none."""
        assert self.warnings == ref.warnings
        assert type(self.error) is type(ref.error)
        assert str(self.error) == str(ref.error)
        return self.error is None


def check_tfidf(docs: list[Any], **kw: Any) -> None:
    """fit_transform, fit then transform: the vocabulary, idf_, matrices, errors and
    warnings of nbayes are scikit-learn's."""
    ours, ref = TfidfVectorizer(**kw), SkTfidf(**kw)
    want, got = Outcome(lambda: ref.fit_transform(docs)), Outcome(lambda: ours.fit_transform(docs))
    if not got.same_as(want):
        return
    assert ours.vocabulary_ == ref.vocabulary_
    assert list(ours.vocabulary_) == list(ref.vocabulary_)  # dict order too
    if ref.use_idf:
        assert ours.idf_.dtype == ref.idf_.dtype
        np.testing.assert_array_equal(ours.idf_, ref.idf_)
    else:
        assert not hasattr(ours, "idf_") and not hasattr(ref, "idf_")
    assert_same_csr(got.value, want.value)
    again = TfidfVectorizer(**kw)
    fitted = Outcome(lambda: again.fit(docs))
    assert fitted.same_as(Outcome(lambda: SkTfidf(**kw).fit(docs)))
    assert fitted.value is again and again.vocabulary_ == ref.vocabulary_
    queries = docs[::-1] + ["", "FREE free call now, the love: movie!"]
    want_t = Outcome(lambda: ref.transform(queries))
    for est in (ours, again):
        got_t = Outcome(lambda est=est: est.transform(queries))  # type: ignore[misc]
        # (smooth_idf=False and a given term no document has: an infinite idf, a warning
        # at the fit and scikit-learn's error at a transform that meets the term)
        if got_t.same_as(want_t):
            assert_same_csr(got_t.value, want_t.value)


# ---------------------------------------------------------------------------------------
# the class: scikit-learn's TfidfVectorizer with nbayes's counting
# ---------------------------------------------------------------------------------------


def test_mro_puts_nbayes_counting_before_sklearns_tfidf() -> None:
    assert TfidfVectorizer.__mro__[1:4] == (NbCount, SkTfidf, sk_text.CountVectorizer)
    assert TfidfTransformer is sk_text.TfidfTransformer

    def owner(name: str) -> type:
        return next(c for c in TfidfVectorizer.__mro__ if name in c.__dict__)

    for name in ("__init__", "_parameter_constraints", "transform", "idf_", "_check_params",
                 "__sklearn_tags__"):  # fmt: skip
        assert owner(name) is SkTfidf, name
    for name in ("_count_vocab", "_sort_features", "_limit_features"):
        assert owner(name) is NbCount, name
    assert owner("fit") is owner("fit_transform") is TfidfVectorizer
    assert TfidfVectorizer._parameter_constraints is SkTfidf._parameter_constraints
    assert inspect.signature(TfidfVectorizer) == inspect.signature(SkTfidf)
    assert TfidfVectorizer().get_params() == SkTfidf().get_params()
    assert TfidfVectorizer().get_params()["dtype"] is np.float64
    assert TfidfVectorizer().__sklearn_tags__() == SkTfidf().__sklearn_tags__()
    assert TfidfVectorizer.fit.__doc__ == SkTfidf.fit.__doc__
    assert TfidfVectorizer.fit_transform.__doc__ == SkTfidf.fit_transform.__doc__


@pytest.mark.parametrize(
    "kw",
    [{}, {"ngram_range": (1, 2)}, {"ngram_range": (2, 4), "binary": True},
     {"dtype": np.float32, "stop_words": "english", "min_df": 2}],
    ids=_name,
)  # fmt: skip
def test_counting_takes_the_compiled_route_in_the_asked_dtype(kw: dict) -> None:
    """With scikit-learn's counting disabled, every call still counts (and gives
    scikit-learn's result): the compiled kernels count, in the vectorizer's dtype."""
    ref = SkTfidf(**kw)
    want_fit = ref.fit_transform(SMS)  # the rows in scikit-learn's order of a fit
    want_t = ref.transform(RT)
    counted: list[tuple[str, np.dtype]] = []
    real_route, real_count = routes.vectorizer, NbCount._count_vocab

    def route(est: Any, docs: list[Any]) -> tuple[str, tuple[int, int]]:
        chosen = real_route(est, docs)
        counted.append((chosen[0], np.dtype(est.dtype)))
        return chosen

    def count(self: Any, docs: Any, fixed_vocab: bool) -> Any:
        vocabulary, X = real_count(self, docs, fixed_vocab)
        assert X.dtype == np.dtype(self.dtype)  # the counts are made in the asked dtype
        return vocabulary, X

    def refused(*args: Any) -> Any:
        raise AssertionError("scikit-learn's counting was used")

    with (
        mock.patch.object(sk_text.CountVectorizer, "_count_vocab", refused),
        mock.patch.object(routes, "vectorizer", route),
        mock.patch.object(NbCount, "_count_vocab", count),
    ):
        tv = TfidfVectorizer(**kw)
        assert_same_csr(tv.fit_transform(SMS), want_fit)
        assert_same_csr(tv.transform(RT), want_t)
        assert_same_csr(TfidfVectorizer(**kw).fit(SMS).transform(RT), want_t)
        with pytest.raises(AssertionError, match="scikit-learn's counting"):
            TfidfVectorizer(analyzer="char").fit(SMS)  # no kernel for char n-grams
    assert [r == routes.SKLEARN for r, _ in counted] == [False] * 4 + [True]
    assert {d for _, d in counted[:4]} == {np.dtype(kw.get("dtype", np.float64))}


# ---------------------------------------------------------------------------------------
# the numbers: bit for bit
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("counting", COUNTINGS, ids=_name)
@pytest.mark.parametrize("corpus", ["sms", "rt"])
def test_matches_sklearn_on_real_corpora_bit_for_bit(corpus: str, counting: dict) -> None:
    docs = SMS if corpus == "sms" else RT
    for weighting in PAIRWISE:
        check_tfidf(docs, **counting, **weighting)


@pytest.mark.parametrize(
    "counting", [{}, {"ngram_range": (1, 2), "min_df": 2}, {"dtype": np.float32}], ids=_name
)
def test_every_weighting_matches_sklearn(counting: dict) -> None:
    for weighting in WEIGHTINGS:
        check_tfidf(SMS, **counting, **weighting)


def test_matches_sklearn_when_the_kernels_use_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    from nbayes.text._drivers import threads

    monkeypatch.setenv("NBAYES_NUM_THREADS", "3")
    monkeypatch.setattr(threads, "PARALLEL_MIN_CHARS", 0)
    for kw in ({}, {"ngram_range": (1, 2)}, {"ngram_range": (1, 3), "sublinear_tf": True}):
        check_tfidf(SMS + RT, **kw)


TRICKY = (
    "aAzZ09_ éÉèàçñÑüÜöÖßẞİıIiΣσςΑΩάΆ\u0301\u0307\u0308\u200d\u200c"
    "中文字日本語한국어ﾃｽﾄＡＢ１２٣٤۵०१२²³½ⅣǅǄǆﬁﬂ😀👍🏽ЖжЁё"
    "ΐǰ\u0345\u1e9e\u2160\u2170ꙮ\U0001d400\U0001d41a"
    " \t\n\r.,;:!?'\"-()/\\@#$%&*+=<>[]{}|~^`\x00\x85\u2028\u00a0\u3000"
)
#: documents of a few repeated words: terms shared between documents (df > 1, pruning)
word_text = st.lists(
    st.sampled_from(["ab", "Ab", "cd", "é", "ΣΑΣ", "x1", " ", ". "]), max_size=12
).map("".join)
unicode_docs = st.lists(
    st.one_of(st.text(alphabet=TRICKY, max_size=60), st.text(max_size=40), word_text, st.just("")),
    min_size=1,
    max_size=12,
)


@pytest.mark.parametrize("counting", COUNTINGS, ids=_name)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=unicode_docs, weighting=st.sampled_from(WEIGHTINGS))
def test_matches_sklearn_on_random_unicode(
    docs: list[str], weighting: dict, counting: dict
) -> None:
    # the compiled kernels count even these tiny batches (scikit-learn's code is faster for
    # them, so the route would otherwise leave them to it)
    with mock.patch.object(routes, "_small", lambda docs: False):
        check_tfidf(docs, **counting, **weighting)


def test_iterables_and_non_str_documents() -> None:
    check_tfidf([d.encode("utf-8") for d in RT[:50]])
    check_tfidf(list(np.array(SMS)))  # numpy str_ documents: scikit-learn's route
    ref = SkTfidf().fit_transform(iter(RT))
    assert_same_csr(TfidfVectorizer().fit_transform(iter(RT)), ref)
    ref_t = SkTfidf().fit(RT).transform(RT)  # rows sorted by column, unlike a fit's
    assert_same_csr(TfidfVectorizer().fit(iter(RT)).transform(iter(RT)), ref_t)


def test_sparse_interface_follows_sklearns_config() -> None:
    for interface in ("sparray", "spmatrix"):
        with config_context(sparse_interface=interface):
            ours, ref = TfidfVectorizer(ngram_range=(1, 2)), SkTfidf(ngram_range=(1, 2))
            assert_same_csr(ours.fit_transform(SMS), ref.fit_transform(SMS))
            assert_same_csr(ours.transform(RT), ref.transform(RT))
            assert sp.issparse(ours.transform(RT))


# ---------------------------------------------------------------------------------------
# the estimator API, errors and warnings: scikit-learn's
# ---------------------------------------------------------------------------------------


def test_params_clone_pickle_and_attributes() -> None:
    tv = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, norm="l1")
    assert repr(tv) == repr(SkTfidf(ngram_range=(1, 2), min_df=2, sublinear_tf=True, norm="l1"))
    twin = clone(tv)
    assert type(twin) is TfidfVectorizer and twin.get_params() == tv.get_params()
    twin.set_params(norm="l2", use_idf=False)
    assert twin.norm == "l2" and not twin.use_idf and tv.norm == "l1"
    unfitted = pickle.loads(pickle.dumps(tv))
    assert type(unfitted) is TfidfVectorizer and unfitted.get_params() == tv.get_params()

    ref = SkTfidf(ngram_range=(1, 2), min_df=2, sublinear_tf=True, norm="l1").fit(SMS)
    tv.fit(SMS)
    assert sorted(vars(tv)) == sorted(vars(ref))  # the same fitted attributes, no others
    assert tv.fixed_vocabulary_ is ref.fixed_vocabulary_ is False
    assert not hasattr(ref, "stop_words_") and not hasattr(tv, "stop_words_")
    names = tv.get_feature_names_out()
    assert names.dtype == object and names.tolist() == ref.get_feature_names_out().tolist()
    X = tv.transform(RT)
    assert [t.tolist() for t in tv.inverse_transform(X)] == [
        t.tolist() for t in ref.inverse_transform(ref.transform(RT))
    ]
    back = pickle.loads(pickle.dumps(tv))
    assert type(back) is TfidfVectorizer and back.vocabulary_ == tv.vocabulary_
    np.testing.assert_array_equal(back.idf_, ref.idf_)
    assert_same_csr(back.transform(RT), X)
    assert_same_csr(clone(tv).fit(SMS).transform(RT), X)

    # idf_ can be given, as scikit-learn allows (from another fit of the same vocabulary)
    given_idf = TfidfVectorizer(vocabulary=ref.vocabulary_, ngram_range=(1, 2), norm="l1",
                                sublinear_tf=True)  # fmt: skip
    given_idf.idf_ = ref.idf_
    assert_same_csr(given_idf.transform(RT), ref.transform(RT))


def _fitted() -> TfidfVectorizer:
    return TfidfVectorizer().fit(SMS)


def _sk_fitted() -> SkTfidf:
    return SkTfidf().fit(SMS)


def _set_idf(est: Any, value: Any) -> None:
    est.idf_ = value


ERROR_CASES: dict[str, tuple[dict, Callable[[Any], Any]]] = {
    "norm l3": ({"norm": "l3"}, lambda v: v.fit(SMS)),
    "use_idf not bool": ({"use_idf": "yes"}, lambda v: v.fit_transform(SMS)),
    "sublinear_tf not bool": ({"sublinear_tf": 1.5}, lambda v: v.fit(SMS)),
    "max_features 0": ({"max_features": 0}, lambda v: v.fit_transform(SMS)),
    "ngram_range reversed": ({"ngram_range": (2, 1)}, lambda v: v.fit_transform(SMS)),
    "max_df < min_df": ({"min_df": 3, "max_df": 2}, lambda v: v.fit_transform(SMS)),
    "pruned to nothing": ({"min_df": 0.99}, lambda v: v.fit(SMS)),
    "empty vocabulary": ({}, lambda v: v.fit_transform(["", "!", "a b"] * 5)),
    "only stop words": ({"stop_words": "english"}, lambda v: v.fit(["the and of"] * 9)),
    "one string": ({}, lambda v: v.fit_transform("one document")),
    "one string to transform": ({}, lambda v: v.fit(SMS).transform("one document")),
    "empty given vocabulary": ({"vocabulary": []}, lambda v: v.fit(SMS)),
    "repeated given term": ({"vocabulary": ["free", "free"]}, lambda v: v.fit(SMS)),
    "int dtype warns": ({"dtype": np.int64}, lambda v: v.fit_transform(SMS).dtype),
    "float16 dtype": ({"dtype": np.float16}, lambda v: (v.fit_transform(SMS).dtype, v.idf_)),
    "unused token_pattern": ({"tokenizer": str.split}, lambda v: v.fit_transform(SMS).nnz),
    "stop words inconsistent": (
        {"stop_words": ["don't", "free"]},
        lambda v: v.fit_transform(SMS).nnz,
    ),
    "upper-case vocabulary": ({"vocabulary": ["Free", "call"]}, lambda v: v.fit(SMS).idf_),
    "bad utf-8": ({}, lambda v: v.fit([b"caf\xe9 au lait"] * 10)),
    "transform before fit": ({}, lambda v: v.transform(SMS)),
    "idf_ before fit": ({}, lambda v: v.idf_),
    "idf_ of another length": (
        {"vocabulary": ["free", "call"]},
        lambda v: _set_idf(v.fit(SMS), np.ones(3)),
    ),
    # scikit-learn's message reads len(self.vocabulary), None here: its TypeError
    "idf_ of another length, fitted vocabulary": (
        {},
        lambda v: _set_idf(v.fit(SMS), np.ones(3)),
    ),
    "idf_ without use_idf": ({"use_idf": False}, lambda v: _set_idf(v, np.ones(3))),
    "no idf_ without use_idf": ({"use_idf": False}, lambda v: v.fit(SMS).idf_),
    "features before fit": ({}, lambda v: v.get_feature_names_out()),
}


@pytest.mark.parametrize("case", ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_errors_and_warnings_are_sklearns(case: tuple[dict, Callable[[Any], Any]]) -> None:
    kw, call = case
    want = Outcome(lambda: call(SkTfidf(**kw)))
    got = Outcome(lambda: call(TfidfVectorizer(**kw)))
    if got.same_as(want) and want.value is not None:
        assert repr(got.value) == repr(want.value)
    assert want.error is not None or want.warnings, "each case raises or warns"
    if isinstance(want.error, NotFittedError):
        assert isinstance(got.error, NotFittedError)


def _state(est: Any) -> dict[str, int]:
    return {k: id(v) for k, v in vars(est).items()}


@pytest.mark.parametrize(
    ("kw", "docs"),
    [
        ({"min_df": 3, "max_df": 2}, SMS),  # max_df < min_df, after counting
        ({"min_df": 0.99}, SMS),  # nothing left after pruning
        ({"max_features": 3, "min_df": 0.99}, SMS),  # pruned after the sort
        ({}, ["", "!"] * 10),  # empty vocabulary
        ({"ngram_range": (1, 3), "min_df": 1000}, SMS),
        ({"norm": "l3"}, SMS),  # invalid setting
    ],
)
@pytest.mark.parametrize("method", ["fit", "fit_transform"])
def test_a_failing_refit_keeps_the_fitted_vectorizer(
    kw: dict, docs: list[str], method: str
) -> None:
    """nbayes's all-or-nothing fits (scikit-learn's failing refit keeps the old vocabulary
    with an unfitted idf: its transform and idf_ then raise)."""
    tv = TfidfVectorizer().fit(SMS[:100])
    X = tv.transform(SMS)
    params = tv.get_params()
    tv.set_params(**kw)
    before = _state(tv)
    with pytest.raises(ValueError):
        getattr(tv, method)(docs)
    assert _state(tv) == before  # no scratch attribute left behind either
    assert_same_csr(tv.set_params(**params).transform(SMS), X)

    def interrupted() -> Iterator[str]:
        yield from SMS[:30]
        raise KeyboardInterrupt

    before = _state(tv)
    with pytest.raises(KeyboardInterrupt):  # Ctrl-C in a long read
        getattr(tv, method)(interrupted())
    assert _state(tv) == before
    assert_same_csr(tv.transform(SMS), X)


# ---------------------------------------------------------------------------------------
# in scikit-learn's pipelines and searches, with nbayes's models
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", [MultinomialNB, ComplementNB])
def test_pipeline_with_nbayes_models_equals_sklearns_vectorizer(model: type) -> None:
    train, test = RT[:200], RT[200:]
    ours = Pipeline([("tfidf", TfidfVectorizer(ngram_range=(1, 2))), ("nb", model())])
    ref = Pipeline([("tfidf", SkTfidf(ngram_range=(1, 2))), ("nb", model())])
    ours.fit(train, RT_Y[:200])
    ref.fit(train, RT_Y[:200])
    np.testing.assert_array_equal(ours.predict_proba(test), ref.predict_proba(test))
    np.testing.assert_array_equal(ours.predict(test), ref.predict(test))
    np.testing.assert_array_equal(ours["nb"].feature_count_, ref["nb"].feature_count_)
    back = pickle.loads(pickle.dumps(ours))
    np.testing.assert_array_equal(back.predict_proba(test), ref.predict_proba(test))


def test_grid_search_over_tfidf_and_model_settings() -> None:
    grid = {
        "tfidf__norm": ["l1", "l2", None],
        "tfidf__sublinear_tf": [False, True],
        "tfidf__ngram_range": [(1, 1), (1, 2)],
        "nb__alpha": [0.1, 1.0],
    }
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    results = {}
    for name, vectorizer in (("ours", TfidfVectorizer()), ("ref", SkTfidf())):
        search = GridSearchCV(Pipeline([("tfidf", vectorizer), ("nb", MultinomialNB())]),
                              grid, cv=cv)  # fmt: skip
        results[name] = search.fit(SMS, SMS_Y)
    ours, ref = results["ours"], results["ref"]
    assert ours.best_params_ == ref.best_params_
    np.testing.assert_array_equal(
        ours.cv_results_["mean_test_score"], ref.cv_results_["mean_test_score"]
    )
    best = ours.best_estimator_["tfidf"]
    assert type(best) is TfidfVectorizer
    assert best.get_params() == ref.best_estimator_["tfidf"].get_params()
    np.testing.assert_array_equal(ours.predict_proba(RT), ref.predict_proba(RT))


def test_count_vectorizer_and_tfidf_transformer_compose_to_it() -> None:
    """CountVectorizer then TfidfTransformer is TfidfVectorizer, as in scikit-learn."""
    for kw in ({}, {"sublinear_tf": True, "norm": "l1", "smooth_idf": False}):
        counts = CountVectorizer(dtype=np.float64, ngram_range=(1, 2)).fit_transform(RT)
        composed = TfidfTransformer(**kw).fit_transform(counts)
        assert_same_csr(composed, TfidfVectorizer(ngram_range=(1, 2), **kw).fit_transform(RT))
