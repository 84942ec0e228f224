"""``nbayes train``: learn a model from labelled documents or a table, save it to a file.

Learn a model from labelled data and save it to MODEL (one safe file).

Text models (multinomial, bernoulli, complement; the default) read documents from
CSV/TSV, JSON lines or Parquet files with a text and a label column, or from a
folder per class (root/<label>/<file>). The other models (gaussian, categorical,
poisson, kernel, mixed) read a table: one label column, every other column a
feature. --model mixed (MixedNB) gives each column a family from its type
(numbers, categories, booleans, counts, text); --columns overrides it.
--workers N or --dask-scheduler ADDRESS trains on Dask (pip install 'nbayes[dask]')
with the same result as one process.

Example:
  nbayes train reviews.csv -o reviews.nbayes --ngrams 1-2 --alpha 0.5
  nbayes train emails/ -o spam.nbayes            # emails/spam/*, emails/ham/*
  nbayes train iris.csv -o iris.nbayes --model gaussian --label-col species
  nbayes train t.csv -o t.nbayes --label-col y --model mixed --columns age=kde,city=categorical
  nbayes train 'big/*.csv' -o big.nbayes --workers 4
  nbayes train 'big/*.parquet' -o big.nbayes --dask-scheduler tcp://10.0.0.5:8786
"""

from __future__ import annotations

import argparse
from typing import Any

from nbayes.cli._common import (
    UI,
    CLIError,
    LabelledChunks,
    add_data_options,
    add_model_options,
    count_type,
    flag_errors,
    refuse_set_flags,
)
from nbayes.cli._models import check_model_output, save_model, warn_one_class
from nbayes.cli._text import TEXT_OPTION_FLAGS, add_text_options, text_options

__all__ = [
    "add_arguments",
    "make_estimator",
    "parse_bandwidth",
    "parse_columns",
    "parse_ngrams",
    "run",
]

MODELS = (
    "multinomial",
    "bernoulli",
    "complement",
    "poisson",
    "gaussian",
    "categorical",
    "kernel",
    "mixed",
    "nbsvm",
)
TEXT_DEFAULT = ("multinomial", "bernoulli", "complement", "nbsvm")

#: the flags that set an estimator's hyperparameters: the estimator validates them
HYPERPARAMETER_FLAGS = ("--alpha", "--bandwidth", "--max-points", "--ngrams", *TEXT_OPTION_FLAGS)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="+", metavar="DATA", help="files, folders or glob patterns")
    p.add_argument("-o", "--output", required=True, metavar="MODEL", help="model file to write")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace MODEL even if it exists and is not an nbayes model file (a DATA file "
        "is never replaced)",
    )
    add_model_options(p, MODELS)
    add_data_options(p)
    p.add_argument("--alpha", type=float, default=None, help="smoothing (default 1.0)")
    p.add_argument("--binary", action="store_true", help="text: count each word once per document")
    p.add_argument(
        "--ngrams", metavar="MIN-MAX", help="text: word n-grams, e.g. 1-2 (default 1-1; nbsvm 1-2)"
    )
    add_text_options(p)
    p.add_argument(
        "--hashing",
        action="store_true",
        help="text: hash words into 2**20 buckets (bounded memory, no vocabulary)",
    )
    p.add_argument(
        "--columns",
        metavar="NAME=FAMILY,...",
        help="mixed: families of some columns, e.g. age=kde,city=categorical (families: "
        "gaussian, kde, poisson, categorical, bernoulli, text); the others are inferred",
    )
    p.add_argument(
        "--bandwidth",
        metavar="RULE",
        help="kernel, mixed: kernel width rule, robust (kernel's default), scott (mixed's "
        "default), silverman, or a number",
    )
    p.add_argument(
        "--max-points",
        type=int,
        metavar="N",
        help="kernel: bin a feature with more than N distinct values (bounded memory)",
    )
    dask = p.add_mutually_exclusive_group()
    dask.add_argument(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="train on the Dask cluster of this scheduler (tcp://host:port)",
    )
    dask.add_argument(
        "--workers",
        type=count_type(1),
        metavar="N",
        help="train on a local Dask cluster of N worker processes",
    )


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


def parse_columns(text: str) -> dict[str, str]:
    """``"age=kde,city=categorical"`` -> ``{"age": "kde", "city": "categorical"}``."""
    from nbayes.mixed import FAMILIES

    out: dict[str, str] = {}
    for item in text.split(","):
        name, sep, family = (part.strip() for part in item.partition("="))
        if not sep or not name or not family:
            raise CLIError(
                f"--columns must look like age=kde,city=categorical (NAME=FAMILY, comma "
                f"separated); got {item.strip()!r}."
            )
        if family not in FAMILIES:
            raise CLIError(
                f"--columns: unknown family {family!r} for the column {name!r}; choose one of "
                f"{', '.join(FAMILIES)}."
            )
        if name in out:
            raise CLIError(f"--columns names the column {name!r} twice.")
        out[name] = family
    return out


def parse_bandwidth(text: str) -> str | float:
    """``"0.5"`` -> ``0.5``; a rule name (``"scott"``, ``"silverman"``) as it is. The
    estimator validates the value."""
    try:
        return float(text)
    except ValueError:
        return text


def make_estimator(
    name: str,
    alpha: float | None,
    *,
    columns: str | None = None,
    bandwidth: str | None = None,
    max_points: int | None = None,
) -> Any:
    """The unfitted nbayes estimator for a ``--model`` name (table models).

    The flags are checked here only for whether they apply to the model; their values
    are the estimator's to validate (when it is fitted: see :func:`flag_errors`).
    """
    from nbayes import naive_bayes as nb

    if columns is not None and name != "mixed":
        raise CLIError("--columns applies to --model mixed only.")
    if bandwidth is not None and name not in ("kernel", "mixed"):
        raise CLIError("--bandwidth applies to --model kernel and --model mixed only.")
    if max_points is not None and name != "kernel":
        raise CLIError("--max-points applies to --model kernel only.")
    # no --bandwidth: the estimator's own default (KernelNB "robust", MixedNB "scott")
    bw: dict[str, Any] = {} if bandwidth is None else {"bandwidth": parse_bandwidth(bandwidth)}
    if name == "kernel":
        from nbayes.kernel import KernelNB

        if alpha is not None:
            raise CLIError("--alpha does not apply to --model kernel (it has no counts).")
        return KernelNB(max_points=max_points, **bw)
    if name == "mixed":
        from nbayes.mixed import MixedNB

        spec = None if columns is None else parse_columns(columns)
        return MixedNB(spec, alpha=1.0 if alpha is None else alpha, **bw)

    classes = {
        "multinomial": nb.MultinomialNB,
        "bernoulli": nb.BernoulliNB,
        "complement": nb.ComplementNB,
        "poisson": nb.PoissonNB,
        "gaussian": nb.GaussianNB,
        "categorical": nb.CategoricalNB,
    }
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


def _check_text_only_options(args: argparse.Namespace) -> None:
    refuse_set_flags(
        args,
        ("--columns", "--bandwidth", "--max-points"),
        "applies to table models (kernel, mixed), not to documents.",
    )


def _table_estimator(args: argparse.Namespace) -> Any:
    if args.binary or args.ngrams not in (None, "1-1") or args.hashing:
        raise CLIError("--binary, --ngrams and --hashing apply to text models only.")
    refuse_set_flags(args, TEXT_OPTION_FLAGS, "applies to text models only.")
    return make_estimator(
        args.model,
        args.alpha,
        columns=args.columns,
        bandwidth=args.bandwidth,
        max_points=args.max_points,
    )


def _train_on_dask(args: argparse.Namespace, ui: UI, text: bool) -> tuple[Any, str]:
    """Fit with :func:`nbayes.distributed.fit_source` on a Dask cluster."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise CLIError(
            "--workers and --dask-scheduler need Dask: pip install 'nbayes[dask]' (or train "
            "without them, in this process)."
        ) from None
    from nbayes.distributed import fit_source

    missing = [d for d in args.data if "://" not in d and not _any_file(d)]
    if missing:
        raise CLIError(f"No such file: {missing[0]!r} (Dask reads files and glob patterns).")
    if text:
        _check_text_only_options(args)
        from nbayes.cli._text import make_text_model

        if args.model == "nbsvm":
            raise CLIError(
                "--workers and --dask-scheduler merge one model per partition; an nbsvm's "
                "linear model is fitted on all documents at once: train it without them."
            )
        estimator: Any = make_text_model(
            args.model,
            args.alpha,
            binary=args.binary,
            ngram_range=args.ngrams and parse_ngrams(args.ngrams),
            hashing=args.hashing,
            **text_options(args),
        )
    else:
        estimator = _table_estimator(args)
    plural = "" if args.workers == 1 else "s"
    where = args.dask_scheduler or f"a local cluster of {args.workers} worker{plural}"
    ui.note(f"Training on Dask ({where}) ...")
    source = args.data[0] if len(args.data) == 1 else list(args.data)
    try:
        model = fit_source(
            estimator,
            source,
            text_col=args.text_col,
            label_col=args.label_col,
            scheduler=args.dask_scheduler,
            workers=args.workers,
        )
    except (OSError, TimeoutError) as exc:
        if args.dask_scheduler:
            raise CLIError(
                f"Cannot train on the Dask scheduler {args.dask_scheduler}: {exc}"
            ) from None
        raise
    if text:
        n_terms = len(model.get_feature_names_out())
        what = f"{int(model.class_count_.sum()):,} documents, {n_terms:,} terms"
    else:
        what = f"{float(model.class_count_.sum()):g} rows, {model.n_features_in_} features"
    return model, what


def _any_file(pattern: str) -> bool:
    import glob
    import os

    return os.path.isfile(pattern) or any(os.path.isfile(p) for p in glob.glob(pattern))


def run(args: argparse.Namespace, ui: UI) -> int:
    text = args.input == "text" or (args.input == "auto" and args.model in TEXT_DEFAULT)
    if args.model == "nbsvm" and not text:
        raise CLIError("--model nbsvm learns from documents: leave out --input table.")
    if args.model == "nbsvm" and args.binary:
        raise CLIError("--binary does not apply to --model nbsvm (its features always are).")
    if text and args.model not in TEXT_DEFAULT:
        raise CLIError(
            f"--model {args.model} does not learn from documents: use one of "
            f"{', '.join(TEXT_DEFAULT)}, or --input table for a table."
        )
    check_model_output(args.output, args.data, force=args.force)  # before any work
    with flag_errors(HYPERPARAMETER_FLAGS):
        model, what = _train(args, ui, text)
    save_model(model, args.output, args.data, force=args.force)
    nbsvm = args.model == "nbsvm"
    name = f"TextClassifier({model.model})" if text and not nbsvm else type(model).__name__
    ui.note(f"Trained {name} on {what}: {_describe(model)}.")
    warn_one_class(ui, model, args.output)
    ui.note(f"Saved to {args.output}")
    return 0


def _train(args: argparse.Namespace, ui: UI, text: bool) -> tuple[Any, str]:
    """The fitted model, and what it was trained on (for the closing note)."""
    model: Any
    if args.dask_scheduler is not None or args.workers is not None:
        return _train_on_dask(args, ui, text)
    if text:
        _check_text_only_options(args)
        from nbayes.cli._text import make_text_model

        model = make_text_model(
            args.model,
            args.alpha,
            binary=args.binary,
            ngram_range=args.ngrams and parse_ngrams(args.ngrams),
            hashing=args.hashing,
            **text_options(args),
        )
        with ui.progress("Training", "documents") as bar:  # streamed: a chunk at a time
            chunks = LabelledChunks(ui, args.data, args, bar.advance)
            model.fit_chunks(chunks)
        what = f"{chunks.documents:,} documents, {len(model.get_feature_names_out()):,} terms"
    else:
        estimator = _table_estimator(args)
        from nbayes.cli._data import feature_kind
        from nbayes.cli._tables import read_table, split_labels, table_features

        kind = feature_kind(estimator)
        table = read_table(ui, args.data, typed=kind == "mixed")
        _, labels = split_labels(table, args.label_col)
        X = table_features(table, kind, args.label_col)
        with ui.progress("Training", "rows") as bar:
            model = estimator.fit(X, labels)
            bar.advance(len(labels))
        what = f"{len(labels):,} rows, {X.shape[1]} features"
        if kind == "mixed":
            families = ", ".join(f"{k}: {v}" for k, v in model.families_.items())
            ui.note(f"Column families: {families}")
    return model, what
