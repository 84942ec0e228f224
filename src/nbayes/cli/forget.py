"""``nbayes forget``: unlearn labelled data from a model file, exactly and in place.

Remove data MODEL has learned: the result equals a model trained without it. A
model keeps counts, not documents, so it cannot tell whether it learned these very
documents: forget only data you trained on. What it certainly never learned is
refused, and the file left unchanged: a class it does not have, or more of a class
(or of a word, or a category) than it counted. Forgetting down to one class warns
(a model of one class predicts it for everything). The file is replaced atomically;
two updates (or forgets) of one model take turns.

Example:
  nbayes forget spam.nbayes messages_to_remove.csv
"""

from __future__ import annotations

import argparse

from nbayes.cli import update
from nbayes.cli._common import UI, add_data_options, add_inputs

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p, model="model file (updated in place)", data="labelled data the model learned")
    add_data_options(p)


def run(args: argparse.Namespace, ui: UI) -> int:
    return update.apply(args, ui, forget=True)
