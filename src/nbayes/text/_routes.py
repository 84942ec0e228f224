"""Which code counts a batch of documents, and why: the one place that decides.

Every counter of :mod:`nbayes.text` (the vectorizers, the kernel-level functions and
:class:`~nbayes.text.TextClassifier`) asks this module which route to take instead of
deciding itself. Two questions, two functions:

* :func:`tokens`: how the documents become terms;
* :func:`batch`: how a TextClassifier's batch becomes statistics (it always tokenizes
  with the default word analyzer: its ``preprocess`` step runs before): a :class:`Plan`
  of three orthogonal steps, below;
* :func:`one_document`: how :class:`nbayes.text.scoring.TextScorer` counts a single document
  (batches: :func:`tokens`, through ``token_streams.count_rows`` or the hashing kernels;
  the drivers are the modules of :mod:`nbayes.text._drivers`).

========================  =======================================  ==========================
route                     counts with                              taken when / falls back
========================  =======================================  ==========================
``ZERO_COPY``             ``_tokenize.direct_count``,              unigrams, the default word
                          ``direct_transform``; hashed:            analyzer, every document
                          ``_hashing.direct_hash``,                an exact ``str``; hashed:
                          ``direct_hash_transform`` (the strings   any word n-gram range too
                          read in place, in threads; hashed        (tried first whatever
                          n-grams hashed from their tokens'        :func:`tokens` says). The
                          bytes, never made strings)               kernel answers None (False
                                                                   for ``direct_hash``) when
                                                                   its zero-copy reader cannot
                                                                   be used (this Python's str
                                                                   layout): then
                                                                   ``TOKEN_STREAMS``
                                                                   (or ``COMPOSED_NGRAMS``)
``TOKEN_STREAMS``         ``token_streams._Analysis``              word n-grams (1, 2) or
                          (compiled token ids and pairs);          (2, 2) with the default
                          hashed: ``hash_counts._hash_analysis``   analyzer, or the fallback
``COMPOSED_NGRAMS``       ``token_streams._Analysis`` over         any other word n-gram
                          ``ngrams.ComposedNgrams``: compiled      range ((1, 3), (2, 3),
                          token ids, longer n-grams composed in    (3, 5), ...) with the
                          numpy (``np.unique`` per n), counted     default analyzer
                          by the unigram kernels; strings made
                          only for the vocabulary
``SKLEARN``               scikit-learn's own analyzer              a vectorizer whose settings
                                                                   the kernels do not have:
                                                                   ``input`` not 'content',
                                                                   ``analyzer`` not 'word',
                                                                   a ``preprocessor`` or
                                                                   ``tokenizer``,
                                                                   ``strip_accents``, another
                                                                   ``token_pattern``, an
                                                                   invalid ``ngram_range``
                                                                   (scikit-learn's error), a
                                                                   document
                                                                   not a ``str``; for
                                                                   CountVectorizer a tiny batch
                                                                   (<= 8 documents, < 4000
                                                                   characters: no kernel setup
                                                                   pays off); for
                                                                   HashingVectorizer no
                                                                   document, a ``dtype`` not
                                                                   float32/float64 (float16:
                                                                   scipy's ValueError, as
                                                                   scikit-learn's), another
                                                                   ``norm``,
                                                                   a bad ``n_features``
------------------------  ---------------------------------------  --------------------------
``ONE_COMPILED``          the compiled table of a fit's or a       one document scored or
                          file's terms (``TermColumns.count_one``, explained, a vocabulary
                          stop words left out of the table): no    from a compiled fit or a
                          str keys, no dict                        model file, unigrams; it
                                                                   declines (None): the
                                                                   dict and ``ONE_PYTHON``
``ONE_PYTHON``            ``_analyzer.transform_one``, pure        one document otherwise
                          Python (the lean path)
========================  =======================================  ==========================

A TextClassifier's batch (:func:`batch`) is a :class:`Plan` of three steps, each chosen
from one question, once per batch (``nbayes.text._batch.count`` composes them, and
``_batch.add_chunk`` for a chunk of ``fit_chunks``; each driver hands its whole batch to the
kernel threads once and passes its result on to the next step):

==============  ==================================================================
step            choices
==============  ==================================================================
``tokens``      how the documents become terms: ``ZERO_COPY`` (unigrams),
                ``TOKEN_STREAMS`` or ``COMPOSED_NGRAMS`` (:func:`tokens`)
``indexing``    how the terms find their columns: ``VOCABULARY`` (extended by the
                new terms, fixed, or a fit's fresh one: then the compiled count keeps
                the sorted terms and builds no term dict) or ``HASHED``
                (``n_features`` buckets)
``accumulate``  how the counts add up: ``CLASS_SUMS`` (per-class sums straight from
                the documents, no document x term matrix), ``WEIGHTED_ROWS``
                (``sample_weight``: document rows weighted into class sums) or
                ``RUNNING_TOTALS`` (``fit_chunks``: added into the totals of the
                chunks so far; hashed unigrams by the kernel in place)
==============  ==================================================================

Every route gives the same numbers (the parity tests hold each to scikit-learn's); they
differ in speed and memory only.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

from ._analyzer import DEFAULT_TOKEN_PATTERN

__all__ = [
    "CLASS_SUMS",
    "COMPOSED_NGRAMS",
    "FAST_NGRAMS",
    "HASHED",
    "RUNNING_TOTALS",
    "SKLEARN",
    "VOCABULARY",
    "Plan",
    "TOKEN_STREAMS",
    "WEIGHTED_ROWS",
    "ONE_COMPILED",
    "ONE_PYTHON",
    "ZERO_COPY",
    "batch",
    "hashing_vectorizer",
    "one_document",
    "tokens",
    "vectorizer",
]

ZERO_COPY = "zero-copy"
TOKEN_STREAMS = "token-streams"
COMPOSED_NGRAMS = "composed-ngrams"
SKLEARN = "sklearn"
VOCABULARY = "vocabulary"
HASHED = "hashed"
CLASS_SUMS = "class-sums"
WEIGHTED_ROWS = "weighted-rows"
RUNNING_TOTALS = "running-totals"
ONE_COMPILED = "one-compiled"
ONE_PYTHON = "one-python"

#: the word n-gram ranges the compiled kernels count as they are (any other valid range:
#: ``COMPOSED_NGRAMS``)
FAST_NGRAMS = ((1, 1), (1, 2), (2, 2))
#: the token patterns of the default word analyzer (scikit-learn's, with and without (?u))
FAST_PATTERNS = (DEFAULT_TOKEN_PATTERN, r"\b\w\w+\b")


def tokens(ngram: tuple[int, int]) -> str:
    """The tokenizing route of the default word analyzer for a valid ``ngram`` range:
    ``ZERO_COPY`` for unigrams, ``TOKEN_STREAMS`` for the other :data:`FAST_NGRAMS`,
    else ``COMPOSED_NGRAMS``."""
    if ngram == (1, 1):
        return ZERO_COPY
    return TOKEN_STREAMS if tuple(ngram) in FAST_NGRAMS else COMPOSED_NGRAMS


def all_str(docs: Sequence[Any]) -> bool:
    """Whether every document is an exact ``str`` (what the kernels read)."""
    return all(type(d) is str for d in docs)


def _small(docs: Sequence[str]) -> bool:
    """Tiny batches are faster through scikit-learn's pure-Python path (no kernel setup)."""
    return len(docs) <= 8 and sum(map(len, docs)) < 4000


def fast_ngram(est: Any) -> tuple[int, int] | None:
    """The ngram range if a vectorizer's analyzer settings are the kernels' (any valid
    word n-gram range), else None."""
    if (
        est.input != "content"
        or est.analyzer != "word"
        or est.preprocessor is not None
        or est.tokenizer is not None
        or est.strip_accents
        or est.token_pattern not in FAST_PATTERNS
    ):
        return None
    try:  # integers only: scikit-learn's analyzer refuses (1.0, 2.0) (a TypeError of its
        # range()), and the kernels must not take what it refuses (a fuzz: a float range
        # was counted by them, then refused for a batch small enough to go to scikit-learn)
        ngram = (operator.index(est.ngram_range[0]), operator.index(est.ngram_range[1]))
    except (TypeError, ValueError, IndexError):
        return None
    return ngram if 1 <= ngram[0] <= ngram[1] else None


def vectorizer(est: Any, docs: list[Any]) -> tuple[str, tuple[int, int]]:
    """The route of ``CountVectorizer._count_vocab``: (route, ngram range)."""
    ngram = fast_ngram(est)
    if ngram is None or not all_str(docs) or _small(docs):
        return SKLEARN, (1, 1)
    return tokens(ngram), ngram


def hashing_vectorizer(est: Any, docs: list[Any]) -> tuple[str, tuple[int, int]]:
    """The route of ``HashingVectorizer.transform``: (route, ngram range)."""
    import numpy as np

    ngram = fast_ngram(est)
    nf = est.n_features
    if (
        ngram is None
        or not docs
        or not all_str(docs)
        or isinstance(nf, bool)
        or not isinstance(nf, int | np.integer)
        or nf < 1
        or np.dtype(est.dtype) not in (np.float32, np.float64)
        or est.norm not in (None, "l1", "l2", "max")
    ):
        return SKLEARN, (1, 1)
    return tokens(ngram), ngram


class Plan(NamedTuple):
    """A TextClassifier batch's way: its three steps (the table of the module)."""

    tokens: str
    indexing: str
    accumulate: str


def batch(*, ngram: tuple[int, int], hashing: bool, weighted: bool, stream: bool = False) -> Plan:
    """The plan of one TextClassifier batch of the counting settings' ``ngram`` range (its
    tokenizing step: :func:`tokens`); ``stream``: a batch of ``fit_chunks`` (unweighted),
    added into running totals."""
    accumulate = RUNNING_TOTALS if stream else WEIGHTED_ROWS if weighted else CLASS_SUMS
    return Plan(tokens(ngram), HASHED if hashing else VOCABULARY, accumulate)


def one_document(ngram: tuple[int, int], stop_words: Any) -> str:
    """The route of one document of a vocabulary model (``ONE_COMPILED`` applies only
    where the vocabulary is compiled terms, a fit's or a file's, which the scorer knows;
    their table leaves the stop words out)."""
    return ONE_COMPILED if ngram == (1, 1) else ONE_PYTHON
