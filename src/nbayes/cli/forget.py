"""``nbayes forget``: unlearn labelled data from a model file, exactly and in place."""

from __future__ import annotations

import argparse
from typing import Any

from nbayes.cli._common import UI, add_data_options, command_parser
from nbayes.cli.update import apply

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> None:
    p = command_parser(
        subparsers,
        "forget",
        "unlearn labelled data from a model (in place)",
        "Remove data MODEL has learned: the result equals a model trained without it. Data\n"
        "the model never learned is refused and the file is left unchanged. The file is\n"
        "replaced atomically.",
        ["nbayes forget spam.nbayes messages_to_remove.csv"],
    )
    p.add_argument("model", metavar="MODEL", help="model file (updated in place)")
    p.add_argument("data", nargs="+", metavar="DATA", help="labelled data the model learned")
    add_data_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace, ui: UI) -> int:
    return apply(args, ui, forget=True)
