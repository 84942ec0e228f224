"""``nbayes update``: learn more labelled data into an existing model file, in place."""

from __future__ import annotations

import argparse
from typing import Any

from nbayes.cli._common import UI, add_data_options, command_parser, load_model, save_model
from nbayes.cli._data import labelled_inputs

__all__ = ["add_parser", "apply", "run"]


def add_parser(subparsers: Any) -> None:
    p = command_parser(
        subparsers,
        "update",
        "learn more labelled data into a model (in place)",
        "Add labelled data to MODEL: the result equals training on all of it (new classes\n"
        "may appear). The file is replaced atomically: a crash never leaves it broken.\n"
        "Text models keep the vocabulary of their training data; new words are ignored.",
        ["nbayes update spam.nbayes new_messages.csv"],
    )
    p.add_argument("model", metavar="MODEL", help="model file (updated in place)")
    p.add_argument("data", nargs="+", metavar="DATA", help="labelled data files")
    add_data_options(p)
    p.set_defaults(run=run)


def apply(args: argparse.Namespace, ui: UI, forget: bool) -> int:
    """Shared by ``update`` and ``forget``: load, learn or unlearn, save atomically."""
    model = load_model(args.model)
    X, y = labelled_inputs(ui, model, args.data, args)
    with ui.progress("Unlearning" if forget else "Learning", "examples") as bar:
        if forget:
            model.unlearn(X, y)
        else:
            model.update(X, y)
        bar.advance(len(y))
    save_model(model, args.model)
    verb = "Forgot" if forget else "Learned"
    counts = ", ".join(
        f"{c} {float(n):g}"
        for c, n in zip(model.classes_.tolist(), model.class_count_, strict=True)
    )
    ui.note(f"{verb} {len(y):,} examples; {args.model} now has: {counts}.")
    return 0


def run(args: argparse.Namespace, ui: UI) -> int:
    return apply(args, ui, forget=False)
