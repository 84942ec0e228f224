"""``nbayes merge``: one model of several model files, as if trained on all their data.

Models trained on parts of the data (a shard each, a day each, one per machine) add up:
a model is its counts, so OUT holds the counts, and gives the predictions, of one model
trained on every part. The models must be of one kind with the same settings (alpha,
n-grams, a spam filter's tokenizer, ...); their classes unite, and text models unite their
vocabularies. Updates a server acknowledged and journaled beside a MODEL are counted, as
every command that reads a model counts them. OUT is written atomically and may be one of
the MODELs (the others merged into it): its lock is held from reading it to writing it, so
an update of it meanwhile waits its turn, and a model a server is serving is refused.

Example:
  nbayes merge monday.nbayes tuesday.nbayes -o week.nbayes
  nbayes merge all.nbayes today.nbayes -o all.nbayes     # today's counts added to all's
"""

from __future__ import annotations

import argparse
import os
from contextlib import nullcontext
from typing import Any

from nbayes.cli._common import UI, CLIError, load_model
from nbayes.cli._model_lock import model_lock
from nbayes.cli._models import add_output, check_model_output, save_model

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("models", nargs="+", metavar="MODEL", help="model files to merge (two or more)")
    add_output(p, "OUT")


def run(args: argparse.Namespace, ui: UI) -> int:
    paths: list[str] = args.models
    if len(paths) < 2:
        raise CLIError(
            f"Give two or more MODELs to merge (got {paths[0]!r} alone), and -o OUT for the "
            "model of all their data."
        )
    for path in paths:
        if not os.path.exists(path):
            raise CLIError(f"No model file {path!r}: train one first with `nbayes train`.")
    _refuse_twice(paths)
    check_model_output(args.output, force=args.force, flag="-o")  # before any model is read
    served = (
        f"a served model changes through its server only: send it the data with /update, or "
        f"stop the server, run this again, then start it (`nbayes serve {args.output}`)."
    )
    held = model_lock(args.output, ui, served) if os.path.exists(args.output) else nullcontext()
    with held:
        merged = _merged(paths)
        save_model(merged, args.output, force=args.force)
    counts = ", ".join(
        f"{c} {float(n):,g}"
        for c, n in zip(merged.classes_.tolist(), merged.class_count_, strict=True)
    )
    ui.note(f"Merged {len(paths)} models into {args.output}: {counts}.")
    return 0


def _refuse_twice(paths: list[str]) -> None:
    """A model given twice would count its data twice."""
    for i, path in enumerate(paths):
        for earlier in paths[:i]:
            if os.path.samefile(path, earlier):
                same = "" if path == earlier else f" (as {earlier!r})"
                raise CLIError(
                    f"MODEL {path!r} is given twice{same}: its counts would be added twice. "
                    "Give each model once."
                )


def _merged(paths: list[str]) -> Any:
    """The model of the union of the models' data; the first model that cannot join the
    first is named, with the library's reason."""
    models = [load_model(path) for path in paths]
    first = models[0]
    if not callable(getattr(first, "merge", None)):
        raise CLIError(
            f"{paths[0]} holds a model of type {type(first).__name__}, which cannot be merged "
            "(its weights are not counts): train one model on all the data with `nbayes train`."
        )
    for path, model in zip(paths[1:], models[1:], strict=True):
        why = _unlike(first, model)
        if why is not None:
            raise CLIError(f"Cannot merge {path} with {paths[0]}: {why}")
    try:
        return first.merge(*models[1:])
    except (ValueError, TypeError) as exc:
        for path, model in zip(paths[1:], models[1:], strict=True):
            try:
                first.merge(model)
            except (ValueError, TypeError) as why:
                raise CLIError(f"Cannot merge {path} with {paths[0]}: {_said(why)}") from None
        raise CLIError(f"Cannot merge the models: {_said(exc)}") from None


def _said(exc: BaseException) -> str:
    """The library's reason in the command line's words: mixed models whose rows together
    give a column another family name ``--columns`` (not Python's ``columns={...}``)."""
    from nbayes.exceptions import ColumnFamiliesError

    if not isinstance(exc, ColumnFamiliesError):
        return str(exc)
    from nbayes.cli._estimators import columns_flag

    _, flag = columns_flag(exc.mine, exc.theirs)
    return (
        f"together their rows give columns other families than each inferred "
        f"({exc.changes()}). "
        f"Train the parts with the families named: nbayes train ... --columns {flag}."
    )


def _unlike(first: Any, other: Any) -> str | None:
    """Why ``other`` cannot join ``first``, in the command line's words: another kind of
    model, or other settings (the library's advice is set_params); None: let it try."""
    if type(other) is not type(first):
        return (
            f"their kinds differ ({type(other).__name__} and {type(first).__name__}): only "
            "models of one kind merge."
        )
    same = getattr(first, "_same_param", None)
    if same is None:  # (a spam filter: its scoring settings may differ, the merge warns)
        return None
    mine, theirs = first.get_params(deep=False), other.get_params(deep=False)
    differ = [k for k in mine if not same(mine[k], theirs.get(k))]
    if not differ:
        return None
    shown = ", ".join(f"{k}={theirs.get(k)!r} vs {mine[k]!r}" for k in differ)
    return (
        f"they were trained with different settings ({shown}): train them with the same "
        "`nbayes train` options (their counts are of other features or estimates)."
    )
