"""``nbayes predict``: classify documents or table rows; CSV or JSON lines on stdout.

Classify the documents (or table rows) of DATA, or the texts given with --text.
Prints one line per input: its row number and the predicted class; --proba adds
the probability of every class, --top N the N most probable classes.

Example:
  nbayes predict spam.nbayes --text "WIN a FREE prize now" --proba
  nbayes predict spam.nbayes inbox.csv --top 2 --format jsonl > predictions.jsonl
"""

from __future__ import annotations

import argparse
import csv
import json
from typing import Any

import numpy as np

from nbayes.cli._common import UI, CLIError, add_data_options, add_inputs, is_text_model
from nbayes.cli._common import load_for_prediction as _load_model
from nbayes.cli._data import unlabelled_inputs

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p, data="data files (or use --text)", nargs="*")
    p.add_argument(
        "--text", action="append", metavar="TEXT", help="a document to classify (repeatable)"
    )
    p.add_argument("--proba", action="store_true", help="print every class's probability")
    p.add_argument("--top", type=int, metavar="N", help="print the N most probable classes")
    p.add_argument("--format", choices=("csv", "jsonl"), default="csv", help="output format")
    add_data_options(p)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def run(args: argparse.Namespace, ui: UI) -> int:
    if bool(args.data) == bool(args.text):
        raise CLIError("Give either DATA files or --text (not both, not neither).")
    if args.top is not None and args.top < 1:
        raise CLIError(f"--top must be a positive number; got {args.top}.")
    model = _load_model(args.model)
    if args.text:
        if not is_text_model(model):
            raise CLIError(
                f"{args.model} is a {type(model).__name__} for tables: --text needs a text "
                "model; give a DATA file instead."
            )
        X: Any = list(args.text)
    else:
        X = unlabelled_inputs(ui, model, args.data, args)
    classes = [_plain(c) for c in model.classes_.tolist()]
    rows: list[dict[str, Any]] = []
    if args.top is not None:
        labels, proba = model.predict_top(X, n=args.top)
        for i, (ls, ps) in enumerate(zip(labels.tolist(), proba.tolist(), strict=True)):
            rows.append({"row": i, "top": list(zip(ls, ps, strict=True))})
    else:
        pred = model.predict(X).tolist()
        proba_rows = model.predict_proba(X).tolist() if args.proba else None
        for i, label in enumerate(pred):
            row: dict[str, Any] = {"row": i, "prediction": label}
            if proba_rows is not None:
                row["proba"] = dict(zip(classes, proba_rows[i], strict=True))
            rows.append(row)
    _write(ui, rows, args, classes)
    return 0


def _num(p: float) -> Any:
    return None if p != p else p


def _write(ui: UI, rows: list[dict[str, Any]], args: argparse.Namespace, classes: list) -> None:
    if args.format == "jsonl":
        for row in rows:
            out = dict(row)
            if "top" in out:
                out["top"] = [{"class": c, "proba": _num(p)} for c, p in out["top"]]
            if "proba" in out:
                out["proba"] = {str(c): _num(p) for c, p in out["proba"].items()}
            ui.print(json.dumps(out, ensure_ascii=False))
        return
    writer = csv.writer(ui.out, lineterminator="\n")
    if args.top is not None:
        n = len(rows[0]["top"]) if rows else 0
        header = ["row"]
        for k in range(1, n + 1):
            header += [f"class_{k}", f"proba_{k}"]
        writer.writerow(header)
        for row in rows:
            cells: list[Any] = [row["row"]]
            for c, p in row["top"]:
                cells += [c, f"{p:.6g}"]
            writer.writerow(cells)
        return
    header = ["row", "prediction"]
    if args.proba:
        header += [f"proba_{c}" for c in classes]
    writer.writerow(header)
    for row in rows:
        cells = [row["row"], row["prediction"]]
        if args.proba:
            cells += [f"{p:.6g}" for p in row["proba"].values()]
        writer.writerow(cells)
