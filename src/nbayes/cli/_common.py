"""Shared plumbing of the commands: output, progress, colours, reading data, model files.

Nothing here computes anything about a model: commands call the library for that.
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TextIO, cast

import numpy as np

__all__ = [
    "CLIError",
    "UI",
    "add_data_options",
    "add_inputs",
    "add_model_options",
    "coerce_labels",
    "column_names",
    "command_parser",
    "flag_error",
    "flag_errors",
    "is_text_model",
    "load_for_prediction",
    "load_model",
    "read_labelled_texts",
    "read_texts_only",
    "refuse_set_flags",
    "save_model",
]


class CLIError(Exception):
    """A problem to report as one ``Error: ...`` line (exit status 1)."""


class _Progress:
    """A one-line progress bar on a terminal's stderr (a counter when the total is not
    known, e.g. while streaming files); silent when stderr is not a terminal."""

    WIDTH = 30

    def __init__(self, ui: UI, desc: str, unit: str, total: int | None = None) -> None:
        self.ui, self.desc, self.unit, self.total = ui, desc, unit, total
        self.count = 0
        self.enabled = ui.interactive
        self._last = 0.0

    def line(self) -> str:
        if not self.total:
            return f"{self.desc}: {self.count:,} {self.unit}"
        done = min(self.count / self.total, 1.0)
        filled = int(round(done * self.WIDTH))
        bar = "#" * filled + "." * (self.WIDTH - filled)
        return f"{self.desc}: [{bar}] {done:4.0%} {self.count:,}/{self.total:,} {self.unit}"

    def advance(self, n: int = 1) -> None:
        self.count += n
        now = time.monotonic()
        if self.enabled and now - self._last > 0.1:
            self._last = now
            self.ui.err.write("\r" + self.line())
            self.ui.err.flush()

    def close(self) -> None:
        if self.enabled:
            self.ui.err.write("\r" + self.line() + "\n")
            self.ui.err.flush()


class _Closed:
    """Stands for a standard stream the shell closed (``>&-``): writing to it is an
    OSError (one line, exit 1, as other tools say "write error"), not a crash."""

    def __init__(self, name: str) -> None:
        self.name = name

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise OSError(f"{self.name} is closed: nothing can be written to it (redirect it to a file "
                      "or to /dev/null instead of closing it)")  # fmt: skip

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def _stream(stream: TextIO | None, name: str) -> TextIO:
    return stream if stream is not None else cast(TextIO, _Closed(name))


class UI:
    """Where a command writes: results on stdout, messages on stderr.

    Parameters
    ----------
    quiet : bool
        Only results and errors (no progress, no notes).
    verbose : bool
        Also details (timings, settings).
    """

    def __init__(
        self,
        quiet: bool = False,
        verbose: bool = False,
        out: TextIO | None = None,
        err: TextIO | None = None,
    ) -> None:
        self.quiet = quiet
        self.verbose = verbose and not quiet
        self.out: TextIO = _stream(sys.stdout, "standard output") if out is None else out
        self.err: TextIO = _stream(sys.stderr, "standard error") if err is None else err

    @property
    def interactive(self) -> bool:
        """True when progress may be drawn: stderr is a terminal and not ``-q``."""
        return not self.quiet and _isatty(self.err)

    def print(self, text: str = "") -> None:
        """A result line (stdout)."""
        self.out.write(text + "\n")

    def note(self, text: str) -> None:
        """A message for people (stderr), hidden by ``-q``."""
        if not self.quiet:
            self.err.write(text + "\n")

    def detail(self, text: str) -> None:
        """A message shown with ``-v`` only (stderr)."""
        if self.verbose:
            self.err.write(text + "\n")

    def warn(self, text: str) -> None:
        if not self.quiet:
            self.err.write(f"Warning: {text}\n")

    @contextmanager
    def progress(self, desc: str, unit: str, total: int | None = None) -> Iterator[_Progress]:
        bar = _Progress(self, desc, unit, total)
        start = time.perf_counter()
        try:
            yield bar
        finally:
            bar.close()
            self.detail(f"{desc}: {bar.count:,} {unit} in {time.perf_counter() - start:.2f} s")

    def color(self, mode: str = "auto") -> bool:
        """Whether to colour stdout: ``always``, ``never``, or ``auto`` (a terminal, and
        the ``NO_COLOR`` environment variable unset)."""
        if mode == "always":
            return True
        if mode == "never":
            return False
        return _isatty(self.out) and not os.environ.get("NO_COLOR")


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


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


def add_data_options(parser: argparse.ArgumentParser, labels: bool = True) -> None:
    """``--text-col``, ``--label-col`` (and ``--encoding``) for commands that read data."""
    parser.add_argument(
        "--text-col", default="text", metavar="NAME", help="column holding the documents"
    )
    if labels:
        parser.add_argument(
            "--label-col", default="label", metavar="NAME", help="column holding the labels"
        )
    parser.add_argument("--encoding", default="utf-8", help="text encoding of the files")


def refuse_set_flags(args: argparse.Namespace, flags: Iterable[str], why: str) -> None:
    """Raise ``"<flag> <why>"`` for the first of ``flags`` that ``args`` has set (a flag
    that does not apply to what the command was asked to do)."""
    for flag in flags:
        value = getattr(args, flag.lstrip("-").replace("-", "_"))
        if value is not None and value is not False:
            raise CLIError(f"{flag} {why}")


# -------------------------------------------------------------- hyperparameter errors

#: the flag that sets an estimator parameter, where it is not ``--`` + its name with dashes
_FLAG_OF = {"ngram_range": "--ngrams"}

_PARAMETER_ERROR = re.compile(
    r"The '(?P<name>\w+)' parameter of \w+ must be (?P<rule>.+?)\. Got (?P<got>.+) instead\.$",
    re.DOTALL,
)

#: the estimators' wording of a rule -> the command line's (no arrays, no None there)
_RULE_WORDS = (
    (re.compile(r"a float in the range \[([^,]+), inf\)"), lambda m: f"a number >= {_num(m)}"),
    (re.compile(r"a float in the range \(([^,]+), inf\)"), lambda m: f"a number > {_num(m)}"),
    (re.compile(r"an int in the range \[([^,]+), inf\)"), lambda m: f"a whole number >= {_num(m)}"),
    (re.compile(r"^None or |,? or None$| or an array-like"), lambda m: ""),
)


def _num(match: re.Match[str]) -> str:
    return f"{float(match.group(1)):g}"


def flag_error(exc: BaseException, flags: Iterable[str]) -> CLIError | None:
    """An estimator's invalid-parameter error in the words of the command line.

    The estimators validate their hyperparameters (the command line does not check them
    again); when one of ``flags`` (``"--alpha"``, ...) set the parameter the error names,
    this is the error naming the flag, e.g. ``--alpha must be a number >= 0; got -1.0.``
    None when the error is about no such parameter.
    """
    match = _PARAMETER_ERROR.match(" ".join(str(exc).split()))
    if match is None:
        return None
    name = match["name"]
    flag = _FLAG_OF.get(name, "--" + name.replace("_", "-"))
    if flag not in set(flags):
        return None
    rule = match["rule"]
    for pattern, words in _RULE_WORDS:
        rule = pattern.sub(words, rule)
    return CLIError(f"{flag} must be {rule}; got {match['got']}.")


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


# --------------------------------------------------------------------------- model files


def load_model(path: str) -> Any:
    """Load a model file (ModelFileError explains any problem)."""
    from nbayes.io.persist import load

    if not os.path.exists(path):
        raise CLIError(f"No model file {path!r}: train one first with `nbayes train`.")
    return load(path)


def load_for_prediction(path: str) -> Any:
    """A model file ready to predict: for a TextClassifier its scorer
    (:func:`nbayes.load_scorer`: numpy only, no estimator, no scikit-learn), for
    any other model the estimator (:func:`load_model`). Both predict and explain alike."""
    from nbayes.exceptions import ModelFileError
    from nbayes.io.persist import load_scorer

    if not os.path.exists(path):
        raise CLIError(f"No model file {path!r}: train one first with `nbayes train`.")
    try:
        scorer = load_scorer(path)
    except ModelFileError:
        scorer = None  # the full load reports the problem in its own words
    return load_model(path) if scorer is None else scorer


def save_model(model: Any, path: str) -> None:
    from nbayes.io.persist import save

    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CLIError(f"Cannot write {path!r}: the folder {directory!r} does not exist.")
    save(model, path)


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
    from nbayes.scoring import TextScorer

    if isinstance(model, TextScorer):
        return True
    # a TextClassifier exists only once its module is loaded: no import needed to tell
    classifier = sys.modules.get("nbayes.text.classifier")
    nbsvm = sys.modules.get("nbayes.nbsvm")
    if nbsvm is not None and isinstance(model, nbsvm.NBSVM):
        return True
    return classifier is not None and isinstance(model, classifier.TextClassifier)


# --------------------------------------------------------------------------------- data


def _read(
    ui: UI, sources: Sequence[str], text_col: str, label_col: str | None, encoding: str
) -> tuple[list[str], list[Any] | None]:
    from nbayes.io.readers import read_texts

    texts: list[str] = []
    labels: list[Any] = []
    try:
        chunks = read_texts(list(sources), text_col, label_col, encoding=encoding)
        with ui.progress("Reading", "documents") as bar:
            for chunk in chunks:
                texts.extend(chunk.texts)
                if chunk.labels is not None:
                    labels.extend(chunk.labels)
                bar.advance(len(chunk))
    except FileNotFoundError as exc:
        raise CLIError(str(exc.args[0] if exc.args else exc)) from None
    except LookupError as exc:
        raise CLIError(f"Unknown encoding {encoding!r} ({exc}).") from None
    if not texts:
        raise CLIError(f"No documents found in {', '.join(map(repr, sources))}.")
    return texts, (labels if label_col is not None else None)


def read_labelled_texts(
    ui: UI, sources: Sequence[str], text_col: str, label_col: str, encoding: str = "utf-8"
) -> tuple[list[str], list[Any]]:
    """Documents and their labels from any source :func:`nbayes.io.read_texts` reads."""
    texts, labels = _read(ui, sources, text_col, label_col, encoding)
    assert labels is not None
    return texts, labels


def read_texts_only(
    ui: UI, sources: Sequence[str], text_col: str, encoding: str = "utf-8"
) -> list[str]:
    """Documents without labels (a label column, if any, is ignored)."""
    return _read(ui, sources, text_col, None, encoding)[0]


def coerce_labels(labels: Sequence[Any], classes: np.ndarray) -> np.ndarray:
    """Labels read from a file, in the type of the model's classes (CSV gives strings)."""
    y = np.asarray(labels)
    if y.dtype.kind == classes.dtype.kind or classes.dtype.kind in "UO":
        if classes.dtype.kind == "U" and y.dtype.kind != "U":
            return y.astype(str)
        return y
    try:
        if classes.dtype.kind == "b":
            text = [str(v).strip().lower() for v in y]
            bad = [v for v in text if v not in {"true", "false", "1", "0"}]
            if bad:
                raise ValueError(bad[0])
            return np.array([v in {"true", "1"} for v in text])
        if classes.dtype.kind in "iu":
            return np.array([int(str(v).strip()) for v in y], dtype=classes.dtype)
        return np.array([float(str(v).strip()) for v in y], dtype=classes.dtype)
    except (ValueError, OverflowError) as exc:
        raise CLIError(
            f"The label {exc.args[0] if exc.args else ''!s} does not fit the model's classes "
            f"{classes.tolist()!r} (of type {classes.dtype}). Check --label-col."
        ) from None
