"""Optional text preprocessing recipes that make Naive Bayes text models more accurate.

Every recipe is a pure function ``str -> str`` that runs *before* tokenization, so it
works with any tokenizer (``TextClassifier``, ``nbayes.text.CountVectorizer`` or
scikit-learn's) and keeps the fast compiled counting path: apply it to the documents,
then fit and predict on the results. The rewritten text still goes through the usual
lowercasing and the token pattern ``(?u)\\b\\w\\w+\\b``, so the markers the recipes insert
are made of word characters (letters and ``_``) and of at least two of them.

* :func:`mark_negation` -- Das & Chen (2001) / Pang, Lee & Vaithyanathan (2002): every
  word between a negation ("not", "no", "never", "...n't", ...) and the next
  punctuation mark (or, with ``scope=k``, only the next ``k`` words) gets a ``NOT_``
  prefix, so "not good" counts as ``not_good``, a feature of its own, instead of as
  evidence for "good".
* :func:`strip_html` -- replaces HTML tags (IMDB reviews contain ``<br />``) by a line
  break, which also ends a negation scope.
* :func:`mark_punctuation` -- keeps "!" and "?" as tokens (``EXCLAMATIONMARK``,
  ``QUESTIONMARK``), which the default token pattern drops.
* :func:`mark_ratings` -- keeps scores such as "7/10", "3.5/5" or "7 out of 10" as one
  token (``7_OUT_OF_10``); the default token pattern keeps only "10" of "7/10".
* :func:`sentiment_preprocess` -- the recipe measured best on sentiment data
  (``benchmarks/bench_accuracy.py``), named ``preprocess="sentiment"``:
  :func:`mark_ratings`, then :func:`mark_negation` with a scope of three words. With
  binarized multinomial NB (alpha=1) it meets Wang & Manning's (2012) MNB figures on all
  four of their settings, which the default tokenization does not: RT-s (10-fold CV)
  unigrams 77.97 -> 78.92 % (target 77.94), uni+bigrams 78.80 -> 79.23 % (79.03); IMDB
  unigrams 82.92 -> 84.52 % (83.55), uni+bigrams 86.49 -> 87.30 % (86.59); SMS spam
  98.21 -> 98.12 % (one message). Negation marked up to the punctuation (the classic
  scope), HTML stripping, "!"/"?" tokens, one-letter words, contractions and hyphenated
  words kept whole moved accuracy by at most about 0.25 points there, up on some settings
  and down on others, so they are not part of it. It runs at about 18 MB/s of text
  (IMDB, one core).

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

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any, NoReturn

__all__ = [
    "RECIPES",
    "resolve",
    "NEGATION_WORDS",
    "SENTIMENT_NEGATION_SCOPE",
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

_TAG = re.compile(r"</?[A-Za-z][^<>]{0,200}>")
_RATING = re.compile(r"(\d+(?:\.\d+)?)(?:\s*/\s*|\s+out\s+of\s+)(\d+)\b", re.IGNORECASE)
_BANG = re.compile(r"!")
_QUESTION = re.compile(r"\?")

# A negation scope: the words after a negation up to the next scope end (". , : ; ! ?" or a
# line break). A word is a run of word characters with inner apostrophes ("don't", "it's";
# the apostrophe may be typographic, U+2019); between two words of a scope may stand any
# characters other than word characters and scope ends (spaces, quotes, dashes, ...).
_SCOPE_SEP = r"[^\w.,:;!?\n]+"
_SCOPE_WORD = r"\w+(?:['\u2019]\w+)*"
_SCOPE_WORD_RE = re.compile(_SCOPE_WORD)


def _not_a_str(recipe: str, text: Any) -> NoReturn:
    raise TypeError(f"{recipe}() takes a str, got {type(text).__name__}.")


def _any_case(words: Iterable[str]) -> str:
    """A regex matching exactly ``words`` (ASCII letters) in any letter case, as a trie.

    Explicit ``[nN]`` classes instead of ``re.IGNORECASE`` keep the match ASCII-exact
    (under IGNORECASE "\u017f" matches "s") and a trie is about twice as fast as a flat
    alternation in ``re``.
    """
    tree: dict[str, Any] = {}
    for w in words:
        if not re.fullmatch(r"[a-z]+", w):
            raise ValueError(f"negation words must be lower-case ASCII letters, got {w!r}.")
        node = tree
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        alts = [f"[{c}{c.upper()}]" + build(sub) for c, sub in sorted(node.items()) if c]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return build(tree)


# A negation is a whole word of NEGATION_WORDS (not the tail of "x'no"), or a word with an
# apostrophe that ends in "n't" ("don't"; also the separate "n't" of tokenized text) or in
# "nt" after an inner apostrophe ("did'nt"); either must end its word (not "don't've").
# The leading lookahead only lets ``re`` skip impossible start positions quickly.
_NEG_FIRST = "".join(sorted({w[0] for w in NEGATION_WORDS} | {"n"}))
_NEGATION = (
    f"(?=[{_NEG_FIRST}{_NEG_FIRST.upper()}'\u2019])"
    f"(?:(?<!\\w['\u2019])\\b{_any_case(NEGATION_WORDS)}"
    "|(?<=\\w)['\u2019]\\w*[nN][tT]"
    "|[nN]['\u2019][tT])"
    "\\b(?!['\u2019]\\w)"
)


@functools.lru_cache(maxsize=32)
def _negation_re(scope: int | None) -> re.Pattern[str]:
    """Group 1: a negation; group 2: its scope (the words to mark, with what separates them)."""
    reps = "+" if scope is None else f"{{1,{scope}}}"
    return re.compile(f"({_NEGATION})((?:{_SCOPE_SEP}{_SCOPE_WORD}){reps})")


def mark_negation(text: str, prefix: str = "NOT_", scope: int | None = None) -> str:
    """Prefix the words after a negation, up to the next punctuation mark, with ``prefix``.

    A negation is a word of :data:`NEGATION_WORDS` (in any letter case) or a word with an
    apostrophe ending in "n't" (also with a typographic apostrophe, the separate "n't" of
    tokenized text, and the misspelt "did'nt"). Its scope ends at the first of
    ``. , : ; ! ?`` or a line break, or after ``scope`` words if ``scope`` is given. The
    negation word itself is not marked, and negations inside a scope are marked but
    neither restart nor end it (as in Pang et al. 2002). Only the marked words change:
    spacing, case and punctuation are kept, so the result tokenizes like the input plus the
    markers. With the default token pattern the marked words become features
    ``not_<word>`` (after lowercasing); one-letter words such as "a" become features too
    (``not_a``).

    Measured with binarized MNB (``benchmarks/bench_accuracy.py``, alpha=1), a short
    scope works better than the classic scope to the next punctuation mark: ``scope=3``
    gains 0.4 to 1 point on RT-s and IMDB, ``scope=None`` is within about +-0.2 of no
    marking.

    Parameters
    ----------
    text : str
    prefix : str, default="NOT_"
        Word characters only, to keep a marked word one token.
    scope : int or None, default=None
        Mark at most this many words after each negation (None: up to the punctuation).

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
    >>> mark_negation("not a single good scene in it", scope=3)
    'not NOT_a NOT_single NOT_good scene in it'
    >>> mark_negation("")
    ''
    """
    if not isinstance(text, str):
        _not_a_str("mark_negation", text)
    if not re.fullmatch(r"\w+", prefix):
        raise ValueError(f"prefix must be made of word characters only, got {prefix!r}.")
    if scope is not None and (
        not isinstance(scope, int) or isinstance(scope, bool) or not 1 <= scope <= 1_000_000
    ):
        raise ValueError(f"scope must be None or an int in [1, 1000000], got {scope!r}.")
    marked = prefix + r"\g<0>"

    def mark(m: re.Match[str]) -> str:
        return m.group(1) + _SCOPE_WORD_RE.sub(marked, m.group(2))

    return _negation_re(scope).sub(mark, text)


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
        _not_a_str("strip_html", text)
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
        _not_a_str("mark_punctuation", text)
    return _QUESTION.sub("? QUESTIONMARK ", _BANG.sub("! EXCLAMATIONMARK ", text))


def _rating_token(m: re.Match[str]) -> str:
    return f" {m.group(1).replace('.', '_')}_OUT_OF_{m.group(2)} "


def mark_ratings(text: str) -> str:
    """Turn a score ("7/10", "3.5 / 5", "7 out of 10") into one token ``7_OUT_OF_10``.

    Reviews often end with a score, the strongest single clue to their polarity, but the
    default token pattern (two or more word characters) keeps "10" of "7/10" and drops
    the "7". The decimal point of a score becomes ``_``. Any "a/b" or "a out of b" of
    numbers matches ("out of" in any letter case), so fractions and parts of dates
    ("12/25") become tokens too, which is harmless for Naive Bayes (rare tokens carry
    little weight).

    Measured with binarized MNB (``benchmarks/bench_accuracy.py``, alpha=1): IMDB
    unigrams 82.92 -> 83.55 %, uni+bigrams 86.49 -> 86.74 % ("/" scores alone: 83.40 and
    86.66 %); RT-s (no scores) and SMS spam unchanged.

    Examples
    --------
    >>> mark_ratings("Awful. 2/10, avoid")
    'Awful.  2_OUT_OF_10 , avoid'
    >>> mark_ratings("I give it 7.5 / 10!")
    'I give it  7_5_OUT_OF_10 !'
    >>> mark_ratings("3 out of 10")
    ' 3_OUT_OF_10 '
    >>> mark_ratings("no score here")
    'no score here'
    """
    if not isinstance(text, str):
        _not_a_str("mark_ratings", text)
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


#: How many words after a negation :func:`sentiment_preprocess` marks (1 to 5 all meet the
#: four targets; 2, 3 and 4 are within 0.3 points of each other, 0.1 on the RT-s 5-shuffle
#: means; the scope to the next punctuation mark is 0.5 to 1 point lower).
SENTIMENT_NEGATION_SCOPE = 3


def sentiment_preprocess(text: str) -> str:
    """The recommended recipe for review sentiment: scores as tokens, short negation scopes.

    ``mark_negation(mark_ratings(text), scope=3)``: :func:`mark_ratings` turns "7/10" and
    "7 out of 10" into one token ``7_OUT_OF_10``, then :func:`mark_negation` prefixes at
    most :data:`SENTIMENT_NEGATION_SCOPE` words after a negation with ``NOT_`` (fewer if
    a punctuation mark or line break comes first), so "not a good film" counts as
    ``not_a not_good not_film``.

    Measured with binarized multinomial NB, alpha=1 (``benchmarks/bench_accuracy.py``),
    default tokenization -> this recipe, accuracy in %:

    ========================== ============== ============== ===============
    data (protocol)            unigrams       uni+bigrams    Wang & Manning
    ========================== ============== ============== ===============
    RT-s (10-fold CV, seed 0)  77.97 -> 78.92 78.80 -> 79.23 77.94 / 79.03
    RT-s (mean of 5 shuffles)  77.87 -> 78.75 78.84 -> 79.39
    IMDB (official 25k/25k)    82.92 -> 84.52 86.49 -> 87.30 83.55 / 86.59
    SMS spam (80/20 split)     98.21 -> 98.12 98.21 -> 98.12
    ========================== ============== ============== ===============

    The recipe beats both RT-s targets on each of 10 shuffles (lowest 78.56 and 79.14;
    ``--mean-seeds 10``), the default tokenization the uni+bigram one on none.
    The SMS difference is one message of 1,115 (10-fold CV over 5 shuffles: -0.04 and
    -0.01 points). The negation scope is what helps: marking up to the next punctuation
    mark (the classic scope, :func:`mark_negation`'s default) is within about +-0.2
    points of no marking, while 2 to 4 words gain 0.4 to 1 point; "7 out of 10" adds
    0.15 on IMDB unigrams. :func:`strip_html`, one-letter words and "!"/"?" kept as
    tokens, contractions or hyphenated words kept whole were measured on top of this
    recipe too and moved accuracy by at most 0.25 points, up on some settings and down
    on others, so they are left out.

    It runs at about 18 MB/s on IMDB (one core; :func:`mark_ratings` 95 MB/s, the
    negation scan 22 MB/s), about 8 times the time of fitting and predicting a unigram
    ``TextClassifier`` on the same text, and 0.7 times that of uni+bigrams.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> sentiment_preprocess("This is not a good film at all. 3 out of 10")
    'This is not NOT_a NOT_good NOT_film at all.  3_OUT_OF_10 '
    >>> sentiment_preprocess("I didn't like it: 2/10.")
    "I didn't NOT_like NOT_it:  2_OUT_OF_10 ."
    """
    if not isinstance(text, str):
        _not_a_str("sentiment_preprocess", text)
    return mark_negation(mark_ratings(text), scope=SENTIMENT_NEGATION_SCOPE)


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
