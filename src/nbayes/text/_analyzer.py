"""The word analyzer in pure Python: documents in, terms out (standard library and numpy).

These are scikit-learn's default word analyzer (``token_pattern=r"(?u)\\b\\w\\w+\\b"``,
``str.lower``, stop words dropped before the n-grams are made), written without importing
it, so that one document can be counted and explained by the lean prediction path
(:mod:`nbayes.text.scoring`). The compiled kernels (:mod:`nbayes.text._tokenize`) count batches
of documents the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_TOKEN_PATTERN",
    "check_one_text",
    "documents",
    "exact_str",
    "raw_documents",
    "terms",
    "transform_one",
]

DEFAULT_TOKEN_PATTERN = r"(?u)\b\w\w+\b"
_TOKEN_RE = re.compile(DEFAULT_TOKEN_PATTERN)


def terms(
    doc: str,
    *,
    lowercase: bool = True,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: frozenset[str] | None = None,
) -> list[str]:
    """The terms of one document in order (words, then n-grams), as scikit-learn's
    ``CountVectorizer(lowercase, ngram_range, stop_words).build_analyzer()`` makes them.

    >>> terms("The cat sat on the mat", ngram_range=(1, 2), stop_words=frozenset({"the"}))
    ['cat', 'sat', 'on', 'mat', 'cat sat', 'sat on', 'on mat']
    """
    if lowercase:
        doc = doc.lower()
    tokens = _TOKEN_RE.findall(doc)
    if stop_words:
        tokens = [t for t in tokens if t not in stop_words]
    lo, hi = ngram_range
    if hi != 1:
        feats = list(tokens) if lo == 1 else []
        n = len(tokens)
        for k in range(max(lo, 2), min(hi, n) + 1):
            feats.extend(" ".join(tokens[i : i + k]) for i in range(n - k + 1))
        tokens = feats
    return tokens


def transform_one(
    doc: str,
    vocabulary: Mapping[str, int],
    *,
    lowercase: bool = True,
    binary: bool = False,
    ngram_range: tuple[int, int] = (1, 1),
    stop_words: frozenset[str] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Low-latency counts of one document: ``(columns, counts)``, columns sorted.

    Pure Python (``re`` + dict lookups, no compiled kernel, no scipy object), so a short
    document costs a few microseconds. Equal to the non-zeros of row 0 of
    ``CountVectorizer(vocabulary=vocabulary, ...).transform([doc])``.

    Parameters
    ----------
    doc : str
    vocabulary : mapping str -> int
    lowercase, binary, ngram_range
        As in :class:`CountVectorizer` (any ``(min_n, max_n)``).
    stop_words : frozenset of str or None
        Already-resolved stop set (e.g. ``sklearn.feature_extraction.text.
        ENGLISH_STOP_WORDS``); resolving ``'english'`` per call would cost time.

    Returns
    -------
    columns : ndarray of int64, sorted
    counts : ndarray of int64
    """
    tokens = terms(doc, lowercase=lowercase, ngram_range=ngram_range, stop_words=stop_words)
    get = vocabulary.get
    counter: dict[int, int] = {}
    for t in tokens:
        j = get(t)
        if j is not None:
            counter[j] = counter.get(j, 0) + 1
    cols = sorted(counter)
    columns = np.array(cols, dtype=np.int64)
    if binary:
        return columns, np.ones(len(cols), dtype=np.int64)
    return columns, np.array([counter[c] for c in cols], dtype=np.int64)


def raw_documents(X: Any) -> list[str]:
    """``X`` as a list of str documents, or ValueError saying what is wrong with it."""
    if isinstance(X, str | bytes):
        raise ValueError(
            "Iterable over raw text documents expected, string object received. "
            "Wrap a single document in a list: [text]."
        )
    try:
        docs = list(X)
    except TypeError:
        raise ValueError(
            f"Iterable over raw text documents expected, {type(X).__name__} received. "
            "Pass a list (or other iterable) of str."
        ) from None
    if set(map(type, docs)) <= {str}:
        return docs
    bad = [i for i, d in enumerate(docs) if not isinstance(d, str)]
    if bad:
        i = bad[0]
        d = docs[i]
        if isinstance(d, list | tuple) and all(isinstance(w, str) for w in d):
            todo = "Join its words into one text: ' '.join(words) (as sample() gives them)."
        elif isinstance(d, bytes | bytearray):
            todo = "Decode bytes first (e.g. nbayes.io.read_texts)."
        else:
            todo = "Give each document as a str, and a missing text as ''."
        raise ValueError(
            f"Document {i} is a {type(d).__name__}, not a str ({len(bad)} such documents). {todo}"
        )
    # str subclasses (numpy's str_ of a '<U' array, ...): the same text as exact str,
    # which is what the compiled kernels read
    return [exact_str(d) for d in docs]


def exact_str(text: str) -> str:
    """``text`` as an exact ``str`` (a str subclass's characters, e.g. ``numpy.str_``)."""
    return text if type(text) is str else str.__str__(text)


def documents(X: Any, preprocess: Callable[[str], str] | None) -> list[str]:
    """Validated documents, after the ``preprocess`` step (if any)."""
    docs = raw_documents(X)
    return docs if preprocess is None else [preprocess(d) for d in docs]


def check_one_text(text: Any) -> str:
    """``explain`` takes one document: it, as an exact str."""
    if not isinstance(text, str):
        raise ValueError(f"explain() takes one document (a str); got {type(text).__name__}.")
    return exact_str(text)
