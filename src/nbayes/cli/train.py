"""``nbayes train``: learn a model from labelled documents or a table, save it to a file."""

from __future__ import annotations

import argparse
from typing import Any

from nbayes.cli._common import (
    UI,
    CLIError,
    add_data_options,
    command_parser,
    read_labelled_texts,
    save_model,
)

__all__ = ["add_parser", "make_estimator", "parse_ngrams", "run"]

MODELS = ("multinomial", "bernoulli", "complement", "poisson", "gaussian", "categorical")
TEXT_DEFAULT = ("multinomial", "bernoulli", "complement")


def add_parser(subparsers: Any) -> None:
    p = command_parser(
        subparsers,
        "train",
        "learn a model from labelled data and save it",
        "Learn a model from labelled data and save it to MODEL (one safe file).\n\n"
        "Text models (multinomial, bernoulli, complement; the default) read documents from\n"
        "CSV/TSV, JSON lines or Parquet files with a text and a label column, or from a\n"
        "folder per class (root/<label>/<file>). The other models (gaussian, categorical,\n"
        "poisson) read a table: one label column, every other column a feature.",
        [
            "nbayes train reviews.csv -o reviews.nbayes --ngrams 1-2 --alpha 0.5",
            "nbayes train emails/ -o spam.nbayes            # emails/spam/*, emails/ham/*",
            "nbayes train iris.csv -o iris.nbayes --model gaussian --label-col species",
        ],
    )
    p.add_argument("data", nargs="+", metavar="DATA", help="files, folders or glob patterns")
    p.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    p.add_argument("--model", choices=MODELS, default="multinomial", help="the estimator")
    p.add_argument(
        "--input",
        choices=("auto", "text", "table"),
        default="auto",
        help="read documents or a table (auto: documents for multinomial, bernoulli and "
        "complement, a table otherwise)",
    )
    add_data_options(p)
    p.add_argument("--alpha", type=float, default=None, help="smoothing (default 1.0)")
    p.add_argument("--binary", action="store_true", help="text: count each word once per document")
    p.add_argument(
        "--ngrams", default="1-1", metavar="MIN-MAX", help="text: word n-grams, e.g. 1-2"
    )
    p.add_argument(
        "--hashing",
        action="store_true",
        help="text: hash words into 2**20 buckets (bounded memory, no vocabulary)",
    )
    p.set_defaults(run=run)


def parse_ngrams(text: str) -> tuple[int, int]:
    """``"1-2"`` -> ``(1, 2)``; ``"2"`` -> ``(2, 2)``."""
    parts = text.split("-")
    try:
        lo, hi = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (0, -1)
    except ValueError:
        lo, hi = 0, -1
    if not 1 <= lo <= hi <= 10:
        raise CLIError(
            f"--ngrams must look like 1-2 (MIN-MAX, 1 <= MIN <= MAX <= 10); got {text!r}."
        )
    return lo, hi


def make_estimator(name: str, alpha: float | None) -> Any:
    """The unfitted nbayes estimator for a ``--model`` name."""
    from nbayes import naive_bayes as nb

    classes = {
        "multinomial": nb.MultinomialNB,
        "bernoulli": nb.BernoulliNB,
        "complement": nb.ComplementNB,
        "poisson": nb.PoissonNB,
        "gaussian": nb.GaussianNB,
        "categorical": nb.CategoricalNB,
    }
    if alpha is not None and alpha < 0:
        raise CLIError(f"--alpha must be >= 0 (0 is the unsmoothed estimate); got {alpha}.")
    if name == "gaussian":
        if alpha is not None:
            raise CLIError("--alpha does not apply to --model gaussian (it has no counts).")
        return classes[name]()
    return classes[name]() if alpha is None else classes[name](alpha=alpha)


def _describe(model: Any) -> str:
    counts = ", ".join(
        f"{c} {int(n):,}" if float(n).is_integer() else f"{c} {float(n):.3g}"
        for c, n in zip(model.classes_.tolist(), model.class_count_.tolist(), strict=True)
    )
    return f"{len(model.classes_)} classes ({counts})"


def run(args: argparse.Namespace, ui: UI) -> int:
    text = args.input == "text" or (args.input == "auto" and args.model in TEXT_DEFAULT)
    if args.alpha is not None and not args.alpha >= 0:
        raise CLIError(f"--alpha must be a number >= 0; got {args.alpha}.")
    if text:
        from nbayes.cli._text import TEXT_ESTIMATORS, make_text_model

        if args.model not in TEXT_ESTIMATORS:
            raise CLIError(
                f"--model {args.model} does not learn from documents: use one of "
                f"{', '.join(TEXT_ESTIMATORS)}, or --input table for a table."
            )
        texts, labels = read_labelled_texts(
            ui, args.data, args.text_col, args.label_col, args.encoding
        )
        model: Any = make_text_model(
            args.model,
            args.alpha,
            binary=args.binary,
            ngram_range=parse_ngrams(args.ngrams),
            hashing=args.hashing,
        )
        with ui.progress("Training", "documents") as bar:
            model.fit(texts, labels)
            bar.advance(len(texts))
        what = f"{len(texts):,} documents, {len(model.get_feature_names_out()):,} terms"
    else:
        estimator = make_estimator(args.model, args.alpha)
        from nbayes.cli._data import feature_kind
        from nbayes.cli._tables import read_table, split_labels, table_features

        if args.binary or args.ngrams != "1-1" or args.hashing:
            raise CLIError("--binary, --ngrams and --hashing apply to text models only.")
        table = read_table(ui, args.data)
        _, labels = split_labels(table, args.label_col)
        X = table_features(table, feature_kind(estimator), args.label_col)
        with ui.progress("Training", "rows") as bar:
            model = estimator.fit(X, labels)
            bar.advance(len(labels))
        what = f"{len(labels):,} rows, {X.shape[1]} features"
    save_model(model, args.output)
    name = f"TextClassifier({model.model})" if text else type(model).__name__
    ui.note(f"Trained {name} on {what}: {_describe(model)}.")
    ui.note(f"Saved to {args.output}")
    return 0
