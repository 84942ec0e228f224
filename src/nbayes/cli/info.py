"""``nbayes info``: what a model file holds.

Describe MODEL: its type and hyperparameters, classes and their counts, the
number of features (vocabulary size), the parameter count of the naive model and
of the full joint model over the same features, and the most informative
features per class. --parameters prints the model's parameter table instead, as the
course notes print it: the class prior (3/5) and per feature and class the estimates as
unreduced fractions of counts (1/3, 0/2; with smoothing the pseudo-counts written in),
Gaussian means and variances; --decimals in decimals; --format latex or markdown for a
paper or a blackboard. A text model's table has a row per term, printed as it is made
(`| head` shows its start at once); --top K prints the rows of the K most informative
features only, --features F1,F2 those of the features named.

A spam filter's tokens can be asked about: --token TOKEN (again for more) prints the ham
and spam messages each is in, its f(w) and whether it is a clue (bogoutil -w's habit);
`nbayes explain MODEL MESSAGE` shows a message's tokens, as the filter writes them.

Example:
  nbayes info spam.nbayes --top 5
  nbayes info mail.nbayes --token free --token subject:free
  nbayes info reviews.nbayes --parameters --format latex
  nbayes info news.nbayes --parameters --top 20      # the 20 most informative terms' rows
  nbayes info news.nbayes --parameters --features space,nasa,orbit
"""

from __future__ import annotations

import argparse
import math
import os
from typing import Any

from nbayes.cli._common import (
    UI,
    CLIError,
    add_inputs,
    column_names,
    count_type,
    is_text_model,
    journal_lag,
    no_term_advice,
)
from nbayes.cli._models import load_for_prediction
from nbayes.cli._spam import is_spam_model

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p)
    p.add_argument(
        "--top", type=count_type(0), default=None, metavar="K",
        help="features listed per class (default 10); with --parameters, the rows of the K "
        "most informative features only",
    )  # fmt: skip
    p.add_argument(
        "--parameters", action="store_true",
        help="print the parameter table (the estimates as fractions of counts) instead: a "
        "row per feature (a text model's: per term), printed as it is made",
    )  # fmt: skip
    p.add_argument(
        "--features", action="append", metavar="F1,F2",
        help="--parameters: the rows of these features (terms) only, in this order (again "
        "for more)",
    )  # fmt: skip
    p.add_argument(
        "--token",
        action="append",
        metavar="TOKEN",
        help="a spam filter: a token's ham and spam messages and its f(w) (again for more)",
    )
    p.add_argument(
        "--decimals", action="store_true", help="--parameters: decimals instead of fractions"
    )
    p.add_argument(
        "--format", choices=("text", "latex", "markdown"), default="text",
        help="--parameters: text (default), latex or markdown",
    )  # fmt: skip


def _parameters(ui: UI, model: Any, args: argparse.Namespace) -> int:
    """The parameter table of ``model`` as ``--format`` says, a line at a time as its
    rows are made (a text model's has a row per term: 130,107 of 20 newsgroups' took
    52 s and 145 MB before its first line was printed); --features and --top: some rows."""
    if not hasattr(model, "parameter_table"):
        raise CLIError(
            f"This {type(model).__name__} model has no parameter table (--parameters is for "
            "the Naive Bayes models); leave --parameters out to describe it."
        )
    if args.features and args.top is not None:
        raise CLIError("--top and --features choose the rows two ways: give one of them.")
    table = model.parameter_table(exact=not args.decimals)
    if args.features:
        names = [f.strip() for given in args.features for f in given.split(",") if f.strip()]
        if not names:
            raise CLIError("--features takes feature names, separated by commas: got none.")
        try:
            table = table.select(names)
        except KeyError as exc:
            more = ""
            if getattr(model, "lowercase", False) and any(n != n.lower() for n in names):
                more = " (the model lower-cases words: ask them in lower case)"
            raise CLIError(f"--features: {exc.args[0]}{more}") from None
    elif args.top is not None:
        table = table.select(f for f, _, _ in model.most_informative_features(args.top))
    for line in table.lines(args.format):
        ui.print(line)
    return 0


def _count(n: float) -> str:
    if isinstance(n, float) and math.isinf(n):
        return "infinite"
    if isinstance(n, int) and n >= 10**15:
        digits = str(n)
        return f"about {digits[0]}.{digits[1:3]}e{len(digits) - 1}"
    return f"{int(n):,}"


def _mixed_columns(ui: UI, model: Any) -> None:
    """Per column of a MixedNB: its family, why, and what it holds."""
    families, reasons, sizes = model.families_, model.family_reasons_, model.column_sizes_
    ui.print(f"columns: {len(families)} (family, why)")
    width = max(len(str(name)) for name in families)
    what = {"categorical": "categories", "text": "terms", "kde": "points"}
    for name, fam in families.items():
        why, size = reasons[name], sizes[name]
        extra = "" if size is None else f"; {size:,} {what[fam]}"
        ui.print(f"  {name:<{width}}  {fam:<11}  {why}{extra}")


def _kernel_points(ui: UI, model: Any) -> None:
    """Stored points (or bins) per feature of a KernelNB."""
    names = column_names(model)
    binned = [
        f"{n} (bin width {w:g})" for n, w in zip(names, model.bin_width_.tolist(), strict=True) if w
    ]
    points = model.n_points_.tolist()
    per = ", ".join(f"{n} {k:,}" for n, k in zip(names, points, strict=True))
    ui.print(f"stored points: {sum(points):,} ({per})")
    if binned:
        ui.print(f"binned: {', '.join(binned)}")


def _n_features(model: Any) -> int:
    """Terms (or hash buckets in use) of a text model or its scorer."""
    names = getattr(model, "feature_names", None)  # a TextScorer's: no copy
    return len(model.get_feature_names_out() if names is None else names)


def _spam_filter(ui: UI, model: Any, top: int, path: str, asked: list[str] | None) -> int:
    """A SpamFilter: the settings in force (its preset's where left at None), the
    tokenizer's recipe, the messages learnt, and per class the tokens of the strongest
    f(w)."""
    from dataclasses import asdict

    p = model.effective_params_
    settings = ", ".join(f"{k}={v!r}" for k, v in asdict(p).items())
    ui.print(f"settings in force (preset {model.preset!r}): {settings}")
    ui.print(f"combining: {model.combining}; min_learned: {model.min_learned}")
    recipe = model.tokenizer_.to_dict()
    ui.print("tokenizer: " + ", ".join(f"{k}={v!r}" for k, v in recipe.items()))
    table = model.table_
    ham, spam = model.classes_.tolist()
    ui.print(f"messages learnt: {table.n_ham:,} {ham}, {table.n_spam:,} {spam}")
    from nbayes.io.pending import pending_counts, pending_path

    more_ham, more_spam = pending_counts(path)
    if more_ham or more_spam:
        ui.print(
            f"pending: {more_ham + more_spam:,} of them ({more_ham:,} {ham}, {more_spam:,} "
            f"{spam}) registered since the file was written, in {pending_path(path)} "
            f"(copy it with the file, or write them into it: `nbayes filter {path} --fold`)"
        )
    ui.print(f"tokens: {table.n_live:,}")
    if asked:
        _tokens_asked(ui, model, asked)
        return 0
    if top:
        ui.print(f"strongest tokens per class (top {top}: f(w), {ham} / {spam} messages):")
        for name, is_spam in ((spam, True), (ham, False)):
            best = table.strongest(top, p.s, p.x, p.smoothing, spam=is_spam)
            shown = ", ".join(f"{t} ({f:.3f}: {g} / {b})" for t, f, g, b in best)
            ui.print(f"  {name}: {shown}")
    return 0


def _tokens_asked(ui: UI, model: Any, asked: list[str]) -> None:
    """--token: each token's ham and spam messages, f(w) and side, in the order asked; a
    token not in the model named with the tokens that end in it (``subject:free`` for
    ``free``), and its lower case when that is one (the tokenizer lower-cases words)."""
    from nbayes.spam import robinson_f

    p = model.effective_params_
    table = model.table_
    ham, spam = model.classes_.tolist()
    suffixes: dict[str, list[str]] = {
        ":" + t: [] for t in asked if not any(table.counts(t))
    }  # fmt: skip
    if suffixes:  # one pass over the tokens for all the words not found
        for t in table.index:
            _, colon, tail = t.rpartition(":")
            if colon and ":" + tail in suffixes and any(table.counts(t)):
                suffixes[":" + tail].append(t)
    for token in asked:
        g, b = table.counts(token)
        if g or b:
            f = robinson_f(g, b, table.n_ham, table.n_spam, p.s, p.x, p.smoothing)
            side = (
                f"a {spam} clue" if f >= 0.5 + p.min_dev
                else f"a {ham} clue" if f <= 0.5 - p.min_dev
                else f"not a clue (f(w) within {p.min_dev:g} of 1/2)"
            )  # fmt: skip
            ui.print(f"{token}: {g:,} {ham}, {b:,} {spam}; f(w) {f:.4f}: {side}")
            continue
        more = ""
        if token != token.lower() and any(table.counts(token.lower())):
            more = f"; the tokenizer lower-cases words: ask {token.lower()!r}"
        alike = sorted(suffixes.get(":" + token, []), key=lambda t: -sum(table.counts(t)))
        if alike:
            shown = ", ".join(f"{t} ({'/'.join(map(str, table.counts(t)))})" for t in alike[:5])
            more += f"; tokens that end in it ({ham}/{spam}): {shown}"
            if len(alike) > 5:
                more += f" and {len(alike) - 5} more"
        ui.print(f"{token}: in no message the model learnt (f(w) {p.x:g}: not a clue){more}")


def _journal(ui: UI, path: str) -> None:
    """The updates a server acknowledged and journaled beside the model that the file
    does not hold yet (``MODEL.journal``): the model described here lacks them."""
    lag = journal_lag(path)
    if lag is not None:
        ui.print(f"journal: {lag} (what follows lacks them)")


def _classes(ui: UI, model: Any) -> None:
    ui.print("classes:")
    for c, n in zip(model.classes_.tolist(), model.class_count_.tolist(), strict=True):
        ui.print(f"  {c}: {n:g}")


def run(args: argparse.Namespace, ui: UI) -> int:
    from nbayes.io.persist import read_metadata

    if args.parameters and args.token:
        raise CLIError("--token and --parameters print different things: give one of them.")
    if args.parameters:  # the model's parameter table (a text model's scorer's: lean)
        return _parameters(ui, load_for_prediction(args.model), args)
    if args.decimals or args.format in ("latex", "markdown") or args.features:
        flag = "--decimals" if args.decimals else "--features" if args.features else "--format"
        raise CLIError(f"{flag} applies to --parameters: add --parameters to print the table.")
    if args.token and not all(args.token):
        raise CLIError("--token takes a token (a word, or e.g. subject:free): got an empty one.")
    if args.token and os.path.isfile(args.model) and not is_spam_model(args.model, True):
        raise CLIError(
            f"--token asks a spam filter about its tokens, and {args.model} is not one: "
            f"`nbayes explain {args.model} TEXT` gives a text model's evidence word by word."
        )
    # a TextClassifier's scorer (no scikit-learn); what the file lacks is said below
    model = load_for_prediction(args.model, journaled=False)
    metadata, _ = read_metadata(args.model)
    text = is_text_model(model)
    est = model
    ui.print(f"file: {args.model} ({os.path.getsize(args.model):,} bytes)")
    ui.print(f"written by: nbayes {metadata['nbayes_version']}")
    _journal(ui, args.model)
    nbsvm = type(model).__name__ == "NBSVM"
    if nbsvm:
        kind = f"text model (NBSVM, {model.loss})"
    else:
        kind = f"text model (TextClassifier, {model.model})" if text else type(est).__name__
    ui.print(f"model: {kind}")
    if kind == "SpamFilter":
        top = 10 if args.top is None else max(args.top, 0)
        return _spam_filter(ui, model, top, args.model, args.token)
    settings = est.get_params(deep=False)
    if text and not settings.get("hashing"):
        settings.pop("n_features", None)  # the number of hash buckets: hashing only
    params = ", ".join(f"{k}={v!r}" for k, v in sorted(settings.items()))
    ui.print(f"hyperparameters: {params}")
    if text:
        try:
            n_terms = _n_features(model)
        except ValueError as exc:  # (it keeps no term yet: one document, min_df 2; a fuzz)
            advice = no_term_advice(exc)
            if not advice:
                raise
            ui.print(f"vocabulary: no term kept yet: {exc}{advice}")
            _classes(ui, model)
            return 0
        what = "hash buckets in use" if getattr(model, "hashing", False) else "terms"
        ui.print(f"vocabulary: {n_terms:,} {what}")
    elif hasattr(est, "families_"):  # MixedNB: a family per column
        _mixed_columns(ui, est)
    else:
        names = getattr(est, "feature_names_in_", None)
        shown = "" if names is None else f": {', '.join(map(str, names[:20]))}"
        more = " ..." if names is not None and len(names) > 20 else ""
        ui.print(f"features: {est.n_features_in_}{shown}{more}")
        if hasattr(est, "max_points"):  # KernelNB: stored points
            _kernel_points(ui, est)
    _classes(ui, model)
    if nbsvm:
        n = model.coef_.size + (model.intercept_.size if model.fit_intercept else 0)
        ui.print(f"parameters: {_count(n)} (linear weights)")
    else:
        naive = model.n_parameters()
        full = model.n_parameters(full_joint=True)
        ui.print(f"parameters: {_count(naive)} (naive Bayes), {_count(full)} (full joint model)")
    k = 10 if args.top is None else max(args.top, 0)
    if k:
        score = "weight" if nbsvm else "log likelihood ratio"
        if hasattr(model, "most_informative_by_class"):  # (named: only the k of each class)
            by_class = model.most_informative_by_class(k)
        else:
            n_features = _n_features(model) if text else est.n_features_in_
            features = model.most_informative_features(n_features)
            by_class = {
                cls: [(f, s) for f, c, s in features if c == cls][:k]
                for cls in model.classes_.tolist()
            }
        ui.print(f"most informative features per class (top {k}, {score}):")
        for cls in model.classes_.tolist():
            best = by_class.get(cls, [])
            if best:
                ui.print(f"  {cls}: " + ", ".join(f"{f} ({s:.2f})" for f, s in best))
    return 0
