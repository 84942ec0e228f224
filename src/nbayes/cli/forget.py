"""``nbayes forget``: unlearn labelled data from a model file, exactly and in place.

Remove data MODEL has learned: the result equals a model trained without it. Data
the model never learned is refused and the file is left unchanged. The file is
replaced atomically.

Example:
  nbayes forget spam.nbayes messages_to_remove.csv
"""

from __future__ import annotations

import argparse

from nbayes.cli import update
from nbayes.cli._common import UI

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    update.add_arguments(p, data="labelled data the model learned")


def run(args: argparse.Namespace, ui: UI) -> int:
    return update.apply(args, ui, forget=True)
