"""``nbayes explain``: why a model classifies a document as it does, word by word.

Explain how MODEL classifies TEXT: the prediction, then the words of the text with
their evidence (log-likelihood ratio: > 0 for the predicted class, < 0 against it),
coloured on a terminal, and the --top K strongest for and against it (a Bernoulli
model also weighs the words the text lacks: they are marked "(absent)"). --top bounds
the output: the words line lists at most 4K words of the text (then says how many
more), and --exact (the derivation with exact fractions, or "cannot decide") lists
the factors of those words only. TEXT that names an existing file or folder, or -
(standard input), is a data file: --row picks its document (text models) or row
(table models; TEXT is always a data file for them). --format latex or markdown prints
the explanation for a paper or a blackboard instead: the exact derivation as LaTeX
(with --exact; "cannot decide" when every class has probability 0), or Markdown (the
derivation, or a table of the strongest evidence).

Example:
  nbayes explain spam.nbayes "WIN a FREE prize, call now"
  nbayes explain seeds.nbayes "free money" --exact
  nbayes explain spam.nbayes inbox.csv --row 3 --top 10
  nbayes explain iris.nbayes flowers.csv --row 3
  nbayes explain mail.nbayes message.eml      # a spam filter: its clues
  nbayes explain reviews.nbayes "match was sharp" --exact --format latex
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from nbayes.cli._common import UI, CLIError, add_data_options, add_inputs, count_type, is_text_model
from nbayes.cli._models import load_for_prediction as _load_model

__all__ = ["Paint", "add_arguments", "explain_text", "run"]

_GREEN, _RED, _DIM, _BOLD, _RESET = "\033[32m", "\033[31m", "\033[2m", "\033[1m", "\033[0m"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p)
    p.add_argument(
        "text", metavar="TEXT", help="the document, or a data file (a path, or - for stdin)"
    )
    p.add_argument("--exact", action="store_true", help="derive with exact fractions")
    p.add_argument(
        "--row", type=count_type(0), default=0, metavar="N",
        help="the document or row of the data file (0-based; default 0)",
    )  # fmt: skip
    p.add_argument(
        "--top", type=count_type(0), default=5, metavar="K",
        help="strongest words listed for and against (default 5; the words line shows at "
        "most 4K)",
    )  # fmt: skip
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    p.add_argument(
        "--format", choices=("text", "latex", "markdown"), default="text",
        help="text (default), latex (the exact derivation: needs --exact) or markdown",
    )  # fmt: skip
    add_data_options(p, labels=True)


class Paint:
    """Colours text with an ANSI code when ``on`` (a terminal, or ``--color always``)."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.on else text


def _evidence(exp: Any, cls: Any, names: Any) -> tuple[dict[str, float], set[str]]:
    """Feature -> evidence for ``cls`` of those of ``names`` with some, and the set of
    ``names`` the model knows (a Bernoulli model's explanation holds its whole vocabulary:
    only these columns are looked at)."""
    index = exp.feature_index(names)
    row = exp.classes.tolist().index(cls)
    values = exp.evidence(list(index.values()))[row].tolist()
    found = {name: v for name, v in zip(index, values, strict=True) if v != 0}
    return found, set(index)


def _explain(model: Any, x: Any, exact: bool) -> Any:
    """``model.explain(x, exact=exact)``, its refusal of an exact derivation in the command
    line's words (``--exact``, not the API's ``exact=True``)."""
    try:
        return model.explain(x, exact=exact)
    except ValueError as exc:
        if not exact or "exact=" not in str(exc):
            raise
        words = str(exc).replace("exact=True", "--exact")
        words = re.sub(r" Use exact=False( \([^)]*\))?\.$", "", words)  # (the API's advice)
        raise CLIError(f"{words.strip()} Leave out --exact for the evidence in logs.") from None


def explain_text(
    ui: UI, model: Any, text: str, exact: bool, paint: Paint, top: int = 5, hint: bool = True
) -> None:
    """Print the word-by-word explanation of one document (used by ``demo`` too); at most
    ``4 * top`` words of the text, and ``top`` for and against the prediction. ``hint``:
    say which ``--top`` lists every word (``nbayes demo`` has no such flag)."""
    exp = _explain(model, text, exact)
    classes = exp.classes.tolist()
    post = exp.posterior_floats()  # (a long exact document: not its fractions reduced)
    if post is None:
        ui.print("Every class has zero probability: the classifier cannot decide.")
        focus = classes[0]
    else:
        focus = exp.prediction
        ui.print(f"Prediction: {paint(str(focus), _BOLD)} (P = {float(post[focus]):.4f})")
    from nbayes.text.scoring import term_features

    terms = list(dict.fromkeys(model.analyze(text)))
    hashed = bool(getattr(model, "hashing", False))
    feature = term_features(model, terms)
    evidence, known = _evidence(exp, focus, feature.values())
    limit = 4 * top
    shown: list[str] = []
    listed: set[str] = set()
    for term in terms[:limit]:
        name = feature.get(term)
        listed.add(term if name is None else name)
        if name is not None and name in evidence:
            v = evidence[name]
            shown.append(paint(f"{term} {v:+.2f}", _GREEN if v > 0 else _RED))
        elif name is not None and name in known:
            shown.append(f"{term} 0")
        else:
            shown.append(paint(f"{term} (unknown)", _DIM))
    more = len(terms) - len(shown)
    if more:
        every = f"; --top {-(-len(terms) // 4)} lists them all" if hint else ""
        shown.append(f"... ({more:,} more word{'s' if more > 1 else ''}{every})")
    label = f"evidence for {focus}" if len(classes) > 1 else "terms"
    ui.print(f"Words ({label}): " + ("  ".join(shown) if shown else "(no known words)"))
    # a family of presence and absence (Bernoulli) weighs the words the text lacks too
    absent_count = bool(getattr(getattr(model, "family", None), "presence", False))
    if not known and not absent_count and post is not None and len(classes) > 1:
        _no_evidence(ui, exp, focus, classes, post)
    words_of: dict[str, str] = {}
    for term, name in feature.items():
        words_of.setdefault(name, term)
    ev = exp.top(top, classes=[focus])[focus]
    absent = exp.absent(n for n, _ in ev["for"] + ev["against"])
    for side, colour, key in (("for", _GREEN, "for"), ("against", _RED, "against")):
        if ev[key]:
            listed.update(n for n, _ in ev[key])
            items = ", ".join(
                paint(f"{words_of.get(n, n)}{' (absent)' if n in absent else ''} {v:+.2f}", colour)
                for n, v in ev[key]
            )
            ui.print(f"  {side} {focus}: {items}")
    if exact:
        _print_exact(ui, exp, listed, words_of if hashed else None)


def _no_evidence(ui: UI, exp: Any, focus: Any, classes: list[Any], post: Any) -> None:
    """Say that no word of the text is known: the prediction is the class prior alone
    (a tie when the prior is uniform)."""
    values = [float(post[c]) for c in classes]
    if max(values) - min(values) <= 1e-12:
        ui.print(
            "No word of the text is known to the model: no evidence either way, a tie "
            f"(every class has P = {values[0]:.4f}; {focus} is named as it comes first)."
        )
    else:
        ui.print(
            "No word of the text is known to the model: no evidence, so the prediction is "
            f"the class prior alone (P({focus}) = {float(post[focus]):.4f})."
        )


def _print_exact(
    ui: UI, exp: Any, terms: set[str] | None, rename: dict[str, str] | None = None
) -> None:
    """The exact derivation, and the factors of ``terms`` (all when None); ``rename``
    names features (the words of a hashing model's buckets). A family of presence and
    absence (Bernoulli) has factors of the words the text lacks: 1 - P(w | c)."""
    ui.print("Exact derivation:")
    for line in exp.derivation().splitlines():
        ui.print(f"  {line}")
    if exp.factors is None:
        return
    # a factor of a word the text lacks (only a family of presence has them: a
    # multinomial's product is over the text's words) is 1 - P(word | class), named so (it
    # read "P(not | negative) = 0/2" where the table of parameters says 2/2); a factor of
    # 0, what makes a class impossible, is always listed
    values = exp.values_as_float()
    lines = []
    for cls, row in zip(exp.classes.tolist(), exp.factors, strict=True):
        parts = []
        for f in row:
            name = exp.feature_names[f.feature] if f.feature is not None else "?"
            zero = f.numerator == 0
            if terms is not None and name not in terms and not zero:
                continue
            shown = name if rename is None else rename.get(name, name)
            if f.feature is not None and values[f.feature] == 0:
                theta = type(f)(f.feature, f.denominator - f.numerator, f.denominator, f.power,
                                f.reduced)  # fmt: skip
                parts.append(f"P({shown} absent | {cls}) = 1 - {theta} = {f}")
            else:
                parts.append(f"P({shown} | {cls}) = {f}")
        if parts:
            lines.append("  " + "; ".join(parts))
    if lines:  # no factor listed (no known word): no empty "where"
        ui.print("where")
        for line in lines:
            ui.print(line)


def _is_data(text: str) -> bool:
    import os

    return text == "-" or os.path.exists(text)


#: the ``--format`` values that print a document (LaTeX, Markdown) instead of the lines
FORMATS = ("latex", "markdown")


def _print_formatted(ui: UI, model: Any, x: Any, args: argparse.Namespace) -> int:
    """The explanation of ``x`` as LaTeX or Markdown (``--format``)."""
    exp = _explain(model, x, args.exact)
    text = exp.to_latex() if args.format == "latex" else exp.to_markdown(top=args.top)
    for line in text.splitlines():
        ui.print(line)
    return 0


def run(args: argparse.Namespace, ui: UI) -> int:
    from nbayes.cli._spam import explain_spam, is_spam_model

    formatted = getattr(args, "format", None) in FORMATS  # LaTeX or Markdown, not the lines
    if is_spam_model(args.model):  # its clues: each token's f(w) and side
        if args.exact or args.row or formatted:
            raise CLIError(
                "--exact, --row and --format do not apply to a spam filter: give one message."
            )
        return explain_spam(args, ui, Paint(ui.color(args.color)))
    if args.format == "latex" and not args.exact:
        raise CLIError(
            "--format latex prints the exact derivation: add --exact (or use --format "
            "markdown for the evidence table)."
        )
    model = _load_model(args.model)
    paint = Paint(ui.color(args.color))
    from nbayes.cli._data import unlabelled_inputs

    text_model = is_text_model(model)
    if text_model and not _is_data(args.text):
        if args.row:
            raise CLIError(
                f"--row applies to a data file, and {args.text!r} is no file: give the path of "
                "a data file (or - for standard input), or leave --row out to explain the text."
            )
        if formatted:
            return _print_formatted(ui, model, args.text, args)
        explain_text(ui, model, args.text, args.exact, paint, args.top)
        return 0
    X, names = unlabelled_inputs(ui, model, [args.text], args)
    if not 0 <= args.row < len(X):
        what = "documents" if text_model else "rows"
        raise CLIError(f"--row {args.row} is out of range: {args.text!r} has {len(X)} {what}.")
    if text_model:
        if names is not None:
            ui.note(f"Explaining {names[args.row]}")
        if formatted:
            return _print_formatted(ui, model, X[args.row], args)
        explain_text(ui, model, X[args.row], args.exact, paint, args.top)
        return 0
    row = X.iloc[[args.row]] if hasattr(X, "iloc") else X[args.row]
    if formatted:
        return _print_formatted(ui, model, row, args)
    exp = _explain(model, row, args.exact)
    if args.exact:
        _print_exact(ui, exp, None)
        return 0
    for line in exp.to_text(top=args.top).splitlines():
        if line.startswith("for "):
            line = paint(line, _GREEN)
        elif line.startswith("against "):
            line = paint(line, _RED)
        ui.print(line)
    return 0
