"""Fast, exact bag-of-words: scikit-learn compatible vectorizers and class-count kernels."""

from __future__ import annotations

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
