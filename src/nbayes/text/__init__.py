"""Fast, exact bag-of-words: scikit-learn compatible vectorizers and class-count kernels."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nbayes.text.classifier import TextClassifier
    from nbayes.text.vectorizers import (
        CountVectorizer,
        HashingVectorizer,
        count_by_class,
        hash_by_class,
        hash_into,
        hashing_transform,
        transform_counts,
        transform_one,
    )

__all__ = [
    "CountVectorizer",
    "HashingVectorizer",
    "TextClassifier",
    "count_by_class",
    "hash_by_class",
    "hash_into",
    "hashing_transform",
    "transform_counts",
    "transform_one",
]

# The classifier and the vectorizers subclass scikit-learn: imported on first use, so the
# numpy-only modules of this package (the lean prediction path) can load without them.
_LAZY = {name: "nbayes.text.vectorizers" for name in __all__}
_LAZY["TextClassifier"] = "nbayes.text.classifier"


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
