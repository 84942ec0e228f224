"""Every worked example of the course notes in ../shared/seeds, with the numbers they print."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from nbayes import BernoulliNB, GaussianNB, MultinomialNB, UndecidableWarning
from nbayes.datasets import load_abusive_posts, load_gaussian, load_match_reviews, load_spam_ham

# --------------------------------------------------------------------------------------
# Seed 000: match reviews, multivariate Bernoulli, maximum likelihood. The examples come
# from nbayes.datasets; the first tests check them against the notes' tables.
MATCH = load_match_reviews()
VOCAB = MATCH.feature_names
REVIEWS = list(zip(MATCH.texts, MATCH.target.tolist(), strict=True))


def test_seed000_reviews_as_the_notes_print_them() -> None:
    assert VOCAB == ["keeper", "was", "sharp", "and", "composed", "match", "brilliant", "not"]
    assert REVIEWS == [
        ("keeper was sharp and composed", "positive"),
        ("match was composed", "positive"),
        ("brilliant match", "positive"),
        ("match was not sharp", "negative"),
        ("match was not composed", "negative"),
    ]
    assert {t: v.tolist() for t, v in MATCH.queries.items()} == {
        "match was sharp": [0, 1, 1, 0, 0, 1, 0, 0],
        "not sharp match": [0, 0, 1, 0, 0, 1, 0, 1],
    }


def bag(text: str) -> list[int]:
    words = set(text.split())
    return [int(w in words) for w in VOCAB]


@pytest.fixture
def reviews() -> BernoulliNB:
    X = np.array([bag(t) for t, _ in REVIEWS])
    y = np.array([c for _, c in REVIEWS])
    clf = BernoulliNB(alpha=0)
    clf.fit(X, y)
    return clf


def test_seed000_bag_of_words_table() -> None:
    assert MATCH.data.tolist() == [bag(t) for t, _ in REVIEWS]
    assert [bag(t) for t, _ in REVIEWS] == [
        [1, 1, 1, 1, 1, 0, 0, 0],
        [0, 1, 0, 0, 1, 1, 0, 0],
        [0, 0, 0, 0, 0, 1, 1, 0],
        [0, 1, 1, 0, 0, 1, 0, 1],
        [0, 1, 0, 0, 1, 1, 0, 1],
    ]


def test_seed000_mle_table(reviews: BernoulliNB) -> None:
    # pi = 3/5 and the table of theta_{j,c}
    assert list(reviews.classes_) == ["negative", "positive"]
    np.testing.assert_allclose(np.exp(reviews.class_log_prior_), [2 / 5, 3 / 5])
    positive = [1 / 3, 2 / 3, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 1 / 3, 0 / 3]
    negative = [0 / 2, 2 / 2, 1 / 2, 0 / 2, 1 / 2, 2 / 2, 0 / 2, 2 / 2]
    np.testing.assert_allclose(np.exp(reviews.feature_log_prob_), [negative, positive])


def test_seed000_parameter_count(reviews: BernoulliNB) -> None:
    # 2D + 1 = 17 parameters instead of 2^(D+1) - 1 = 511
    assert reviews.n_parameters() == 17
    assert reviews.n_parameters(full_joint=True) == 511


def test_seed000_match_was_sharp(reviews: BernoulliNB) -> None:
    x = bag("match was sharp")
    assert x == [0, 1, 1, 0, 0, 1, 0, 0]
    explanation = reviews.explain(x, exact=True)
    joint = explanation.joint
    expected = Fraction(3, 5) * Fraction(2, 3) ** 5 * Fraction(1, 3) ** 2
    assert joint["positive"] == expected
    assert round(float(joint["positive"]), 5) == 0.00878
    assert joint["negative"] == 0
    text = str(explanation)
    assert "3/5 · 2/3 · 2/3 · 1/3 · 2/3 · 1/3 · 2/3 · 2/3 · 3/3" in text
    assert "≈ 0.00878" in text
    assert "2/5 · 2/2 · 2/2 · 1/2 · 2/2 · 1/2 · 2/2 · 2/2 · 0/2 = 0" in text
    assert "Decision: positive" in text
    assert reviews.predict([x])[0] == "positive"
    np.testing.assert_allclose(reviews.predict_proba([x]), [[0.0, 1.0]])


def test_seed000_not_sharp_match_cannot_decide(reviews: BernoulliNB) -> None:
    x = bag("not sharp match")
    assert x == [0, 0, 1, 0, 0, 1, 0, 1]
    explanation = reviews.explain(x, exact=True)
    assert explanation.joint == {"negative": 0, "positive": 0}
    assert explanation.posterior is None
    assert "cannot decide" in str(explanation)
    assert "3/5 · 2/3 · 1/3 · 1/3 · 2/3 · 1/3 · 2/3 · 2/3 · 0/3 = 0" in str(explanation)
    with pytest.warns(UndecidableWarning, match="row\\(s\\) 0"):
        proba = reviews.predict_proba([x])
    assert np.isnan(proba).all()
    with pytest.warns(UndecidableWarning):
        # documented fallback: the class with the highest prior
        assert reviews.predict([x])[0] == "positive"


def test_seed000_map_smoothing_fixes_it() -> None:
    X = np.array([bag(t) for t, _ in REVIEWS])
    y = [c for _, c in REVIEWS]
    clf = BernoulliNB(alpha=1).fit(X, y)
    proba = clf.predict_proba([bag("not sharp match")])
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(), 1.0)
    # Week 8 (seed 001): for a yes/no feature, (count + 1) / (n_c + 2)
    positive = [Fraction(c + 1, 3 + 2) for c in (1, 2, 1, 1, 2, 2, 1, 0)]
    negative = [Fraction(c + 1, 2 + 2) for c in (0, 2, 1, 0, 1, 2, 0, 2)]
    np.testing.assert_allclose(
        np.exp(clf.feature_log_prob_), np.array([negative, positive], dtype=float)
    )
    joint = clf.explain(bag("not sharp match"), exact=True).joint
    x = bag("not sharp match")
    for label, theta, prior in (
        ("negative", negative, Fraction(2, 5)),
        ("positive", positive, Fraction(3, 5)),
    ):
        expected = prior * math.prod(t if v else 1 - t for t, v in zip(theta, x, strict=True))
        assert joint[label] == expected


# --------------------------------------------------------------------------------------
# Seed 001: spam, multinomial with Laplace smoothing; Gaussian NB; parameter counts.
SPAM_HAM = load_spam_ham()
SPAM_VOCAB = SPAM_HAM.feature_names
EMAILS = list(zip(SPAM_HAM.texts, SPAM_HAM.target.tolist(), strict=True))


def counts(text: str) -> list[int]:
    words = text.split()
    return [words.count(w) for w in SPAM_VOCAB]


def test_seed001_emails_as_the_notes_print_them() -> None:
    assert SPAM_VOCAB == ["free", "win", "money", "meeting", "today", "lunch"]
    assert EMAILS == [
        ("free win", "spam"),
        ("free money", "spam"),
        ("win money", "spam"),
        ("meeting today", "ham"),
        ("free today", "ham"),
        ("lunch today", "ham"),
    ]
    assert SPAM_HAM.data.tolist() == [counts(t) for t, _ in EMAILS]
    assert (SPAM_HAM.query, SPAM_HAM.query_data.tolist()) == ("free money", counts("free money"))


@pytest.fixture
def spam() -> MultinomialNB:
    X = np.array([counts(t) for t, _ in EMAILS])
    return MultinomialNB(alpha=1).fit(X, [c for _, c in EMAILS])


def test_seed001_spam_counts(spam: MultinomialNB) -> None:
    assert spam.feature_count_.sum(axis=1).tolist() == [6, 6]  # ham, spam totals
    assert dict(zip(SPAM_VOCAB, spam.feature_count_[1], strict=True)) == {
        "free": 2, "win": 2, "money": 2, "meeting": 0, "today": 0, "lunch": 0,
    }  # fmt: skip


def test_seed001_free_money(spam: MultinomialNB) -> None:
    p = np.exp(spam.feature_log_prob_)
    ham, sp = 0, 1
    free, money = SPAM_VOCAB.index("free"), SPAM_VOCAB.index("money")
    np.testing.assert_allclose(
        [p[sp, free], p[sp, money], p[ham, free], p[ham, money]], [1 / 4, 1 / 4, 1 / 6, 1 / 12]
    )
    x = counts("free money")
    e = spam.explain(x, exact=True)
    assert e.joint == {"ham": Fraction(1, 144), "spam": Fraction(1, 32)}
    text = str(e)
    assert "= 1/32 = 0.03125" in text
    assert "= 1/144 ≈ 0.00694" in text
    assert "P(spam | x) = 9/11 ≈ 0.818" in text
    assert "Decision: spam" in text
    assert round(float(spam.predict_proba([x])[0, sp]), 3) == 0.818
    assert spam.predict([x])[0] == "spam"


def test_seed001_without_smoothing_ham_scores_zero() -> None:
    X = np.array([counts(t) for t, _ in EMAILS])
    clf = MultinomialNB(alpha=0).fit(X, [c for _, c in EMAILS])
    e = clf.explain(counts("free money"), exact=True)
    assert e.joint["ham"] == 0
    assert e.posterior == {"ham": 0, "spam": 1}


def test_seed001_your_turn_1_posterior_with_given_numbers() -> None:
    # P(spam)=0.4, P(win|spam)=0.5, P(win|ham)=0.1, P(free|spam)=0.6, P(free|ham)=0.2
    spam_rows = [[1, 1]] * 3 + [[1, 0]] * 2 + [[0, 1]] * 3 + [[0, 0]] * 2
    ham_rows = [[1, 1]] * 1 + [[0, 1]] * 1 + [[0, 0]] * 8
    X = np.array(spam_rows + ham_rows)  # columns: win, free
    y = ["spam"] * 10 + ["ham"] * 10
    clf = BernoulliNB(alpha=0, class_prior=[0.6, 0.4]).fit(X, y)
    np.testing.assert_allclose(np.exp(clf.feature_log_prob_), [[0.1, 0.2], [0.5, 0.6]])
    e = clf.explain([1, 1], exact=True)
    assert e.joint == {"ham": Fraction(12, 1000), "spam": Fraction(12, 100)}
    assert round(float(e.posterior["spam"]), 3) == 0.909  # type: ignore[index]


def test_seed001_your_turn_2_smoothing() -> None:
    # 20 words in spam, a vocabulary of 100, "lottery" never seen in spam: 1/120
    X = np.zeros((2, 100))
    X[0, 1:21] = 1  # spam: 20 words, none of them "lottery" (feature 0)
    X[1, 0] = 5
    clf = MultinomialNB(alpha=1).fit(X, ["spam", "ham"])
    p = math.exp(clf.feature_log_prob_[list(clf.classes_).index("spam"), 0])
    assert p == pytest.approx(1 / 120)
    assert round(p, 4) == 0.0083


@pytest.mark.parametrize(("d", "naive", "full"), [(3, 7, 15), (10, 21, 2047)])
def test_seed001_parameter_counts(d: int, naive: int, full: int) -> None:
    rng = np.random.default_rng(0)
    clf = BernoulliNB().fit(rng.integers(0, 2, (20, d)), [0, 1] * 10)
    assert clf.n_parameters() == naive
    assert clf.n_parameters(full_joint=True) == full


def gaussian(exercise: bool) -> GaussianNB:
    # nbayes.datasets: two points per class at mean +- 1, so the fitted mean is the notes'
    # and the (population) variance is 1
    example = load_gaussian(exercise=exercise)
    clf = GaussianNB(var_smoothing=0).fit(example.data, example.target)
    assert clf.theta_.ravel().tolist() == list(example.means.values())
    assert clf.var_.ravel().tolist() == [1.0, 1.0]
    return clf


def test_seed001_gaussian_parameters_as_the_notes_give_them() -> None:
    assert (load_gaussian().means, load_gaussian().query) == ({"+": 2.0, "-": 5.0}, 3.0)
    exercise = load_gaussian(exercise=True)
    assert (exercise.means, exercise.query) == ({"A": 0.0, "B": 4.0}, 1.0)
    assert exercise.variances == {"A": 1.0, "B": 1.0}


def test_seed001_gaussian_posterior_and_boundary() -> None:
    clf = gaussian(exercise=False)
    plus = list(clf.classes_).index("+")
    e = clf.explain([3.0])
    densities = np.exp(e.terms[:, 0])
    assert round(float(densities[plus]), 3) == 0.242
    assert round(float(densities[1 - plus]), 3) == 0.054
    assert round(float(clf.predict_proba([[3.0]])[0, plus]), 3) == 0.818
    assert clf.predict([[3.0]])[0] == "+"
    np.testing.assert_allclose(clf.predict_proba([[3.5]]), [[0.5, 0.5]])
    np.testing.assert_allclose(clf.decision_boundary(), [3.5])  # "the midpoint x = 3.5"


def test_seed001_your_turn_5_gaussian() -> None:
    clf = gaussian(exercise=True)
    e = clf.explain([1.0])
    assert np.round(np.exp(e.terms[:, 0]), 4).tolist() == [0.242, 0.0044]
    assert clf.predict([[1.0]])[0] == "A"
    np.testing.assert_allclose(clf.predict_proba([[2.0]]), [[0.5, 0.5]])
    np.testing.assert_allclose(clf.decision_boundary(), [2.0])  # "Boundary at x = 2"


# --------------------------------------------------------------------------------------
# Seed 003: the abusive-postings example (Machine Learning in Action style).
POSTS = [
    ("my dog has flea problems help please", 0),
    ("maybe not take him to dog park stupid", 1),
    ("my dalmation is so cute I love him", 0),
    ("stop posting stupid worthless garbage", 1),
    ("mr steak how to stop him my eating is bosh", 0),
]
TESTS = ["you stupid thing", "I love him", "he is a stupid garbage"]


def test_seed003_vocabulary_and_decisions() -> None:
    vocab = sorted({w for p, _ in POSTS for w in p.split()})
    assert len(vocab) == 29

    def vec(text: str) -> list[int]:
        words = set(text.split())
        return [int(w in words) for w in vocab]

    X = np.array([vec(p) for p, _ in POSTS])
    y = np.array([c for _, c in POSTS])
    Xt = np.array([vec(t) for t in TESTS])
    shipped = load_abusive_posts()  # nbayes.datasets: the same posts, vocabulary and tests
    assert (shipped.texts, shipped.target.tolist()) == tuple(map(list, zip(*POSTS, strict=True)))
    assert (shipped.feature_names, shipped.tests) == (vocab, TESTS)
    assert shipped.data.tolist() == X.tolist()
    assert shipped.tests_data.tolist() == Xt.tolist()
    # The seed prints [1 0 1]; a proper Bernoulli and a multinomial model agree.
    assert BernoulliNB().fit(X, y).predict(Xt).tolist() == [1, 0, 1]
    assert MultinomialNB().fit(X, y).predict(Xt).tolist() == [1, 0, 1]

    # The seed's own scores, log((df + 1) / (n_c + |V|)) summed over present words plus
    # log prior, follow from the statistics of the fitted model.
    clf = BernoulliNB().fit(X, y)
    df, n_c = clf.feature_count_, clf.class_count_[:, None]
    seed_log_theta = np.log((df + 1) / (n_c + len(vocab)))
    scores = Xt @ seed_log_theta.T + np.log(clf.class_count_ / clf.class_count_.sum())
    np.testing.assert_allclose(
        scores,
        [
            [-3.9765615265657175, -3.251665647691192],
            [-8.42312668237717, -10.525105164769647],
            [-9.80942104349706, -9.426492876101538],
        ],
        rtol=1e-12,
    )


# --------------------------------------------------------------------------------------
# Seed 004: Bernoulli estimate (1 + DocNum(w, c)) / (2 + DocNum(c)); multinomial model;
# the number of parameters; output top-N.
def test_seed004_bernoulli_laplace_estimate() -> None:
    X = np.array([[1, 0], [1, 1], [0, 0], [0, 1], [0, 1]])
    clf = BernoulliNB(alpha=1).fit(X, ["a", "a", "a", "b", "b"])
    np.testing.assert_allclose(np.exp(clf.feature_log_prob_), [[3 / 5, 2 / 5], [1 / 4, 3 / 4]])


def test_seed004_multinomial_parameters_and_coefficient() -> None:
    X = np.array([[2, 0, 1], [0, 1, 1], [1, 1, 0]])
    clf = MultinomialNB().fit(X, ["x", "y", "y"])
    # |C| + |C||V| numbers, of which (|C| - 1) + |C|(|V| - 1) are free
    assert clf.n_parameters() == (2 - 1) + 2 * (3 - 1)
    # a document of 2 tokens over {a, b, c}: 6 distinct bags per class
    assert clf.n_parameters(full_joint=True, doc_length=2) == 2 * (6 - 1) + 1
    # "one a, one b" has probability 2·p1·p2: the coefficient is the same for every class,
    # so the joint nbayes reports (without it) gives the same posterior.
    p = np.exp(clf.feature_log_prob_)
    prior = np.exp(clf.class_log_prior_)
    with_coefficient = prior * 2 * p[:, 0] * p[:, 1]
    np.testing.assert_allclose(
        clf.predict_proba([[1, 1, 0]])[0], with_coefficient / with_coefficient.sum()
    )


def test_seed004_output_top_n() -> None:
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, (60, 5))
    y = np.repeat(["a", "b", "c", "d"], 15)
    clf = MultinomialNB().fit(X, y)
    labels, proba = clf.predict_top(X[:3], n=2)
    full = clf.predict_proba(X[:3])
    assert labels.shape == proba.shape == (3, 2)
    assert (labels[:, 0] == clf.predict(X[:3])).all()
    np.testing.assert_allclose(proba, -np.sort(-full, axis=1)[:, :2])
