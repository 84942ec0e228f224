"""Fast, exact bag-of-words: Naive Bayes on raw text and scikit-learn compatible vectorizers.

The public names: :class:`TextClassifier` (and :class:`TextSettings`: its
hyperparameters and training without the estimator, for ``nbayes train``),
:class:`CountVectorizer`,
:class:`TfidfVectorizer` and :class:`HashingVectorizer` (scikit-learn's, with a compiled fast
path), :class:`TfidfTransformer` (scikit-learn's, re-exported), and the documented
kernel-level counts :func:`count_by_class` (per-class term counts without a document x
term matrix), :func:`hashing_transform` (``HashingVectorizer(...).transform``) and
:func:`hash_into` (hashed counts added into running totals). The other kernel-level
functions live in :mod:`nbayes.text.vectorizers`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbayes.text._lean import TextSettings
    from nbayes.text.classifier import TextClassifier
    from nbayes.text.vectorizers import (
        CountVectorizer,
        HashingVectorizer,
        TfidfTransformer,
        TfidfVectorizer,
        count_by_class,
        hash_into,
        hashing_transform,
    )

__all__ = [
    "CountVectorizer",
    "HashingVectorizer",
    "TextClassifier",
    "TextSettings",
    "TfidfTransformer",
    "TfidfVectorizer",
    "count_by_class",
    "hash_into",
    "hashing_transform",
]

# The classifier and the vectorizers subclass scikit-learn: imported on first use, so the
# numpy-only modules of this package (the lean prediction path) can load without them.
_LAZY = {name: "nbayes.text.vectorizers" for name in __all__}
_LAZY["TextClassifier"] = "nbayes.text.classifier"
_LAZY["TextSettings"] = "nbayes.text._lean"  # numpy only


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
