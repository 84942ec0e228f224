"""``nbayes eval``: accuracy, per-class precision/recall/F1, confusion matrix, log loss.

Evaluate MODEL on labelled DATA: accuracy, precision, recall and F1 per class,
the confusion matrix and the log loss (nbayes.evaluate). --json prints the same
figures as one JSON object (a figure that is undefined, such as a share of a class
the data has no example of, is null). Data none of whose labels the model knows is refused
(exit 1, naming the labels seen and the model's classes: usually the wrong
--label-col); labels only some examples have are warned about (they count as errors).
A spam filter (--model spam) is evaluated on a folder of mail per class (DATA/ham/,
DATA/spam/): ham lost, spam caught, spam passed and unsure at its cutoffs, or at
--ham-cutoff and --spam-cutoff (this run's: `nbayes update` sets them in the model).

Example:
  nbayes eval spam.nbayes test.csv
  nbayes eval spam.nbayes test.csv --json | jq .accuracy
  nbayes eval mail.nbayes mail/         # a spam filter: mail/ham/, mail/spam/
  nbayes eval mail.nbayes mail/ --spam-cutoff 0.95   # at other cutoffs
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from nbayes.cli._common import (
    UI,
    CLIError,
    add_data_options,
    add_inputs,
    count_type,
    is_text_model,
    refuse_set_flags,
)
from nbayes.cli._data import labelled_inputs
from nbayes.cli._models import load_for_prediction as _load_model
from nbayes.cli._spam import add_cutoffs
from nbayes.cli._ui import json_text

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p, data="labelled data files")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument(
        "--jobs",
        type=count_type(1),
        metavar="N",
        help="spam filters: processes that score the mail once the model is loaded whole "
        "(default: every usable core)",
    )
    add_cutoffs(p, "spam filters, for this run: ", "MODEL's")
    add_data_options(p)


def _shown(values: list[Any], limit: int = 10) -> str:
    more = f", ... ({len(values)} in all)" if len(values) > limit else ""
    return ", ".join(map(repr, values[:limit])) + more


def _check_labels(ui: UI, y: np.ndarray, classes: np.ndarray, args: argparse.Namespace) -> None:
    """Refuse data none of whose labels the model knows (every figure would be 0, which
    is rarely the model's fault); warn when only some are unknown."""
    known = np.isin(y, classes)
    if known.all():
        return
    seen = np.unique(y).tolist()
    unknown = np.unique(y[~known]).tolist()
    model_classes = _shown(classes.tolist())
    if not known.any():
        raise CLIError(
            f"None of the labels in the data is a class of the model: the data (column "
            f"{args.label_col!r}) has {_shown(seen)}; the model knows {model_classes}. "
            f"Check --label-col, or evaluate on data labelled like the training data."
        )
    ui.warn(
        f"{int((~known).sum()):,} of {len(y):,} examples have labels the model does not know "
        f"({_shown(unknown)}; it knows {model_classes}): they count as errors."
    )


def _evaluate_streamed(ui: UI, model: Any, args: argparse.Namespace) -> Any:
    """The report of a text model on DATA read a chunk at a time (eval read every document
    first: 2.8 GB for a 1.5 GB file, a data engineer's trial); the labels are checked once
    all are read (:func:`_check_labels`: none of them the model's is refused)."""
    from nbayes.cli._common import coerce_labels, text_chunks
    from nbayes.evaluation import evaluate_chunks

    labels: list[np.ndarray] = []

    def parts() -> Any:
        for chunk in text_chunks(ui, args.data, args, labels=True):
            y = coerce_labels(chunk.labels or [], model.classes_)
            labels.append(y)
            yield chunk.texts, y

    with ui.progress("Evaluating", "examples") as bar:
        report = evaluate_chunks(model, parts(), progress=bar.advance)
    _check_labels(ui, np.concatenate(labels), model.classes_, args)
    return report


def run(args: argparse.Namespace, ui: UI) -> int:
    from nbayes.cli._spam import eval_spam, is_spam_model
    from nbayes.evaluation import evaluate

    if is_spam_model(args.model):  # ham lost, spam caught, unsure
        return eval_spam(args, ui)
    refuse_set_flags(
        args,
        ("--jobs", "--ham-cutoff", "--spam-cutoff"),
        "applies to spam filters (models of `nbayes train --model spam`).",
    )

    model = _load_model(args.model)  # a TextClassifier's scorer: no scikit-learn
    if is_text_model(model):  # documents: scored a chunk at a time, as they are read
        report = _evaluate_streamed(ui, model, args)
    else:
        X, y = labelled_inputs(ui, model, args.data, args)
        _check_labels(ui, y, model.classes_, args)
        with ui.progress("Evaluating", "examples", total=len(y)) as bar:
            report = evaluate(model, X, y, progress=bar.advance)
    if args.json:
        ui.print(json_text(report.to_dict()))
    else:
        ui.print(str(report))
    return 0
