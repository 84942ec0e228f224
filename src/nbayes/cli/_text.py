"""Text models of the command line: :class:`nbayes.TextClassifier` (or
:class:`nbayes.NBSVM`) with CLI settings."""

from __future__ import annotations

from typing import Any

__all__ = ["TEXT_ESTIMATORS", "make_text_model"]

#: the ``--model`` choices that learn from documents
TEXT_ESTIMATORS = ("multinomial", "bernoulli", "complement", "nbsvm")


def make_text_model(
    model: str,
    alpha: float | None,
    *,
    binary: bool = False,
    ngram_range: tuple[int, int] | None = None,
    hashing: bool = False,
) -> Any:
    """An unfitted :class:`~nbayes.TextClassifier` (or NBSVM) for ``nbayes train``;
    ``ngram_range`` None is the estimator's default."""
    if model == "nbsvm":
        from nbayes.cli._common import CLIError
        from nbayes.nbsvm import NBSVM

        if hashing:
            raise CLIError("--hashing does not apply to --model nbsvm (its features are terms).")
        return NBSVM(alpha=1.0 if alpha is None else alpha, ngram_range=ngram_range or (1, 2))
    from nbayes.text import TextClassifier

    return TextClassifier(
        model=model,
        alpha=1.0 if alpha is None else alpha,
        binary=binary,
        ngram_range=ngram_range or (1, 1),
        hashing=hashing,
    )
