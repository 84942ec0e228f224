"""``nbayes plot``: draw a model: a column's distributions, the most informative words, a
confusion matrix or a reliability curve.

Draw one of:
  --column NAME        P(column | class) for every class of a table model (MixedNB,
                       KernelNB, GaussianNB, PoissonNB, BernoulliNB, CategoricalNB):
                       density curves for numeric columns, bars for discrete ones (of a
                       categorical column with more than 20 categories, the 20 most
                       probable); --log puts the values of a heavy-tailed numeric
                       column on a log scale;
  --words              the --top K most informative words of each class of a text model
                       (the words whose one occurrence is most evidence for the class);
  --confusion DATA     the confusion matrix of MODEL on the labelled DATA (any model;
                       --normalize for fractions of each true class);
  --reliability DATA   the reliability (calibration) curve of MODEL's probabilities on the
                       labelled DATA: of the --class LABEL (default: the second of two
                       classes; with more, the predicted class), in --bins N bins.
The format follows the extension of -o (.png, .svg, .pdf). Needs matplotlib:
pip install 'nbayes[plot]'.

Example:
  nbayes plot people.nbayes --column age -o age.png
  nbayes plot people.nbayes --column income --log -o income.png
  nbayes plot spam.nbayes --words --top 15 -o words.png
  nbayes plot spam.nbayes --confusion test.csv -o confusion.png --normalize
  nbayes plot spam.nbayes --reliability test.csv --class spam -o reliability.png
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from nbayes.cli._common import (
    UI,
    CLIError,
    add_data_options,
    add_inputs,
    column_names,
    count_type,
    is_text_model,
    load_model,
    refuse_set_flags,
)
from nbayes.cli._models import check_output_folder

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--column", metavar="NAME", help="the column (feature) to draw")
    what.add_argument(
        "--words", action="store_true", help="the most informative words of each class"
    )
    what.add_argument(
        "--confusion", nargs="+", metavar="DATA", help="labelled data for a confusion matrix"
    )
    what.add_argument(
        "--reliability", nargs="+", metavar="DATA", help="labelled data for a reliability curve"
    )
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="image file to write")
    p.add_argument(
        "--normalize", action="store_true", help="confusion matrix: fractions of each true class"
    )
    p.add_argument("--top", type=count_type(1), metavar="K",
                   help="--words: words per class (10)")  # fmt: skip
    p.add_argument("--bins", type=count_type(1), metavar="N",
                   help="--reliability: number of bins (10)")  # fmt: skip
    p.add_argument(
        "--strategy",
        choices=("uniform", "quantile"),
        help="--reliability: bins of equal width (uniform) or equal counts (quantile)",
    )
    p.add_argument(
        "--class",
        dest="pos_label",
        metavar="LABEL",
        help="--reliability: the class whose probability is drawn",
    )
    p.add_argument(
        "--log",
        action="store_true",
        help="--column: the values on a log scale (heavy-tailed numeric columns)",
    )
    p.add_argument("--dpi", type=count_type(1, 2400), default=100,
                   help="resolution of raster images (100; at most 2400)")  # fmt: skip
    add_data_options(p)


def _marginals(model: Any, column: str, log: bool = False) -> Any:
    from nbayes.plot import marginals

    if is_text_model(model):
        raise CLIError(
            f"--column draws a column of a table model; this is a {type(model).__name__}. "
            "Use --confusion DATA or --reliability DATA for a text model (or --words for a "
            "Naive Bayes one)."
        )
    names = column_names(model)
    target: Any = column
    if column not in names and column.isdigit() and int(column) < len(names):
        target = int(column)
    elif column not in names:
        shown = ", ".join(names[:20]) + (" ..." if len(names) > 20 else "")
        raise CLIError(f"The model has no column {column!r}; its columns are: {shown}.")
    try:
        return marginals(model, target, log=log)
    except ValueError as exc:
        if "log scale" not in str(exc):
            raise
        raise CLIError(str(exc).replace("A log scale", "--log")) from None


def _words(model: Any, args: argparse.Namespace) -> Any:
    from nbayes.plot import informative_words

    top = 10 if args.top is None else args.top
    if getattr(model, "hashing", False) is True:
        raise CLIError(
            "--words needs the words of the model; this model was trained with --hashing and "
            "keeps only hash buckets. Train it without --hashing."
        )
    column = _text_column(model, args.text_col) if hasattr(model, "families_") else None
    title = f"{os.path.basename(args.model)}: the {top} most informative words per class"
    try:
        axes = informative_words(model, top=top, column=column, title=title)
    except ValueError:
        raise CLIError(
            f"--words draws the words of a text model; this {type(model).__name__} is not a "
            "model of word counts. Use --column NAME to draw one of its columns."
        ) from None
    return axes[0]


def _text_column(model: Any, text_col: str) -> str:
    """The text column of a MixedNB that --words draws: its only one, or --text-col."""
    from nbayes.kinds import kind

    texts = [name for name, k in model.families_.items() if kind(k).values == "documents"]
    if not texts:
        raise CLIError(
            "--words draws words; this MixedNB has no text column. Use --column NAME to draw "
            "one of its columns."
        )
    if len(texts) == 1:
        return str(texts[0])
    if text_col not in texts:
        raise CLIError(
            f"The model has {len(texts)} text columns ({', '.join(texts)}): pick the one to "
            f"draw with --text-col NAME (got --text-col {text_col!r})."
        )
    return text_col


def _predicted(ui: UI, model: Any, data: list[str], args: argparse.Namespace, proba: bool) -> Any:
    from nbayes.cli._data import labelled_inputs

    X, y = labelled_inputs(ui, model, data, args)
    with ui.progress("Predicting", "examples") as bar:
        pred = model.predict_proba(X) if proba else model.predict(X)
        bar.advance(len(y))
    return y, pred


def _confusion(ui: UI, model: Any, args: argparse.Namespace) -> Any:
    from nbayes.plot import confusion_matrix

    y, pred = _predicted(ui, model, args.confusion, args, proba=False)
    accuracy = float((pred == y).mean())
    name = os.path.basename(args.model)
    title = f"{name}: accuracy {accuracy:.3f} ({len(y):,} examples)"
    return confusion_matrix(y, pred, normalize=args.normalize, title=title)


def _reliability(ui: UI, model: Any, args: argparse.Namespace) -> Any:
    from nbayes.plot import reliability

    bins = 10 if args.bins is None else args.bins
    classes = [str(c) for c in model.classes_]
    pos_label = None
    if args.pos_label is not None:
        if args.pos_label not in classes:
            raise CLIError(
                f"--class {args.pos_label!r} is not a class of the model; its classes are: "
                + ", ".join(classes[:20])
                + (" ..." if len(classes) > 20 else "")
                + "."
            )
        pos_label = model.classes_[classes.index(args.pos_label)]
    y, proba = _predicted(ui, model, args.reliability, args, proba=True)
    name = os.path.basename(args.model)
    return reliability(
        y, proba, classes=model.classes_, pos_label=pos_label, n_bins=bins,
        strategy=args.strategy or "uniform",
        title=f"{name}: reliability ({len(y):,} examples)",
    )  # fmt: skip


def _check_flags(args: argparse.Namespace) -> None:
    """Refuse the options of another kind of plot."""
    if args.confusion is None:
        refuse_set_flags(args, ["--normalize"], "applies to --confusion only.")
    if args.column is None:
        refuse_set_flags(args, ["--log"], "applies to --column only.")
    if not args.words:
        refuse_set_flags(args, ["--top"], "applies to --words only.")
    if args.reliability is None:
        flags = ["--bins", "--strategy"]
        refuse_set_flags(args, flags, "applies to --reliability only.")
        if args.pos_label is not None:
            raise CLIError("--class applies to --reliability only.")


def run(args: argparse.Namespace, ui: UI) -> int:
    _check_flags(args)
    check_output_folder(args.output)
    from nbayes.cli._spam import refuse_spam_model

    written = _image_path(args.output)
    refuse_spam_model(args.model, "plot")
    model = load_model(args.model)
    if args.column is not None:
        ax, what = _marginals(model, args.column, args.log), f"column {args.column!r}"
    elif args.words:
        ax, what = _words(model, args), "most informative words"
    elif args.confusion is not None:
        ax, what = _confusion(ui, model, args), "confusion matrix"
    else:
        ax, what = _reliability(ui, model, args), "reliability curve"
    import matplotlib.pyplot as plt  # nbayes.plot has imported it, with a file backend

    fig = ax.figure
    try:
        if fig.get_layout_engine() is None:
            fig.tight_layout()
        fig.savefig(args.output, dpi=args.dpi)
    except ValueError as exc:  # e.g. an unknown image format
        raise CLIError(f"Cannot write {args.output!r}: {exc}") from None
    finally:
        plt.close(fig)
    ui.note(f"Drew the {what} to {written}")
    return 0


def _image_path(output: str) -> str:
    """The file ``-o`` names, as matplotlib writes it (a name without an extension gets
    ``.png``: the note said the name without it); a folder is refused (``-o DIR/`` wrote a
    hidden ``DIR/.png``, ``-o DIR`` a ``DIR.png`` beside it)."""
    if output.endswith(("/", os.sep)) or os.path.isdir(output):
        raise CLIError(
            f"-o {output!r} is a folder: give the image file to write (e.g. -o "
            f"{os.path.join(output, 'plot.png')!r})."
        )
    return output if os.path.splitext(os.path.basename(output))[1] else output + ".png"
