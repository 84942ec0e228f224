"""``nbayes explain``: why a model classifies a document as it does, word by word.

Explain how MODEL classifies TEXT: the prediction, then every word of the text with
its evidence (log-likelihood ratio: > 0 for the predicted class, < 0 against it),
coloured on a terminal. --exact prints the derivation with exact fractions (or
says the classifier cannot decide). For a table model, TEXT is a data file and
--row picks the row.

Example:
  nbayes explain spam.nbayes "WIN a FREE prize, call now"
  nbayes explain seeds.nbayes "free money" --exact
  nbayes explain iris.nbayes flowers.csv --row 3
"""

from __future__ import annotations

import argparse
from typing import Any

from nbayes.cli._common import UI, CLIError, add_data_options, add_inputs, is_text_model
from nbayes.cli._common import load_for_prediction as _load_model

__all__ = ["Paint", "add_arguments", "explain_text", "run"]

_GREEN, _RED, _DIM, _BOLD, _RESET = "\033[32m", "\033[31m", "\033[2m", "\033[1m", "\033[0m"


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p)
    p.add_argument("text", metavar="TEXT", help="the document (text models) or a data file")
    p.add_argument("--exact", action="store_true", help="derive with exact fractions")
    p.add_argument("--row", type=int, default=0, help="table models: row of the data file")
    p.add_argument("--top", type=int, default=5, metavar="K", help="strongest words listed")
    p.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    add_data_options(p, labels=True)


class Paint:
    """Colours text with an ANSI code when ``on`` (a terminal, or ``--color always``)."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def __call__(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.on else text


def _evidence(exp: Any, cls: Any, n_features: int) -> dict[str, float]:
    """Feature -> evidence for ``cls`` (the library's for/against lists, all of them)."""
    ev = exp.top(n_features)[cls]
    return {name: value for name, value in ev["for"] + ev["against"]}


def explain_text(ui: UI, model: Any, text: str, exact: bool, paint: Paint, top: int = 5) -> None:
    """Print the word-by-word explanation of one document (used by ``demo`` too)."""
    exp = model.explain(text, exact=exact)
    classes = exp.classes.tolist()
    post = exp.posterior
    if post is None:
        ui.print("Every class has zero probability: the classifier cannot decide.")
        focus = classes[0]
    else:
        focus = exp.prediction
        ui.print(f"Prediction: {paint(str(focus), _BOLD)} (P = {float(post[focus]):.4f})")
    evidence = _evidence(exp, focus, len(exp.feature_names))
    shown: list[str] = []
    seen: set[str] = set()
    for term in model.analyze(text):
        if term in seen:
            continue
        seen.add(term)
        if term in evidence:
            v = evidence[term]
            shown.append(paint(f"{term} {v:+.2f}", _GREEN if v > 0 else _RED))
        elif term in exp.feature_names:
            shown.append(f"{term} 0")
        else:
            shown.append(paint(f"{term} (unknown)", _DIM))
    label = f"evidence for {focus}" if len(classes) > 1 else "terms"
    ui.print(f"Words ({label}): " + ("  ".join(shown) if shown else "(no known words)"))
    ev = exp.top(top)[focus]
    if ev["for"]:
        ui.print(
            f"  for {focus}: " + ", ".join(paint(f"{n} {v:+.2f}", _GREEN) for n, v in ev["for"])
        )
    if ev["against"]:
        ui.print(
            f"  against {focus}: "
            + ", ".join(paint(f"{n} {v:+.2f}", _RED) for n, v in ev["against"])
        )
    if exact:
        _print_exact(ui, exp, seen)


def _print_exact(ui: UI, exp: Any, terms: set[str] | None) -> None:
    ui.print("Exact derivation:")
    for line in exp.derivation().splitlines():
        ui.print(f"  {line}")
    if exp.factors is None:
        return
    ui.print("where")
    for cls, row in zip(exp.classes.tolist(), exp.factors, strict=True):
        parts = []
        for f in row:
            name = exp.feature_names[f.feature] if f.feature is not None else "?"
            if terms is not None and name not in terms:
                continue
            parts.append(f"P({name} | {cls}) = {f}")
        if parts:
            ui.print("  " + "; ".join(parts))


def run(args: argparse.Namespace, ui: UI) -> int:
    if args.top < 0:
        raise CLIError(f"--top must be >= 0; got {args.top}.")
    model = _load_model(args.model)
    paint = Paint(ui.color(args.color))
    if is_text_model(model):
        explain_text(ui, model, args.text, args.exact, paint, args.top)
        return 0
    from nbayes.cli._data import unlabelled_inputs

    X = unlabelled_inputs(ui, model, [args.text], args)
    if not 0 <= args.row < len(X):
        raise CLIError(f"--row {args.row} is out of range: {args.text!r} has {len(X)} rows.")
    row = X.iloc[[args.row]] if hasattr(X, "iloc") else X[args.row]
    exp = model.explain(row, exact=args.exact)
    if args.exact:
        _print_exact(ui, exp, None)
        return 0
    for line in str(exp).splitlines():
        if line.startswith("for "):
            line = paint(line, _GREEN)
        elif line.startswith("against "):
            line = paint(line, _RED)
        ui.print(line)
    return 0
