"""``nbayes train``: learn a model from labelled documents or a table, save it to a file.

Learn a model from labelled data and save it to MODEL (one safe file).

Text models (multinomial, bernoulli, complement; the default) read documents from
CSV/TSV, JSON lines or Parquet files with a text and a label column, or from a
folder per class (root/<label>/<file>). The other models (gaussian, categorical,
poisson, kernel, mixed) read a table: one label column, every other column a
feature. --model mixed (MixedNB) gives each column a family from its type
(numbers, categories, booleans, counts, text); --columns overrides it.
--model spam (SpamFilter) reads mail: DATA/ham/ and DATA/spam/, each of message
files, mboxes or Maildirs (then `nbayes filter` gives verdicts).
--workers N or --dask-scheduler ADDRESS trains on Dask (pip install 'nbayes[dask]')
with the same result as one process (--bad-rows skip too).

Example:
  nbayes train reviews.csv -o reviews.nbayes --ngrams 1-2 --alpha 0.5
  nbayes train emails/ -o spam.nbayes            # emails/spam/*, emails/ham/*
  nbayes train mail/ -o mail.nbayes --model spam  # mail/ham/, mail/spam/: raw e-mail
  nbayes train iris.csv -o iris.nbayes --model gaussian --label-col species
  nbayes train t.csv -o t.nbayes --label-col y --model mixed --columns age=kde,city=categorical
  nbayes train 'big/*.csv' -o big.nbayes --workers 4
  nbayes train 'big/*.parquet' -o big.nbayes --dask-scheduler tcp://10.0.0.5:8786
"""

from __future__ import annotations

import argparse
import zlib
from typing import Any

from nbayes._flags import share_type
from nbayes.cli._common import (
    UI,
    CLIError,
    LabelledChunks,
    add_data_options,
    add_model_options,
    count_type,
    delimiter_of,
    flag_errors,
    refuse_set_flags,
)
from nbayes.cli._estimators import (
    check_binary,
    check_flags,
    check_text_flags,
    column_families,
    estimators,
    lazy_text,
    parse_bandwidth,
    parse_columns,
    reads_documents,
)
from nbayes.cli._estimators import estimator as estimator_row
from nbayes.cli._models import add_output, check_model_output, save_model, warn_one_class
from nbayes.cli._spam import add_regime, add_settings
from nbayes.cli._text import TRAIN_TEXT_FLAGS, add_text_options, text_options

__all__ = [
    "add_arguments",
    "make_estimator",
    "parse_bandwidth",
    "parse_columns",
    "parse_ngrams",
    "run",
]

#: the flags that set an estimator's hyperparameters: the estimator validates them
HYPERPARAMETER_FLAGS = (
    "--alpha",
    "--bandwidth",
    "--max-points",
    "--var-smoothing",
    "--ngrams",
    "--c",
    "--beta",
    *TRAIN_TEXT_FLAGS,
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="+", metavar="DATA", help="files, folders or glob patterns")
    add_output(p, never=" (a DATA file is never replaced)")
    add_model_options(p, list(estimators()))
    add_data_options(p)
    p.add_argument("--alpha", type=float, default=None, help="smoothing (default 1.0)")
    p.add_argument(
        "--class-prior",
        metavar="CLASS=P,...",
        help="fixed class probabilities instead of the class frequencies, e.g. "
        "spam=0.2,ham=0.8 (every class, summing to 1)",
    )
    p.add_argument("--binary", action="store_true", help="text: count each word once per document")
    p.add_argument(
        "--ngrams",
        metavar="MIN-MAX",
        help="text: word n-grams MIN to MAX, e.g. 1-2 (unigrams and bigrams) or 2-2 (bigrams "
        "only); a single N means 1-N, up to N-grams (default 1-1; nbsvm 1-2)",
    )
    add_text_options(p)
    p.add_argument(
        "--hashing",
        action="store_true",
        help="text: hash words into 2**20 buckets (bounded memory, no vocabulary)",
    )
    p.add_argument(
        "--c",
        type=float,
        metavar="C",
        help="nbsvm: the SVM's regularisation (default 1; smaller: stronger)",
    )
    p.add_argument(
        "--beta",
        type=float,
        metavar="B",
        help="nbsvm: interpolation between the SVM's weights (1) and their mean (0) (default 0.25)",
    )
    columns = p.add_argument(
        "--columns",
        metavar="NAME=FAMILY,...",
        help="mixed: families of some columns, e.g. age=kde,city=categorical (families: "
        "%(families)s); the others are inferred",
    )
    columns.families = lazy_text(lambda: ", ".join(column_families()))  # type: ignore[attr-defined]
    p.add_argument(
        "--bandwidth",
        metavar="RULE",
        help="kernel, mixed: kernel width rule, robust (kernel's default), scott (mixed's "
        "default), silverman, or a number",
    )
    p.add_argument(
        "--var-smoothing",
        type=float,
        metavar="V",
        help="gaussian, mixed: the share of the largest feature variance added to every "
        "variance (default 1e-9)",
    )
    p.add_argument(
        "--max-points",
        type=int,
        metavar="N",
        help="kernel: bin a feature with more than N distinct values (bounded memory)",
    )
    p.add_argument(
        "--jobs",
        type=count_type(1),
        metavar="N",
        help="spam: processes that tokenize and count the mail (default: every usable core; "
        "each holds a table of the words it saw)",
    )
    add_settings(p)
    add_regime(p)
    p.add_argument(
        "--ham-loss",
        type=share_type,
        metavar="SHARE",
        help="spam: choose both cutoffs by 5-fold cross-validation on DATA so that at most "
        "SHARE of the ham is called spam, e.g. 0.001 (and at most --spam-passed of the spam "
        "ham)",
    )
    p.add_argument(
        "--spam-passed",
        type=share_type,
        metavar="SHARE",
        help="spam, with --ham-loss: the share of spam that may be called ham (default 0.05)",
    )
    dask = p.add_mutually_exclusive_group()
    dask.add_argument(
        "--dask-scheduler",
        metavar="ADDRESS",
        help="train on the Dask cluster of this scheduler (tcp://host:port)",
    )
    dask.add_argument(
        "--workers",
        type=count_type(1),
        metavar="N",
        help="train on a local Dask cluster of N worker processes (the model of this "
        "process; with --bad-rows skip, the workers skip the rows it would)",
    )


def parse_ngrams(text: str) -> tuple[int, int]:
    """``"1-2"`` -> ``(1, 2)``; ``"2-2"`` -> ``(2, 2)``; ``"2"`` -> ``(1, 2)`` (up to
    bigrams, as ``--ngrams 2`` means in most tools: a bare N never drops the unigrams)."""
    parts = text.split("-")
    try:
        lo, hi = (int(parts[0]), int(parts[-1])) if len(parts) == 2 else (0, -1)
        if len(parts) == 1:
            lo, hi = 1, int(parts[0])
    except ValueError:
        lo, hi = 0, -1
    if not 1 <= lo <= hi <= 10:
        raise CLIError(
            f"--ngrams must look like 1-2 (MIN-MAX, 1 <= MIN <= MAX <= 10) or 2 (up to "
            f"bigrams: 1-2); got {text!r}."
        )
    return lo, hi


def make_estimator(
    name: str,
    alpha: float | None,
    *,
    columns: str | None = None,
    bandwidth: str | None = None,
    max_points: int | None = None,
    var_smoothing: float | None = None,
) -> Any:
    """The unfitted nbayes estimator for a ``--model`` name (table models).

    The flags are checked here only for whether they apply to the model; their values
    are the estimator's to validate (when it is fitted: see :func:`flag_errors`).
    """
    # in the order the flags were checked before the table of estimators
    values = {
        "--columns": columns,
        "--bandwidth": None if bandwidth is None else parse_bandwidth(bandwidth),
        "--max-points": max_points,
        "--alpha": alpha,
        "--var-smoothing": var_smoothing,
    }
    row = estimator_row(name)
    hyperparameters = check_flags(name, values)
    if row.make is None:
        raise CLIError(f"--model {name} learns from documents: leave out --input table.")
    # no --bandwidth: the estimator's own default (KernelNB "robust", MixedNB "scott")
    return row.make(hyperparameters)


def set_class_prior(model: Any, text: str) -> None:
    """``--class-prior spam=0.2,ham=0.8``: the fitted ``model``'s class prior (a derivation
    setting: no pass over the data), every class named once."""
    given: dict[str, float] = {}
    for item in text.split(","):
        name, sep, value = item.partition("=")
        try:
            p = float(value)
        except ValueError:
            p = -1.0
        if not sep or not name.strip() or not 0 <= p <= 1:
            raise CLIError(
                f"--class-prior must look like spam=0.2,ham=0.8 (CLASS=P with 0 <= P <= 1); "
                f"got {item!r}."
            )
        given[name.strip()] = p
    classes = [str(c) for c in model.classes_.tolist()]
    if sorted(given) != sorted(classes):
        raise CLIError(
            f"--class-prior names {', '.join(given)}; the data's classes are "
            f"{', '.join(classes)}: give a probability for each of them."
        )
    params = model.get_params(deep=False)
    name = "priors" if "priors" in params else "class_prior"  # GaussianNB's is "priors"
    if name not in params:
        raise CLIError(f"--class-prior does not apply to {type(model).__name__}.")
    total = sum(given.values())
    if abs(total - 1) > 1e-6:
        raise CLIError(f"--class-prior must sum to 1; got {total:g}.")
    prior = [given[c] for c in classes]
    model.set_params(**{name: prior})


def _terms(model: Any, n: int) -> str:
    """``n`` terms, or of a hashing model, the buckets they fill (a hashing model keeps no
    terms: "949,506 terms" were buckets, a trial's finding)."""
    if getattr(model, "hashing", False):
        return f"{n:,} of {int(model.n_features):,} hash buckets used"
    return f"{n:,} terms"


def _describe(model: Any) -> str:
    counts = ", ".join(
        f"{c}: {int(n):,}" if float(n).is_integer() else f"{c}: {float(n):.3g}"
        for c, n in zip(model.classes_.tolist(), model.class_count_.tolist(), strict=True)
    )
    return f"{len(model.classes_)} classes ({counts})"


def _check_text_only_options(args: argparse.Namespace) -> None:
    refuse_set_flags(
        args,
        ("--columns", "--bandwidth", "--max-points"),
        "applies to table models (kernel, mixed), not to documents.",
    )
    refuse_set_flags(
        args, ("--var-smoothing",), "applies to table models (gaussian, mixed), not to documents."
    )


def _table_estimator(args: argparse.Namespace) -> Any:
    if args.binary or args.ngrams not in (None, "1-1") or args.hashing:
        raise CLIError("--binary, --ngrams and --hashing apply to text models only.")
    refuse_set_flags(args, TRAIN_TEXT_FLAGS, "applies to text models only.")
    _text_flags(args)  # (--c, --beta: the models that take them are named)
    return make_estimator(
        args.model,
        args.alpha,
        columns=args.columns,
        bandwidth=args.bandwidth,
        max_points=args.max_points,
        var_smoothing=args.var_smoothing,
    )


def _text_flags(args: argparse.Namespace) -> dict[str, Any]:
    """``--c`` and ``--beta``: the hyperparameters they set (for the models taking them)."""
    return check_text_flags(args.model, {"--c": args.c, "--beta": args.beta})


def _train_on_dask(args: argparse.Namespace, ui: UI, text: bool) -> tuple[Any, str]:
    """Fit with :func:`nbayes.distributed.fit_source` on a Dask cluster."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:
        absent = isinstance(exc, ModuleNotFoundError) and exc.name in ("dask", "distributed")
        raise CLIError(
            "--workers and --dask-scheduler need Dask: pip install 'nbayes[dask]' (or train "
            "without them, in this process)."
            if absent
            else f"--workers and --dask-scheduler need Dask, which is installed but does not "
            f"import here ({exc}): mend that environment (or train without them, in this "
            "process)."
        ) from None
    from nbayes.distributed import BlocksDisagreeError, PartitionError, fit_source
    from nbayes.exceptions import ColumnFamiliesError

    skipping: dict[str, Any] = {}
    if args.bad_rows == "skip":  # (the workers read the data as this process would)
        skipping = {"bad_rows": "skip", "on_bad_row": _skipped(args).add}
        if args.max_field_chars is not None:
            skipping["max_field_chars"] = args.max_field_chars
    from nbayes.cli._worker_inputs import check_worker_inputs, read_failure

    check_worker_inputs(
        args.data, getattr(args, "data_format", None), getattr(args, "encoding", "utf-8")
    )  # (before Dask starts: a folder, no such file, a mix of formats, a file of no text)
    if text:
        _check_text_only_options(args)
        from nbayes.cli._text import make_text_model

        if not estimator_row(args.model).merges:
            raise CLIError(
                "--workers and --dask-scheduler merge one model per partition; an "
                f"{args.model}'s linear model is fitted on all documents at once: train it "
                "without them."
            )
        estimator: Any = make_text_model(
            args.model,
            args.alpha,
            binary=args.binary,
            ngram_range=args.ngrams and parse_ngrams(args.ngrams),
            hashing=args.hashing,
            **text_options(args),
            **_text_flags(args),
        )
    else:
        estimator = _table_estimator(args)
        if skipping:  # the rows this process would refuse, and its features and labels
            from nbayes.cli._data import feature_kind
            from nbayes.cli._tables import dask_rows

            skipping["table_rows"] = dask_rows(feature_kind(estimator), args.label_col)
    plural = "" if args.workers == 1 else "s"
    where = args.dask_scheduler or f"a local cluster of {args.workers} worker{plural}"
    ui.note(f"Training on Dask ({where}) ...")
    source = args.data[0] if len(args.data) == 1 else list(args.data)
    unit = "documents" if text else "rows"
    from nbayes.cli._common import _READER_FLAGS
    from nbayes.io.readers import option_names

    try:
        with ui.progress("Training on Dask", "partitions") as bar, option_names(_READER_FLAGS):
            model = fit_source(
                estimator,
                source,
                text_col=args.text_col,
                label_col=args.label_col,
                scheduler=args.dask_scheduler,
                workers=args.workers,
                progress=_DaskProgress(ui, bar, unit),
                **_dask_read_options(args, estimator, text),
                **skipping,
            )
    except PartitionError as exc:
        if args.bad_rows == "skip":  # (a row the model refuses that is no bad row)
            raise CLIError(f"{exc.problem} Clean the data first.") from None
        raise CLIError(
            f"{exc.problem} Pass --bad-rows skip to skip such rows (the workers then read "
            "the data as this process would), or clean the data first."
        ) from None
    except ColumnFamiliesError as exc:  # (said with columns={...}, the Python argument)
        raise CLIError(_families_disagree(exc)) from None
    except BlocksDisagreeError as exc:  # (its advice names --bad-rows; this one, too)
        raise CLIError(f"{exc} Or train without --workers.") from None
    except (EOFError, UnicodeError, zlib.error) as exc:  # (a file the workers cannot read)
        raise read_failure(exc) from None
    except KeyError as exc:  # (a column DATA lacks: it was "unexpected KeyError ... a bug")
        said = str(exc.args[0]) if exc.args else ""
        if not said.startswith(("No label column", "No text column")):
            raise
        flag = "--label-col" if said.startswith("No label") else "--text-col"
        raise CLIError(f"{said} Pass {flag} NAME to choose.") from None
    except ValueError as exc:  # (a missing --text-col: DATA may be a table)
        if _dask_reader_words(exc):
            _bad_row_of_the_head(ui, args, text)
        raise _maybe_a_table(args, exc) from None
    except (OSError, TimeoutError) as exc:
        if args.dask_scheduler:
            raise CLIError(
                f"Cannot train on the Dask scheduler {args.dask_scheduler}: {exc}"
            ) from None
        raise
    if text:
        n_terms = len(model.get_feature_names_out())
        what = f"{int(model.class_count_.sum()):,} documents, {_terms(model, n_terms)}"
    else:
        n = float(model.class_count_.sum())  # (as one process says it: 1,200 rows)
        rows = f"{int(n):,}" if n.is_integer() else f"{n:g}"
        what = f"{rows} rows, {model.n_features_in_} features"
        _note_families(ui, model)
    return model, what


def _families_disagree(exc: Any) -> str:
    """The advice of partitions whose models read a column as different families."""
    from nbayes.cli._estimators import columns_flag

    mine, theirs = exc.mine, exc.theirs
    differ, flag = columns_flag(mine, theirs)
    if not differ or set(mine) != set(theirs):
        return f"The workers' partitions read different columns: {mine} vs {theirs}."
    if getattr(exc, "together", False):  # (each partition one family, all rows another)
        said = ", ".join(f"{c!r}: {mine[c]} in each, {theirs[c]} in all" for c in differ)
        return (
            f"The workers' partitions read columns as other families than all the rows "
            f"together ({said}): each partition infers its columns' families from its own "
            f"rows. Name them with --columns (e.g. --columns {flag}, as this process infers "
            "them), or train in this process (without --workers)."
        )
    said = ", ".join(f"{c!r}: {mine[c]} in one, {theirs[c]} in another" for c in differ)
    _, flag = columns_flag(theirs, mine)  # (one partition's families: either will do)
    return (
        f"The workers' partitions read columns as different families ({said}): each "
        "partition infers its columns' families from its own rows. Name them with "
        f"--columns (e.g. --columns {flag}), or train in this process "
        "(without --workers), which infers them from every row."
    )


class _DaskProgress:
    """The progress of a fit on Dask (``fit_source(progress=...)``): partitions learned
    of all, and their rows, on the progress line of a terminal; with ``-v`` on stderr that
    is no terminal (a log), a line every :attr:`EVERY` seconds."""

    EVERY = 10.0

    def __init__(self, ui: UI, bar: Any, unit: str) -> None:
        import time

        self.ui, self.bar, self.unit = ui, bar, unit
        self._clock = time.monotonic
        self._logged = self._clock()

    def __call__(self, done: int, total: int, rows: int) -> None:
        self.bar.total = total
        self.bar.unit = f"partitions, {rows:,} {self.unit}"
        self.bar.advance(done - self.bar.count)
        now = self._clock()
        if self.ui.verbose and not self.ui.interactive and now - self._logged >= self.EVERY:
            self._logged = now
            self.ui.detail(f"Training on Dask: {done:,}/{total:,} partitions, {rows:,} {self.unit}")


def _skipped(args: argparse.Namespace) -> Any:
    """The running command's count of the rows it skips (``--bad-rows skip``)."""
    from nbayes.cli._common import Skipped, skipped_rows

    skipped = skipped_rows()
    return Skipped(args) if skipped is None else skipped


def _dask_read_options(args: argparse.Namespace, estimator: Any, text: bool) -> dict[str, Any]:
    """What :func:`nbayes.distributed.read` needs to read DATA as this process would:
    the ``--delimiter`` and ``--encoding`` of CSV files, and, for a table model that takes
    numbers or categories, every cell as a string, an empty label missing (the table
    reader's: a label ``1`` is the class "1", a category ``1`` the category "1"; a column
    of whole numbers in one file and decimal ones in another is no column of other types
    in different blocks)."""
    from nbayes.cli._data import feature_kind
    from nbayes.io.input_formats import COMPRESSION_SUFFIXES, of_path

    found = of_path(args.data[0], tables_only=True, compressions=COMPRESSION_SUFFIXES)
    if found is not None and found.name == "parquet":
        return _parquet_read_options(args, estimator, text)
    if found is None or found.name not in ("csv", "tsv"):
        return {}
    options: dict[str, Any] = {}
    delimiter = delimiter_of(args)
    if delimiter is not None:
        options["sep"] = delimiter
    if getattr(args, "encoding", "utf-8") not in ("utf-8", "utf8"):
        options["encoding"] = args.encoding
    if not text and feature_kind(estimator) != "typed":
        options.update(dtype=str, keep_default_na=False, na_values={args.label_col: [""]})
    return options


def _parquet_read_options(args: argparse.Namespace, estimator: Any, text: bool) -> dict[str, Any]:
    """For a categorical model, Parquet files' feature cells as strings, as this process
    makes them of the files joined (categories "0", not the numbers 0, and a column of
    strings in one file and numbers in another one column of strings); their labels, and
    the cells of other models, as read (each file's columns are of the dtypes of pandas'
    concat of the files, as here: :func:`nbayes.distributed.read`)."""
    import glob

    from nbayes.cli._data import feature_kind
    from nbayes.io.tables import parquet_columns

    if text or feature_kind(estimator) != "categories" or "://" in args.data[0]:
        return {}
    first = next(iter(sorted(glob.glob(args.data[0]))), args.data[0])
    try:
        columns = parquet_columns(first)
    except (OSError, ValueError):  # (dask says what is wrong with the file)
        return {}
    return {"dtype": {column: str for column in columns if column != args.label_col}}


#: the flags of a spam filter's settings, refused for the other models
SPAM_FLAGS = (
    "--preset",
    "--combining",
    "--min-learned",
    "--ham-cutoff",
    "--spam-cutoff",
    "--ham-loss",
    "--spam-passed",
    "--regime",
    "--max-rounds",
)


def run(args: argparse.Namespace, ui: UI) -> int:
    row = estimator_row(args.model)
    if row.trains is not None:  # a model with a command path of its own (spam: mail)
        return row.trains(args, ui)
    if args.jobs is not None:
        raise CLIError(
            "--jobs applies to --model spam; other models train in one process, or on a "
            "Dask cluster with --workers N."
        )
    refuse_set_flags(args, SPAM_FLAGS, "applies to --model spam (a spam filter of mail).")
    text = reads_documents(args.model, args.input)
    check_binary(args.model, args.binary)
    check_model_output(args.output, args.data, force=args.force)  # before any work
    with flag_errors(HYPERPARAMETER_FLAGS):
        model, what = _train(args, ui, text)
    if args.class_prior is not None:
        set_class_prior(model, args.class_prior)
    save_model(model, args.output, args.data, force=args.force, lock_with=ui)
    from nbayes.text import TextSettings

    name = "TextClassifier" if isinstance(model, TextSettings) else type(model).__name__
    if text and isinstance(getattr(model, "model", None), str):  # TextClassifier(model=...)
        name = f"{name}({model.model})"
    ui.note(f"Trained {name} on {what}: {_describe(model)}.")
    warn_one_class(ui, model, args.output)
    if text and _looks_like_mail(args.data):
        ui.note(
            "The documents look like e-mail messages (header fields first): for a spam "
            "filter of mail, which reads their MIME parts, headers and charsets, train with "
            "--model spam (docs/spam.md)."
        )
    ui.note(f"Saved to {args.output}")
    return 0


def _looks_like_mail(roots: list[str], sample: int = 20) -> bool:
    """Whether most of the first ``sample`` files under the folders of ``roots`` start as
    e-mail does (an mbox postmark, or header fields such as Received: or From:): a
    folder of mail trained as a word model (``--model spam`` forgotten, a trial's)."""
    import os
    import re

    head = re.compile(rb"(From \S+ |(Return-Path|Received|From|Delivered-To|Message-I[Dd]):)")
    seen = mail = 0
    for root in roots:
        if not os.path.isdir(root):
            continue
        for folder, _, files in os.walk(root):
            for name in sorted(files)[:sample]:
                try:
                    with open(os.path.join(folder, name), "rb") as f:
                        first = f.read(64)
                except OSError:
                    continue
                seen += 1
                mail += head.match(first) is not None
                if seen >= sample:
                    return mail >= 0.8 * seen
    return seen >= 5 and mail >= 0.8 * seen


def _dask_reader_words(exc: Exception) -> bool:
    """Whether ``exc`` is pandas' through Dask, of a file it samples before the workers
    read it (its first rows): "An error occurred while calling the read_csv method ...",
    "EOF encountered while reading header"."""
    said = str(exc)
    return "error occurred while calling the read_" in said or "while reading header" in said


#: rows of DATA this process reads to name a bad row Dask's sample of a file met
_HEAD_ROWS = 100_000


def _bad_row_of_the_head(ui: UI, args: argparse.Namespace, text: bool) -> None:
    """Dask stopped at a bad row among a file's first rows, in pandas' words, without the
    file or the advice (a fuzz): this process reads DATA's first rows as one process
    trains, and raises its error, which names the file, the line and --bad-rows."""
    if not text:
        _bad_row_of_a_tables_head(args)
        return
    from nbayes.cli._common import text_chunks

    read = 0
    try:
        for chunk in text_chunks(ui, args.data, args, labels=True):
            read += len(chunk)
            if read >= _HEAD_ROWS:
                return
    except ValueError as exc:
        raise CLIError(f"{exc} (--workers' Dask reader stopped there too.)") from None


def _bad_row_of_a_tables_head(args: argparse.Namespace) -> None:
    """:func:`_bad_row_of_the_head` of tables: the first lines of each CSV/TSV or JSON
    lines file of DATA read as one process reads a table (a line of more fields than the
    header: pandas' "C error: Expected 3 fields in line 4, saw 4" through Dask)."""
    from nbayes.cli._common import delimiter_of, reader_flags
    from nbayes.cli._worker_inputs import local_files
    from nbayes.io.input_formats import COMPRESSION_SUFFIXES, of_path
    from nbayes.io.tables import read_table_head

    for path in local_files(args.data):
        found = of_path(path, tables_only=True, compressions=COMPRESSION_SUFFIXES)
        fmt = args.data_format or (found.name if found is not None else None)
        if fmt not in ("csv", "tsv", "jsonl"):
            continue
        try:
            with reader_flags():
                read_table_head(path, fmt, _HEAD_ROWS, delimiter=delimiter_of(args),
                                encoding=args.encoding)  # fmt: skip
        except ValueError as exc:
            raise CLIError(f"{exc} (--workers' Dask reader stopped there too.)") from None


def _maybe_a_table(args: argparse.Namespace, exc: Exception) -> Exception:
    """``exc``; a missing text column of a model that reads documents by default also
    suggests ``--input table`` (DATA may be a table)."""
    if args.input != "auto" or "--text-col" not in str(exc) or "not found" not in str(exc):
        return exc
    return CLIError(
        f"{str(exc).rstrip('.')}; or, if DATA is a table of features, pass --input table "
        f"(--model {args.model} reads documents unless told)."
    )


def _train(args: argparse.Namespace, ui: UI, text: bool) -> tuple[Any, str]:
    """The fitted model, and what it was trained on (for the closing note)."""
    model: Any
    if args.dask_scheduler is not None or args.workers is not None:
        return _train_on_dask(args, ui, text)
    if text:
        _check_text_only_options(args)
        from nbayes.cli._text import make_text_model
        from nbayes.text import TextSettings

        model = make_text_model(
            args.model,
            args.alpha,
            binary=args.binary,
            ngram_range=args.ngrams and parse_ngrams(args.ngrams),
            hashing=args.hashing,
            lean=True,  # a TextClassifier: counted and saved without scikit-learn
            **text_options(args),
            **_text_flags(args),
        )
        try:
            with ui.progress("Training", "documents") as bar:  # streamed: a chunk at a time
                chunks = LabelledChunks(ui, args.data, args, bar.advance)
                model.fit_chunks(chunks)
        except (CLIError, ValueError) as exc:  # the readers' errors name the flags
            raise _maybe_a_table(args, exc) from None
        n_terms = (
            model.n_kept_terms()
            if isinstance(model, TextSettings)
            else len(model.get_feature_names_out())
        )
        what = f"{chunks.documents:,} documents, {_terms(model, n_terms)}"
    else:
        estimator = _table_estimator(args)
        from nbayes.cli._data import feature_kind
        from nbayes.cli._tables import read_table, split_labels, table_features, table_flags

        kind = feature_kind(estimator)
        table = read_table(ui, args.data, typed=kind == "typed", **table_flags(args))
        _, labels = split_labels(table, args.label_col)
        X = table_features(table, kind, args.label_col)
        with ui.progress("Training", "rows") as bar:
            model = estimator.fit(X, labels)
            bar.advance(len(labels))
        what = f"{len(labels):,} rows, {X.shape[1]} features"
        _note_families(ui, model)
    return model, what


def _note_families(ui: UI, model: Any) -> None:
    """A mixed model's column families, as it inferred them (or was told)."""
    if hasattr(model, "families_"):
        families = ", ".join(f"{k}: {v}" for k, v in model.families_.items())
        ui.note(f"Column families: {families}")
