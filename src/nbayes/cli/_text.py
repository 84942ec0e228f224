"""Text models of the command line: :class:`nbayes.TextClassifier` (or
:class:`nbayes.NBSVM`) with CLI settings."""

from __future__ import annotations

from typing import Any

__all__ = ["make_text_model"]


def make_text_model(
    model: str,
    alpha: float | None,
    *,
    binary: bool = False,
    ngram_range: tuple[int, int] | None = None,
    hashing: bool = False,
) -> Any:
    """An unfitted :class:`~nbayes.TextClassifier` (or NBSVM) for ``nbayes train``;
    ``ngram_range`` None is the estimator's default (the table of estimators says what
    each ``--model`` takes: :mod:`nbayes.cli._estimators`)."""
    from nbayes.cli._common import CLIError
    from nbayes.cli._estimators import estimator

    row = estimator(model)
    if hashing and row.no_hashing is not None:
        raise CLIError(f"--hashing does not apply to --model {model} ({row.no_hashing}).")
    assert row.make_text is not None
    settings: dict[str, Any] = {
        "alpha": 1.0 if alpha is None else alpha,
        "ngram_range": ngram_range or row.ngrams,
    }
    if row.no_binary is None:
        settings.update(binary=binary)
    if row.no_hashing is None:
        settings.update(hashing=hashing)
    return row.make_text(settings)
