"""Text models of the command line: :class:`nbayes.TextClassifier` (or
:class:`nbayes.NBSVM`) with CLI settings."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = [
    "TEXT_OPTION_FLAGS",
    "TRAIN_TEXT_FLAGS",
    "add_text_options",
    "make_text_model",
    "parse_document_frequency",
    "parse_recipe",
    "parse_stop_words",
    "text_options",
]

#: the flags of the library's text options (`train` and `tune`): documents only
TEXT_OPTION_FLAGS = ("--preprocess", "--stop-words", "--min-df", "--max-df")
#: and train's (tune has no grid of it)
TRAIN_TEXT_FLAGS = (*TEXT_OPTION_FLAGS, "--max-features")


#: the --model names of a TextClassifier(model=NAME): trained without the estimator
TEXT_CLASSIFIER_MODELS = ("multinomial", "bernoulli", "complement")


def make_text_model(
    model: str,
    alpha: float | None,
    *,
    binary: bool = False,
    ngram_range: tuple[int, int] | None = None,
    hashing: bool = False,
    lean: bool = False,
    **options: Any,
) -> Any:
    """An unfitted :class:`~nbayes.TextClassifier` (or NBSVM) for ``nbayes train``;
    ``ngram_range`` None is the estimator's default (the table of estimators says what
    each ``--model`` takes: :mod:`nbayes.cli._estimators`); ``options`` are the text
    options the command line set (:func:`text_options`). ``lean``: for a TextClassifier,
    its settings (:class:`nbayes.text.TextSettings`), which count the same statistics
    and are saved to the same file without importing scikit-learn."""
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
    if lean and row.name in TEXT_CLASSIFIER_MODELS:
        # the TextClassifier's settings and counting, without the estimator (no
        # scikit-learn): nbayes train writes the same file (nbayes.text.TextSettings)
        from nbayes.text import TextSettings

        return TextSettings(model=model, **settings, **options)
    return row.make_text({**settings, **options})


def _recipes() -> list[str]:
    from nbayes.text.recipes import RECIPES

    return sorted(RECIPES)


def parse_recipe(text: str) -> str | None:
    """A recipe's name for ``preprocess`` (``none``: None)."""
    from nbayes.cli._common import CLIError

    if text.lower() == "none":
        return None
    if text not in _recipes():
        raise CLIError(
            f"Unknown --preprocess {text!r}: use one of {', '.join(_recipes())} or none."
        )
    return text


def parse_document_frequency(text: str, flag: str) -> int | float:
    """A document count (``2``) or a fraction of the documents (``0.5``), as ``min_df`` and
    ``max_df`` take them."""
    from nbayes.cli._common import CLIError

    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise CLIError(
            f"{flag} takes a document count (2) or a fraction of the documents in [0, 1] "
            f"(0.5); got {text!r}."
        )
    return value


def parse_stop_words(text: str) -> str | list[str] | None:
    """``english`` (scikit-learn's list), ``none``, or a file of stop words (one per line,
    ``#`` comments)."""
    from nbayes.cli._common import CLIError

    if text.lower() in ("english", "none"):
        return None if text.lower() == "none" else "english"
    path = Path(text)
    if not path.is_file():
        raise CLIError(
            f"--stop-words takes english, none or a file of words (one per line); "
            f"{text!r} is none of them."
        )
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CLIError(f"Cannot read the --stop-words file {text!r}: {exc}") from None
    return [w.strip() for w in lines if w.strip() and not w.lstrip().startswith("#")]


def add_text_options(p: argparse.ArgumentParser) -> None:
    """``--preprocess``, ``--stop-words``, ``--min-df`` and ``--max-df``: the library's
    text options (:class:`~nbayes.TextClassifier`'s parameters of the same names)."""
    p.add_argument(
        "--preprocess",
        metavar="RECIPE",
        help=f"text: rewrite documents before tokenizing with a recipe ({', '.join(_recipes())}"
        "; sentiment is nbsvm's default; none: no recipe)",
    )
    p.add_argument(
        "--stop-words",
        metavar="WORDS",
        help="text: drop stop words: english, none or a file of words (one per line)",
    )
    p.add_argument(
        "--min-df",
        metavar="N",
        help="text: keep terms in at least N documents (a count, or a fraction like 0.01)",
    )
    p.add_argument(
        "--max-df",
        metavar="N",
        help="text: keep terms in at most N documents (a count, or a fraction like 0.5)",
    )
    p.add_argument(
        "--max-features",
        metavar="N",
        type=_positive_count("--max-features"),
        help="text: keep the N terms of most occurrences (the model's columns; the "
        "statistics keep every term, so an update or a merge chooses again)",
    )


def text_options(args: argparse.Namespace) -> dict[str, Any]:
    """The estimator parameters the text-option flags of ``args`` set (none set: {})."""

    out: dict[str, Any] = {}
    if args.preprocess is not None:
        out["preprocess"] = parse_recipe(args.preprocess)
    if args.stop_words is not None:
        out["stop_words"] = parse_stop_words(args.stop_words)
    if args.min_df is not None:
        out["min_df"] = parse_document_frequency(args.min_df, "--min-df")
    if args.max_df is not None:
        out["max_df"] = parse_document_frequency(args.max_df, "--max-df")
    if getattr(args, "max_features", None) is not None:
        out["max_features"] = args.max_features
    return out


def _positive_count(flag: str) -> Any:
    """An argparse type: a whole number >= 1, else an error naming ``flag``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = 0
        if value < 1:
            raise argparse.ArgumentTypeError(f"{flag} takes a whole number >= 1; got {text!r}.")
        return value

    return parse
