"""``nbayes predict``: classify documents or table rows; plain lines, CSV or JSON lines.

Classify the documents (or table rows) of DATA, or the texts given with --text.
DATA are files, folders (a folder per class, or of plain-text files: one document
each) or glob patterns; - reads standard input (one document per line, or a CSV/JSON
lines table when its first line is a header naming --text-col or a JSON object).
For --text the answer is plain: the predicted class and its probability. For DATA
it is a CSV on stdout (--format jsonl: JSON lines; plain: lines as for --text): the
row number (the file, for documents that are files; --id-col NAME: that column's
value) and the predicted class; --proba adds the probability of every class, --top N
the N most probable classes.

Example:
  nbayes predict spam.nbayes --text "WIN a FREE prize now"
  nbayes predict spam.nbayes inbox.csv --top 2 --format jsonl > predictions.jsonl
  nbayes predict spam.nbayes inbox.csv --id-col message_id > predictions.csv
  nbayes predict spam.nbayes mails/ > predictions.csv      # one row per file
  cat messages.txt | nbayes predict spam.nbayes -
"""

from __future__ import annotations

import argparse
import csv
import json
from typing import Any

import numpy as np

from nbayes import decide
from nbayes.cli._common import UI, CLIError, add_data_options, add_inputs, count_type, is_text_model
from nbayes.cli._data import unlabelled_inputs
from nbayes.cli._models import load_for_prediction as _load_model

__all__ = ["add_arguments", "run"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_inputs(p, data="data files, folders or patterns; - for standard input (or --text)",
               nargs="*")  # fmt: skip
    p.add_argument(
        "--text", action="append", metavar="TEXT", help="a document to classify (repeatable)"
    )
    p.add_argument("--proba", action="store_true", help="print every class's probability")
    p.add_argument(
        "--top", type=count_type(1), metavar="N", help="print the N most probable classes"
    )
    p.add_argument(
        "--id-col",
        metavar="NAME",
        help="a column of DATA (a table) to write in each answer in place of the row "
        "number: a key to join the answers on",
    )
    p.add_argument(
        "--format",
        choices=("plain", "csv", "jsonl"),
        help="output: plain lines (the default for --text), csv (the default for DATA) or jsonl",
    )
    add_data_options(p)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def run(args: argparse.Namespace, ui: UI) -> int:
    if bool(args.data) == bool(args.text):
        raise CLIError("Give either DATA files or --text (not both, not neither).")
    if args.data.count("-") > 1:
        raise CLIError("Standard input (-) can be read once: give - once.")
    _refuse_a_text_as_data(args)
    from nbayes.cli._spam import refuse_spam_model

    refuse_spam_model(args.model, "predict")
    model = _load_model(args.model)
    fmt = args.format or ("plain" if args.text else "csv")
    classes = [_plain(c) for c in model.classes_.tolist()]
    if args.text:
        if args.id_col is not None:
            raise CLIError("--id-col names a column of DATA; --text has none: leave it out.")
        if not is_text_model(model):
            raise CLIError(
                f"{args.model} is a {type(model).__name__} for tables: --text needs a text "
                "model; give a DATA file instead."
            )
        texts = list(args.text)
        rows = _answers(model, texts, [("row", i) for i in range(len(texts))], args, fmt, classes)
        if fmt == "plain":
            _write_plain(ui, rows, args, texts)
        else:
            _write(ui, rows, args, classes, fmt)
        return 0
    if is_text_model(model):  # documents: answered a chunk at a time, as they are read
        _predict_streamed(ui, model, args, fmt, classes)
        return 0
    X, names = unlabelled_inputs(ui, model, args.data, args)
    ids: list[tuple[str, Any]] = (
        [(args.id_col, ident) for ident in names or ()]  # (the --id-col column's values)
        if args.id_col is not None
        else [  # (names are row numbers where bad rows were skipped)
            ("row", i) if names is None else ("row" if isinstance(names[i], int) else "file",
                                              names[i])
            for i in range(len(X))
        ]
    )  # fmt: skip
    rows = _answers(model, X, ids, args, fmt, classes)
    if fmt == "plain":
        _write_plain(ui, rows, args, None)
    else:
        _write(ui, rows, args, classes, fmt)
    return 0


def _answers(
    model: Any,
    X: Any,
    ids: list[tuple[str, Any]],
    args: argparse.Namespace,
    fmt: str,
    classes: list[Any],
) -> list[dict[str, Any]]:
    """One answer per row of ``X`` (``{key: ident, "prediction": ..., "proba": ...}`` or
    ``{key: ident, "top": [...]}``), from one scoring."""
    decisions = decide(model, X)  # one scoring: labels, probabilities and top classes
    rows: list[dict[str, Any]] = []
    if args.top is not None:
        labels, proba = decisions.top(args.top)
        for (key, ident), ls, ps in zip(ids, labels.tolist(), proba.tolist(), strict=True):
            rows.append({key: ident, "top": list(zip(ls, ps, strict=True))})
        return rows
    pred = decisions.labels.tolist()
    want = args.proba or fmt == "plain"
    proba_rows = decisions.proba.tolist() if want else None
    for i, ((key, ident), label) in enumerate(zip(ids, pred, strict=True)):
        row: dict[str, Any] = {key: ident, "prediction": label}
        if proba_rows is not None:
            row["proba"] = dict(zip(classes, proba_rows[i], strict=True))
        rows.append(row)
    return rows


def _predict_streamed(
    ui: UI, model: Any, args: argparse.Namespace, fmt: str, classes: list[Any]
) -> None:
    """The documents of DATA answered a chunk at a time as they are read, in memory one
    chunk of documents and answers (``nbayes predict`` read every document first: 6.6 GB
    for a 1.5 GB CSV, and nothing written for two minutes; a data engineer's trial). A
    document is named by its row number in its one table, else by its file (or
    ``file:row``), as before: known from DATA before a row is read."""
    from nbayes.cli._common import named_text_chunks

    named, chunks = named_text_chunks(ui, args.data, args, labels=False)
    key = args.id_col or ("file" if named else "row")
    first = True
    with ui.progress("Predicting", "documents") as bar:
        pending = next(chunks, None)
        while pending is not None:
            chunk, pending = pending, next(chunks, None)
            names = (
                chunk.ids
                if chunk.ids is not None
                else chunk.names()
                if named
                else range(chunk.start_row, chunk.start_row + len(chunk))
            )
            rows = _answers(model, chunk.texts, [(key, n) for n in names], args, fmt, classes)
            if fmt == "plain":  # (several answers: each says what it answers)
                _write_plain(ui, rows, args, None, several=not first or pending is not None)
            else:
                _write(ui, rows, args, classes, fmt, header=first)
            first = False
            ui.out.flush()
            bar.advance(len(chunk), chunk.share)


def _refuse_a_text_as_data(args: argparse.Namespace) -> None:
    """A DATA argument that is no file and reads as a sentence (it has a space): the text
    to classify, given where a file goes (`nbayes explain MODEL TEXT` takes it there). The
    error was a bare "No such file or directory" (a trial's finding)."""
    import glob
    import os
    import shlex

    for source in args.data:
        if source != "-" and " " in source.strip() and not glob.has_magic(source):
            if not os.path.exists(source):
                raise CLIError(
                    f"No such file: {source!r}. DATA names files; to classify a text, give "
                    f"it with --text: nbayes predict {shlex.quote(args.model)} --text "
                    f"{shlex.quote(source)}"
                )


def _num(p: float) -> Any:
    return None if p != p else p


def _p(p: float) -> str:
    return "nan" if p != p else f"{p:.4f}"


def _write_plain(
    ui: UI,
    rows: list[dict[str, Any]],
    args: argparse.Namespace,
    texts: list[str] | None,
    several: bool = False,
) -> None:
    """``spam (P = 0.9731)`` per input; with several inputs (``several``: more are
    written apart), followed by what it is."""
    several = several or len(rows) > 1
    for i, row in enumerate(rows):
        if "top" in row:
            answer = ", ".join(f"{c} (P = {_p(p)})" for c, p in row["top"])
        else:
            proba = row["proba"]
            label = row["prediction"]
            answer = f"{label} (P = {_p(proba[label])})"
            if args.proba:
                others = [f"{c} {_p(p)}" for c, p in proba.items() if c != label]
                answer = f"{label} (P = {_p(proba[label])}; {', '.join(others)})"
        if several:
            if texts is not None:
                what = texts[i] if len(texts[i]) <= 60 else texts[i][:57] + "..."
                answer += f"  {what!r}"
            else:
                key, ident = next(iter(row.items()))  # (row, file, or the --id-col's)
                answer += f"  {ident}" if key == "file" else f"  {key} {ident}"
        ui.print(answer)


def _write(
    ui: UI,
    rows: list[dict[str, Any]],
    args: argparse.Namespace,
    classes: list,
    fmt: str,
    header: bool = True,
) -> None:
    """``rows`` as CSV (with its header line when ``header``) or JSON lines."""
    if fmt == "jsonl":
        for row in rows:
            out = dict(row)
            if "top" in out:
                out["top"] = [{"class": c, "proba": _num(p)} for c, p in out["top"]]
            if "proba" in out:
                out["proba"] = {str(c): _num(p) for c, p in out["proba"].items()}
            ui.print(json.dumps(out, ensure_ascii=False))
        return
    writer = csv.writer(ui.out, lineterminator="\n")
    key = next(iter(rows[0])) if rows else "row"  # (row, file, or the --id-col's name)
    if args.top is not None:
        n = len(rows[0]["top"]) if rows else 0
        names = [key]
        for k in range(1, n + 1):
            names += [f"class_{k}", f"proba_{k}"]
        if header:
            writer.writerow(names)
        for row in rows:
            cells: list[Any] = [row[key]]
            for c, p in row["top"]:
                cells += [c, repr(p)]  # every digit (as jsonl; .6g lost them)
            writer.writerow(cells)
        return
    names = [key, "prediction"]
    if args.proba:
        names += [f"proba_{c}" for c in classes]
    if header:
        writer.writerow(names)
    for row in rows:
        cells = [row[key], row["prediction"]]
        if args.proba:
            cells += [repr(p) for p in row["proba"].values()]
        writer.writerow(cells)
