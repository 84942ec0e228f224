"""What the compiled scanners read: Python's own character classes as code point tables,
and the zero-copy document set.

:func:`word_table` is sre's definition of ``\\w``, :func:`char_table` the lowercasing of
``str.lower`` with the word flag, both built by :mod:`nbayes._native` from the running
Python. :func:`zero_copy_docs` reads documents in place (or says it cannot); :func:`read`
is what a driver takes for a batch: the documents read in place with the two tables the
scanners need, in one call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

import nbayes._native as _native

__all__ = ["ZERO_COPY", "Reading", "char_table", "read", "word_table", "zero_copy_docs"]

_MAX_CP = 0x110000
_WORD_TABLE: np.ndarray | None = None

#: False forces the copying path everywhere (the zero-copy entry points return None);
#: the tests flip it to check that both routes agree.
ZERO_COPY = True


def word_table() -> np.ndarray:
    """Lookup table ``t[cp] == 1`` iff ``re.match(r"\\w", chr(cp))`` (str pattern).

    sre's definition of a word character, ``Py_UNICODE_ISALNUM(cp) or cp == "_"``, read
    from the running Python (so it follows its Unicode version).

    Returns
    -------
    table : ndarray of shape (0x110000,), dtype uint8
    """
    global _WORD_TABLE
    if _WORD_TABLE is None:
        _WORD_TABLE = _native.word_table()
    return _WORD_TABLE


_TABLES: dict[bool, np.ndarray] = {}


def char_table(lowercase: bool) -> np.ndarray:
    """``t[cp]`` = (lowercased) code point | (1 << 31 if it is a word character).

    With ``lowercase``, the code point is ``chr(cp).lower()`` and the word flag is that of
    the lowercased character (scikit-learn tokenizes ``doc.lower()``); U+0130 and U+03A3
    map to themselves: documents containing them are lowercased by Python first. Built
    by the extension from ``str.lower`` of every code point in one call (empty when this
    Python's Unicode maps another code point to several: the callers then fall back to
    ``str.lower``).
    """
    table = _TABLES.get(lowercase)
    if table is None:
        table = _TABLES[lowercase] = _native.char_table(bool(lowercase))
    return table


def zero_copy_docs(docs: Sequence[str], lowercase: bool) -> tuple[Any, np.ndarray] | None:
    """``(DocSet, lengths)`` for the zero-copy kernels (the DocSet keeps the strings
    alive), or None when the zero-copy path cannot be used."""
    if not ZERO_COPY or char_table(lowercase).shape[0] != _MAX_CP:
        return None
    return _native.doc_set(docs, bool(lowercase))


class Reading(NamedTuple):
    """Documents as the zero-copy scanners read them: the ``DocSet`` (it keeps the strings
    alive), their ``lengths``, and the character tables: ``lower`` (lowercased or not, as
    asked) and ``ident`` (not lowercased)."""

    docs: Any
    lengths: np.ndarray
    lower: np.ndarray
    ident: np.ndarray


def read(docs: Sequence[str], lowercase: bool) -> Reading | None:
    """The documents read in place with their tables (:class:`Reading`), or None when the
    zero-copy path cannot be used."""
    prep = zero_copy_docs(docs, lowercase)
    if prep is None:
        return None
    return Reading(prep[0], prep[1], char_table(lowercase), char_table(False))
