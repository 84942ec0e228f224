"""``nbayes update``: learn more labelled data into an existing model file, in place.

Add labelled data to MODEL: the result equals training on all of it (new classes
with --new-classes, and a text model learns new words: its vocabulary grows, unless it
hashes words into a fixed number of buckets). The file is replaced atomically: a
crash never leaves it broken. Two updates (or forgets) of one model take turns,
and none is lost; a model that `nbayes serve` is serving is refused at once, naming
the server and its /update (send the data there instead). Updates a killed server
journaled but had not folded into the model (MODEL.journal) are folded in first. A spam
filter learns (or forgets) mail, as `nbayes train --model spam` reads it: DATA/ham/ and
DATA/spam/, of message files, mboxes or Maildirs. --preset, --combining, --ham-cutoff
and --spam-cutoff change a spam filter's settings (with DATA or without: its counts stay
as they are, every setting is used at scoring time); a cutoff set on it stays when the
preset changes, the others follow the preset, and `--spam-cutoff preset` gives one back to
the preset.

Example:
  nbayes update spam.nbayes new_messages.csv
  nbayes update mail.nbayes --spam-cutoff 0.95     # a spam filter's cutoff (no retraining)
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from nbayes.cli._common import UI, CLIError, add_data_options, add_inputs, load_model
from nbayes.cli._data import labelled_inputs
from nbayes.cli._model_lock import model_lock
from nbayes.cli._models import check_model_output, save_model, warn_one_class
from nbayes.cli._spam import (
    SETTINGS,
    add_regime,
    add_settings,
    check_regime,
    is_spam_model,
    settings_given,
)
from nbayes.exceptions import ColumnFamiliesError

__all__ = ["add_arguments", "apply", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(
        p,
        model="model file (updated in place)",
        data="labelled data files (none: only a spam filter's settings change)",
        nargs="*",
    )
    add_data_options(p)
    p.add_argument(
        "--new-classes",
        action="store_true",
        help="learn labels the model does not have as new classes (without it, such a label "
        "is refused: a typo would become a class of its own)",
    )
    add_settings(p, changing=True)
    add_regime(p)


def apply(args: argparse.Namespace, ui: UI, forget: bool) -> int:
    """Shared by ``update`` and ``forget``: load, learn or unlearn, save atomically, holding
    the model's lock throughout (another ``update``/``forget`` waits its turn; a running
    ``nbayes serve``, which holds it while it serves, is refused at once, naming it)."""
    if not os.path.exists(args.model):
        raise CLIError(f"No model file {args.model!r}: train one first with `nbayes train`.")
    if getattr(args, "regime", None) is not None and not args.data:
        raise CLIError("--regime says how DATA is learnt: give DATA (DATA/ham/, DATA/spam/).")
    if not args.data and not settings_given(args):
        raise CLIError(
            "Nothing to do: give DATA to learn (labelled data files), or a spam filter's "
            "settings to change (--preset, --combining, --ham-cutoff, --spam-cutoff)."
        )
    spam_only = (*SETTINGS.items(), ("--regime", "regime"), ("--max-rounds", "max_rounds"))
    given = [flag for flag, param in spam_only if getattr(args, param, None) is not None]
    if given and not is_spam_model(args.model, strict=True):  # (its header read once)
        raise CLIError(
            f"{given[0]} applies to spam filters, and {args.model} is not one (a model of "
            "`nbayes train MAILDATA -o MODEL --model spam`)."
        )
    if not forget:
        check_regime(args)
    served = None
    if not args.data:  # settings only: the server has no request that changes them
        served = (
            "a server's model changes its settings only while no server holds it: stop the "
            f"server, run this again, then start it (`nbayes serve {args.model}`)."
        )
    with model_lock(args.model, ui, served):
        return _apply(args, ui, forget)


def _apply(args: argparse.Namespace, ui: UI, forget: bool) -> int:
    _refuse_other_files(args, "forget" if forget else "update")
    check_model_output(args.model, args.data, flag="MODEL")
    model = _load_for_learning(args.model)
    from nbayes.spam import SpamFilter
    from nbayes.text import TextSettings

    if isinstance(model, SpamFilter):
        return _apply_mail(args, ui, model, forget)
    if not hasattr(model, "unlearn"):
        raise CLIError(
            f"{args.model} holds an {type(model).__name__}, whose linear model cannot learn or "
            "forget documents one batch at a time: retrain it with `nbayes train`."
        )
    learn = model.unlearn if forget else model.update
    new_classes = forget or getattr(args, "new_classes", False)
    if isinstance(model, TextSettings):  # documents: learnt a chunk at a time as they are read
        n = _learn_streamed(ui, model, args, learn, new_classes, forget)
    else:
        X, y = labelled_inputs(ui, model, args.data, args)
        if not new_classes:
            _refuse_new_classes(args, model, y)
        with ui.progress("Unlearning" if forget else "Learning", "examples", total=len(y)) as bar:
            try:
                learn(X, y)
            except ColumnFamiliesError as exc:  # (said with columns={...}, the Python argument)
                raise CLIError(_families_change(exc, args)) from None
            bar.advance(len(y))
        n = len(y)
    save_model(model, args.model, args.data, flag="MODEL")
    verb = "Forgot" if forget else "Learned"
    counts = ", ".join(
        f"{c} {float(n):g}"
        for c, n in zip(model.classes_.tolist(), model.class_count_, strict=True)
    )
    examples = "example" if n == 1 else "examples"
    ui.note(f"{verb} {n:,} {examples}; {args.model} now has: {counts}.")
    warn_one_class(ui, model, args.model)
    return 0


def _learn_streamed(
    ui: UI, model: Any, args: argparse.Namespace, learn: Any, new_classes: bool, forget: bool
) -> int:
    """Learn (or forget) DATA's documents into a text model a chunk at a time as they are
    read, and how many: the model of one call on all of them (its counts are sums). The
    documents were all read first (2.3 GB for a 1.5 GB file: a data engineer's trial).
    Nothing is saved until every chunk is learnt: a bad label or row leaves MODEL as it
    was."""
    from nbayes.cli._common import coerce_labels, text_chunks

    n = 0
    texts: list[str] = []
    labels: list[Any] = []
    size = 0
    share: float | None = None  # of DATA read, when the batch is learnt

    def learn_batch() -> None:
        y = coerce_labels(labels, model.classes_)
        if not new_classes:
            _refuse_new_classes(args, model, y)
        learn(texts, y)  # (counted at once: a count per 10,000 documents cost 1.5x the time)
        bar.advance(len(texts), share)  # (and a Ctrl-C's last line says how far)

    with ui.progress("Unlearning" if forget else "Learning", "examples") as bar:
        # the reader's chunks (10,000 documents) gathered to about _BATCH_CHARS: each
        # count places its terms in the model's vocabulary once
        for chunk in text_chunks(ui, args.data, args, labels=True):
            texts += chunk.texts
            labels += chunk.labels or []
            size += sum(map(len, chunk.texts))
            n += len(chunk)
            share = chunk.share
            if size >= _BATCH_CHARS:
                learn_batch()
                texts, labels, size = [], [], 0
        if texts:
            learn_batch()
    return n


#: characters of documents ``nbayes update`` learns in one call (its memory, besides the
#: model's: about 3x this)
_BATCH_CHARS = 32 * 2**20


def _families_change(exc: Any, args: argparse.Namespace) -> str:
    """The advice of data that would give a mixed model's columns other families."""
    from nbayes.cli._estimators import columns_flag

    _, flag = columns_flag(exc.mine, exc.theirs)
    return (
        f"Cannot learn {' '.join(args.data)} into {args.model}: with the rows the model learnt "
        f"before, it would give columns other families than the ones the model inferred "
        f"({exc.changes()}), so the model would no longer be the model of all its rows. "
        f"Nothing was changed. Train the model again on all the data with the families named: "
        f"nbayes train ... --columns {flag}."
    )


def _refuse_new_classes(args: argparse.Namespace, model: Any, y: Any) -> None:
    """A label the model does not have, unless --new-classes: a typo ("eggs" for "ham")
    was learnt as a class of its own, silently (a trial's finding; `nbayes serve`'s
    /update refuses it alike)."""
    import numpy as np

    classes = model.classes_.tolist()
    new = np.flatnonzero(~np.isin(np.asarray(y), np.asarray(model.classes_)))
    if len(new) == 0:
        return
    label = np.asarray(y)[new[0]].item()
    known = ", ".join(map(repr, classes[:10])) + (", ..." if len(classes) > 10 else "")
    raise CLIError(
        f"The label {label!r} (example {int(new[0]):,} of DATA) is not a class of "
        f"{args.model} (its classes: {known}; labels are case-sensitive): to learn it as a "
        "new class, add --new-classes. Nothing was changed."
    )


def _apply_mail(args: argparse.Namespace, ui: UI, model: Any, forget: bool) -> int:
    """A spam filter learns (forgets) the mail of DATA's ham/ and spam/ folders, as
    ``nbayes train --model spam`` reads them (the table options do not apply), and takes
    the settings given."""
    from nbayes.cli._spam import (
        change_settings,
        describe_settings,
        labelled_mail,
        learn_by_regime,
        refuse_table_options,
    )

    refuse_table_options(args)
    before = describe_settings(model)
    changed = change_settings(model, settings_given(args), args.model)  # checked first
    settings = describe_settings(model)
    if not args.data:
        if not changed:
            ui.note(f"{args.model} already has these settings ({settings}): left unchanged.")
            return 0
        save_model(model, args.model, [], flag="MODEL")
        ui.note(f"{args.model}'s settings: {settings} (were: {before}).")
        return 0
    with ui.progress("Unlearning" if forget else "Learning", "messages") as bar:
        pairs = list(labelled_mail(args.data, bar.advance, ui, who="a spam filter"))
        if not pairs:
            raise CLIError(f"No message found in {', '.join(args.data)}: nothing was changed.")
        ham_label, spam_label = model.classes_.tolist()
        labels = [spam_label if label == "spam" else ham_label for _, label in pairs]
        if forget:
            model.unlearn([m for m, _ in pairs], labels)
        elif not check_regime(args):
            model.partial_fit([m for m, _ in pairs], labels)
    said = None if forget else learn_by_regime(model, pairs, args, ui)
    save_model(model, args.model, args.data, flag="MODEL")
    n_spam = sum(label == "spam" for _, label in pairs)
    table = model.table_
    if said is not None:
        ui.note(f"{said}; {args.model} now has {table.n_ham:,} ham and {table.n_spam:,} spam.")
    else:
        ui.note(
            f"{'Forgot' if forget else 'Learned'} {len(pairs):,} messages "
            f"({len(pairs) - n_spam:,} ham, {n_spam:,} spam); {args.model} now has "
            f"{table.n_ham:,} ham and {table.n_spam:,} spam."
        )
    if changed:
        ui.note(f"{args.model}'s settings: {settings} (were: {before}).")
    return 0


def _refuse_other_files(args: argparse.Namespace, command: str) -> None:
    """MODEL is a model file, or the loader's words of what it is (an empty file, a CSV:
    "pass --force", which these commands do not take, was said); DATA and MODEL given the
    other way round are said so."""
    from nbayes.io.persist import is_model_file

    if is_model_file(args.model):
        return
    swapped = next((d for d in args.data if os.path.isfile(d) and is_model_file(d)), None)
    if swapped is not None:
        raise CLIError(
            f"{args.model!r} is not an nbayes model file and {swapped!r} is one: the model "
            f"comes first (`nbayes {command} MODEL DATA`)."
        )
    load_model(args.model, journaled=False)  # its error says what the file is


def _load_for_learning(path: str) -> Any:
    """The model in ``path``; a TextClassifier as its :class:`nbayes.text.TextSettings`,
    which learns and unlearns as the estimator does, and is saved to the same file,
    without importing scikit-learn (the estimator's base classes)."""
    if not os.path.exists(path):
        return load_model(path)  # its error
    from nbayes.io.persist import load_text_statistics
    from nbayes.text import TextSettings

    fitted = load_text_statistics(path)
    if fitted is None:
        return load_model(path)
    return TextSettings.fitted(*fitted)


def run(args: argparse.Namespace, ui: UI) -> int:
    return apply(args, ui, forget=False)
