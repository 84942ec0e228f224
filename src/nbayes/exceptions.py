"""Warnings and errors raised by nbayes."""

from __future__ import annotations

__all__ = [
    "DecodingWarning",
    "InvalidParameterError",
    "ModelFileError",
    "NBayesWarning",
    "UndecidableWarning",
]


class NBayesWarning(UserWarning):
    """Base class of the warnings nbayes emits."""


class UndecidableWarning(NBayesWarning):
    """Every class has zero probability for some rows: the posterior is undefined there.

    This happens with unsmoothed (``alpha=0``) estimates when a row shows a
    feature value that no class has seen (or, for Bernoulli, misses one that
    every example of a class had). ``predict_proba`` returns NaN for those rows
    and ``predict`` falls back to the class with the highest prior.
    """


class DecodingWarning(NBayesWarning):
    """Some input bytes were not valid UTF-8 and were replaced by U+FFFD."""


class ModelFileError(ValueError):
    """A model file is missing, truncated, corrupted, hostile or of an unknown version."""


class InvalidParameterError(ValueError, TypeError):
    """A hyperparameter has the wrong type or value (raised by ``fit``, as in scikit-learn)."""
