"""NBSVM: the recipe against a reference built from scikit-learn, the estimator API, the
explanations, the model file, model selection and the command line."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.calibration import CalibratedClassifierCV
from sklearn.exceptions import NotFittedError
from sklearn.feature_extraction.text import CountVectorizer as SkCountVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import (
    check_get_params_invariance,
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
    check_set_params,
)

import nbayes
from nbayes import NBSVM, InvalidParameterError, ModelFileError
from nbayes.model_selection import NBSearchCV
from nbayes.text.recipes import sentiment_preprocess

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def rt() -> tuple[list[str], np.ndarray]:
    """300 sentences of RT-s (150 pos, 150 neg)."""
    import csv

    with open(DATA / "rt_slice.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.reader(line for line in f if not line.startswith("#")))
    docs = [r[0] for r in rows[1:]]
    return docs, np.asarray([r[1] for r in rows[1:]])


@pytest.fixture(scope="module")
def rt3(rt: tuple[list[str], np.ndarray]) -> tuple[list[str], np.ndarray]:
    """The same sentences with every third one relabelled "mid": three classes."""
    docs, y = rt
    return docs, np.where(np.arange(len(y)) % 3 == 0, "mid", y)


def reference(docs, y, test, *, C=1.0, beta=0.25, ngram_range=(1, 2), loss="squared_hinge"):
    """Wang & Manning's recipe written out with scikit-learn and numpy (after nbayes's
    "sentiment" recipe): the decision values of ``test``, shape (n_test, n_problems)."""
    docs = [sentiment_preprocess(d) for d in docs]
    test = [sentiment_preprocess(d) for d in test]
    vec = SkCountVectorizer(binary=True, ngram_range=ngram_range)
    X = vec.fit_transform(docs).astype(np.float64)
    T = vec.transform(test).astype(np.float64)
    classes = np.unique(y)
    targets = classes[1:] if len(classes) == 2 else classes
    out = []
    for c in targets:
        p = 1.0 + np.asarray(X[y == c].sum(axis=0)).ravel()
        q = 1.0 + np.asarray(X[y != c].sum(axis=0)).ravel()
        r = np.log(p / p.sum()) - np.log(q / q.sum())
        if loss == "logistic":
            model = LogisticRegression(solver="liblinear", C=C, fit_intercept=False, random_state=0)
        else:
            model = LinearSVC(loss=loss, C=C, fit_intercept=False, dual=True, random_state=0)
        model.fit(X @ sp.diags(r), (y == c).astype(int))
        w = model.coef_[0]
        w = (1 - beta) * np.abs(w).mean() + beta * w
        out.append(T @ (w * r))
    return np.column_stack(out)


# ------------------------------------------------------------------------ the recipe
@pytest.mark.parametrize("params", [{}, {"C": 0.1, "beta": 0.5}, {"ngram_range": (1, 3)}])
def test_equals_the_recipe_written_out(rt, params):
    docs, y = rt
    train, test = docs[:200], docs[200:]
    model = NBSVM(random_state=0, **params).fit(train, y[:200])
    expected = reference(train, y[:200], test, **params)[:, 0]
    np.testing.assert_allclose(model.decision_function(test), expected, rtol=1e-10, atol=1e-12)


def test_multiclass_is_one_vs_rest_with_a_ratio_per_class(rt3):
    docs, y = rt3
    model = NBSVM(random_state=0).fit(docs[:200], y[:200])
    expected = reference(docs[:200], y[:200], docs[200:])
    np.testing.assert_allclose(model.decision_function(docs[200:]), expected, rtol=1e-10)
    assert model.ratio_.shape == model.coef_.shape == (3, len(model.vocabulary_))
    assert model.predict(docs[200:]).tolist() == model.classes_[expected.argmax(1)].tolist()


def test_logistic_loss_with_beta_1_is_logistic_regression_on_scaled_features(rt):
    docs, y = rt
    model = NBSVM(loss="logistic", beta=1.0, random_state=0, calibration=None)
    model.fit(docs[:200], y[:200])
    expected = reference(docs[:200], y[:200], docs[200:], loss="logistic", beta=1.0)[:, 0]
    np.testing.assert_allclose(model.decision_function(docs[200:]), expected, rtol=1e-10)
    p = 1 / (1 + np.exp(-expected))
    np.testing.assert_allclose(model.predict_proba(docs[200:]), np.column_stack([1 - p, p]))
    # calibrated (the default): the same decision values on the scale of held-out ones
    model.set_params(calibration="temperature").fit(docs[:200], y[:200])
    p = 1 / (1 + np.exp(-model.proba_scale_ * expected))
    np.testing.assert_allclose(model.predict_proba(docs[200:]), np.column_stack([1 - p, p]))


def test_ratio_is_the_log_count_ratio_of_the_nb_statistics(rt):
    docs, y = rt
    model = NBSVM().fit(docs, y)
    counts = model.nb_.feature_count_  # documents of each class holding each term
    presence = (model.vectorizer_.transform(model._docs(docs)) > 0).astype(float)
    np.testing.assert_array_equal(counts[1], np.asarray(presence[y == "pos"].sum(0)).ravel())
    p, q = 1 + counts[1], 1 + counts[0]
    np.testing.assert_allclose(model.ratio_[0], np.log(p / p.sum() / (q / q.sum())))


def test_beta_is_rederived_without_a_refit(rt):
    docs, y = rt
    model = NBSVM(random_state=0).fit(docs, y)
    solver_coef = model.solver_coef_.copy()
    model.set_params(beta=1.0)
    np.testing.assert_allclose(model.coef_, solver_coef * model.ratio_)
    model.set_params(beta=0.0)  # every weight the mean magnitude: the NB direction r
    w = np.abs(solver_coef).mean()
    np.testing.assert_allclose(model.coef_, w * model.ratio_)
    assert model.solver_coef_ is not solver_coef and np.array_equal(model.solver_coef_, solver_coef)
    fresh = NBSVM(random_state=0, beta=0.0).fit(docs, y)
    np.testing.assert_allclose(fresh.decision_function(docs), model.decision_function(docs))


def test_fit_intercept_scales_the_bias_by_beta(rt):
    docs, y = rt
    model = NBSVM(fit_intercept=True, random_state=0).fit(docs, y)
    assert model.solver_intercept_[0] != 0
    np.testing.assert_allclose(model.intercept_, 0.25 * model.solver_intercept_)


# ----------------------------------------------------------------- the estimator API
def test_predictions_agree_with_each_other(rt3):
    docs, y = rt3
    model = NBSVM(random_state=0).fit(docs, y)
    proba = model.predict_proba(docs)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (model.classes_[proba.argmax(1)] == model.predict(docs)).all()
    np.testing.assert_allclose(model.predict_log_proba(docs), np.log(proba))
    labels, top = model.predict_top(docs[:5], n=2)
    assert labels.shape == top.shape == (5, 2)
    assert (labels[:, 0] == model.predict(docs[:5])).all()
    assert (top[:, 0] >= top[:, 1]).all()
    with pytest.raises(ValueError, match=re.escape("n must be a positive integer; got 0.")):
        model.predict_top(docs, n=0)


def test_binary_decision_sign_is_the_second_class(rt):
    docs, y = rt
    model = NBSVM(random_state=0).fit(docs, y)
    d = model.decision_function(docs)
    assert d.shape == (len(docs),)
    assert (model.predict(docs) == np.where(d > 0, "pos", "neg")).all()
    assert model.score(docs, y) > 0.9


def test_integer_labels_and_sample_weight(rt):
    docs, y = rt
    y01 = (y == "pos").astype(int)
    model = NBSVM(random_state=0).fit(docs, y01)
    assert model.predict(docs[:3]).dtype.kind == "i"
    # a weight of 0 drops the document from the counts and from the solver's loss
    w = np.ones(len(docs))
    w[:50] = 0
    weighted = NBSVM(random_state=0, tol=1e-8, max_iter=100000).fit(docs, y01, sample_weight=w)
    dropped = NBSVM(random_state=0, tol=1e-8, max_iter=100000).fit(
        docs[50:] + docs[:50], np.r_[y01[50:], y01[:50]], sample_weight=np.r_[w[50:], w[:50]]
    )
    np.testing.assert_allclose(weighted.nb_.feature_count_, dropped.nb_.feature_count_)
    np.testing.assert_allclose(
        weighted.decision_function(docs), dropped.decision_function(docs), atol=1e-4
    )


def test_fit_chunks_equals_fit(rt):
    docs, y = rt
    chunks = [(docs[i : i + 70], y[i : i + 70]) for i in range(0, len(docs), 70)]
    a = NBSVM(random_state=0).fit_chunks(chunks)
    b = NBSVM(random_state=0).fit(docs, y)
    np.testing.assert_array_equal(a.decision_function(docs), b.decision_function(docs))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"loss": "l1"}, "The 'loss' parameter of NBSVM must be a str among"),
        ({"C": 0}, "The 'C' parameter of NBSVM must be a float in the range (0.0, inf). Got 0"),
        ({"beta": 1.5}, "The 'beta' parameter of NBSVM must be a float in the range [0.0, 1.0]"),
        ({"alpha": 0.0}, "The 'alpha' parameter of NBSVM must be a float in the range (0.0, inf)"),
        ({"max_iter": 0}, "The 'max_iter' parameter of NBSVM must be an int in the range [1, inf)"),
    ],
)
def test_bad_parameters_are_refused_at_fit(rt, params, message):
    docs, y = rt
    model = NBSVM(**params)  # __init__ stores them unchecked, as scikit-learn's
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        model.fit(docs, y)


def test_beta_set_after_fit_is_checked(rt):
    docs, y = rt
    model = NBSVM().fit(docs, y).set_params(beta=-1)
    with pytest.raises(InvalidParameterError, match=re.escape("The 'beta' parameter of NBSVM")):
        model.predict(docs)


def test_one_class_and_bad_documents(rt):
    docs, y = rt
    with pytest.raises(ValueError, match=re.escape("at least 2 classes") + ".*'pos'"):
        NBSVM().fit(docs[:5], ["pos"] * 5)
    with pytest.raises(ValueError, match="Iterable over raw text documents expected"):
        NBSVM().fit("one string", ["a"])
    with pytest.raises(NotFittedError):
        NBSVM().predict(docs)


def test_scikit_learn_checks_that_apply_to_a_string_classifier(rt):
    # the checks that build numeric arrays (check_estimator's others) cannot feed documents
    check_parameters_default_constructible("NBSVM", NBSVM())
    check_no_attributes_set_in_init("NBSVM", NBSVM())
    check_get_params_invariance("NBSVM", NBSVM())
    check_set_params("NBSVM", NBSVM())
    docs, y = rt
    model = NBSVM(random_state=0)
    assert model.fit(docs, y) is model
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.decision_function(docs), model.decision_function(docs))
    np.testing.assert_array_equal(  # fit is idempotent with a fixed random_state
        clone(model).fit(docs, y).decision_function(docs), model.decision_function(docs)
    )
    tags = model.__sklearn_tags__()
    assert tags.input_tags.string and not tags.input_tags.two_d_array


def test_works_inside_scikit_learn(rt):
    docs, y = rt
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(NBSVM(random_state=0), docs, y, cv=cv)
    assert scores.shape == (3,) and (scores > 0.5).all()
    calibrated = CalibratedClassifierCV(NBSVM(random_state=0), cv=3).fit(docs, y)
    np.testing.assert_allclose(calibrated.predict_proba(docs[:4]).sum(1), 1.0)


# ---------------------------------------------------------------------- explanations
def test_explain_gives_each_known_terms_weight(rt):
    docs, y = rt
    model = NBSVM(random_state=0).fit(docs, y)
    text = docs[0] + " zzzunknownword"
    exp = model.explain(text)
    cols = [model.vocabulary_[t] for t in exp.feature_names]
    assert "zzzunknownword" not in exp.feature_names
    assert set(exp.feature_names) == set(model.analyze(docs[0]))
    assert model.analyze("not a good film")[:3] == ["not", "not_a", "not_good"]
    np.testing.assert_allclose(exp.terms[1], model.coef_[0, cols])
    np.testing.assert_allclose(exp.terms[0], 0.0)
    np.testing.assert_allclose(exp.joint_log_likelihood[1], model.decision_function([text])[0])
    assert exp.prediction == model.predict([text])[0]
    np.testing.assert_allclose(exp.posterior["pos"], model.predict_proba([text])[0, 1])
    best = exp.top(1)["pos"]["for"][0]
    assert best[1] == pytest.approx(model.coef_[0, cols].max())
    assert "Prediction: " in str(exp)
    with pytest.raises(ValueError, match=re.escape("An NBSVM has no exact derivation")):
        model.explain(text, exact=True)
    with pytest.raises(TypeError, match=re.escape("explain takes one document (a str)")):
        model.explain([text])


def test_explain_multiclass_and_most_informative_features(rt3):
    docs, y = rt3
    model = NBSVM(random_state=0).fit(docs, y)
    exp = model.explain(docs[1])
    cols = [model.vocabulary_[t] for t in exp.feature_names]
    np.testing.assert_allclose(exp.terms, model.coef_[:, cols])
    np.testing.assert_allclose(exp.joint_log_likelihood, model.decision_function(docs[1:2])[0])
    top = model.most_informative_features(5)
    assert len(top) == 5
    term, cls, score = top[0]
    j = model.vocabulary_[term]
    assert score == pytest.approx(model.coef_[:, j].max()) == pytest.approx(model.coef_.max())
    assert cls == model.classes_[model.coef_[:, j].argmax()]


# ------------------------------------------------------------------------ model file
@pytest.mark.parametrize(
    "params",
    [
        {},
        {"loss": "logistic", "fit_intercept": True, "beta": 1.0},
        {"ngram_range": (1, 3), "preprocess": None, "min_df": 2},
    ],
)
def test_save_load_round_trip(tmp_path, rt3, params):
    docs, y = rt3
    model = NBSVM(random_state=0, **params).fit(docs, y)
    path = tmp_path / "m.nbayes"
    nbayes.save(model, path)
    loaded = nbayes.load(path)
    assert type(loaded) is NBSVM
    assert loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.decision_function(docs), model.decision_function(docs))
    np.testing.assert_array_equal(loaded.predict_proba(docs), model.predict_proba(docs))
    assert loaded.predict(docs).tolist() == model.predict(docs).tolist()
    assert nbayes.load_scorer(path) is None  # not a TextClassifier: the lean path declines
    loaded.set_params(beta=0.5)  # the file keeps the solver's weights: beta still applies
    np.testing.assert_allclose(loaded.coef_, model.set_params(beta=0.5).coef_)


def test_settings_changed_after_fit_take_effect_at_the_next_fit_also_after_a_load(tmp_path, rt):
    docs, y = rt
    model = NBSVM(random_state=0).fit(docs, y)
    before = model.decision_function(docs)
    model.set_params(preprocess=None, ngram_range=(1, 1), alpha=2.0, C=5.0)
    np.testing.assert_array_equal(model.decision_function(docs), before)
    nbayes.save(model, tmp_path / "m.nbayes")
    loaded = nbayes.load(tmp_path / "m.nbayes")
    np.testing.assert_array_equal(loaded.decision_function(docs), before)
    assert loaded.get_params()["ngram_range"] == (1, 1) and loaded.preprocess_ == "sentiment"
    refitted = loaded.fit(docs, y)
    assert refitted.preprocess_ is None and refitted.vectorizer_.ngram_range == (1, 1)


def test_load_refuses_an_inconsistent_file(tmp_path, rt):
    from nbayes.io import _registry
    from nbayes.io._arrays import ArrayReader, ArrayWriter

    docs, y = rt
    model = NBSVM(random_state=0).fit(docs, y)
    writer = ArrayWriter()
    encoded = _registry.encode(model, writer)
    assert type(_registry.decode(encoded, ArrayReader(writer.store))) is NBSVM
    short = dict(writer.store, solver_coef=writer.store["solver_coef"][:, :-1])
    with pytest.raises(ModelFileError, match=re.escape("'solver_coef' has shape")):
        _registry.decode(encoded, ArrayReader(short))
    encoded["model"]["fitted"]["preprocess"] = "no such recipe"
    with pytest.raises(ModelFileError, match=re.escape("['fitted'] holds invalid settings")):
        _registry.decode(encoded, ArrayReader(writer.store))
    encoded["model"]["vocabulary"] = encoded["model"]["vocabulary"][:-1]
    with pytest.raises(ModelFileError, match="features for a vocabulary of"):
        _registry.decode(encoded, ArrayReader(writer.store))


# ------------------------------------------------------------------- model selection
def test_nbsearchcv_equals_gridsearchcv(rt):
    docs, y = rt
    grid = {"C": [0.1, 1.0], "beta": [0.25, 1.0]}
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    ours = NBSearchCV(NBSVM(random_state=0), grid, cv=cv).fit(docs, y)
    theirs = GridSearchCV(NBSVM(random_state=0), grid, cv=cv).fit(docs, y)
    for k in range(3):
        np.testing.assert_allclose(
            ours.cv_results_[f"split{k}_test_score"], theirs.cv_results_[f"split{k}_test_score"]
        )
    assert ours.best_params_ == theirs.best_params_
    np.testing.assert_array_equal(
        ours.best_estimator_.decision_function(docs), theirs.best_estimator_.decision_function(docs)
    )


def test_nbsearchcv_fits_once_per_split_and_fitting_setting(rt, monkeypatch):
    docs, y = rt
    fits = []
    original = NBSVM.fit

    def counting_fit(self, *args, **kwargs):
        fits.append(self.C)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(NBSVM, "fit", counting_fit)
    grid = {"C": [0.1, 1.0], "beta": [0.0, 0.25, 0.5, 1.0]}
    NBSearchCV(NBSVM(random_state=0), grid, cv=3, refit=False).fit(docs, y)
    assert len(fits) == 2 * 3  # beta is re-derived, not refitted


# ------------------------------------------------------------------- command line
def test_cli_train_predict_explain_info(tmp_path, capsys, rt):
    from tests.cli.conftest import assert_error, run, write_csv

    docs, y = rt
    data = write_csv(tmp_path / "rt.csv", ["text", "label"], list(zip(docs, y, strict=True)))
    path = tmp_path / "m.nbayes"
    code, _, err = run(capsys, "train", data, "--model", "nbsvm", "-o", path)
    assert code == 0 and "Trained NBSVM on 300 documents" in err, err
    model = nbayes.load(path)
    assert model.get_params()["ngram_range"] == (1, 2)  # NBSVM's default, not --ngrams'
    code, out, _ = run(capsys, "predict", path, "--text", docs[0], "--text", docs[-1], "--proba",
                       "--format", "csv")  # fmt: skip
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "row,prediction,proba_neg,proba_pos"
    proba = model.predict_proba([docs[0], docs[-1]])
    assert lines[1].split(",")[1] == model.predict([docs[0]])[0]
    assert float(lines[1].split(",")[3]) == pytest.approx(proba[0, 1], rel=1e-5)
    code, out, _ = run(capsys, "explain", path, docs[0], "--color", "never")
    assert code == 0 and out.startswith(f"Prediction: {model.predict([docs[0]])[0]}")
    assert "Words (evidence for" in out
    code, out, _ = run(capsys, "info", path, "--top", "3")
    assert code == 0 and "model: text model (NBSVM, squared_hinge)" in out
    assert f"parameters: {model.coef_.size:,} (linear weights)" in out
    code, out, _ = run(capsys, "eval", path, data)
    assert code == 0 and "accuracy" in out
    code, _, err = run(capsys, "update", path, data)
    assert_error(code, err, "cannot learn or forget documents one batch at a time")
    code, _, err = run(capsys, "explain", path, docs[0], "--exact")
    assert_error(code, err, "An NBSVM has no exact derivation")
    code, _, err = run(capsys, "train", data, "--model", "nbsvm", "--hashing", "-o", path)
    assert_error(code, err, "--hashing does not apply to --model nbsvm")
    code, _, err = run(capsys, "train", data, "--model", "nbsvm", "--workers", "1", "-o", path)
    assert_error(code, err, "train it without them")
    code, _, _ = run(capsys, "train", data, "--model", "nbsvm", "--ngrams", "1-3", "-o", path)
    assert code == 0 and nbayes.load(path).ngram_range == (1, 3)


def test_a_class_without_weight_is_refused(rt):
    docs, y = rt
    weights = [0.0 if label == y[0] else 1.0 for label in y]
    with pytest.raises(ValueError, match="sum to 0"):
        nbayes.NBSVM().fit(docs, y, sample_weight=weights)


def test_forged_weights_and_long_ngrams_are_refused(tmp_path, rt):
    from nbayes.io._modelfile import read_model_file, write_model_file

    docs, y = rt
    path = tmp_path / "m.nbayes"
    nbayes.save(nbayes.NBSVM().fit(docs, y), path)
    metadata, arrays = read_model_file(path)
    arrays = dict(arrays)
    key = next(k for k in arrays if k.endswith("solver_coef"))
    arrays[key] = np.array(arrays[key]).copy()
    arrays[key][0, 0] = 1e308  # finite, valid checksum once rewritten
    write_model_file(tmp_path / "forged.nbayes", metadata, arrays)
    with pytest.raises(nbayes.ModelFileError, match="solver_coef"):
        nbayes.load(tmp_path / "forged.nbayes")
    long_docs = [" ".join(["ww"] * 70), " ".join(["vv"] * 70)] * 3
    model = nbayes.NBSVM(ngram_range=(60, 65)).fit(long_docs, ["a", "b"] * 3)
    with pytest.raises(ValueError, match="at most 64"):
        nbayes.save(model, tmp_path / "x.nbayes")


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["train", "{data}", "-o", "{out}", "--model", "nbsvm", "--input", "table"],
         "--model nbsvm learns from documents"),
        (["train", "{data}", "-o", "{out}", "--model", "nbsvm", "--binary"],
         "--binary does not apply to --model nbsvm"),
        (["sample", "{model}"], "cannot sample: it is a discriminative model"),
    ],
)  # fmt: skip
def test_cli_refuses_what_nbsvm_does_not_do(tmp_path, capsys, rt, argv, fragment):
    from tests.cli.conftest import assert_error, run, write_csv

    docs, y = rt
    data = write_csv(tmp_path / "rt.csv", ["text", "label"], list(zip(docs, y, strict=True)))
    model = tmp_path / "m.nbayes"
    nbayes.save(nbayes.NBSVM().fit(docs, y), model)
    args = [a.format(data=data, out=tmp_path / "o.nbayes", model=model) for a in argv]
    code, _, err = run(capsys, *args)
    assert_error(code, err, fragment)


def test_plots_of_its_likelihood_are_refused_with_advice(rt):
    from nbayes.plot import informative_words

    docs, y = rt
    with pytest.raises(TypeError, match="linear model on NB features.*explain"):
        informative_words(nbayes.NBSVM().fit(docs, y))


def test_the_in_place_derivations_equal_the_formulas() -> None:
    """The log-count ratios and the interpolated weights, computed on two arrays in place
    (a 20-class bigram model's load made eight 190 MB temporaries), are the formulas'
    values bit for bit."""
    from nbayes.nbsvm._ratios import log_count_ratios

    rng = np.random.default_rng(5)
    for trial in range(200):
        counts = rng.integers(0, 9, size=(int(rng.integers(2, 6)), int(rng.integers(1, 40))))
        counts = counts * (1.0 if trial % 2 else rng.random())
        alpha = [1.0, 0.5, 1e-3, 3.0][trial % 4]
        p = alpha + counts
        q = alpha + (counts.sum(axis=0, keepdims=True) - counts)
        log_p = np.log(p) - np.log(p.sum(axis=1, keepdims=True))
        log_q = np.log(q) - np.log(q.sum(axis=1, keepdims=True))
        assert log_count_ratios(counts, alpha).tobytes() == (log_p - log_q).tobytes()
    docs = ["good fun film", "bad dull film", "great fun", "dull and bad", "fun", "awful"] * 3
    y = ["pos", "neg", "pos", "neg", "pos", "neg"] * 3
    model = NBSVM().fit(docs, y)
    for beta in (0.0, 0.25, 1.0):
        model.set_params(beta=beta)
        w = model.solver_coef_
        magnitude = np.abs(w).mean(axis=1, keepdims=True)
        expected = ((1.0 - beta) * magnitude + beta * w) * model.ratio_
        assert model.coef_.tobytes() == expected.tobytes()


# ------------------------------------------------------------------ the probabilities
@pytest.mark.parametrize("three_classes", [False, True])
def test_the_held_out_decisions_are_those_of_a_refit(rt, rt3, three_classes):
    """The calibration's held-out decision values, derived from the one fit by count
    subtraction and a solver refitted on the rest's rows, are those of NBSVM().fit on the
    rest (the same solver limit), at every beta, sample weights counted."""
    from nbayes.nbsvm._calibration import FOLDS, MAX_ITER

    docs, y = rt3 if three_classes else rt
    sw = np.random.default_rng(0).uniform(0.5, 2.0, len(y))
    model = NBSVM(random_state=3).fit(docs, y, sample_weight=sw)
    held_out = model.held_out_
    codes = np.searchsorted(model.classes_, y)
    assert held_out.codes.tolist() == codes.tolist() and np.array_equal(held_out.weight, sw)
    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=3).split(docs, codes)
    for train, held in folds:
        rest = NBSVM(random_state=3, max_iter=MAX_ITER, calibration=None)
        rest.fit([docs[i] for i in train], y[train], sample_weight=sw[train])
        for beta in (0.25, 0.0, 1.0):
            want = rest.set_params(beta=beta).decision_function([docs[i] for i in held])
            got = held_out.decision(beta)[held]
            np.testing.assert_allclose(got, want.reshape(got.shape), rtol=1e-9, atol=1e-12)


def test_the_probabilities_are_the_scaled_decisions_and_change_no_prediction(rt, rt3):
    """predict_proba is the one-vs-rest logistic of proba_scale_ * decision (normalised over
    the classes; two classes: the logistic), the scale of least log loss on the held-out
    decisions against Platt's targets; the most probable class is predict's, and predict is
    that of the uncalibrated model, whose probabilities are those of the scale 1."""
    from scipy.optimize import minimize_scalar

    def ovr(scores: np.ndarray, a: float) -> np.ndarray:
        p = 1 / (1 + np.exp(-a * scores))
        return np.hstack([1 - p, p]) if p.shape[1] == 1 else p / p.sum(1, keepdims=True)

    for docs, y in (rt, rt3):
        model = NBSVM(random_state=0, calibration="temperature").fit(docs[:240], y[:240])
        plain = NBSVM(random_state=0, calibration=None).fit(docs[:240], y[:240])
        test = docs[240:]
        scores = model.decision_function(test).reshape(len(test), -1)
        a = model.proba_scale_
        np.testing.assert_allclose(model.predict_proba(test), ovr(scores, a), rtol=1e-12)
        np.testing.assert_allclose(plain.predict_proba(test), ovr(scores, 1.0), rtol=1e-12)
        assert model.classes_[model.predict_proba(test).argmax(1)].tolist() == (
            model.predict(test).tolist()
        )
        assert model.predict(test).tolist() == plain.predict(test).tolist()
        # the scale minimises the log loss of the held-out decisions (Platt's targets)
        held = model.held_out_.decision(0.25)
        codes = model.held_out_.codes
        k = len(model.classes_)
        mass = np.bincount(codes, minlength=k)
        own = (mass + 1) / (mass + 2)
        target = np.tile(((1 - own) / (k - 1))[codes][:, None], (1, k))
        target[np.arange(len(held)), codes] = own[codes]

        def loss(s: float, held: np.ndarray = held, target: np.ndarray = target) -> float:
            return float(-(target * np.log(np.maximum(ovr(held, s), 1e-300))).sum())

        best = minimize_scalar(loss, bounds=(1e-2, 1e2), method="bounded", options={"xatol": 1e-9})
        assert a == pytest.approx(best.x, rel=1e-6)
        assert a > 1  # the margins are too small to be probabilities as they are
    p = NBSVM(random_state=0).fit(*rt).predict_proba(rt[0])
    q = NBSVM(random_state=0, calibration=None).fit(*rt).predict_proba(rt[0])
    assert np.abs(p - 0.5).mean() > np.abs(q - 0.5).mean() + 0.1


def test_a_new_beta_rederives_the_scale_without_a_refit(tmp_path, rt):
    docs, y = rt
    model = NBSVM(random_state=0).fit(docs, y)
    scale = model.proba_scale_
    model.set_params(beta=0.8)
    fresh = NBSVM(random_state=0, beta=0.8).fit(docs, y)
    assert model.proba_scale_ == fresh.proba_scale_ != scale
    np.testing.assert_allclose(model.predict_proba(docs), fresh.predict_proba(docs), rtol=1e-12)
    nbayes.save(model, tmp_path / "m.nbayes")
    loaded = nbayes.load(tmp_path / "m.nbayes")
    assert loaded.proba_scale_ == model.proba_scale_
    np.testing.assert_array_equal(loaded.predict_proba(docs), model.predict_proba(docs))
    loaded.set_params(beta=0.25)
    assert loaded.proba_scale_ == scale
    with pytest.raises(InvalidParameterError, match="beta"):
        model.set_params(beta=2.0).proba_scale_  # noqa: B018


def test_too_few_documents_to_calibrate_warn_and_give_the_logistic(rt):
    docs, y = rt
    few = [docs[0], docs[1], docs[-1]]
    labels = [y[0], y[1], y[-1]]  # one document of the second class
    with pytest.warns(nbayes.exceptions.NBayesWarning,
                      match=r"NBSVM's probabilities are not calibrated: class '\w+' has 1 "
                      r"document\(s\), and the 2-fold cross-fit .* calibration=None"):  # fmt: skip
        model = NBSVM(random_state=0).fit(few, labels)
    assert model.held_out_ is None and model.proba_scale_ is None
    p = 1 / (1 + np.exp(-model.decision_function(few)))
    np.testing.assert_allclose(model.predict_proba(few)[:, 1], p)
    NBSVM(random_state=0, calibration=None).fit(few, labels)  # asked: no warning
    with pytest.raises(InvalidParameterError, match="'calibration' parameter of NBSVM must be"):
        NBSVM(calibration="platt").fit(docs, y)


def test_a_file_with_bad_held_out_decisions_is_refused(rt):
    from nbayes.io import _registry
    from nbayes.io._arrays import ArrayReader, ArrayWriter

    docs, y = rt
    writer = ArrayWriter()
    encoded = _registry.encode(NBSVM(random_state=0).fit(docs, y), writer)
    assert encoded["model"]["held_out"] == {"documents": len(y)}
    for name, value, message in [
        ("held_out/codes", np.full(len(y), 2, dtype=np.int64), "'codes' names class 2 of 2"),
        ("held_out/nb", np.full((len(y), 1), np.nan), "holds NaN or infinite values"),
        ("held_out/svm", np.full((len(y), 1), 1e300), "'svm' reaches 1e+300"),
        ("held_out/weight", -np.ones(len(y)), "holds negative values"),
        ("held_out/nb", np.zeros((len(y) - 1, 1)), "'held_out/nb' has shape"),
    ]:
        with pytest.raises(ModelFileError, match=re.escape(message)):
            _registry.decode(encoded, ArrayReader({**writer.store, name: value}))


def _ece(codes: np.ndarray, proba: np.ndarray, bins: int = 15) -> float:
    confidence, right = proba.max(1), proba.argmax(1) == codes
    which = np.minimum((confidence * bins).astype(np.intp), bins - 1)
    return float(sum((which == b).mean() * abs(right[which == b].mean()
                     - confidence[which == b].mean()) for b in np.unique(which)))  # fmt: skip


def test_the_shift_is_fitted_with_the_scale_and_changes_no_prediction(tmp_path, rt, rt3):
    """calibration="temperature_shift": with more than two classes the
    probabilities are the logistic of proba_scale_ * decision + proba_shift_ normalised, the
    pair of least held-out log loss (no lower than the scale alone's); the most probable
    class is predict's. Two classes: shift 0, the probabilities of "temperature"."""
    from scipy.special import expit

    from nbayes.nbsvm._calibration import _log_probabilities, _platt_targets

    docs, y = rt3
    model = NBSVM(random_state=0, calibration="temperature_shift").fit(docs[:240], y[:240])
    alone = NBSVM(random_state=0, calibration="temperature").fit(docs[:240], y[:240])
    a, t = model.proba_scale_, model.proba_shift_
    assert t != 0
    test = docs[240:]
    scores = model.decision_function(test)
    p = expit(a * scores + t)
    np.testing.assert_allclose(model.predict_proba(test), p / p.sum(1, keepdims=True), rtol=1e-12)
    assert (
        model.classes_[model.predict_proba(test).argmax(1)].tolist()
        == (model.predict(test).tolist())
        == alone.predict(test).tolist()
    )
    held = model.held_out_
    target = _platt_targets(held.codes, held.weight, 3)

    def loss(scale: float, shift: float) -> float:
        return float(-(target * _log_probabilities(held.decision(0.25), scale, shift)).sum())

    best = loss(a, t)
    assert best < loss(alone.proba_scale_, 0.0)
    for da, dt in ((1.01, 0.0), (0.99, 0.0), (1.0, 0.01), (1.0, -0.01)):
        assert best < loss(a * da, t + dt)  # a minimum
    nbayes.save(model, tmp_path / "m.nbayes")
    loaded = nbayes.load(tmp_path / "m.nbayes")
    assert (loaded.proba_scale_, loaded.proba_shift_) == (a, t)
    np.testing.assert_array_equal(loaded.predict_proba(test), model.predict_proba(test))
    docs, y = rt
    two = NBSVM(random_state=0).fit(docs[:240], y[:240])
    same = NBSVM(random_state=0, calibration="temperature").fit(docs[:240], y[:240])
    assert two.proba_shift_ == 0.0 and two.proba_scale_ == same.proba_scale_
    np.testing.assert_array_equal(two.predict_proba(docs), same.predict_proba(docs))


def test_binned_is_the_shifted_map_with_the_top_probability_binned(tmp_path, rt3, rt):
    """calibration="binned" (the default): with more than two classes the top probability
    of "temperature_shift" becomes its held-out bin's accuracy, the others scaled to fill
    the rest; no prediction changes; a file loads with the same probabilities. Two
    classes: the probabilities of "temperature"."""
    from nbayes.nbsvm._calibration import TopBins, probabilities

    docs, y = rt3
    model = NBSVM(random_state=0).fit(docs[:240], y[:240])
    assert model.calibration == "binned"
    test = docs[240:]
    shifted = probabilities(model.decision_function(test), model.proba_scale_,
                            model.proba_shift_)  # fmt: skip
    held = model.held_out_
    bins = TopBins.fit(
        probabilities(held.decision(model.beta), model.proba_scale_, model.proba_shift_),
        held.codes, held.weight,
    )  # fmt: skip
    got = model.predict_proba(test)
    np.testing.assert_array_equal(got, bins.apply(shifted))
    np.testing.assert_allclose(got.sum(1), 1.0, rtol=1e-12)
    assert model.classes_[got.argmax(1)].tolist() == model.predict(test).tolist()
    others = np.delete(shifted, shifted.argmax(1)[:, None] + 3 * np.arange(len(test))[:, None],
                       axis=None).reshape(len(test), 2)  # fmt: skip
    kept = np.delete(got, got.argmax(1)[:, None] + 3 * np.arange(len(test))[:, None],
                     axis=None).reshape(len(test), 2)  # fmt: skip
    np.testing.assert_allclose(kept[:, 0] * others[:, 1], kept[:, 1] * others[:, 0], atol=1e-15)
    nbayes.save(model, tmp_path / "m.nbayes")
    loaded = nbayes.load(tmp_path / "m.nbayes")
    np.testing.assert_array_equal(loaded.predict_proba(test), got)
    assert np.array_equal(loaded.set_params(calibration="temperature_shift").predict_proba(test),
                          shifted)  # fmt: skip
    docs, y = rt
    two = NBSVM(random_state=0).fit(docs[:240], y[:240])
    same = NBSVM(random_state=0, calibration="temperature").fit(docs[:240], y[:240])
    np.testing.assert_array_equal(two.predict_proba(docs), same.predict_proba(docs))


def test_top_bins_calibrate_an_overconfident_top_class_and_keep_the_argmax() -> None:
    """Probabilities whose top class is right less often than they say: bins fitted on one
    half calibrate the other (ECE at least halved); the most probable class never changes,
    also where the bin's value is below what the second class would get."""
    from nbayes.nbsvm._calibration import TopBins

    rng = np.random.default_rng(0)
    n, k = 8000, 5
    proba = rng.dirichlet(np.full(k, 0.3), n)
    top = proba.max(1)
    right = rng.random(n) < top**2  # overconfident: right with probability top^2
    best = proba.argmax(1)
    codes = np.where(right, best, (best + 1 + rng.integers(0, k - 1, n)) % k)
    half = n // 2
    bins = TopBins.fit(proba[:half], codes[:half], np.ones(half))
    assert len(bins.values) == len(bins.edges) + 1 <= 15
    assert ((bins.values > 0) & (bins.values < 1)).all()
    out = bins.apply(proba[half:])
    assert np.array_equal(out.argmax(1), proba[half:].argmax(1))
    np.testing.assert_allclose(out.sum(1), 1.0, rtol=1e-12)
    assert _ece(codes[half:], out) < 0.5 * _ece(codes[half:], proba[half:])
    close = np.array([[0.34, 0.33, 0.33], [0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    low = TopBins(np.array([0.9]), np.array([0.2, 0.95]))
    got = low.apply(close)
    assert got.argmax(1).tolist() == [0, 0, 0] and got[0, 0] > got[0, 1]
    np.testing.assert_allclose(got.sum(1), 1.0)


def test_a_file_of_the_scale_alone_loads_with_the_probabilities_it_gave(tmp_path, rt3):
    """A file written before the shift existed says calibration="temperature": it loads with
    that map (shift 0), not the new default, so its probabilities are unchanged."""
    docs, y = rt3
    old = NBSVM(random_state=0, calibration="temperature").fit(docs[:240], y[:240])
    nbayes.save(old, tmp_path / "old.nbayes")
    loaded = nbayes.load(tmp_path / "old.nbayes")
    assert loaded.calibration == "temperature" and loaded.proba_shift_ == 0.0
    np.testing.assert_array_equal(loaded.predict_proba(docs), old.predict_proba(docs))
    shifted = loaded.set_params(calibration="temperature_shift")  # asked: re-derived, no refit
    assert shifted.proba_shift_ != 0.0
    assert shifted.predict(docs).tolist() == old.predict(docs).tolist()


def test_the_shift_improves_the_calibration_of_many_classes() -> None:
    """Decision values whose classes follow a shifted logistic (10 classes): the scale and
    shift fitted on one half calibrate the other half better than the scale alone, with the
    same most probable class."""
    from scipy.special import expit

    from nbayes.nbsvm._calibration import fit_scale, fit_scale_shift, probabilities

    rng = np.random.default_rng(0)
    n, k = 6000, 10
    scores = rng.normal(-1.0, 0.6, (n, k))
    scores[np.arange(n), rng.integers(0, k, n)] += rng.gamma(2.0, 0.6, n)
    truth = expit(3.0 * scores + 2.0)
    truth /= truth.sum(1, keepdims=True)
    codes = (truth.cumsum(1) > rng.random((n, 1))).argmax(1)
    fit, test = slice(0, n // 2), slice(n // 2, n)
    weight = np.ones(n // 2)
    scale = fit_scale(scores[fit], codes[fit], weight, k)
    a, t = fit_scale_shift(scores[fit], codes[fit], weight, k)
    alone, shifted = probabilities(scores[test], scale), probabilities(scores[test], a, t)
    assert a == pytest.approx(3.0, rel=0.15) and t == pytest.approx(2.0, abs=0.4)
    assert np.array_equal(alone.argmax(1), shifted.argmax(1))
    assert _ece(codes[test], shifted) < 0.7 * _ece(codes[test], alone)
    with pytest.raises(ValueError, match="its shift is 0"):
        probabilities(scores[:, :1], 1.0, 0.5)


def test_two_fits_of_the_same_data_are_the_same_model(rt) -> None:
    """random_state=None is a fixed seed for the solver too (liblinear shuffled by the
    global random state: two `nbayes train --model nbsvm` files differed, a fuzz)."""
    docs, y = rt
    np.random.seed(1)  # noqa: NPY002 (the global state liblinear drew from)
    a = NBSVM().fit(docs, y)
    np.random.seed(2)  # noqa: NPY002
    b = NBSVM().fit(docs, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.decision_function(docs), b.decision_function(docs))
