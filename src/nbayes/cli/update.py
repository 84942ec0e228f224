"""``nbayes update``: learn more labelled data into an existing model file, in place.

Add labelled data to MODEL: the result equals training on all of it (new classes
may appear). The file is replaced atomically: a crash never leaves it broken. Two
updates (or forgets) of one model take turns, and none is lost; a model that
`nbayes serve` is serving is refused (send the data to its /update instead).

Example:
  nbayes update spam.nbayes new_messages.csv
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager

from nbayes.cli._common import UI, CLIError, add_data_options, add_inputs, load_model, save_model
from nbayes.cli._data import labelled_inputs

__all__ = ["add_arguments", "apply", "run"]


def add_arguments(p: argparse.ArgumentParser, data: str = "labelled data files") -> None:
    """The arguments of ``update`` (and, with its help for DATA, of ``forget``)."""
    add_inputs(p, model="model file (updated in place)", data=data)
    add_data_options(p)


def apply(args: argparse.Namespace, ui: UI, forget: bool) -> int:
    """Shared by ``update`` and ``forget``: load, learn or unlearn, save atomically, holding
    the model's lock throughout (another ``update``/``forget`` waits; a running ``nbayes
    serve``, which holds it while it serves, makes this fail clearly)."""
    with _model_lock(args.model, "nbayes forget" if forget else "nbayes update"):
        return _apply(args, ui, forget)


#: How long update/forget wait for another writer of the same model.
LOCK_TIMEOUT = 60.0


@contextmanager
def _model_lock(path: str, owner: str) -> Iterator[None]:
    try:
        from nbayes.io.lock import FileLock, LockedError
    except ImportError:  # pragma: no cover - no fcntl (Windows): no advisory lock
        yield
        return
    lock = FileLock(f"{path}.lock", owner)
    try:
        lock.acquire(timeout=LOCK_TIMEOUT)
    except LockedError as exc:
        raise CLIError(str(exc)) from None
    try:
        yield
    finally:
        lock.release()


def _apply(args: argparse.Namespace, ui: UI, forget: bool) -> int:
    model = load_model(args.model)
    if not hasattr(model, "unlearn"):
        raise CLIError(
            f"{args.model} holds an {type(model).__name__}, whose linear model cannot learn or "
            "forget documents one batch at a time: retrain it with `nbayes train`."
        )
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
