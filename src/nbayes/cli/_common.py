"""Shared plumbing of the commands: arguments, reading data (output and progress:
:mod:`nbayes.cli._ui`; model files: :mod:`nbayes.cli._models`).

Nothing here computes anything about a model: commands call the library for that.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np

from nbayes._flags import count_type, fraction_type
from nbayes.cli._ui import UI, CLIError, isatty
from nbayes.exceptions import InvalidParameterError
from nbayes.io import input_formats

__all__ = [
    "CLIError",
    "UI",
    "add_data_options",
    "add_inputs",
    "add_model_options",
    "bad_rows_policy",
    "data_reading",
    "count_type",
    "fraction_type",
    "coerce_labels",
    "column_names",
    "is_text_model",
    "journal_lag",
    "load_model",
    "no_term_advice",
    "command_parser",
    "Documents",
    "reader_options",
    "LabelledChunks",
    "named_text_chunks",
    "text_chunks",
    "flag_error",
    "flag_errors",
    "read_documents",
    "read_labelled_texts",
    "refuse_set_flags",
]


# ------------------------------------------------------------------------------ parsers


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    pass


def command_parser(subparsers: Any, name: str, summary: str, module: Any) -> None:
    """Add the sub-command ``name``, declared by its module ``nbayes.cli.<name>``.

    A command module declares itself in three parts and nothing else:

    * its docstring is its ``-h``: a title line (for readers of the code), then the
      description, then an ``Example:`` section of indented command lines;
    * ``add_arguments(parser)`` adds its own arguments (the shared ones through
      :func:`add_inputs` and :func:`add_data_options`);
    * ``run(args, ui) -> int`` runs it.

    Every command gets ``-q``/``-v`` here.
    """
    _, _, body = inspect.cleandoc(module.__doc__ or "").partition("\n\n")
    description, _, examples = body.partition("\nExample:\n")
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=description.strip(),
        epilog="Example:\n" + examples.rstrip(),
        formatter_class=_HelpFormatter,
    )
    group = parser.add_mutually_exclusive_group()
    group.add_argument("-q", "--quiet", action="store_true", help="print only results and errors")
    group.add_argument("-v", "--verbose", action="store_true", help="print details and timings")
    module.add_arguments(parser)
    parser.set_defaults(run=module.run)


def add_inputs(
    parser: argparse.ArgumentParser,
    model: str | None = "model file",
    data: str | None = None,
    nargs: str = "+",
) -> None:
    """The positional ``MODEL`` (a model file) and ``DATA`` (files, folders or patterns)
    with these help texts; None leaves one out."""
    if model is not None:
        parser.add_argument("model", metavar="MODEL", help=model)
    if data is not None:
        parser.add_argument("data", nargs=nargs, metavar="DATA", help=data)


def add_model_options(parser: argparse.ArgumentParser, models: Sequence[str]) -> None:
    """``--model`` and ``--input``, shared by ``train`` and ``tune``."""
    parser.add_argument("--model", choices=models, default="multinomial", help="the estimator")
    parser.add_argument(
        "--input",
        choices=("auto", "text", "table"),
        default="auto",
        help="read documents or a table (auto: documents for multinomial, bernoulli and "
        "complement, a table otherwise)",
    )


#: the formats ``--data-format`` chooses (those of :func:`nbayes.io.read_texts`)
DATA_FORMATS = input_formats.names()

#: how the readers' advice names their options on the command line
_READER_FLAGS = {
    "text_col": "--text-col NAME",
    "label_col": "--label-col NAME",
    "id_col": "--id-col NAME",
    "encoding": "--encoding NAME",
    "format": "--data-format FORMAT",
    "max_field_chars": "--max-field-chars N",
    "delimiter": "--delimiter CHAR",
    "bad_rows": "--bad-rows MODE",
}


def reader_flags() -> Any:
    """A context in which the readers' advice names the command line's flags
    (``--bad-rows skip``, not Python's ``bad_rows='skip'``)."""
    from nbayes.io.readers import option_names

    return option_names(_READER_FLAGS)


#: what scikit-learn's refusals of a vocabulary that keeps no term mean on the command line
#: (``nbayes.text._model.NO_TERM``, in its order)
_NO_TERM_ADVICE = (
    " (--min-df is more documents than there are, or --max-df fewer: lower --min-df, or give "
    "more documents)",
    " (--min-df, --max-df)",
)


def no_term_advice(exc: BaseException) -> str:
    """What a text model's refusal of a vocabulary that keeps no term means in the flags'
    words (a model trained with --min-df 2 and left one document by `nbayes forget` said
    only scikit-learn's "max_df corresponds to < documents than min_df"; a fuzz's); empty
    for any other error."""
    from nbayes.text.scoring import NO_TERM, keeps_no_term

    if not keeps_no_term(exc):
        return ""
    said = str(exc)
    return next(a for s, a in zip(NO_TERM, _NO_TERM_ADVICE, strict=True) if said.startswith(s))


def add_data_options(parser: argparse.ArgumentParser, labels: bool = True) -> None:
    """``--text-col``, ``--label-col``, ``--encoding``, ``--data-format``,
    ``--delimiter``, ``--max-field-chars`` and ``--bad-rows`` for commands that read data."""
    parser.add_argument(
        "--text-col", default="text", metavar="NAME", help="column holding the documents"
    )
    if labels:
        parser.add_argument(
            "--label-col", default="label", metavar="NAME", help="column holding the labels"
        )
    parser.add_argument(
        "--encoding", default="utf-8", metavar="NAME", help="text encoding of the files (utf-8)"
    )
    parser.add_argument(
        "--data-format",
        choices=DATA_FORMATS,
        metavar="FORMAT",
        help="read every DATA file as this format instead of telling it from its extension "
        "(standard input: from its first line): "
        + "; ".join(f"{f.name} ({f.description})" for f in input_formats.FORMATS),
    )
    parser.add_argument(
        "--delimiter",
        metavar="CHAR",
        help="the character that separates a CSV file's fields (default: ',' for .csv, a "
        "tab for .tsv; e.g. ';' for a spreadsheet's export in many languages)",
    )
    parser.add_argument(
        "--max-field-chars",
        type=count_type(1),
        metavar="N",
        help="longest CSV field read, in characters (default 16,777,216: a guard against a "
        "quote that never closes)",
    )
    parser.add_argument(
        "--bad-rows",
        choices=("error", "skip"),
        default="error",
        metavar="MODE",
        help="error (default): stop at the first bad row; skip: leave bad rows out and "
        "count them (a missing text or label, an invalid JSON line, a CSV row with the "
        "wrong number of fields; for tables, also a cell that is not a number where the "
        "model needs one). A missing column, a quote that never closes or a file that "
        "cannot be read still stop the command",
    )


def refuse_set_flags(args: argparse.Namespace, flags: Iterable[str], why: str) -> None:
    """Raise ``"<flag> <why>"`` for the first of ``flags`` that ``args`` has set (a flag
    that does not apply to what the command was asked to do)."""
    for flag in flags:
        value = getattr(args, flag.lstrip("-").replace("-", "_"))
        if value is not None and value is not False:
            raise CLIError(f"{flag} {why}")


# -------------------------------------------------------------- hyperparameter errors

#: the flag that sets an estimator parameter, where it is not ``--`` + its name with dashes
_FLAG_OF = {"ngram_range": "--ngrams", "C": "--c"}


def flag_error(exc: BaseException, flags: Iterable[str]) -> CLIError | None:
    """An estimator's invalid-parameter error in the words of the command line.

    The estimators validate their hyperparameters (the command line does not check them
    again); when one of ``flags`` (``"--alpha"``, ...) set the parameter the error names,
    this is the error naming the flag, e.g. ``--alpha must be a number >= 0; got -1.0.``
    None when the error is about no such parameter.
    """
    if not isinstance(exc, InvalidParameterError) or exc.param is None:
        return None
    flag = _FLAG_OF.get(exc.param, "--" + exc.param.replace("_", "-"))
    if flag not in set(flags) or not exc.accepted:
        return None
    rule = (
        exc.accepted[0]
        if len(exc.accepted) == 1
        else (", ".join(exc.accepted[:-1]) + " or " + exc.accepted[-1])
    )
    return CLIError(f"{flag} must be {rule}; got {exc.value!r}.")


@contextmanager
def flag_errors(flags: Iterable[str]) -> Iterator[None]:
    """Report an estimator's invalid-parameter error as :func:`flag_error` words it."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        error = flag_error(exc, flags)
        if error is None:
            raise
        raise error from None


# ------------------------------------------------------------------------- models


def load_model(path: str, journaled: bool = True) -> Any:
    """Load a model file (ModelFileError explains any problem); ``journaled``: with the
    updates a server acknowledged that the file lacks, as the server holds the model
    (:func:`nbayes.cli._served.read_served`); else the file as it is."""
    from nbayes.io.persist import load

    if not os.path.exists(path):
        raise CLIError(f"No model file {path!r}: train one first with `nbayes train`.")
    if not journaled:
        return load(path)
    from nbayes.cli._served import read_served, replay_into

    return read_served(path, lambda: load(path), replay_into)


def journal_lag(path: str) -> str | None:
    """The updates a server acknowledged and journaled beside the model file ``path``
    (``MODEL.journal``) that the file does not hold yet, in words: a running server's not
    yet folded, or a killed server's (kill -9, a crash); None when the file holds them all.
    """
    from nbayes.serve.holder import serving_server
    from nbayes.serve.journal import JournalError, journal_path, pending_updates

    journal = journal_path(path)
    try:
        n = pending_updates(path)  # (0 without a journal, no file hashed without updates)
    except (OSError, JournalError) as exc:
        return f"{journal} cannot be read ({exc})"
    if not n:
        return None
    server = serving_server(path)
    if server is not None:
        return (
            f"{n:,} update(s) acknowledged by the running server (pid {server['pid']}, "
            f"{server.get('url', '?')}) are not in the file yet: the server writes them in at "
            "its next fold, or when it stops (the commands that read the model count them)"
        )
    return (
        f"{n:,} update(s) acknowledged by a server that stopped without writing them into the "
        f"file (kill -9, a crash) are in {journal}, not in the file: `nbayes serve {path}` "
        "replays them at its start, the commands that read the model count them, and a "
        "change from the command line (`nbayes update`; `nbayes filter MODEL --fold` for a "
        "spam filter) writes them in first"
    )


def column_names(model: Any) -> list[str]:
    """The names of a table model's columns, in order: those it was fitted with
    (``families_`` of a MixedNB, ``feature_names_in_``), else ``x0, x1, ...``."""
    families = getattr(model, "families_", None)
    if families is not None:
        return [str(name) for name in families]
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(name) for name in names]
    return [f"x{j}" for j in range(model.n_features_in_)]


def is_text_model(model: Any) -> bool:
    """A TextClassifier, the scorer of one, or an NBSVM (a model of documents)."""
    from nbayes.text import TextSettings
    from nbayes.text.scoring import TextScorer

    if isinstance(model, (TextScorer, TextSettings)):
        return True
    # a TextClassifier exists only once its module is loaded: no import needed to tell
    classifier = sys.modules.get("nbayes.text.classifier")
    nbsvm = sys.modules.get("nbayes.nbsvm")
    if nbsvm is not None and isinstance(model, nbsvm.NBSVM):
        return True
    return classifier is not None and isinstance(model, classifier.TextClassifier)


# --------------------------------------------------------------------------------- data


class Documents:
    """Documents read from DATA: their texts, labels (or None) and names.

    ``names`` holds each document's file for documents that are files (a folder, plain
    text), else None: the rows of one table are named by their row numbers; of several
    tables, by ``file:row``. Rows of one table of which bad rows were skipped (``--bad-rows
    skip``) are named by their row numbers in the file (ints).
    """

    def __init__(self, texts: list[str], labels: list[Any] | None, names: list[Any] | None):
        self.texts, self.labels, self.names = texts, labels, names


class Skipped:
    """The bad rows a command skipped (``--bad-rows skip``): their count and the first
    few, for the note that ends the command (:func:`data_reading`)."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.count = 0
        self.first: list[Any] = []

    def add(self, row: Any) -> None:
        """One bad row skipped (a :class:`~nbayes.io.readers.BadRow`, or anything whose
        ``str`` says where and what)."""
        self.count += 1
        if len(self.first) < 3:  # (as many as the note names)
            self.first.append(row)

    def text(self) -> str:
        from nbayes.io.readers import skipped_text

        return skipped_text(self.count, self.first)


_SKIPPED: ContextVar[Skipped | None] = ContextVar("nbayes_cli_skipped", default=None)


def skipped_rows() -> Skipped | None:
    """The bad rows the running command skips (its ``--bad-rows skip``), else None."""
    return _SKIPPED.get()


def bad_rows_policy() -> str:
    """``"skip"`` while a command with ``--bad-rows skip`` runs, else ``"error"``."""
    return "error" if _SKIPPED.get() is None else "skip"


@contextmanager
def data_reading(args: argparse.Namespace, ui: UI) -> Iterator[None]:
    """Run a command with its ``--bad-rows``: with ``skip``, the readers leave bad rows
    out and count them here, and the command ends with a note, e.g. ``Skipped 3 bad rows
    (sms_bad.jsonl line 11: invalid JSON; ...)`` (after success only: an error is the
    last word). A command without ``--bad-rows`` runs as it is."""
    if getattr(args, "bad_rows", "error") != "skip":
        yield
        return
    skipped = Skipped(args)
    token = _SKIPPED.set(skipped)
    try:
        yield
    finally:
        _SKIPPED.reset(token)
    if skipped.count:  # (even with -q: rows left out of the data are the user's to know)
        ui.err.write(skipped.text() + ".\n")


def reader_options(args: argparse.Namespace) -> dict[str, Any]:
    """The :func:`nbayes.io.read_texts` options the data flags of ``args`` set (with
    ``--bad-rows skip``, the rows skipped go to the running command's count:
    :func:`data_reading`)."""
    options: dict[str, Any] = {"encoding": getattr(args, "encoding", "utf-8")}
    if getattr(args, "bad_rows", "error") == "skip":
        options["bad_rows"] = "skip"
        skipped = skipped_rows()
        if skipped is None:  # (not run by the command line: a tally of its own)
            skipped = Skipped(args)
        options["on_bad_row"] = skipped.add
    if getattr(args, "data_format", None) is not None:
        options["format"] = args.data_format
    if getattr(args, "max_field_chars", None) is not None:
        options["max_field_chars"] = args.max_field_chars
    if getattr(args, "delimiter", None) is not None:
        options["delimiter"] = delimiter_of(args)
    if getattr(args, "id_col", None) is not None:
        options["id_col"] = args.id_col
    return options


def delimiter_of(args: argparse.Namespace) -> str | None:
    """``--delimiter``, checked: one character (``\\t`` or ``tab`` for a tab)."""
    value = getattr(args, "delimiter", None)
    if value is None:
        return None
    value = {"\\t": "\t", "tab": "\t"}.get(value, value)
    if len(value) != 1:
        raise CLIError(f"--delimiter takes one character (e.g. ';', or tab); got {value!r}.")
    return str(value)


def named_text_chunks(
    ui: UI, sources: Sequence[str], args: argparse.Namespace, labels: bool
) -> tuple[bool, Iterator[Any]]:
    """:func:`text_chunks`, and whether its documents are named by their files (or
    ``file:row``, several tables) rather than by their row numbers in one table (the rule
    of :class:`Documents`), known before a document is read: a command that answers as it
    reads (``nbayes predict``) chooses its column with it."""
    from nbayes.io.readers import documents_are_named

    items: list[Any] = [_stdin(ui) if s == "-" else s for s in sources]
    try:
        with reader_flags():
            named = documents_are_named(items, reader_options(args).get("format"))
    except FileNotFoundError as exc:
        raise CLIError(str(exc.args[0] if exc.args else exc)) from None
    return named, text_chunks(ui, sources, args, labels, items)


def text_chunks(
    ui: UI,
    sources: Sequence[str],
    args: argparse.Namespace,
    labels: bool,
    items: list[Any] | None = None,
) -> Iterator[Any]:
    """The :class:`~nbayes.io.TextChunk` s of ``sources`` (files, folders, patterns; ``-``
    is standard input; ``items``: the sources with standard input opened, where the caller
    has them) as they are read, with their labels (``--label-col``) when ``labels``; the
    readers' errors name the command line's flags, and no document at all is an error."""
    from nbayes.io.readers import read_texts

    options = reader_options(args)
    if items is None:
        items = [_stdin(ui) if s == "-" else s for s in sources]
    label_col = args.label_col if labels else None
    read = 0
    try:
        with reader_flags():
            for chunk in read_texts(items, args.text_col, label_col, **options):
                read += len(chunk)
                yield chunk
    except FileNotFoundError as exc:
        raise CLIError(str(exc.args[0] if exc.args else exc)) from None
    except LookupError as exc:
        raise CLIError(f"Unknown --encoding {options['encoding']!r} ({exc}).") from None
    if not read:
        raise CLIError(f"No documents found in {', '.join(map(repr, sources))}.")


def read_documents(
    ui: UI, sources: Sequence[str], args: argparse.Namespace, labels: bool
) -> Documents:
    """Every document of ``sources`` (:func:`text_chunks`) in memory, with their labels
    when ``labels`` and their names."""
    texts: list[str] = []
    found: list[Any] = []
    names: list[str] = []
    rows: list[int] = []
    files = False
    tables: set[str] = set()
    with ui.progress("Reading", "documents") as bar:
        for chunk in text_chunks(ui, sources, args, labels):
            texts.extend(chunk.texts)
            if chunk.labels is not None:
                found.extend(chunk.labels)
            names.extend(chunk.names())
            rows.extend(range(chunk.start_row, chunk.start_row + len(chunk)))
            files = files or chunk.files is not None
            if chunk.files is None:
                tables.add(chunk.source)
            bar.advance(len(chunk), chunk.share)
    named = files or len(tables) > 1
    if not named and rows != list(range(len(rows))):  # bad rows skipped: the file's numbers
        return Documents(texts, found if labels else None, rows)
    return Documents(texts, found if labels else None, names if named else None)


class LabelledChunks:
    """The ``(documents, labels)`` chunks of ``sources`` as they are read (for a model's
    ``fit_chunks``: one chunk in memory at a time), advancing ``advance`` by each chunk's
    documents (:func:`text_chunks`). After iteration, ``documents`` is how many were read."""

    def __init__(
        self, ui: UI, sources: Sequence[str], args: argparse.Namespace, advance: Any
    ) -> None:
        self.ui, self.sources, self.args, self.advance = ui, sources, args, advance
        self.documents = 0

    def __iter__(self) -> Iterator[tuple[list[str], list[Any]]]:
        first: np.ndarray | None = None  # the first chunk's labels: their type for all
        for chunk in text_chunks(self.ui, self.sources, self.args, labels=True):
            labels = list(chunk.labels or [])
            if first is None:
                first = np.asarray(labels)
            elif labels and np.asarray(labels).dtype.kind != first.dtype.kind:
                # a CSV's labels are strings, a JSON-lines file's numbers: as `nbayes update`
                # reads a file into a model, in the first file's type ("0" and 0 were two
                # classes that would not combine: a data engineer's trial)
                labels = coerce_labels(labels, first).tolist()
            yield chunk.texts, labels
            self.documents += len(chunk)
            self.advance(len(chunk), chunk.share)


def _stdin(ui: UI) -> Any:
    stream = sys.stdin
    if stream is None:
        raise CLIError("Standard input is closed: give DATA files instead of -.")
    if isatty(stream):
        ui.note("Reading documents from standard input, one per line (end with Ctrl-D) ...")
    return getattr(stream, "buffer", stream)


def read_labelled_texts(
    ui: UI, sources: Sequence[str], args: argparse.Namespace
) -> tuple[list[str], list[Any]]:
    """Documents and their labels from any source :func:`nbayes.io.read_texts` reads."""
    docs = read_documents(ui, sources, args, labels=True)
    assert docs.labels is not None
    return docs.texts, docs.labels


def coerce_labels(labels: Sequence[Any], classes: np.ndarray) -> np.ndarray:
    """Labels read from a file, in the type of the model's classes (CSV gives strings)."""
    y = np.asarray(labels)
    if y.dtype.kind == classes.dtype.kind or classes.dtype.kind in "UO":
        if classes.dtype.kind == "U" and y.dtype.kind != "U":
            return y.astype(str)
        return y
    kind = classes.dtype.kind
    read = _as_bool if kind == "b" else _as_int if kind in "iu" else float
    out = []
    for v in y.tolist():
        try:
            out.append(read(str(v).strip()))
        except (ValueError, OverflowError):
            what = {"b": "true or false", "i": "integers", "u": "integers"}.get(kind, "numbers")
            raise CLIError(
                f"The label {v!r} does not fit the model's classes {classes.tolist()!r} "
                f"({what}). Check --label-col."
            ) from None
    try:
        return np.array(out, dtype=classes.dtype)
    except OverflowError:
        raise CLIError(
            f"A label is beyond the range of the model's classes {classes.tolist()!r} "
            f"(of type {classes.dtype}). Check --label-col."
        ) from None


def _as_int(text: str) -> int:
    """``"2"`` and ``"2.0"`` (a label written as a float: a spreadsheet's) as 2."""
    try:
        return int(text)
    except ValueError:
        number = float(text)
        if not number.is_integer():
            raise
        return int(number)


def _as_bool(text: str) -> bool:
    value = {"true": True, "1": True, "false": False, "0": False}.get(text.lower())
    if value is None:
        raise ValueError(text)
    return value
