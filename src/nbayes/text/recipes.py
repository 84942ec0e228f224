"""Optional text preprocessing recipes that make Naive Bayes text models more accurate.

Every recipe is a pure function ``str -> str`` that runs *before* tokenization, so it
works with any tokenizer (``TextClassifier``, ``nbayes.text.CountVectorizer`` or
scikit-learn's) and keeps the fast compiled counting path: apply it to the documents,
then fit and predict on the results. The rewritten text still goes through the usual
lowercasing and the token pattern ``(?u)\\b\\w\\w+\\b``, so the markers the recipes insert
are made of word characters (letters and ``_``) and of at least two of them.

* :func:`mark_negation` -- Das & Chen (2001) / Pang, Lee & Vaithyanathan (2002): every
  word between a negation ("not", "no", "never", "...n't", ...) and the next
  punctuation mark gets a ``NOT_`` prefix, so "not good" counts as ``not_good``, a
  feature of its own, instead of as evidence for "good".
* :func:`strip_html` -- replaces HTML tags (IMDB reviews contain ``<br />``) by a line
  break, which also ends a negation scope.
* :func:`mark_punctuation` -- keeps "!" and "?" as tokens (``EXCLAMATIONMARK``,
  ``QUESTIONMARK``), which the default token pattern drops.
* :func:`mark_ratings` -- keeps scores such as "7/10" or "3.5/5" as one token
  (``7_OUT_OF_10``); the default token pattern keeps only "10" of "7/10".
* :func:`sentiment_preprocess` -- the recipe measured best on sentiment data
  (``benchmarks/bench_accuracy.py``): :func:`mark_ratings`. Negation marking, HTML
  stripping and punctuation tokens changed binarized-MNB accuracy by less than the
  noise there (see the function docs), so they are not part of it.

Examples
--------
>>> from nbayes import TextClassifier
>>> from nbayes.text.recipes import mark_negation
>>> docs = ["a good film", "good acting", "not good at all", "bad , not good"]
>>> y = ["pos", "pos", "neg", "neg"]
>>> clf = TextClassifier(binary=True).fit([mark_negation(d) for d in docs], y)
>>> clf.predict([mark_negation("this is not good")])
array(['neg'], dtype='<U3')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

__all__ = [
    "RECIPES",
    "resolve",
    "NEGATION_WORDS",
    "compose",
    "mark_negation",
    "mark_punctuation",
    "mark_ratings",
    "preprocess_all",
    "sentiment_preprocess",
    "strip_html",
]

#: Words that open a negation scope (lower case; any word ending in "n't" does too).
NEGATION_WORDS: frozenset[str] = frozenset(
    {
        "not", "no", "never", "cannot", "nothing", "nobody", "none", "nowhere", "neither",
        "nor", "without", "hardly", "barely", "scarcely", "cant", "dont", "doesnt", "didnt",
        "isnt", "wasnt", "arent", "werent", "wont", "wouldnt", "couldnt", "shouldnt",
        "havent", "hasnt", "hadnt", "aint",
    }
)  # fmt: skip

# A "word" for the scope: a run of word characters with inner apostrophes ("don't",
# "it's"); the apostrophe may be typographic (U+2019). Anything in _SCOPE_END closes the
# scope. Spaced contractions as in tokenized corpora ("do n't") are words too ("n't").
_WORD = re.compile(r"\w+(?:['\u2019]\w+)*|n['\u2019]t\b|[.,:;!?\n]", re.IGNORECASE)
_SCOPE_END = frozenset(".,:;!?\n")
_NT = re.compile(r"n['\u2019]?t$", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
_RATING = re.compile(r"(\d+(?:\.\d+)?)\s*/\s*(\d+)\b")
_BANG = re.compile(r"!")
_QUESTION = re.compile(r"\?")


def _is_negation(word: str) -> bool:
    low = word.lower()
    if low in NEGATION_WORDS:
        return True
    # "don't", "isn't", "won't", "can't", a lone "n't" (Penn Treebank tokenization)
    return ("'" in low or "\u2019" in low) and _NT.search(low) is not None


def mark_negation(text: str, prefix: str = "NOT_") -> str:
    """Prefix every word after a negation, up to the next punctuation mark, with ``prefix``.

    A negation is a word of :data:`NEGATION_WORDS` or any contraction ending in "n't"
    (also with a typographic apostrophe, and the separate "n't" of tokenized text); its
    scope ends at the first of ``. , : ; ! ?`` or a line break. The negation word itself
    is not marked, and negations inside a scope neither mark nor end it (as in Pang et
    al. 2002). Only the marked words change: spacing, case and punctuation are kept, so
    the result tokenizes like the input plus the markers. With the default token pattern
    the marked words become features ``not_<word>`` (after lowercasing); one-letter words
    such as "a" become features too (``not_a``).

    Parameters
    ----------
    text : str
    prefix : str, default="NOT_"
        Word characters only, to keep a marked word one token.

    Returns
    -------
    str

    Examples
    --------
    >>> mark_negation("this movie is not good , but the cast is great .")
    'this movie is not NOT_good , but the cast is great .'
    >>> mark_negation("I didn't like it. Fun though!")
    "I didn't NOT_like NOT_it. Fun though!"
    >>> mark_negation("it does n't work")
    "it does n't NOT_work"
    >>> mark_negation("no plot, no fun")
    'no NOT_plot, no NOT_fun'
    >>> mark_negation("nothing here")
    'nothing NOT_here'
    >>> mark_negation("")
    ''
    """
    if not isinstance(text, str):
        raise TypeError(f"mark_negation() takes a str, got {type(text).__name__}.")
    if not re.fullmatch(r"\w+", prefix):
        raise ValueError(f"prefix must be made of word characters only, got {prefix!r}.")
    out: list[str] = []
    last = 0
    in_scope = False
    for m in _WORD.finditer(text):
        tok = m.group()
        if tok in _SCOPE_END:
            in_scope = False
            continue
        if in_scope:
            out.append(text[last : m.start()])
            out.append(prefix)
            last = m.start()
        elif _is_negation(tok):
            in_scope = True
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def strip_html(text: str) -> str:
    """Replace HTML tags such as ``<br />`` by a line break.

    IMDB reviews separate paragraphs with ``<br /><br />``; left in, the tag yields a
    token "br" in every long review, and the line break it becomes ends a negation scope
    (see :func:`mark_negation`). A tag is ``<`` or ``</``, a letter, at most 200 more
    characters other than ``<`` and ``>``, then ``>``.

    Examples
    --------
    >>> strip_html("Great.<br /><br />Not bad at all")
    'Great.\\n\\nNot bad at all'
    >>> strip_html("1 < 2 and 3 > 2, <b>bold</b>")
    '1 < 2 and 3 > 2, \\nbold\\n'
    >>> strip_html("x <- y")
    'x <- y'
    """
    if not isinstance(text, str):
        raise TypeError(f"strip_html() takes a str, got {type(text).__name__}.")
    return _TAG.sub("\n", text)


def mark_punctuation(text: str) -> str:
    """Turn "!" and "?" into the tokens ``EXCLAMATIONMARK`` and ``QUESTIONMARK``.

    The default token pattern keeps runs of two or more word characters only, so
    punctuation never becomes a feature; this recipe keeps the two marks that carry
    sentiment or intent. The marks themselves stay (they still end a negation scope).

    Examples
    --------
    >>> mark_punctuation("Great!! Really?")
    'Great! EXCLAMATIONMARK ! EXCLAMATIONMARK  Really? QUESTIONMARK '
    """
    if not isinstance(text, str):
        raise TypeError(f"mark_punctuation() takes a str, got {type(text).__name__}.")
    return _QUESTION.sub("? QUESTIONMARK ", _BANG.sub("! EXCLAMATIONMARK ", text))


def _rating_token(m: re.Match[str]) -> str:
    return f" {m.group(1).replace('.', '_')}_OUT_OF_{m.group(2)} "


def mark_ratings(text: str) -> str:
    """Turn a score "<number>/<number>" ("7/10", "3.5 / 5") into one token ``7_OUT_OF_10``.

    Reviews often end with a score, the strongest single clue to their polarity, but the
    default token pattern (two or more word characters) keeps "10" of "7/10" and drops
    the "7". The decimal point of a score becomes ``_``. Any "a/b" of numbers matches,
    so fractions and parts of dates ("12/25") become tokens too, which is harmless for
    Naive Bayes (rare tokens carry little weight).

    Measured with binarized MNB (``benchmarks/bench_accuracy.py``, alpha=1): IMDB
    unigrams 82.92 -> 83.40 %, uni+bigrams 86.49 -> 86.66 %; RT-s (no scores) and SMS
    spam unchanged.

    Examples
    --------
    >>> mark_ratings("Awful. 2/10, avoid")
    'Awful.  2_OUT_OF_10 , avoid'
    >>> mark_ratings("I give it 7.5 / 10!")
    'I give it  7_5_OUT_OF_10 !'
    >>> mark_ratings("no score here")
    'no score here'
    """
    if not isinstance(text, str):
        raise TypeError(f"mark_ratings() takes a str, got {type(text).__name__}.")
    return _RATING.sub(_rating_token, text)


def compose(*steps: Callable[[str], str]) -> Callable[[str], str]:
    """One function applying ``steps`` from left to right.

    Examples
    --------
    >>> f = compose(strip_html, mark_negation)
    >>> f("not<br />good")
    'not\\ngood'
    >>> f("not good<br />")
    'not NOT_good\\n'
    """
    for s in steps:
        if not callable(s):
            raise TypeError(f"compose() takes callables, got {type(s).__name__}.")

    def composed(text: str) -> str:
        for s in steps:
            text = s(text)
        return text

    composed.__name__ = "+".join(getattr(s, "__name__", "step") for s in steps) or "identity"
    return composed


def sentiment_preprocess(text: str) -> str:
    """The recommended recipe for review sentiment: :func:`mark_ratings`.

    Measured with binarized multinomial NB, alpha=1 (``benchmarks/bench_accuracy.py``):
    IMDB +0.48 points with unigrams and +0.17 with uni+bigrams; RT-s and SMS spam
    unchanged. :func:`mark_negation` and :func:`strip_html` were measured too and moved
    accuracy by less than the noise (+-0.2 points, up on some settings and down on
    others), so they are left out; they remain available to :func:`compose`.

    Examples
    --------
    >>> sentiment_preprocess("Not funny. 3/10")
    'Not funny.  3_OUT_OF_10 '
    """
    return mark_ratings(text)


def preprocess_all(docs: Iterable[str], recipe: Callable[[str], str]) -> list[str]:
    """``[recipe(d) for d in docs]``, with a clear error for a non-string document.

    Examples
    --------
    >>> preprocess_all(["not bad", "good"], mark_negation)
    ['not NOT_bad', 'good']
    """
    out: list[str] = []
    for i, d in enumerate(docs):
        if not isinstance(d, str):
            raise TypeError(f"Document {i} is a {type(d).__name__}, not a str.")
        out.append(recipe(d))
    return out


#: the recipes ``TextClassifier(preprocess=...)`` accepts by name
RECIPES: dict[str, Callable[[str], str]] = {
    "sentiment": sentiment_preprocess,
    "ratings": mark_ratings,
    "negation": mark_negation,
    "html": strip_html,
    "punctuation": mark_punctuation,
}


def resolve(preprocess: str | Callable[[str], str] | None) -> Callable[[str], str] | None:
    """The function a ``preprocess`` setting names (None: no preprocessing).

    >>> resolve("ratings")("a 7/10 film")
    'a  7_OUT_OF_10  film'
    """
    if preprocess is None or callable(preprocess):
        return preprocess
    try:
        return RECIPES[preprocess]
    except (KeyError, TypeError):
        raise ValueError(
            f"The 'preprocess' parameter must be None, a callable or one of "
            f"{sorted(RECIPES)}. Got {preprocess!r} instead."
        ) from None
