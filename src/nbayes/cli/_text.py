"""Text models of the command line: :class:`nbayes.TextClassifier` with CLI settings."""

from __future__ import annotations

from typing import Any

__all__ = ["TEXT_ESTIMATORS", "make_text_model"]

#: the ``--model`` choices that learn from documents
TEXT_ESTIMATORS = ("multinomial", "bernoulli", "complement")


def make_text_model(
    model: str,
    alpha: float | None,
    *,
    binary: bool = False,
    ngram_range: tuple[int, int] = (1, 1),
    hashing: bool = False,
) -> Any:
    """An unfitted :class:`~nbayes.TextClassifier` for ``nbayes train``."""
    from nbayes.text import TextClassifier

    return TextClassifier(
        model=model,
        alpha=1.0 if alpha is None else alpha,
        binary=binary,
        ngram_range=ngram_range,
        hashing=hashing,
    )
