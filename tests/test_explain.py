"""nbayes.explain: the ranking of evidence (``Explanation.top``, ``evidence``,
``feature_index``) against the plain formulas it replaces.

``top`` selects the k strongest features per class without sorting a whole row (a
Bernoulli explanation of a bigram model holds 1.2 million words: its full stable sort per
class made ``nbayes explain`` take 29 s); it must list exactly what the stable sort did.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from nbayes import BernoulliNB, MultinomialNB
from nbayes.explain import Explanation


def reference_relative(terms: np.ndarray) -> np.ndarray:
    n = terms.shape[0]
    if n == 1:
        return terms.copy()
    with np.errstate(invalid="ignore"):
        rel = terms - (terms.sum(axis=0, keepdims=True) - terms) / (n - 1)
        # a class's own infinite term: the others' terms summed without it
        for i, j in zip(*np.nonzero(np.isnan(rel) & np.isinf(terms)), strict=True):
            rel[i, j] = terms[i, j] - np.delete(terms[:, j], i).sum() / (n - 1)
    return np.where(np.isnan(rel), 0.0, rel)


def reference_top(exp: Explanation, k: int) -> dict:
    """What ``top`` computed before: a stable sort of every class's whole row."""
    rel = reference_relative(exp.terms)
    out = {}
    for i, cls in enumerate(exp.classes.tolist()):
        r = rel[i]
        order = np.argsort(-r, kind="stable")
        pro = [(exp.feature_names[j], float(r[j])) for j in order[:k] if r[j] > 0]
        order = np.argsort(r, kind="stable")
        con = [(exp.feature_names[j], float(r[j])) for j in order[:k] if r[j] < 0]
        out[cls] = {"for": pro, "against": con}
    return out


def explanation(terms: np.ndarray) -> Explanation:
    n_classes, n_features = terms.shape
    return Explanation(
        classes=np.array([f"c{i}" for i in range(n_classes)]),
        feature_names=[f"f{j}" for j in range(n_features)],
        values=np.ones(n_features),
        log_prior=np.zeros(n_classes),
        terms=terms,
        joint_log_likelihood=np.zeros(n_classes),
        log_posterior=np.full(n_classes, -np.log(n_classes)),
    )


# few distinct values (ties everywhere), infinities and NaN, as log-probabilities give
VALUES = st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, -np.inf, np.inf, np.nan])
TERMS = st.tuples(st.integers(1, 24), st.integers(0, 40)).flatmap(
    lambda shape: arrays(np.float64, shape, elements=VALUES | st.floats(-5, 5))
)


@settings(max_examples=300, deadline=None)
@given(terms=TERMS, k=st.integers(0, 45))
def test_top_lists_what_a_stable_sort_of_the_whole_row_lists(terms: np.ndarray, k: int) -> None:
    exp = explanation(terms)
    with np.errstate(invalid="ignore"):
        assert exp.top(k) == reference_top(exp, k)


@settings(max_examples=200, deadline=None)
@given(terms=TERMS, data=st.data())
def test_evidence_of_some_columns_equals_those_columns_of_the_whole(
    terms: np.ndarray, data: st.DataObject
) -> None:
    exp = explanation(terms)
    n = terms.shape[1]
    cols = data.draw(st.lists(st.integers(0, max(0, n - 1)), max_size=n) if n else st.just([]))
    whole = exp.evidence()
    expected = np.where(np.isnan(terms), 0.0, terms) if terms.shape[0] == 1 else (
        reference_relative(terms))  # fmt: skip
    np.testing.assert_array_equal(whole, expected)
    np.testing.assert_array_equal(exp.evidence(cols), whole[:, cols])
    # a class's row alone (what top ranks) is the same row
    cls = data.draw(st.sampled_from(exp.classes.tolist()))
    (_, ev), = exp.top(n, classes=[cls]).items()  # fmt: skip
    i = exp.classes.tolist().index(cls)
    assert [v for _, v in ev["for"]] == sorted((v for v in whole[i] if v > 0), reverse=True)


def test_evidence_of_a_few_columns_of_many_classes_is_those_of_the_whole() -> None:
    """numpy sums 20 rows of two columns pairwise but 20 rows of a wide table one by one:
    the evidence of a document's few words of a 20-class model came out 1e-15 away from
    the same words' evidence in the whole table."""
    rng = np.random.default_rng(1)
    exp = explanation(rng.normal(size=(20, 5000)) * 50)
    whole = exp.evidence()
    for cols in ([7, 4000], [3], list(range(0, 5000, 97))):
        np.testing.assert_array_equal(exp.evidence(cols), whole[:, cols])
    np.testing.assert_array_equal(whole, reference_relative(exp.terms))


def test_evidence_follows_terms_set_after_a_first_use() -> None:
    exp = explanation(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert exp.top(1)["c0"]["for"] == [("f0", 1.0)]
    exp.terms = np.array([[0.0, 1.0], [1.0, 0.0]])
    assert exp.top(1)["c0"]["for"] == [("f1", 1.0)]
    np.testing.assert_array_equal(exp.evidence(), reference_relative(exp.terms))


def test_top_of_some_classes_only() -> None:
    rng = np.random.default_rng(0)
    exp = explanation(rng.normal(size=(3, 50)))
    assert exp.top(4, classes=["c2"]) == {"c2": exp.top(4)["c2"]}
    with pytest.raises(KeyError, match="Unknown class 'nope'"):
        exp.top(4, classes=["nope"])


def test_feature_index_by_scan_and_by_lookup() -> None:
    exp = explanation(np.zeros((2, 5)))
    asked = ["f3", "zz", "f0", "f3"]
    assert list(exp.feature_index(asked).items()) == [("f3", 3), ("f0", 0)]  # as asked
    assert exp.feature_index([]) == {}
    exp.lookup = {f"f{j}": j for j in range(5)}
    assert list(exp.feature_index(asked).items()) == [("f3", 3), ("f0", 0)]


def test_top_takes_one_label_and_refuses_a_negative_k() -> None:
    exp = explanation(np.random.default_rng(2).normal(size=(2, 8)))
    exp.classes = np.array(["spam", "ham"])
    assert exp.top(2, classes="spam") == {"spam": exp.top(2)["spam"]}  # not 's', 'p', ...
    with pytest.raises(ValueError, match="k must be >= 0.*-1"):
        exp.top(-1)  # it listed all features but the last


@pytest.mark.parametrize("model", [MultinomialNB(), BernoulliNB()])
def test_the_estimators_explanations_rank_as_before(model) -> None:
    rng = np.random.default_rng(3)
    X = rng.poisson(1.0, size=(60, 30)).astype(float)
    y = rng.integers(0, 3, size=60)
    model.fit(X, y)
    exp = model.explain(X[:1], feature_names=[f"w{j}" for j in range(30)])
    for k in (0, 1, 5, 30):
        assert exp.top(k) == reference_top(exp, k)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("n_classes", [2, 9, 20])
def test_evidence_of_some_columns_is_bit_for_bit_that_of_the_whole(order, n_classes) -> None:
    """numpy sums the columns of a C-ordered table row after row but a lone column, and
    the columns of a Fortran-ordered one, pairwise: from 9 classes on (20 Newsgroups) the
    columns taken out of a C table, or one column alone, summed to another rounding, so
    ``nbayes serve``'s and ``nbayes explain``'s evidence of a Bernoulli model's words
    (a C table) was not ``evidence()``'s, nor what they answered before."""
    rng = np.random.default_rng(n_classes)
    terms = np.asarray(rng.normal(size=(n_classes, 300)) * 10, order=order)
    exp = explanation(terms)
    whole = exp.evidence()
    assert whole.tobytes() == reference_relative(np.ascontiguousarray(terms)).tobytes() or (
        order == "F")  # fmt: skip
    for k in (0, 1, 2, 3, 40, 300):
        for _ in range(20):
            cols = rng.integers(0, 300, size=k)
            assert exp.evidence(cols).tobytes() == whole[:, cols].tobytes(), (k, cols)
    strided = explanation(np.asarray(rng.normal(size=(n_classes, 600)))[:, ::2])
    cols = rng.integers(0, 300, size=7)
    assert strided.evidence(cols).tobytes() == strided.evidence()[:, cols].tobytes()


def test_an_infinite_term_is_evidence_against_its_class_too() -> None:
    """The notes' undecidable review ("not sharp match", Bernoulli, no smoothing): "not"
    makes positive impossible and the absent "was" negative. The evidence of "was" for
    negative was -inf - (-inf): undefined, so 0, and no list showed why negative is
    impossible (a trial's finding)."""
    from nbayes import TextClassifier

    docs = ["keeper was sharp and composed", "match was composed", "brilliant match",
            "match was not sharp", "match was not composed"]  # fmt: skip
    labels = ["positive"] * 3 + ["negative"] * 2
    m = TextClassifier(model="bernoulli", alpha=0).fit(docs, labels)
    exp = m.explain("not sharp match")
    assert exp.undecidable
    top = exp.top(5)
    assert top["negative"]["against"] == [("was", -np.inf)]
    assert top["positive"]["against"][0] == ("not", -np.inf)
    assert top["negative"]["for"][0] == ("not", np.inf)
    assert top["positive"]["for"] == [("was", np.inf)]
    # three classes: the others' mean without the class's own infinity
    terms = np.array([[-np.inf, 0.0], [-1.0, 0.0], [-3.0, 0.0]])
    np.testing.assert_array_equal(explanation(terms).evidence()[:, 0], [-np.inf, np.inf, np.inf])
