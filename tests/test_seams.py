"""Typed seams where data crosses modules (issue 25, item 5): a fitted likelihood is one
value, and TextClassifier's derived values and caches are named.
``benchmarks/count_seams.py`` counts what is left of the tuples and string keys (87 at
main 90242be: 17 likelihood tuples, 5 parameters of explain_row beyond 5, 22 derived
values by key, 39 caches by position, 4 cache flags by name; 14 now, the caches by
position of modules this step leaves to others)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nbayes
from nbayes import BernoulliNB, GaussianNB, MultinomialNB, TextClassifier
from nbayes._families.fitted import FittedLikelihood
from nbayes.explain import explain_row

#: caches by position left, in modules this step does not own (the spam filter's
#: statistics cache, the compiled lookup's table cache, NBSVM's and model selection's)
ELSEWHERE = ("spam/", "text/_drivers/lookup.py", "nbsvm/", "model_selection/")


def test_no_likelihood_tuple_and_no_derived_value_by_key_is_left(benchmark_script: Any) -> None:
    found = benchmark_script("count_seams").count(Path(nbayes.__file__).parent)
    for kind in (
        "likelihood tuples",
        "explain_row parameters",
        "derived by key",
        "cache flags by name",
    ):
        assert found[kind] == [], (kind, found[kind])
    mine = [hit for hit in found["caches by position"] if not hit[0].startswith(ELSEWHERE)]
    assert mine == []


def test_the_counter_sees_what_it_should(benchmark_script: Any) -> None:
    counter = benchmark_script("count_seams")
    code = (
        "family, d, _ = model.likelihood()\n"
        "n = self._family_view()[1]\n"
        "X = f.sample(*self._family_view(), codes)\n"
        "def likelihood(self) -> tuple[Family, dict, Any]: ...\n"
        "def _parameter_view(self): ...\n"
        "def explain_row(a, b, c, d, e, f, g): ...\n"
        "kept = model._derived()['kept']\n"
        "voc = selection.get('vocabulary')\n"
        "out = {'kept': k, 'inner_stats': s}\n"
        "if cache[0] is stats and cache[1] == key: pass\n"
        "self._keep_cache('_cache', (stats, key, derived))\n"
        "changed = self.__dict__['_recounting'][2]\n"
        "for given, kept, rows in memo: pass\n"
        "if '_transform_memo' in self.__dict__: pass\n"
        "X = self.__dict__.pop('_memo_given', None)\n"
    )
    found = counter.count_source(code)
    assert {kind: len(hits) for kind, hits in found.items()} == {
        "likelihood tuples": 5,
        "explain_row parameters": 2,
        "derived by key": 3,
        "caches by position": 5,
        "cache flags by name": 2,
    }
    named = (
        "fitted = model.likelihood()\n"
        "family, d = fitted.family, fitted.derived\n"
        "kept = model._scorer().selection.kept\n"
        "if cache is not None and cache.stats is stats: pass\n"
        "self._keep_cache('_cache', Cached(stats, key, derived))\n"
        "def explain_row(fitted, X, values, exact, jll): ...\n"
        "flp = d['feature_log_prob']\n"  # a family's derivation: its own keys
    )
    assert all(hits == [] for hits in counter.count_source(named).values())


X = np.array([[2, 0, 1], [0, 3, 1], [1, 1, 0], [0, 0, 2]])
Y = np.array(["a", "b", "a", "b"])


@pytest.mark.parametrize(
    "model",
    [MultinomialNB(), BernoulliNB(), GaussianNB()],
    ids=["multinomial", "bernoulli", "gaussian"],
)
def test_likelihood_is_one_frozen_value_that_unpacks_as_the_old_tuple(model: Any) -> None:
    model.fit(X, Y)
    fitted = model.likelihood()
    assert isinstance(fitted, FittedLikelihood)
    family, derived, stats = fitted  # the tuple earlier versions returned
    assert family is fitted.family and derived is fitted.derived and stats is fitted.stats
    assert fitted.n_features == 3 and fitted.classes.tolist() == ["a", "b"]
    np.testing.assert_array_equal(fitted.class_log_prior, model._class_log_prior())
    np.testing.assert_allclose(
        fitted.joint_log_likelihood(model._check_X(X)), model.predict_joint_log_proba(X)
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        fitted.family = family  # type: ignore[misc]
    assert "FittedLikelihood" in repr(fitted) and "3 features" in repr(fitted)


def test_explain_row_reads_the_fitted_likelihood() -> None:
    model = MultinomialNB().fit(X, Y)
    x = model._check_X(X[:1])
    fitted = dataclasses.replace(model.likelihood(), feature_names=["u", "v", "w"])
    got = explain_row(fitted, x, X[0].astype(float), exact=True)
    want = model.explain(X[0], exact=True, feature_names=["u", "v", "w"])
    assert got.derivation() == want.derivation()
    assert got.feature_names == ["u", "v", "w"]
    np.testing.assert_array_equal(got.terms, want.terms)
    unnamed = explain_row(model.likelihood(), x, X[0].astype(float))
    assert unnamed.feature_names == ["x0", "x1", "x2"]


def test_a_text_models_likelihood_names_its_terms_and_finds_them() -> None:
    clf = TextClassifier().fit(["free money", "lunch at noon", "free lunch"], ["s", "h", "h"])
    fitted = clf.likelihood()
    assert list(fitted.feature_names or ()) == list(clf.get_feature_names_out())
    assert fitted.lookup is not None and fitted.lookup["lunch"] == clf.vocabulary_["lunch"]
    assert fitted is clf._scorer().fitted  # one value, cached with the derivation
    assert fitted.params["alpha"] == 1.0
    clf.set_params(alpha=0.5)
    assert clf.likelihood() is not fitted and clf.likelihood().params["alpha"] == 0.5
