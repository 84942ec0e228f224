"""``nbayes eval``: accuracy, per-class precision/recall/F1, confusion matrix, log loss.

Evaluate MODEL on labelled DATA: accuracy, precision, recall and F1 per class,
the confusion matrix and the log loss (nbayes.evaluate). --json prints the same
figures as one JSON object. A spam filter (--model spam) is evaluated on a folder
of mail per class (DATA/ham/, DATA/spam/): ham lost, spam caught, spam passed and
unsure at its cutoffs.

Example:
  nbayes eval spam.nbayes test.csv
  nbayes eval spam.nbayes test.csv --json | jq .accuracy
  nbayes eval mail.nbayes mail/         # a spam filter: mail/ham/, mail/spam/
"""

from __future__ import annotations

import argparse
import json

from nbayes.cli._common import UI, add_data_options, add_inputs, load_model
from nbayes.cli._data import labelled_inputs

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p, data="labelled data files")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    add_data_options(p)


def run(args: argparse.Namespace, ui: UI) -> int:
    from nbayes.cli._spam import eval_spam, is_spam_model
    from nbayes.evaluation import evaluate

    if is_spam_model(args.model):  # ham lost, spam caught, unsure
        return eval_spam(args, ui)

    model = load_model(args.model)
    X, y = labelled_inputs(ui, model, args.data, args)
    with ui.progress("Evaluating", "examples", total=len(y)) as bar:
        report = evaluate(model, X, y, progress=bar.advance)
    if args.json:
        ui.print(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        ui.print(str(report))
    return 0
