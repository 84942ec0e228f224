"""``nbayes update``: learn more labelled data into an existing model file, in place.

Add labelled data to MODEL: the result equals training on all of it (new classes
may appear). The file is replaced atomically: a crash never leaves it broken.
Text models keep the vocabulary of their training data; new words are ignored.

Example:
  nbayes update spam.nbayes new_messages.csv
"""

from __future__ import annotations

import argparse

from nbayes.cli._common import UI, add_data_options, add_inputs, load_model, save_model
from nbayes.cli._data import labelled_inputs

__all__ = ["add_arguments", "apply", "run"]


def add_arguments(p: argparse.ArgumentParser, data: str = "labelled data files") -> None:
    """The arguments of ``update`` (and, with its help for DATA, of ``forget``)."""
    add_inputs(p, model="model file (updated in place)", data=data)
    add_data_options(p)


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
