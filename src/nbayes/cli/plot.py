"""``nbayes plot``: draw a column's class-conditional distributions, or a confusion matrix.

Draw, for a table model (MixedNB, KernelNB, GaussianNB, PoissonNB, BernoulliNB,
CategoricalNB), P(column | class) for every class: density curves for numeric
columns, bars for discrete ones (nbayes.plot.marginals). With --confusion DATA,
draw the confusion matrix of MODEL on the labelled DATA instead (any model).
The format follows the extension of -o (.png, .svg, .pdf). Needs matplotlib:
pip install 'nbayes[plot]'.

Example:
  nbayes plot people.nbayes --column age -o age.png
  nbayes plot spam.nbayes --confusion test.csv -o confusion.png --normalize
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
    is_text_model,
    load_model,
)

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p)
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--column", metavar="NAME", help="the column (feature) to draw")
    what.add_argument(
        "--confusion", nargs="+", metavar="DATA", help="labelled data for a confusion matrix"
    )
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="image file to write")
    p.add_argument(
        "--normalize", action="store_true", help="confusion matrix: fractions of each true class"
    )
    p.add_argument("--dpi", type=int, default=100, help="resolution of raster images (100)")
    add_data_options(p)


def _marginals(model: Any, column: str) -> Any:
    from nbayes.plot import marginals

    if is_text_model(model):
        raise CLIError(
            f"--column draws a column of a table model; this is a {type(model).__name__}. "
            "Use --confusion DATA for a text model."
        )
    names = column_names(model)
    target: Any = column
    if column not in names and column.isdigit() and int(column) < len(names):
        target = int(column)
    elif column not in names:
        shown = ", ".join(names[:20]) + (" ..." if len(names) > 20 else "")
        raise CLIError(f"The model has no column {column!r}; its columns are: {shown}.")
    return marginals(model, target)


def _confusion(ui: UI, model: Any, args: argparse.Namespace) -> Any:
    from nbayes.cli._data import labelled_inputs
    from nbayes.plot import confusion_matrix

    X, y = labelled_inputs(ui, model, args.confusion, args)
    with ui.progress("Predicting", "examples") as bar:
        pred = model.predict(X)
        bar.advance(len(y))
    ax = confusion_matrix(y, pred, normalize=args.normalize)
    accuracy = float((pred == y).mean())
    ax.set_title(f"{os.path.basename(args.model)}: accuracy {accuracy:.3f} ({len(y):,} examples)")
    return ax


def run(args: argparse.Namespace, ui: UI) -> int:
    if args.dpi < 1:
        raise CLIError(f"--dpi must be a positive number; got {args.dpi}.")
    if args.normalize and args.column is not None:
        raise CLIError("--normalize applies to --confusion only.")
    directory = os.path.dirname(os.path.abspath(args.output))
    if not os.path.isdir(directory):
        raise CLIError(f"Cannot write {args.output!r}: the folder {directory!r} does not exist.")
    model = load_model(args.model)
    ax = _marginals(model, args.column) if args.column is not None else _confusion(ui, model, args)
    import matplotlib.pyplot as plt  # nbayes.plot has imported it, with a file backend

    fig = ax.figure
    try:
        fig.tight_layout()
        fig.savefig(args.output, dpi=args.dpi)
    except ValueError as exc:  # e.g. an unknown image format
        raise CLIError(f"Cannot write {args.output!r}: {exc}") from None
    finally:
        plt.close(fig)
    what = f"column {args.column!r}" if args.column is not None else "confusion matrix"
    ui.note(f"Drew the {what} to {args.output}")
    return 0
