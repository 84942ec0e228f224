"""Exact, fast bag-of-words counting on the compiled kernels of :mod:`nbayes._native`.

The kernels reproduce scikit-learn's default word analyzer, i.e. the token pattern
``(?u)\\b\\w\\w+\\b`` applied to ``doc.lower()`` (or ``doc``): a token is a maximal run of
two or more characters for which Python's ``re`` says ``\\w`` matches. The set of word
characters is sre's own definition (``Py_UNICODE_ISALNUM`` or ``_``, :func:`word_table`)
and lowercasing is ``str.lower`` itself (:func:`char_table`), so the compiled scanner
agrees with Python by construction.

Two routes, both exact (every hash hit is verified code point by code point):

* **Zero-copy** (unigram counting and scoring): the documents are read in place from
  CPython's own string storage through ``PyUnicode_KIND`` / ``PyUnicode_DATA`` (any string
  width, every supported Python version). Lowercasing is a code point table built from
  ``str.lower``, exact for every code point but U+0130 (which lowercases to two
  characters) and U+03A3 (whose lowercase depends on its context): documents holding
  either are lowercased by Python first. :func:`direct_count` counts per class in worker
  threads (each its own table; the sorted vocabularies are merged), and
  :func:`direct_transform` makes CSR rows over a fixed vocabulary.
* **Copying** (n-grams, CountVectorizer's analysis): :func:`encode_corpus` joins the
  documents with ``"\\n"`` (never a word character, never cased or case-ignorable, so
  neither tokens nor the final-sigma rule of ``str.lower`` can cross a document
  boundary), lowercases, and exposes the text as a ``uint8`` (ASCII) or ``uint32`` code
  point array; :class:`InternState` interns tokens (first-occurrence ids, stop words
  pre-seeded and dropped from the stream, as scikit-learn drops them before building
  n-grams), :func:`pair_ids` interns word pairs, and :func:`first_occurrence` /
  :func:`build_rows` / :func:`stream_class_sums` turn the streams into scikit-learn's
  column order, CSR rows, or per-class sums ``Y^T X``.

The kernels release the GIL while they run; long calls stop with ``KeyboardInterrupt``
on Ctrl-C (worker threads are told through :func:`nbayes._native.cancel`).
"""

from __future__ import annotations

# The pieces, one module each; this module is their one entry point for the callers.
from nbayes.text._drivers.chars import _MAX_CP as _MAX_CP  # the tests read these private names here
from nbayes.text._drivers.chars import char_table, word_table, zero_copy_docs
from nbayes.text._drivers.lookup import (
    FrozenVocabulary,
    TermColumns,
    build_lookup,
    direct_transform,
    order_rows,
)
from nbayes.text._drivers.threads import PARALLEL_MIN_CHARS, default_threads
from nbayes.text._drivers.token_streams import _SINGLE as _SINGLE
from nbayes.text._drivers.token_streams import (
    InternState,
    build_rows,
    encode_corpus,
    first_occurrence,
    intern_tokens,
    ngram_blob,
    ngram_order,
    pair_ids,
    prefix_keys,
    sort_terms,
    stream_class_sums,
)
from nbayes.text._drivers.zero_copy import DirectCounts, Terms, direct_count
from nbayes.text._drivers.zero_copy import _decode_terms as _decode_terms

__all__ = [
    "PARALLEL_MIN_CHARS",
    "DirectCounts",
    "FrozenVocabulary",
    "InternState",
    "TermColumns",
    "Terms",
    "build_lookup",
    "build_rows",
    "char_table",
    "default_threads",
    "direct_count",
    "direct_transform",
    "encode_corpus",
    "first_occurrence",
    "intern_tokens",
    "ngram_blob",
    "ngram_order",
    "order_rows",
    "pair_ids",
    "prefix_keys",
    "sort_terms",
    "stream_class_sums",
    "word_table",
    "zero_copy_docs",
]
