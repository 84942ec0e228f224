"""The lean prediction path: TextScorer and load_scorer score exactly as TextClassifier does."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer

from nbayes import ModelFileError, MultinomialNB, TextClassifier, load, load_scorer, save
from nbayes.io._modelfile import read_model_file, write_model_file
from nbayes.text import _model
from nbayes.text._stop_words import ENGLISH_STOP_WORDS as OUR_STOP_WORDS
from nbayes.text.scoring import TextScorer

from .conftest import load_slice

SMS, SMS_Y = load_slice("sms_slice.csv")
TRAIN, TRAIN_Y = SMS[:200], SMS_Y[:200]
EXTRA = ["", "zzz qqq", "FREE FREE free WIN win", "İstanbul ΣΑΣ straße", "not good at all, 7/10"]
TEST = SMS[200:] + EXTRA
ONE = [*SMS[200:204], *EXTRA]

SETTINGS: list[dict[str, Any]] = [
    {},
    {"model": "bernoulli"},
    {"model": "complement"},
    {"model": "complement", "norm": True},
    {"binary": True},
    {"stop_words": "english"},
    {"ngram_range": (1, 2)},
    {"ngram_range": (2, 2), "stop_words": "english"},
    {"model": "bernoulli", "ngram_range": (1, 2)},
    {"min_df": 2, "max_df": 0.5, "max_features": 150},
    {"lowercase": False, "alpha": 0.3},
    {"preprocess": "sentiment", "binary": True},
    {"class_prior": [0.3, 0.7], "fit_prior": False},
    {"alpha": 0.0},  # log 0: the weights are not finite
    {"alpha": 0.0, "model": "bernoulli"},
    {"hashing": True, "n_features": 2**10},
    {"hashing": True, "n_features": 2**8, "binary": True, "stop_words": "english"},
    {"hashing": True, "n_features": 2**10, "model": "bernoulli"},
    {"hashing": True, "n_features": 2**10, "alpha": 0.0},
    {"hashing": True, "n_features": 2**10, "ngram_range": (1, 2)},
]
IDS = [",".join(f"{k}={v}" for k, v in kw.items()) or "default" for kw in SETTINGS]


def exact_supported(kw: dict[str, Any]) -> bool:
    # complement has no rational derivation; a Bernoulli one over a large vocabulary (one
    # factor per known term) grows past the digits Python prints
    model = kw.get("model", "multinomial")
    return model == "multinomial" or (model == "bernoulli" and "ngram_range" not in kw)


def assert_same_explanation(a: Any, b: Any) -> None:
    assert str(a) == str(b)
    assert list(a.feature_names) == list(b.feature_names)
    for name in ("values", "terms", "joint_log_likelihood", "log_posterior", "log_prior"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    np.testing.assert_array_equal(a.classes, b.classes)


def assert_same_predictions(ours: Any, ref: Any, kw: dict[str, Any]) -> None:
    """Every prediction method, on a batch and document by document: equal, not close."""
    np.testing.assert_array_equal(ours.classes_, ref.classes_)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # unsmoothed models: undecidable rows warn alike
        for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba", "predict"):
            np.testing.assert_array_equal(getattr(ours, method)(TEST), getattr(ref, method)(TEST))
            for doc in ONE:
                np.testing.assert_array_equal(
                    getattr(ours, method)([doc]), getattr(ref, method)([doc])
                )
        for a, b in zip(ours.predict_top(TEST, n=2), ref.predict_top(TEST, n=2), strict=True):
            np.testing.assert_array_equal(a, b)
        for doc in ONE:
            assert ours.analyze(doc) == ref.analyze(doc)
            assert_same_explanation(ours.explain(doc), ref.explain(doc))
            if exact_supported(kw) and not kw.get("hashing"):
                assert_same_explanation(ours.explain(doc, exact=True), ref.explain(doc, exact=True))


@pytest.fixture(params=SETTINGS, ids=IDS)
def saved(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[dict, TextClassifier, Path]:
    kw = request.param
    clf = TextClassifier(**kw).fit(TRAIN, TRAIN_Y)
    path = tmp_path / "model.nbayes"
    save(clf, path)
    return kw, clf, path


def test_load_scorer_predicts_and_explains_as_the_loaded_estimator(saved: Any) -> None:
    kw, _, path = saved
    scorer = load_scorer(path)
    assert isinstance(scorer, TextScorer)
    assert_same_predictions(scorer, load(path), kw)


def test_scorer_from_statistics_equals_the_estimators_own(saved: Any) -> None:
    # the same statistics: a fit keeps the memory layout of its count arrays, so a fitted
    # model and its saved copy may differ in the last bit, and each is compared with its
    # own kind
    kw, clf, _ = saved
    terms = None if clf.hashing else clf._terms()
    scorer = TextScorer.from_statistics(clf._stats, terms, clf.get_params())
    assert_same_predictions(scorer, clf, kw)
    np.testing.assert_array_equal(scorer.feature_log_prob_, clf.feature_log_prob_)
    np.testing.assert_array_equal(scorer.class_log_prior_, clf.class_log_prior_)
    assert list(scorer.feature_names) == list(clf.get_feature_names_out())


def test_the_estimator_predicts_through_its_scorer() -> None:
    clf = TextClassifier(alpha=0.5).fit(TRAIN, TRAIN_Y)
    scorer = clf._scorer()
    assert clf._scorer() is scorer  # cached with the derivation
    calls: list[int] = []
    original = scorer.score_documents

    def spy(docs: list[str], count: Any = None) -> np.ndarray:
        calls.append(len(docs))
        return original(docs, count)

    scorer.score_documents = spy  # type: ignore[method-assign]
    clf.predict(TEST)
    clf.predict_proba(TEST[:1])
    clf.predict_top(TEST, n=1)
    assert calls == [len(TEST), 1, len(TEST)]
    # new smoothing, new statistics: a new scorer, whose predictions follow
    before = clf.predict_proba(TEST)
    clf.set_params(alpha=2.0)
    assert clf._scorer() is not scorer
    after = clf.predict_proba(TEST)
    assert not np.array_equal(before, after)
    refit = TextClassifier(alpha=2.0).fit(TRAIN, TRAIN_Y)
    np.testing.assert_array_equal(after, refit.predict_proba(TEST))
    scorer = clf._scorer()
    clf.update(["a completely new word: zyzzyva"], ["spam"])
    assert clf._scorer() is not scorer
    assert "zyzzyva" in clf._scorer().feature_names


def test_scorer_matches_scikit_learn() -> None:
    # an independent reference: CountVectorizer + scikit-learn's MultinomialNB
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
    from sklearn.pipeline import make_pipeline

    ref = make_pipeline(CountVectorizer(ngram_range=(1, 2)), SkMultinomialNB(alpha=0.7))
    ref.fit(TRAIN, TRAIN_Y)
    clf = TextClassifier(alpha=0.7, ngram_range=(1, 2)).fit(TRAIN, TRAIN_Y)
    scorer = TextScorer.from_statistics(clf._stats, clf._terms(), clf.get_params())
    np.testing.assert_allclose(scorer.predict_log_proba(TEST), ref.predict_log_proba(TEST),
                               rtol=1e-10, atol=1e-10)  # fmt: skip
    assert (scorer.predict(TEST) == ref.predict(TEST)).all()


def test_scorer_counts_as_the_estimator_transforms(saved: Any) -> None:
    _, clf, path = saved
    scorer = load_scorer(path)
    assert scorer is not None
    rows = scorer.count(scorer.documents(TEST))
    X = clf.transform(TEST)
    np.testing.assert_array_equal(rows.toarray(), X.toarray())
    assert rows.data.dtype == X.data.dtype


def test_derivation_warnings_show_on_first_use(tmp_path: Path) -> None:
    clf = TextClassifier(alpha=1e-12, force_alpha=False)
    with pytest.warns(UserWarning, match="alpha too small"):
        clf.fit(TRAIN, TRAIN_Y).predict(TEST[:1])
    save(clf, tmp_path / "m.nbayes")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scorer = load_scorer(tmp_path / "m.nbayes")  # silent, as nbayes.load
    assert scorer is not None
    with pytest.warns(UserWarning, match="alpha too small"):
        got = scorer.predict_proba(TEST)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(scorer.predict_proba(TEST), got)  # once only
    with pytest.warns(UserWarning, match="alpha too small"):  # as the estimator, loaded
        np.testing.assert_array_equal(got, load(tmp_path / "m.nbayes").predict_proba(TEST))


def test_other_model_types_are_left_to_load(tmp_path: Path) -> None:
    save(MultinomialNB().fit([[1, 0], [0, 1]], ["a", "b"]), tmp_path / "m.nbayes")
    assert load_scorer(tmp_path / "m.nbayes") is None


def _edited(tmp_path: Path, change: Any = None, arrays_change: Any = None) -> Path:
    path = tmp_path / "m.nbayes"
    save(TextClassifier().fit(TRAIN, TRAIN_Y), path)
    metadata, arrays = read_model_file(path)
    if change is not None:
        change(metadata["model"])
    if arrays_change is not None:
        arrays_change(arrays)
    write_model_file(path, metadata, arrays)
    return path


def _set_hp(name: str, value: Any) -> Any:
    def change(d: dict[str, Any]) -> None:
        d["hyperparameters"][name] = value

    return change


@pytest.mark.parametrize(
    ("change", "arrays_change"),
    [
        (_set_hp("alpha", -1.0), None),
        (_set_hp("model", "svm"), None),
        (_set_hp("ngram_range", {"type": "tuple", "dtype": "int64", "values": [2, 1]}), None),
        (_set_hp("class_prior", {"type": "list", "dtype": "float64", "values": [1.0]}), None),
        (lambda d: d["hyperparameters"].pop("norm"), None),
        (lambda d: d.update(n_docs=1), None),
        (lambda d: d.update(vocabulary={"n_terms": d["vocabulary"]["n_terms"] - 1}), None),
        (None, lambda a: a.update({"vocabulary/offsets": a["vocabulary/offsets"][::-1].copy()})),
        (None, lambda a: a.update({"vocabulary/bytes": np.full_like(a["vocabulary/bytes"], 0xFF)})),
        (None, lambda a: a.update(extra=np.zeros(3))),
        (None, lambda a: a.update(class_count=-a["class_count"])),
    ],
)
def test_load_scorer_rejects_what_load_rejects(
    tmp_path: Path, change: Any, arrays_change: Any
) -> None:
    path = _edited(tmp_path, change, arrays_change)
    with pytest.raises(ModelFileError) as full:
        load(path)
    with pytest.raises(ModelFileError) as lean:
        load_scorer(path)
    assert str(lean.value) == str(full.value)


def test_a_model_that_keeps_no_term_loads_but_does_not_score(tmp_path: Path) -> None:
    # min_df above the documents learnt: a model the library holds (streaming, unlearning)
    path = _edited(tmp_path, _set_hp("min_df", 10_000))
    assert load(path).min_df == 10_000
    with pytest.raises(ModelFileError, match="it keeps no term yet, so it cannot predict"):
        load_scorer(path)


def test_shared_constants_agree_with_their_sources() -> None:
    assert _model.PARAM_NAMES == tuple(TextClassifier._get_param_names())
    assert OUR_STOP_WORDS == ENGLISH_STOP_WORDS


def test_scorer_input_errors_are_the_estimators() -> None:
    clf = TextClassifier().fit(TRAIN, TRAIN_Y)
    scorer = TextScorer.from_statistics(clf._stats, clf._terms(), clf.get_params())
    for bad in ("one string", [b"bytes"], 3):
        with pytest.raises(ValueError) as ours:
            scorer.predict(bad)
        with pytest.raises(ValueError) as ref:
            clf.predict(bad)
        assert str(ours.value) == str(ref.value)
    with pytest.raises(ValueError, match="takes one document"):
        scorer.explain(["a list"])  # type: ignore[arg-type]


def test_explain_scores_as_predict_of_the_one_document(saved: Any) -> None:
    """explain(doc)'s joint log-likelihood and posterior are predict([doc])'s, bit for bit
    (both read the rows of the document's terms; explain made a pass over the whole
    table, which also summed in another order), and the document's row of predict of a
    batch (what a server's /predict answers beside its /explain)."""
    kw, clf, path = saved
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for model in (clf, load(path), load_scorer(path)):
            batch = model.predict_log_proba([*ONE, *TRAIN])
            for i, doc in enumerate(ONE):
                exp = model.explain(doc)
                jll = model.predict_joint_log_proba([doc])[0]
                np.testing.assert_array_equal(exp.joint_log_likelihood, jll)
                np.testing.assert_array_equal(exp.log_posterior, model.predict_log_proba([doc])[0])
                np.testing.assert_array_equal(exp.log_posterior, batch[i])


@pytest.mark.parametrize("kw", [kw for kw in SETTINGS if kw.get("model") == "bernoulli"
                                and not kw.get("hashing")])  # fmt: skip
def test_a_bernoulli_explanation_finds_the_documents_words_by_lookup(
    kw: dict[str, Any], tmp_path: Path
) -> None:
    """Its explanation holds every word of the vocabulary; the document's words are
    looked up in the model's vocabulary, not found by a scan of a million names."""
    clf = TextClassifier(**kw).fit(TRAIN, TRAIN_Y)
    save(clf, tmp_path / "model.nbayes")
    doc = "free entry to win a prize zzzunknown"
    for model in (clf, load_scorer(tmp_path / "model.nbayes")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # alpha=0
            exp = model.explain(doc)
        assert exp.lookup is not None
        scanned = {n: j for j, n in enumerate(exp.feature_names)}
        words = model.analyze(doc)
        assert exp.feature_index(words) == {w: scanned[w] for w in words if w in scanned}
        assert "zzzunknown" not in exp.feature_index(words)
