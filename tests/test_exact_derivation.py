"""Exact derivations: the joint probabilities as exact products (``nbayes._families._exact``)
equal the fractions multiplied one by one, and cost time linear in the text.

Until the exact products, ``explain(text, exact=True)`` multiplied a document's factors one
at a time (each step reducing an ever longer fraction) after summing one Fraction per
vocabulary word: 0.1-0.3 s for one word, ~7 s for 30,000 words, minutes for a megabyte.
"""

from __future__ import annotations

import math
import random
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes import BernoulliNB, CategoricalNB, MultinomialNB
from nbayes._families._exact import ExactProduct, exact_compare, log10_posterior
from nbayes.data import load_sms_spam

fractions = st.fractions(min_value=0, max_value=10**6, max_denominator=10**4)
triples = st.lists(
    st.tuples(fractions, fractions.filter(lambda q: q > 0), st.integers(0, 6)), max_size=25
)


def one_by_one(factors: list[tuple[Fraction, Fraction, int]]) -> Fraction:
    value = Fraction(1)
    for num, den, power in factors:
        value *= (num / den) ** power
    return value


@settings(max_examples=100, deadline=None)
@given(triples)
def test_a_product_equals_its_factors_multiplied_one_by_one(factors: list) -> None:
    p = ExactProduct.of(factors)
    expected = one_by_one(factors)
    assert p.value == expected
    assert p.zero == (expected == 0)
    if expected:
        assert p.digits == (len(str(expected.numerator)), len(str(expected.denominator)))
        assert math.isclose(p.log10, math.log10(expected), rel_tol=1e-12, abs_tol=1e-9)


@settings(max_examples=60, deadline=None)
@given(triples, triples)
def test_products_compare_as_their_values(a: list, b: list) -> None:
    pa, pb = ExactProduct.of(a), ExactProduct.of(b)
    va, vb = one_by_one(a), one_by_one(b)
    assert exact_compare(pa, pb) == (va > vb) - (va < vb)
    assert exact_compare(pa, ExactProduct.of(list(a))) == 0  # equal values, built apart


def test_equal_bases_of_opposite_signs_are_one_group() -> None:
    factors = [(Fraction(-54), Fraction(360), 3), (Fraction(9, 5), Fraction(12), 2)]
    assert ExactProduct.of(factors).value == one_by_one(factors) == Fraction(-243, 3200000)


def test_a_denominator_of_zero_raises_as_a_factor_does() -> None:
    with pytest.raises(ZeroDivisionError, match="denominator 0"):
        ExactProduct.of([(Fraction(1), Fraction(0), 1)])


def test_log10_posterior_sums_to_one() -> None:
    ps = [ExactProduct.of([(Fraction(k), Fraction(7), 300)]) for k in (1, 2, 3)]
    post = [10**v for v in log10_posterior(ps)]
    assert math.isclose(sum(post), 1.0)
    assert post[2] > 0.999


def _joint_one_by_one(e: nbayes.explain.Explanation) -> list[Fraction]:
    assert e.prior_factors is not None and e.factors is not None
    out = []
    for prior, row in zip(e.prior_factors, e.factors, strict=True):
        value = prior.value
        for f in row:
            value *= f.value
        out.append(value)
    return out


@pytest.mark.parametrize("kind", ["multinomial", "bernoulli", "categorical", "alpha-array"])
def test_explanations_are_the_products_of_their_factors(kind: str) -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 60)
    X = rng.poisson(1.0 + y[:, None], (60, 12)).astype(float)
    model = {
        "multinomial": MultinomialNB(alpha=0.1),
        "bernoulli": BernoulliNB(alpha=0.5),
        "categorical": CategoricalNB(alpha=1.0),
        "alpha-array": MultinomialNB(alpha=np.linspace(0.1, 2.0, 12), force_alpha=True),
    }[kind].fit(X, y)
    for row in X[:10]:
        e = model.explain(row, exact=True)
        joint = _joint_one_by_one(e)
        assert list(e.joint.values()) == joint
        total = sum(joint, Fraction(0))
        assert list(e.posterior.values()) == [v / total for v in joint]
        best = max(range(len(joint)), key=lambda i: joint[i])
        assert e.prediction == model.classes_[best]


def test_equal_joints_decide_for_the_first_class_as_before() -> None:
    X = np.array([[1.0, 2.0], [1.0, 2.0]])
    model = MultinomialNB().fit(X, [0, 1])
    e = model.explain(np.array([3.0, 1.0]), exact=True)
    assert e.joint[0] == e.joint[1]
    assert e.posterior == {0: Fraction(1, 2), 1: Fraction(1, 2)}
    assert e.prediction == 0


@pytest.fixture(scope="module")
def sms_model() -> nbayes.TextClassifier:
    texts, labels = load_sms_spam()
    return nbayes.TextClassifier().fit(texts, labels)


def test_a_long_document_is_exact_and_linear(sms_model: nbayes.TextClassifier) -> None:
    """60,000 words: ~0.5 s (it took ~30 s when the fractions were multiplied one by one);
    the bound is generous for a busy 2-core machine."""
    texts, _ = load_sms_spam()
    words = " ".join(texts).split()
    rng = random.Random(0)
    text = " ".join(rng.choice(words) for _ in range(60_000))
    start = time.perf_counter()
    e = sms_model.explain(text, exact=True)
    derivation = e.derivation()
    label = e.prediction
    took = time.perf_counter() - start
    assert took < 10.0, took
    assert label == sms_model.predict([text])[0]
    assert "exactly a fraction of" in derivation and "Decision:" in derivation
    # the sizes shown are the reduced fraction's (built here, outside the timing)
    joint = next(iter(e.joint.values()))
    p = next(iter(e.exact_joint.values()))
    assert p.digits == (_digits(joint.numerator), _digits(joint.denominator))


def _digits(n: int) -> int:
    """Decimal digits of a positive int of any size (str() refuses over 4,300)."""
    d = int(n.bit_length() * math.log10(2)) + 1
    while 10 ** (d - 1) > n:
        d -= 1
    while 10**d <= n:
        d += 1
    return d


def test_one_word_is_cheap(sms_model: nbayes.TextClassifier) -> None:
    """One word cost 0.1-0.3 s (a Fraction per vocabulary word summed per class)."""
    sms_model.explain("free", exact=True)  # warm
    start = time.perf_counter()
    for _ in range(10):
        sms_model.explain("free", exact=True).derivation()
    assert (time.perf_counter() - start) / 10 < 0.05
