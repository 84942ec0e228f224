"""scikit-learn's English stop-word list (``stop_words="english"``), without importing it,
and scikit-learn's warning for a stop-word list inconsistent with the preprocessing.

The same 318 words as ``sklearn.feature_extraction.text.ENGLISH_STOP_WORDS`` (the tests
check they are equal), so the lean prediction path resolves ``"english"`` without loading
scikit-learn. scikit-learn took the list from the Glasgow Information Retrieval Group
(http://ir.dcs.gla.ac.uk/resources/linguistic_utils/stop_words); BSD-3-Clause.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

__all__ = ["ENGLISH_STOP_WORDS", "warn_if_inconsistent"]

from ._analyzer import DEFAULT_TOKEN_PATTERN

_TOKEN_RE = re.compile(DEFAULT_TOKEN_PATTERN)

ENGLISH_STOP_WORDS: frozenset[str] = frozenset(
    {
        "a", "about", "above", "across", "after", "afterwards", "again", "against", "all",
        "almost", "alone", "along", "already", "also", "although", "always", "am", "among",
        "amongst", "amoungst", "amount", "an", "and", "another", "any", "anyhow", "anyone",
        "anything", "anyway", "anywhere", "are", "around", "as", "at", "back", "be", "became",
        "because", "become", "becomes", "becoming", "been", "before", "beforehand", "behind",
        "being", "below", "beside", "besides", "between", "beyond", "bill", "both", "bottom",
        "but", "by", "call", "can", "cannot", "cant", "co", "con", "could", "couldnt", "cry",
        "de", "describe", "detail", "do", "done", "down", "due", "during", "each", "eg",
        "eight", "either", "eleven", "else", "elsewhere", "empty", "enough", "etc", "even",
        "ever", "every", "everyone", "everything", "everywhere", "except", "few", "fifteen",
        "fifty", "fill", "find", "fire", "first", "five", "for", "former", "formerly", "forty",
        "found", "four", "from", "front", "full", "further", "get", "give", "go", "had", "has",
        "hasnt", "have", "he", "hence", "her", "here", "hereafter", "hereby", "herein",
        "hereupon", "hers", "herself", "him", "himself", "his", "how", "however", "hundred",
        "i", "ie", "if", "in", "inc", "indeed", "interest", "into", "is", "it", "its", "itself",
        "keep", "last", "latter", "latterly", "least", "less", "ltd", "made", "many", "may",
        "me", "meanwhile", "might", "mill", "mine", "more", "moreover", "most", "mostly",
        "move", "much", "must", "my", "myself", "name", "namely", "neither", "never",
        "nevertheless", "next", "nine", "no", "nobody", "none", "noone", "nor", "not",
        "nothing", "now", "nowhere", "of", "off", "often", "on", "once", "one", "only", "onto",
        "or", "other", "others", "otherwise", "our", "ours", "ourselves", "out", "over", "own",
        "part", "per", "perhaps", "please", "put", "rather", "re", "same", "see", "seem",
        "seemed", "seeming", "seems", "serious", "several", "she", "should", "show", "side",
        "since", "sincere", "six", "sixty", "so", "some", "somehow", "someone", "something",
        "sometime", "sometimes", "somewhere", "still", "such", "system", "take", "ten", "than",
        "that", "the", "their", "them", "themselves", "then", "thence", "there", "thereafter",
        "thereby", "therefore", "therein", "thereupon", "these", "they", "thick", "thin",
        "third", "this", "those", "though", "three", "through", "throughout", "thru", "thus",
        "to", "together", "too", "top", "toward", "towards", "twelve", "twenty", "two", "un",
        "under", "until", "up", "upon", "us", "very", "via", "was", "we", "well", "were",
        "what", "whatever", "when", "whence", "whenever", "where", "whereafter", "whereas",
        "whereby", "wherein", "whereupon", "wherever", "whether", "which", "while", "whither",
        "who", "whoever", "whole", "whom", "whose", "why", "will", "with", "within", "without",
        "would", "yet", "you", "your", "yours", "yourself", "yourselves",
    }
)  # fmt: skip


def warn_if_inconsistent(stop_words: Any, lowercase: bool) -> None:
    """scikit-learn's warning when a stop-word list is inconsistent with the
    preprocessing: a stop word that lowercasing and tokenizing turns into tokens not in
    the list (``"Don't"`` gives ``"don"``, which is then not dropped). No warning for
    ``None`` or ``"english"``, as in scikit-learn."""
    if stop_words is None or isinstance(stop_words, str):
        return
    try:
        stop = frozenset(stop_words)
        inconsistent = {
            token
            for w in stop
            for token in _TOKEN_RE.findall(w.lower() if lowercase else w)
            if token not in stop
        }
    except Exception:  # words that are not str: scikit-learn gives up silently too
        return
    if inconsistent:
        warnings.warn(
            "Your stop_words may be inconsistent with your preprocessing. Tokenizing the "
            f"stop words generated tokens {sorted(inconsistent)!r} not in stop_words.",
            UserWarning,
            stacklevel=3,
        )
