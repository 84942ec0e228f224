"""The course notes' worked examples, shipped as data (no network, numpy only).

Each loader returns a :class:`Dataset` (a dict whose keys are also attributes, like
scikit-learn's ``Bunch``) with ``data`` (a numpy array, one row per example), ``target``
(the labels, as the notes name them), ``feature_names``, ``target_names`` (sorted, as a
fitted model's ``classes_``), ``source`` (which note and section the numbers come from) and
``DESCR``; the text examples also have ``texts`` and the notes' new examples to classify.

Only the examples are shipped, never the answers: the numbers the notes derive from them
(0.00878, 1/32, 0.818, ...) are for nbayes to reproduce (``tests/test_seeds.py`` checks
that it does, and the notebooks in ``docs/notebooks/`` show how).

==========================  ==============================================================
:func:`load_match_reviews`  five match reviews as a binary document-term matrix (8 words)
:func:`load_spam_ham`       six e-mails as word counts (6 words), and "free money"
:func:`load_gaussian`       one numeric feature, two classes (mean 2 and 5, variance 1)
:func:`load_abusive_posts`  five forum posts, abusive or not, and three new sentences
==========================  ==============================================================

Examples
--------
>>> from nbayes.datasets import load_match_reviews
>>> reviews = load_match_reviews()
>>> reviews.feature_names
['keeper', 'was', 'sharp', 'and', 'composed', 'match', 'brilliant', 'not']
>>> reviews.data.shape, reviews.target_names
((5, 8), ['negative', 'positive'])
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "Dataset",
    "load_abusive_posts",
    "load_gaussian",
    "load_match_reviews",
    "load_spam_ham",
]

# The seed documents of the course notes (the project's specification, shared/seeds/).
_NAIVE_BAYES_CHAPTER = "the course notes' chapter 'Naïve Bayes' (seed 000)"
_WEEK_8 = "the course notes' 'Week 8 · Generative models: Naive Bayes' (seed 001)"
_POSTINGS = "the course notes' 'Naive Bayes' implementation walk-through (seed 003)"


class Dataset(dict[str, Any]):
    """A dict whose keys can also be read as attributes (``ds.data`` is ``ds["data"]``).

    >>> ds = Dataset(data=[1, 2], source="here")
    >>> ds.data, ds["source"]
    ([1, 2], 'here')
    >>> ds.nothing
    Traceback (most recent call last):
    ...
    AttributeError: This dataset has no 'nothing'; it has: data, source.
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(
                f"This dataset has no {name!r}; it has: {', '.join(self)}."
            ) from None

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self))


def _bag_of_words(text: str, vocabulary: list[str], binary: bool) -> list[int]:
    words = text.split()
    return [int(w in words) if binary else words.count(w) for w in vocabulary]


def _text_dataset(
    examples: list[tuple[str, Any]],
    vocabulary: list[str],
    binary: bool,
    source: str,
    descr: str,
    **extra: Any,
) -> Dataset:
    """The notes' (text, label) examples as a bag-of-words over ``vocabulary``."""
    texts = [t for t, _ in examples]
    labels = [c for _, c in examples]
    return Dataset(
        texts=list(texts),
        data=np.array([_bag_of_words(t, vocabulary, binary) for t in texts], dtype=np.int64),
        target=np.array(labels),
        feature_names=list(vocabulary),
        target_names=sorted(set(labels)),
        source=source,
        DESCR=descr,
        **extra,
    )


def load_match_reviews() -> Dataset:
    """The five match reviews of the chapter "Naïve Bayes" as a binary document-term matrix.

    The reviews and their classes are the notes' table in section 3 ("A New Example: Match
    Review Classification"); the vocabulary, in the notes' order, and the 0/1 matrix are
    the answer of section 4 ("Bag-of-Words Features"). ``queries`` holds the two reviews
    the notes classify in section 5.5.1, with the feature vectors the notes write for them.

    Returns
    -------
    Dataset
        ``texts`` (5 str), ``data`` (5 x 8 int, 1 = the word appears), ``target``
        ("positive" or "negative"), ``feature_names`` (the 8 words), ``target_names``,
        ``queries`` (dict: review -> its 0/1 vector), ``source``, ``DESCR``.

    Examples
    --------
    >>> from nbayes import BernoulliNB
    >>> reviews = load_match_reviews()
    >>> reviews.texts[0], str(reviews.target[0])
    ('keeper was sharp and composed', 'positive')
    >>> reviews.data
    array([[1, 1, 1, 1, 1, 0, 0, 0],
           [0, 1, 0, 0, 1, 1, 0, 0],
           [0, 0, 0, 0, 0, 1, 1, 0],
           [0, 1, 1, 0, 0, 1, 0, 1],
           [0, 1, 0, 0, 1, 1, 0, 1]])
    >>> list(reviews.queries)
    ['match was sharp', 'not sharp match']
    >>> clf = BernoulliNB(alpha=0).fit(reviews.data, reviews.target)
    >>> clf.predict([reviews.queries["match was sharp"]])
    array(['positive'], dtype='<U8')
    """
    vocabulary = ["keeper", "was", "sharp", "and", "composed", "match", "brilliant", "not"]
    reviews = [
        ("keeper was sharp and composed", "positive"),
        ("match was composed", "positive"),
        ("brilliant match", "positive"),
        ("match was not sharp", "negative"),
        ("match was not composed", "negative"),
    ]
    queries = {
        "match was sharp": np.array([0, 1, 1, 0, 0, 1, 0, 0]),
        "not sharp match": np.array([0, 0, 1, 0, 0, 1, 0, 1]),
    }
    return _text_dataset(
        reviews,
        vocabulary,
        binary=True,
        source=f"{_NAIVE_BAYES_CHAPTER}, sections 3, 4 and 5.5.1",
        descr=(
            "Five short match reviews, positive (y = 1) or negative (y = 0), as a binary "
            "bag-of-words over the 8-word vocabulary of the reviews (D = 8)."
        ),
        queries=queries,
    )


def load_spam_ham() -> Dataset:
    """The six e-mails of Week 8's solved example 1 ("Spam or not?"), as word counts.

    Spam: "free win", "free money", "win money"; ham: "meeting today", "free today",
    "lunch today". The vocabulary is the notes' (free, win, money, meeting, today, lunch;
    V = 6) and ``query`` the e-mail the notes classify with Laplace smoothing.

    Returns
    -------
    Dataset
        ``texts`` (6 str), ``data`` (6 x 6 int word counts), ``target`` ("spam" or
        "ham"), ``feature_names``, ``target_names``, ``query`` ("free money"),
        ``query_data`` (its counts), ``source``, ``DESCR``.

    Examples
    --------
    >>> from nbayes import MultinomialNB
    >>> emails = load_spam_ham()
    >>> dict(zip(emails.feature_names, emails.data[emails.target == "ham"].sum(axis=0).tolist()))
    {'free': 1, 'win': 0, 'money': 0, 'meeting': 1, 'today': 3, 'lunch': 1}
    >>> emails.query, emails.query_data
    ('free money', array([1, 0, 1, 0, 0, 0]))
    >>> clf = MultinomialNB(alpha=1).fit(emails.data, emails.target)
    >>> clf.predict([emails.query_data])
    array(['spam'], dtype='<U4')
    """  # noqa: E501
    vocabulary = ["free", "win", "money", "meeting", "today", "lunch"]
    emails = [
        ("free win", "spam"),
        ("free money", "spam"),
        ("win money", "spam"),
        ("meeting today", "ham"),
        ("free today", "ham"),
        ("lunch today", "ham"),
    ]
    query = "free money"
    return _text_dataset(
        emails,
        vocabulary,
        binary=False,
        source=f"{_WEEK_8}, 'Solved example: 1. Spam or not?'",
        descr=(
            "Three spam and three ham e-mails as word counts over their 6-word vocabulary "
            "(multinomial Naive Bayes with Laplace smoothing)."
        ),
        query=query,
        query_data=np.array(_bag_of_words(query, vocabulary, binary=False)),
    )


def load_gaussian(exercise: bool = False) -> Dataset:
    """One numeric feature, two classes with the means and variances of Week 8's examples.

    The notes give the classes' parameters, not data: solved example 2 has class "+" with
    mean 2 and variance 1, class "-" with mean 5 and variance 1, equal priors, and asks to
    classify x = 3; "Your turn: 5" (``exercise=True``) has class "A" with mean 0, class "B"
    with mean 4, variance 1, equal priors, and x = 1. So that a model can be *fitted*, each
    class here is two points, mean - 1 and mean + 1: their maximum-likelihood mean is the
    notes' mean and their (population) variance is exactly 1. Fit ``GaussianNB`` with
    ``var_smoothing=0`` to get the notes' parameters exactly.

    Parameters
    ----------
    exercise : bool, default=False
        The exercise "Your turn: 5" instead of solved example 2.

    Returns
    -------
    Dataset
        ``data`` (4 x 1 float), ``target``, ``feature_names`` (["x"]), ``target_names``,
        ``means`` and ``variances`` (dict: class -> the notes' value), ``query`` (the x
        to classify), ``source``, ``DESCR``.

    Examples
    --------
    >>> from nbayes import GaussianNB
    >>> example = load_gaussian()
    >>> example.data.ravel().tolist(), example.target.tolist()
    ([1.0, 3.0, 4.0, 6.0], ['+', '+', '-', '-'])
    >>> clf = GaussianNB(var_smoothing=0).fit(example.data, example.target)
    >>> clf.theta_.ravel().tolist(), clf.var_.ravel().tolist()
    ([2.0, 5.0], [1.0, 1.0])
    >>> load_gaussian(exercise=True).means
    {'A': 0.0, 'B': 4.0}
    """
    if exercise:
        means, query = {"A": 0.0, "B": 4.0}, 1.0
        where = "'Your turn: 5. Gaussian Naive Bayes'"
    else:
        means, query = {"+": 2.0, "-": 5.0}, 3.0
        where = "'Solved example: 2. A one-feature Gaussian Naive Bayes'"
    labels = [c for c in means for _ in range(2)]
    data = np.array([[m + step] for m in means.values() for step in (-1.0, 1.0)])
    return Dataset(
        data=data,
        target=np.array(labels),
        feature_names=["x"],
        target_names=sorted(means),
        means=means,
        variances=dict.fromkeys(means, 1.0),
        query=query,
        source=f"{_WEEK_8}, {where} (the two points per class are nbayes', not the notes')",
        DESCR=(
            "Two classes of one Gaussian feature with equal variances (1) and equal priors; "
            "each class is the two points mean - 1 and mean + 1."
        ),
    )


def load_abusive_posts() -> Dataset:
    """The five forum posts of the notes' implementation walk-through, and its new sentences.

    The notes print each post's set of words (the order a Python set gave them) and its
    label (1 = abusive); the word order within a post is not printed and is not used by a
    bag-of-words. The vocabulary here is the 29 words sorted. ``tests`` are the three new
    sentences the walk-through classifies (its answer: ``[1 0 1]``); their words that are
    not in the vocabulary ("you", "thing", "he", "a") are dropped, as the notes do.

    Returns
    -------
    Dataset
        ``texts`` (5 str), ``data`` (5 x 29 int, 0/1), ``target`` (0 or 1),
        ``feature_names``, ``target_names``, ``tests`` (3 str), ``tests_data``, ``source``,
        ``DESCR``.

    Examples
    --------
    >>> posts = load_abusive_posts()
    >>> posts.data.shape, posts.target.tolist()
    ((5, 29), [0, 1, 0, 1, 0])
    >>> posts.tests
    ['you stupid thing', 'I love him', 'he is a stupid garbage']
    """
    posts = [
        ("my dog has flea problems help please", 0),
        ("maybe not take him to dog park stupid", 1),
        ("my dalmation is so cute I love him", 0),
        ("stop posting stupid worthless garbage", 1),
        ("mr steak how to stop him my eating is bosh", 0),
    ]
    tests = ["you stupid thing", "I love him", "he is a stupid garbage"]
    vocabulary = sorted({w for p, _ in posts for w in p.split()})
    return _text_dataset(
        posts,
        vocabulary,
        binary=True,
        source=f"{_POSTINGS}, 'Implementation (Naive Bayes)'",
        descr="Five forum posts, abusive (1) or not (0), as a binary bag-of-words.",
        tests=tests,
        tests_data=np.array([_bag_of_words(t, vocabulary, binary=True) for t in tests]),
    )
