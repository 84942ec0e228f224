"""The spam filter's side of ``train``, ``eval`` and ``explain`` (``--model spam`` and
model files holding a :class:`~nbayes.SpamFilter`): mail in, verdicts and clues out.

Nothing here computes anything about a model: the library does (nbayes.spam, nbayes.mail).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Iterator
from typing import Any

from nbayes.cli._ui import UI, CLIError, json_text

__all__ = [
    "REGIMES",
    "SETTINGS",
    "add_cutoffs",
    "add_regime",
    "check_regime",
    "add_settings",
    "change_settings",
    "describe_settings",
    "eval_spam",
    "explain_spam",
    "interleaved",
    "is_spam_model",
    "learn_by_regime",
    "refuse_table_options",
    "settings_given",
    "train_spam",
    "tune_spam",
]

#: the flags of ``train`` that set another model's options
_OTHER_MODELS_FLAGS = (
    "--alpha",
    "--binary",
    "--ngrams",
    "--hashing",
    "--columns",
    "--bandwidth",
    "--max-points",
    "--var-smoothing",
    "--c",
    "--beta",
    "--workers",
    "--dask-scheduler",
)


def is_spam_model(path: str, strict: bool = False) -> bool:
    """Whether the model file at ``path`` holds a spam filter (its header says so; a file
    that is not a model is left to the command's own load to report, or, ``strict``,
    reported here: a CLIError naming what is wrong with it)."""
    from nbayes.exceptions import ModelFileError
    from nbayes.io.persist import model_type

    try:
        return os.path.isfile(path) and model_type(path) == "SpamFilter"
    except ModelFileError as exc:
        if strict:
            raise CLIError(str(exc)) from None
        return False


def refuse_spam_model(path: str, command: str) -> None:
    """CLIError if ``path`` holds a spam filter, which ``nbayes COMMAND`` does not answer
    for (it reads tables and texts): what to run instead."""
    if is_spam_model(path):
        raise CLIError(
            f"{path} is a spam filter, which `nbayes {command}` does not read (it takes "
            f"tables and texts). `nbayes filter {path} MAIL...` prints each message's "
            f"verdict and spamicity (mail files, mboxes, Maildirs, or one message on "
            f"standard input), `nbayes explain {path} MESSAGE` its clues, `nbayes eval "
            f"{path} MAILDATA` how it does on mail of known labels, `nbayes info {path}` "
            f"its strongest tokens."
        )


def labelled_mail(
    roots: Iterable[str], advance: Any, ui: UI | None = None, who: str = "--model spam"
) -> Iterator[tuple[Any, str]]:
    """``(message, label)`` of every MAILDATA root (``root/ham/``, ``root/spam/``); other
    sub-folders are named in a warning (``ui``), not read, and empty messages (files of
    nothing but white space) are left out and counted in one. ``who`` reads them, for the
    error of a root that is not a folder."""
    from nbayes.mail import is_empty, iter_classes, maildir_subfolders

    for root in roots:
        if not os.path.isdir(root):
            raise CLIError(
                f"{who} reads mail from folders: {root!r} is not one. Give a folder with "
                "a ham/ and a spam/ sub-folder, each of message files, mboxes or Maildirs."
            )
        entries = list(os.scandir(root))
        if not {e.name for e in entries if e.is_dir()} & {
            "ham",
            "spam",
        }:  # (a class folder itself, say: its files)
            name = os.path.basename(os.path.normpath(root))
            hint = (
                f"{root!r} looks like a class folder itself: give the folder that holds it, "
                f"`nbayes train {os.path.dirname(os.path.normpath(root)) or '.'} ...`"
                if name in ("ham", "spam")
                else f"{root!r} has neither"
            )
            raise CLIError(
                f"{who} reads a folder with a ham/ and a spam/ sub-folder (each of message "
                f"files, mboxes or Maildirs); {hint}."
            )
        others = sorted(
            e.name + ("/" if e.is_dir() else "")
            for e in entries
            if e.name not in ("ham", "spam") and not e.name.startswith(".")
        )
        if others and ui is not None:
            shown = ", ".join(others[:8]) + (
                f" and {len(others) - 8} more" if len(others) > 8 else ""
            )
            ui.warn(
                f"{root}: not read: {shown} (a spam filter learns from ham/ and spam/ only: "
                "put mail files, mboxes or Maildirs in them)"
            )
        subs = [p for c in ("ham", "spam") for p in maildir_subfolders(os.path.join(root, c))]
        if subs and ui is not None:  # (Maildir++'s .Archive, .Junk: mailboxes of their own)
            ui.warn(
                f"{root}: not read: the Maildir++ sub-folder(s) {listed(subs, 4)}, each a "
                "mailbox of its own (to learn from one, put it or a link to it in ham/ or "
                "spam/ under a name without a leading dot, outside any Maildir: a Maildir's "
                "cur/ and new/ are its messages)"
            )
        empty = []
        for mail, label in iter_classes(root, ("ham", "spam")):
            advance(1)
            if is_empty(mail.data):  # (nothing but white space: no mail, not counted)
                empty.append(mail.name)
                continue
            yield mail, label
        if empty and ui is not None:
            ui.warn(
                f"{root}: {len(empty):,} empty message(s) left out (nothing but white space: "
                f"no mail to learn from): {listed(empty, 3)}"
            )


def listed(names: list[Any], limit: int) -> str:
    """The first ``limit`` of ``names``, comma-separated, and how many more: ``"a, b and
    3 more"``."""
    more = f" and {len(names) - limit:,} more" if len(names) > limit else ""
    return ", ".join(str(n) for n in names[:limit]) + more


#: ``--regime``'s choices, as :meth:`SpamFilter.train` names them
REGIMES = {"all": "all", "on-error": "on_error", "exhaustion": "exhaustion"}


def add_regime(p: argparse.ArgumentParser) -> None:
    """``--regime`` and ``--max-rounds``: how a spam filter learns mail (``train``,
    ``update``)."""
    from nbayes._flags import count_type

    p.add_argument(
        "--regime",
        choices=tuple(REGIMES),
        help="spam: learn every message (all, the default); only those the filter calls "
        "wrong or unsure, scored in turn as it learns (on-error); or on-error passes until "
        "one learns nothing (exhaustion, as bogominitrain.pl). Ham and spam are taken "
        "alternately, in proportion; the messages' tokens are held in memory",
    )
    p.add_argument(
        "--max-rounds",
        type=count_type(1),
        metavar="N",
        help="spam, with --regime exhaustion: at most N passes (default 10)",
    )


def interleaved(pairs: list[tuple[Any, str]]) -> list[tuple[Any, str]]:
    """``(message, label)`` pairs with the classes taken alternately, in proportion (the
    i-th of a class of n at (i + 1/2) / n; bogominitrain.pl reads ham and spam in turn):
    learning on error in folder order would score all the ham before any spam.

    >>> [label for _, label in interleaved([(1, "ham"), (2, "ham"), (3, "ham"), (4, "spam")])]
    ['ham', 'ham', 'spam', 'ham']
    """
    from collections import Counter

    sizes = Counter(label for _, label in pairs)
    seen: Counter[str] = Counter()
    keyed = []
    for k, (_, label) in enumerate(pairs):
        keyed.append(((seen[label] + 0.5) / sizes[label], k))
        seen[label] += 1
    return [pairs[k] for _, k in sorted(keyed)]


def check_regime(args: argparse.Namespace) -> bool:
    """Whether ``--regime`` learns on error (on-error, exhaustion); ``--max-rounds``
    refused without exhaustion (before any mail is read)."""
    from nbayes.cli._common import refuse_set_flags

    if args.regime != "exhaustion":
        refuse_set_flags(args, ("--max-rounds",), "applies with --regime exhaustion.")
    return args.regime not in (None, "all")


def learn_by_regime(model: Any, pairs: list[tuple[Any, str]], args: argparse.Namespace,
                    ui: UI) -> str | None:  # fmt: skip
    """Learn ``pairs`` (``(message, "ham"|"spam")``) into the spam filter ``model`` as
    ``--regime`` says: None for ``all`` (the caller learns them its own way), else what
    was learnt, in words."""
    regime = REGIMES[args.regime or "all"]
    if regime == "all":
        return None
    pairs = interleaved(pairs)
    ham_label, spam_label = model.labels
    labels = [spam_label if label == "spam" else ham_label for _, label in pairs]
    max_rounds = args.max_rounds or 10
    sets = _token_sets(pairs, ui, model)
    with ui.progress(f"Learning on error ({args.regime})", "passes") as bar:
        rounds = model.train(sets, labels, regime=regime, max_rounds=max_rounds)
        bar.advance(len(rounds))
    if regime == "on_error":
        return (
            f"Learnt {rounds[0]:,} of {len(pairs):,} messages on error (those it called wrong "
            "or unsure when it came to them)"
        )
    passes = ", ".join(f"{n:,}" for n in rounds)
    end = (
        "; the last learnt none" if rounds[-1] == 0
        else f"; stopped at --max-rounds {max_rounds}: the last pass still learnt some"
    )  # fmt: skip
    return (
        f"Learnt {sum(rounds):,} times from {len(pairs):,} messages in {len(rounds)} "
        f"pass{'es' if len(rounds) > 1 else ''} on "
        f"error (per pass: {passes}{end})"
    )


def _token_sets(pairs: list[tuple[Any, str]], ui: UI, model: Any = None) -> list[Any]:
    """The token sets of ``pairs``' messages (``model``'s tokenizer, a new filter's by
    default), with a progress bar: what learning on error and ``tune`` hold in memory."""
    from nbayes.spam import SpamFilter

    tokenize = (model if model is not None else SpamFilter()).tokenize
    out = []
    with ui.progress("Tokenizing", "messages", total=len(pairs)) as bar:
        for mail, _ in pairs:
            out.append(tokenize(mail))
            bar.advance(1)
    return out


def train_spam(args: argparse.Namespace, ui: UI) -> int:
    """``nbayes train MAILDATA -o MODEL --model spam``."""
    from nbayes.cli._common import refuse_set_flags
    from nbayes.cli._models import check_model_output, save_model

    refuse_set_flags(args, _OTHER_MODELS_FLAGS, "does not apply to --model spam.")
    refuse_table_options(args)
    if args.input == "table":
        raise CLIError("--model spam learns from mail: leave out --input table.")
    check_model_output(args.output, args.data, force=args.force)
    model = _spam_filter(args)
    regime_said = None
    if check_regime(args):
        refuse_set_flags(
            args,
            ("--ham-loss",),
            "chooses cutoffs by cross-validation over every message learnt once: it goes "
            "with --regime all (the default), not --regime " + args.regime + ".",
        )
        refuse_set_flags(
            args,
            ("--jobs",),
            "counts mail on several processes with --regime all; learning on error scores "
            "each message in turn, in one process: leave it out.",
        )
        with ui.progress("Reading", "messages") as bar:
            pairs = list(labelled_mail(args.data, bar.advance, ui))
        if not pairs:
            raise CLIError(f"No message found in {', '.join(args.data)}: nothing was learnt.")
        regime_said = learn_by_regime(model, pairs, args, ui)
    else:
        n_jobs = args.jobs if args.jobs is not None else -1  # (-1: every usable core)
        with ui.progress("Training", "messages") as bar:
            model.fit_stream(labelled_mail(args.data, bar.advance, ui), n_jobs=n_jobs)
    table = model.table_
    if table.n_ham + table.n_spam == 0:
        raise CLIError(f"No message found in {', '.join(args.data)}: nothing was learnt.")
    chosen = None if args.ham_loss is None else _choose_cutoffs(model, args, ui)
    save_model(model, args.output, args.data, force=args.force, lock_with=ui)
    if regime_said is None:
        ui.note(
            f"Trained SpamFilter on {table.n_ham:,} ham and {table.n_spam:,} spam messages "
            f"({len(table):,} tokens)."
        )
    else:  # (a message learnt again counts again)
        ui.note(
            f"{regime_said}; the filter counts {table.n_ham:,} ham and {table.n_spam:,} spam "
            f"learnt ({len(table):,} tokens)."
        )
    if chosen is not None:
        ui.note(chosen)
    ui.note(f"Settings: {describe_settings(model)}.")
    if not table.n_ham or not table.n_spam:
        missing = "ham" if not table.n_ham else "spam"
        ui.warn(
            f"{args.output} has learnt no {missing}: every verdict is unsure until it has "
            f"(it cannot tell {missing} from the rest). Register some with "
            f"`nbayes filter {args.output} --register {missing} < message`."
        )
    ui.note(f"Saved to {args.output}")
    return 0


def _spam_filter(args: argparse.Namespace) -> Any:
    """The SpamFilter of ``train``'s flags (--preset, --combining, the cutoffs), checked
    before any mail is read."""
    from nbayes.cli._common import refuse_set_flags
    from nbayes.spam import SpamFilter

    if args.ham_loss is not None:
        refuse_set_flags(
            args,
            ("--ham-cutoff", "--spam-cutoff"),
            "and --ham-loss both set the cutoffs: give the cutoffs, or the share of ham that "
            "may be lost, not both.",
        )
    else:
        refuse_set_flags(
            args, ("--spam-passed",), "applies with --ham-loss (the cutoffs chosen for both)."
        )
    model = SpamFilter()
    change_settings(model, settings_given(args), args.output)  # (a new filter's: checked alike)
    return model


#: the flags of :func:`add_settings`, as the SpamFilter's parameters they set
SETTINGS = {
    "--preset": "preset",
    "--combining": "combining",
    "--ham-cutoff": "ham_cutoff",
    "--spam-cutoff": "spam_cutoff",
    "--min-learned": "min_learned",
}


def add_settings(p: argparse.ArgumentParser, changing: bool = False) -> None:
    """``--preset``, ``--combining`` and the cutoffs: a spam filter's settings, which
    ``train`` gives a new filter and ``update`` (``changing``) changes in one (its counts
    are not touched: every setting is used at scoring time only)."""
    kept = " (default: as it is)" if changing else ""
    p.add_argument(
        "--preset",
        choices=("nbayes", "bogofilter", "spambayes"),
        help="spam: the scoring settings and cutoffs of nbayes (the default), bogofilter "
        f"1.2.5 or SpamBayes 1.1 (docs/spam.md){kept}",
    )
    p.add_argument(
        "--combining",
        choices=("chi2", "mean", "naive_bayes"),
        help="spam: combine the clues by Fisher's chi-square (the default), by their mean "
        f"(better on some mail: docs/spam.md), or as a Naive Bayes{kept}",
    )
    from nbayes._flags import count_type

    p.add_argument(
        "--min-learned",
        type=count_type(0),
        metavar="N",
        help="spam: every verdict is unsure until N messages of each class were learnt "
        f"(cold start){kept or ' (default 1: a filter of no ham cannot tell ham)'}",
    )
    if changing:
        add_cutoffs(p, "spam: ", "MODEL's as it is; `preset`: the preset's again", True)
    else:
        add_cutoffs(p, "spam: ", "the preset's: 0.4 / 0.9 for nbayes")


def add_cutoffs(
    p: argparse.ArgumentParser, prefix: str, default: str, preset_word: bool = False
) -> None:
    """``--ham-cutoff P`` and ``--spam-cutoff P``, their help starting with ``prefix`` and
    saying ``default``; ``preset_word``: P may be the word ``preset``."""
    from nbayes._flags import probability_type

    def cutoff(text: str) -> float | str:
        return "preset" if preset_word and text == "preset" else probability_type(text)

    cutoff.__name__ = "probability"  # (argparse names the type in its errors)
    p.add_argument(
        "--ham-cutoff",
        type=cutoff,
        metavar="P",
        help=f"{prefix}a spamicity at or below P is ham (default: {default})",
    )
    p.add_argument(
        "--spam-cutoff",
        type=cutoff,
        metavar="P",
        help=f"{prefix}a spamicity at or above P is spam; between the two, unsure",
    )


def settings_given(args: argparse.Namespace) -> dict[str, Any]:
    """The SpamFilter parameters the flags of :func:`add_settings` set (none: {}); a
    cutoff given as ``preset`` is None (the preset's again)."""
    out: dict[str, Any] = {}
    for param in SETTINGS.values():
        value = getattr(args, param, None)
        if value == "preset":
            out[param] = None
        elif value is not None:
            out[param] = value + 0.0 if isinstance(value, float) else value
    return out


def change_settings(model: Any, changes: dict[str, Any], path: str) -> bool:
    """Set ``changes`` (:func:`settings_given`) on the spam filter ``model`` of ``path``,
    checked as a whole first (the cutoffs in force, in the flags' words); whether a
    parameter changed. A preset that changes brings its own cutoffs, except those set on
    the model (a cutoff of its own, or of ``--ham-loss``), which stay."""
    from nbayes.cli import _cutoffs
    from nbayes.spam import PRESETS

    preset = changes.get("preset", model.preset)
    whose = {}
    in_force = {}
    for name in ("ham_cutoff", "spam_cutoff"):
        own = changes.get(name, getattr(model, name))
        whose[name] = f"{path}'s" if own is not None else f"the {preset} preset's"
        in_force[name] = own if own is not None else getattr(PRESETS[preset], name)
    flags = {k: float(v) for k, v in changes.items() if k in whose and v is not None}
    for name in ("ham_cutoff", "spam_cutoff"):  # given as `preset`: named as given
        if name in changes and changes[name] is None:
            flag = "--" + name.replace("_", "-")
            flags[name] = in_force[name]
            whose[name] = f"{flag} preset, the {preset} preset's"
    _cutoffs.check(in_force["ham_cutoff"], in_force["spam_cutoff"], flags, whose)
    before = model.get_params(deep=False)
    model.set_params(**changes)
    return model.get_params(deep=False) != before


def describe_settings(model: Any) -> str:
    """A spam filter's settings in force, in words: "preset nbayes, combining chi2, ham <=
    0.4 (the preset's), spam >= 0.95 (its own)"."""
    from nbayes.cli._cutoffs import shown

    p = model.effective_params_

    def whose(name: str) -> str:
        return "its own" if getattr(model, name) is not None else "the preset's"

    return (
        f"preset {model.preset}, combining {model.combining}, ham <= {shown(p.ham_cutoff)} "
        f"({whose('ham_cutoff')}), spam >= {shown(p.spam_cutoff)} ({whose('spam_cutoff')})"
        + (f", unsure until {n} of each class learnt" if (n := model.min_learned) > 1 else "")
        + (", verdicts before a message of each class is learnt" if n == 0 else "")
    )


def _choose_cutoffs(model: Any, args: argparse.Namespace, ui: UI) -> str:
    """--ham-loss: cutoffs chosen by 5-fold cross-validation on the training mail (read
    again), by count subtraction, set on ``model``; what was chosen, in words."""
    from nbayes.spam import choose_cutoffs

    labels: list[str] = []

    def messages() -> Iterator[Any]:  # (choose_cutoffs reads the messages, then the labels)
        for mail, label in labelled_mail(args.data, bar.advance):
            labels.append(label)
            yield mail

    passed = 0.05 if args.spam_passed is None else args.spam_passed
    with ui.progress("Choosing cutoffs", "messages") as bar:
        try:
            choice = choose_cutoffs(model, messages(), labels, ham_loss=args.ham_loss,
                                    spam_passed=passed)  # fmt: skip
        except ValueError as exc:
            raise CLIError(f"--ham-loss: {exc}") from None
    choice.apply(model)
    if choice.spam_cutoff >= 1.0:
        ui.warn(_never_spam(args.ham_loss))
    from nbayes.cli._cutoffs import shown

    return (
        f"Cutoffs for at most {args.ham_loss:.2%} of ham lost and {passed:.2%} of spam passed "
        f"(5-fold cross-validation on the training mail): ham <= {shown(choice.ham_cutoff)}, "
        f"spam >= {shown(choice.spam_cutoff)}; held out, {choice.ham_lost:.2%} of the ham was "
        f"lost, {choice.spam_passed:.2%} of the spam passed and {choice.unsure:.2%} of the "
        "messages were unsure."
    )


def _never_spam(ham_loss: float) -> str:
    """The warning of a spam cutoff of 1 chosen for ``ham_loss``: no verdict spam."""
    return (
        f"no spam cutoff below 1 loses at most {ham_loss:.2%} of the held-out ham: those ham "
        "score as spammy as a cutoff can tell (spamicity 1), so the spam cutoff is 1 and no "
        "message will be called spam. Look in the ham for spam filed there, or give "
        "--ham-loss a larger share."
    )


#: ``tune``'s flags for the other models
_TUNE_OTHER_FLAGS = (
    "--alpha", "--binary", "--ngrams", "--min-df", "--max-df", "--preprocess", "--stop-words",
    "--c", "--beta", "--var-smoothing", "--bandwidth", "--columns",
)  # fmt: skip
_COMBININGS = ("chi2", "mean", "naive_bayes")


def refuse_table_options(args: argparse.Namespace) -> None:
    """The options of documents and tables refused (``--text-col``, ``--label-col``,
    ``--data-format``, ``--delimiter``, ``--bad-rows``; ``--new-classes``): a spam filter
    reads mail from folders, and its classes are ham and spam. (They were taken and
    ignored.)"""
    mail = (
        "it learns mail from folders (DATA/ham/ and DATA/spam/, of message files, mboxes "
        "or Maildirs)"
    )
    for flag, default, why in (
        ("--text-col", "text", mail),
        ("--label-col", "label", mail),
        ("--data-format", None, mail),
        ("--delimiter", None, mail),
        ("--bad-rows", "error", mail + "; a message that cannot be parsed is learnt as it reads"),
        ("--new-classes", False, "its classes are ham and spam, the folders' names"),
    ):
        if getattr(args, flag[2:].replace("-", "_"), default) != default:
            raise CLIError(f"{flag} does not apply to a spam filter: {why}.")


def _names(text: str | None, flag: str, known: tuple[str, ...]) -> list[str]:
    """Comma-separated names of ``known``, each once (none given: [])."""
    if text is None:
        return []
    names = list(dict.fromkeys(v.strip() for v in text.split(",")))
    for name in names:
        if name not in known:
            raise CLIError(f"{flag} takes names among {', '.join(known)}; got {name!r}.")
    return names


def tune_spam(args: argparse.Namespace, ui: UI) -> int:
    """``nbayes tune MAILDATA --model spam``: the presets and combinings given compared on
    the mail, held out by count subtraction (:func:`nbayes.spam.compare_settings`), ranked
    by the spam caught at 0.1 %, then 0.5 %, then 1 % of the ham lost."""
    from nbayes.cli._common import refuse_set_flags
    from nbayes.cli._models import check_model_output, save_model
    from nbayes.spam import PRESETS, SpamFilter, compare_settings

    refuse_set_flags(
        args, _TUNE_OTHER_FLAGS, "does not apply to --model spam (it compares --preset and "
        "--combining)."
    )  # fmt: skip
    if args.scoring != "accuracy":
        raise CLIError(
            "--scoring does not apply to --model spam: it ranks by the spam caught at 0.1 %, "
            "then 0.5 %, then 1 % of the ham lost."
        )
    if args.input == "table":
        raise CLIError("--model spam learns from mail: leave out --input table.")
    refuse_table_options(args)
    presets = _names(args.preset, "--preset", tuple(PRESETS)) or list(PRESETS)
    combinings = _names(args.combining, "--combining", _COMBININGS) or ["chi2", "mean"]
    if args.ham_loss is None:
        refuse_set_flags(
            args, ("--spam-passed",), "applies with --ham-loss (the cutoffs chosen for both)."
        )
    if args.save is not None:  # before any work
        check_model_output(args.save, args.data, flag="--save", force=args.force)
    with ui.progress("Reading", "messages") as bar:
        pairs = list(labelled_mail(args.data, bar.advance, ui))
    if not pairs:
        raise CLIError(f"No message found in {', '.join(args.data)}: nothing to compare.")
    sets = _token_sets(pairs, ui)
    grid = [{"preset": p, "combining": c} for p in presets for c in combinings]
    passed = 0.05 if args.spam_passed is None else args.spam_passed
    # ranked by the spam caught at --ham-loss first (the loss asked for), then at 0.1, 0.5
    # and 1 %; ties: the setting listed first
    levels = (0.001, 0.005, 0.01)
    shares = levels if args.ham_loss is None else (*levels, args.ham_loss)
    with ui.progress(
        f"Cross-validating {len(grid)} settings", "messages scored", total=len(sets) * len(grid)
    ) as bar:
        try:
            scores, fitted = compare_settings(
                SpamFilter(), sets, [label for _, label in pairs], grid, shares=shares,
                cv=args.folds, ham_loss=args.ham_loss, spam_passed=passed,
                progress=bar.advance,
            )  # fmt: skip
        except ValueError as exc:
            if "cross-validation needs" not in str(exc):
                raise
            advice = "give fewer --folds, or more mail"
            if " 0 ham" in str(exc) or " 0 spam" in str(exc):
                advice = "give mail of both classes (DATA/ham/ and DATA/spam/)"
            raise CLIError(f"{exc}: {advice}.") from None
    keys = [s.caught[3:] + s.caught[:3] for s in scores]
    caught = [s.caught[:3] for s in scores]
    ranks = [1 + sum(other > mine for other in keys) for mine in keys]
    best = ranks.index(1)
    flags = f"--preset {grid[best]['preset']} --combining {grid[best]['combining']}"
    chosen = scores[best].cutoffs
    if chosen is not None:
        flags += f" --ham-cutoff {chosen.ham_cutoff!r} --spam-cutoff {chosen.spam_cutoff!r}"
        if chosen.spam_cutoff >= 1.0:
            ui.warn(_never_spam(args.ham_loss))
    if args.save is not None:
        fitted.set_params(**grid[best])
        if chosen is not None:
            chosen.apply(fitted)
        save_model(fitted, args.save, args.data, flag="--save", force=args.force)
    n_spam = sum(label == "spam" for _, label in pairs)
    if args.json:
        ui.print(json_text({
            "folds": args.folds, "n_ham": len(pairs) - n_spam, "n_spam": n_spam,
            "shares": list(shares), "ham_loss": args.ham_loss,
            "spam_passed": None if args.ham_loss is None else passed,
            "results": [
                {"params": s.params, "spam_caught": list(s.caught), "rank": r,
                 "at_cutoffs": s.report.__dict__,
                 "cutoffs": None if s.cutoffs is None else s.cutoffs.__dict__}
                for s, r in zip(scores, ranks, strict=True)
            ],
            "best_params": grid[best], "saved": args.save,
        }))  # fmt: skip
    else:
        at = "at its cutoffs" if args.ham_loss is None else (
            f"at cutoffs for {100 * args.ham_loss:g} % ham lost"
        )  # fmt: skip
        rows = [("setting", "spam caught at 0.1 / 0.5 / 1 % ham lost",
                 f"{at}: ham lost, spam passed, unsure", "rank")]  # fmt: skip
        for s, r in zip(scores, ranks, strict=True):
            rep = s.report
            rows.append((
                f"--preset {s.params['preset']} --combining {s.params['combining']}",
                " / ".join(f"{100 * c:.2f}" for c in s.caught[:3]) + " %",
                f"{rep.ham_lost:,}, {rep.spam_passed:,}, {rep.unsure:,}",
                str(r),
            ))  # fmt: skip
        width = [max(len(row[i]) for row in rows) for i in range(4)]
        ui.print(
            f"{args.folds}-fold cross-validation on {len(pairs):,} messages "
            f"({len(pairs) - n_spam:,} ham, {n_spam:,} spam), held out by count subtraction:"
        )
        for row in rows:
            ui.print("  ".join(f"{c:<{w}}" for c, w in zip(row, width, strict=True)).rstrip())
        ui.print(
            f"best: {flags} ({' / '.join(f'{100 * c:.2f}' for c in caught[best])} % caught); "
            f"train it with `nbayes train {' '.join(args.data)} -o MODEL --model spam {flags}`"
            + (", or give --save MODEL." if args.save is None else ".")
        )
    if args.save is not None:
        ui.note(f"Trained the best setting on all {len(pairs):,} messages; saved to {args.save}")
    return 0


def _first(pair: tuple[Any, str]) -> Any:
    return pair[0]


def _looks_learnt(scorer: Any, roots: list[str], sample: int = 100) -> tuple[int, int] | None:
    """``(n, of)`` when most of the first ``sample`` messages of ``roots`` look learnt by
    the filter (every token of each counted in its class: a message it learnt always is),
    else None: `eval` of the training mail promised "loses 0.00 % of the ham" at a cutoff
    that lost 0.14 % on new mail (a trial's)."""
    looked = learnt = 0
    for mail, label in labelled_mail(roots, lambda n: None):
        tokens = scorer.clues(mail.data).clues
        if tokens and all((c.spam if label == "spam" else c.ham) > 0 for c in tokens):
            learnt += 1
        looked += 1
        if looked == sample:
            break
    return (learnt, looked) if looked >= 10 and learnt >= 0.8 * looked else None


def eval_spam(args: argparse.Namespace, ui: UI) -> int:
    """``nbayes eval MODEL MAILDATA``: ham lost, spam caught, passed and unsure."""
    from nbayes.cli._cutoffs import for_this_run, given
    from nbayes.cli._scoring import Verdicts, mail_bytes
    from nbayes.cli._served import served_spam_scorer
    from nbayes.spam import spam_cutoffs_at_ham_loss, verdict_report

    scorer = served_spam_scorer(args.model)
    assert scorer is not None  # is_spam_model said so
    for_this_run(args, scorer.filter)
    n_jobs = args.jobs if args.jobs is not None else -1  # (-1: every usable core)
    decide = Verdicts(args.model, scorer, mail_bytes(args.data), n_jobs, given(args))
    labels: list[str] = []
    verdicts: list[str] = []
    log_odds: list[float] = []
    with ui.progress("Evaluating", "messages") as bar:
        marked = labelled_mail(args.data, bar.advance, ui)
        for (mail, label), verdict in decide.each(marked, _first):
            if isinstance(verdict, Exception):
                raise CLIError(f"{mail.name}: {verdict}")
            labels.append(label)
            verdicts.append(verdict.verdict)
            log_odds.append(verdict.log_odds)
    if not labels:
        raise CLIError(f"No message found in {', '.join(args.data)}: nothing to evaluate.")
    report = verdict_report(labels, verdicts)
    shares = report.shares()
    learnt = _looks_learnt(scorer, args.data)
    if learnt is not None:
        ui.warn(
            f"{learnt[0]} of the first {learnt[1]} messages look learnt by {args.model} "
            "(every token of each counted in its class): the figures below are of mail it "
            "learnt, better than it will do on new mail, and so are the cutoffs proposed. "
            "Evaluate on mail it has not learnt (or `nbayes train --ham-loss` for cutoffs "
            "chosen by cross-validation)."
        )
    at_loss = []
    if report.n_ham and report.n_spam:
        at_loss = spam_cutoffs_at_ham_loss(log_odds, labels)
    if args.json:
        ui.print(json_text({**report.__dict__, "unsure": report.unsure, "shares": shares,
                            "spam_cutoffs": [c.__dict__ for c in at_loss]}))  # fmt: skip
        return 0

    def pct(x: float, of: str) -> str:  # a share of an empty class is undefined
        return f"n/a: the data has no {of}" if x != x else f"{100 * x:.2f} % of {of}"

    ui.print(f"{report.n_ham:,} ham, {report.n_spam:,} spam ({args.model})")
    ui.print(f"ham lost (verdict spam):    {report.ham_lost:,} ({pct(shares['ham_lost'], 'ham')})")
    ui.print(
        f"spam caught (verdict spam): {report.spam_caught:,} ({pct(shares['spam_caught'], 'spam')})"
    )
    ui.print(
        f"spam passed (verdict ham):  {report.spam_passed:,} ({pct(shares['spam_passed'], 'spam')})"
    )
    ui.print(
        f"unsure:                     {report.unsure:,} ({pct(shares['unsure'], 'all')}; "
        f"{report.ham_unsure:,} ham, {report.spam_unsure:,} spam)"
    )
    from nbayes.cli._cutoffs import shown

    ham_cutoff = scorer.filter.effective_params_.ham_cutoff
    if at_loss:
        ui.print("spam cutoffs for at most a share of this ham lost (a threshold on the score):")
        for c in at_loss:
            if c.spam_cutoff >= 1.0:
                ui.print(
                    f"  {100 * c.ham_loss:g} %: no cutoff below 1 (this much of the ham scores "
                    "as spammy as a cutoff can tell: spamicity 1, which calls nothing spam)"
                )
                continue
            also = ""
            if c.spam_cutoff < ham_cutoff:
                also = f" (below the ham cutoff, {shown(ham_cutoff)}: give --ham-cutoff too)"
            ui.print(
                f"  {100 * c.ham_loss:g} %: --spam-cutoff {c.spam_cutoff!r} catches "
                f"{100 * c.spam_caught:.2f} % of the spam, loses {100 * c.ham_lost:.2f} % of "
                f"the ham{also}"
            )
    return 0


def _read_message(source: str, ui: UI | None = None) -> Any:
    """The one message ``source`` names: a file (an mbox's first message, which ``ui``
    says when there are more), or ``-``."""
    import sys

    from nbayes.mail import iter_mail

    if source == "-":
        raw = sys.stdin.buffer.read()
        if not raw.strip():
            raise CLIError("standard input is empty: pipe one message into `nbayes explain`.")
        return raw
    if not os.path.exists(source):
        raise CLIError(
            f"No such message file {source!r}: a spam filter explains a message file (or - for "
            "standard input)."
        )
    mails = iter_mail(source)
    mail = next(mails, None)
    if mail is None:
        raise CLIError(f"{source!r} holds no message.")
    if ui is not None and next(mails, None) is not None:
        ui.note(
            f"{source} holds several messages: this explains its first ({mail.name}). "
            f"`nbayes filter MODEL {source}` gives each one's verdict."
        )
    return mail


def explain_spam(args: argparse.Namespace, ui: UI, paint: Any) -> int:
    """``nbayes explain MODEL MESSAGE``: the verdict, then the clues (each token's f(w),
    its ham and spam counts, and its side in the combination), strongest first
    (``Clues.lines``, as a notebook shows them too)."""
    from nbayes.cli._served import served_spam_scorer

    scorer = served_spam_scorer(args.model)
    assert scorer is not None
    for line in scorer.clues(_read_message(args.text, ui)).lines(args.top, paint):
        ui.print(line)
    return 0
