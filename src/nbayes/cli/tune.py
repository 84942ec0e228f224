"""``nbayes tune``: cross-validate a grid of settings by count subtraction; print the best.

Score every combination of the given settings by stratified k-fold cross-validation
(shuffled, random_state=0) with nbayes.model_selection.NBSearchCV: one counting
pass per fold, then each fold's model is the total minus the fold, and alpha is
re-derived from the same counts. Prints a table (setting, mean score, standard
deviation over the folds, rank) and the best setting; --save trains it on all the
data. Text data gives a TextClassifier; tables (--model gaussian, categorical,
poisson, kernel, mixed or --input table) the estimator itself. --model spam compares a
spam filter's presets and combinings on mail (DATA/ham/, DATA/spam/), held out by count
subtraction: the spam caught at 0.1, 0.5 and 1 % of the ham lost, and the verdicts at each
setting's cutoffs (nbayes.spam.compare_settings).

Example:
  nbayes tune reviews.csv --folds 10 --alpha 0.01,0.1,0.5,1
  nbayes tune sms.csv --alpha 0.1,1 --ngrams 1-1,1-2 --min-df 1,2 --save best.nbayes
  nbayes tune iris.csv --model gaussian --label-col species --var-smoothing 1e-9,1e-3
  nbayes tune table.csv --model mixed --label-col y --alpha 0.5,1 --json
  nbayes tune mail/ --model spam --save mail.nbayes     # presets x combinings, on your mail
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np

from nbayes._flags import share_type
from nbayes.cli import _common as common
from nbayes.cli import train
from nbayes.cli._common import (
    UI,
    CLIError,
    add_data_options,
    add_model_options,
    flag_errors,
)
from nbayes.cli._estimators import (
    check_binary,
    check_flags,
    check_text_flags,
    estimators,
    reads_documents,
)
from nbayes.cli._estimators import estimator as estimator_row
from nbayes.cli._text import (
    TEXT_OPTION_FLAGS,
    parse_document_frequency,
    parse_recipe,
    parse_stop_words,
)

__all__ = ["add_arguments", "run"]

#: the flags that give settings of an estimator's hyperparameters: the estimator validates
GRID_FLAGS = (
    "--alpha", "--ngrams", "--var-smoothing", "--bandwidth", "--c", "--beta", *TEXT_OPTION_FLAGS
)  # fmt: skip


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", nargs="+", metavar="DATA", help="labelled data files")
    # the models cross-validated here, and spam filters (their scoring settings, on mail)
    add_model_options(p, [*(name for name, e in estimators().items() if e.trains is None), "spam"])
    add_data_options(p)
    p.add_argument(
        "--folds", type=common.count_type(2), default=5, metavar="K", help="number of folds (5)"
    )
    p.add_argument("--alpha", metavar="A,B,...", help="smoothing values to try, e.g. 0.1,1")
    p.add_argument("--binary", action="store_true", help="text: count each word once per document")
    p.add_argument(
        "--ngrams", metavar="MIN-MAX,...", help="text: n-gram ranges to try, e.g. 1-1,1-2"
    )
    p.add_argument("--min-df", metavar="N,...", help="text: minimum document counts to try")
    p.add_argument(
        "--max-df", metavar="N,...", help="text: maximum document counts or fractions to try"
    )
    p.add_argument(
        "--preprocess",
        metavar="RECIPE,...",
        help="text: preprocessing recipes to try, e.g. none,sentiment (see nbayes train -h)",
    )
    p.add_argument(
        "--stop-words",
        metavar="WORDS",
        help="text: drop stop words in every setting: english, none or a file of words",
    )
    p.add_argument(
        "--preset",
        metavar="NAME,...",
        help="spam: presets to try (nbayes, bogofilter, spambayes; default: all three)",
    )
    p.add_argument(
        "--combining",
        metavar="NAME,...",
        help="spam: combinings to try (chi2, mean, naive_bayes; default: chi2,mean)",
    )
    p.add_argument(
        "--ham-loss",
        type=share_type,
        metavar="SHARE",
        help="spam: choose each setting's cutoffs for at most SHARE of the ham called spam "
        "on the held-out mail (and at most --spam-passed of the spam called ham)",
    )
    p.add_argument(
        "--spam-passed",
        type=share_type,
        metavar="SHARE",
        help="spam, with --ham-loss: the share of spam that may be called ham (default 0.05)",
    )
    p.add_argument("--c", metavar="C,...", help="nbsvm: SVM regularisation values, e.g. 0.1,1")
    p.add_argument("--beta", metavar="B,...", help="nbsvm: interpolation values, e.g. 0.25,1")
    p.add_argument(
        "--var-smoothing", metavar="V,...", help="gaussian, mixed: variance smoothing to try"
    )
    p.add_argument(
        "--bandwidth", metavar="RULE,...", help="kernel, mixed: e.g. scott,silverman,0.5"
    )
    p.add_argument("--columns", metavar="NAME=FAMILY,...", help="mixed: families of some columns")
    p.add_argument(
        "--scoring",
        default="accuracy",
        metavar="NAME",
        help="a scikit-learn scorer name (accuracy, f1_macro, neg_log_loss, ...)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--save", metavar="MODEL", help="train the best setting and save it here")
    p.add_argument(
        "--force",
        action="store_true",
        help="with --save: replace MODEL even if it is not an nbayes model file",
    )


# ------------------------------------------------------------------------------- parsing
def _floats(text: str, flag: str) -> list[float]:
    """Comma-separated numbers, each once (the estimator validates their values)."""
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        raise CLIError(f"{flag} takes comma-separated numbers, e.g. 0.1,1; got {text!r}.") from None
    return list(dict.fromkeys(values))


def _min_df(text: str) -> list[int | float]:
    out: list[int | float] = []
    for item in text.split(","):
        value = parse_document_frequency(item, "--min-df")
        if isinstance(value, int) and value < 1:
            raise CLIError(f"--min-df counts must be >= 1; got {value}.")
        out.append(value)
    return list(dict.fromkeys(out))


def _bandwidths(text: str) -> list[str | float]:
    return list(dict.fromkeys(train.parse_bandwidth(v.strip()) for v in text.split(",")))


def _grid(args: argparse.Namespace, text: bool) -> dict[str, list[Any]]:
    grid: dict[str, list[Any]] = {}
    model = args.model
    if args.alpha is not None:
        if not text:
            check_flags(model, {"--alpha": args.alpha})
        grid["alpha"] = _floats(args.alpha, "--alpha")
    if text:
        if args.ngrams is not None:
            grid["ngram_range"] = list(
                dict.fromkeys(train.parse_ngrams(v.strip()) for v in args.ngrams.split(","))
            )
        if args.min_df is not None:
            grid["min_df"] = _min_df(args.min_df)
        if args.max_df is not None:
            grid["max_df"] = list(
                dict.fromkeys(
                    parse_document_frequency(v.strip(), "--max-df") for v in args.max_df.split(",")
                )
            )
        if args.preprocess is not None:
            grid["preprocess"] = list(
                dict.fromkeys(parse_recipe(v.strip()) for v in args.preprocess.split(","))
            )
        check_binary(model, args.binary)
        check_text_flags(model, {"--c": args.c, "--beta": args.beta})
        if args.c is not None:
            grid["C"] = _floats(args.c, "--c")
        if args.beta is not None:
            grid["beta"] = _floats(args.beta, "--beta")
        common.refuse_set_flags(
            args,
            ("--var-smoothing", "--bandwidth", "--columns"),
            "applies to table models, not to documents.",
        )
    else:
        text_only = ("--ngrams", "--binary", *TEXT_OPTION_FLAGS)
        common.refuse_set_flags(args, text_only, "applies to text models only.")
        check_text_flags(model, {"--c": args.c, "--beta": args.beta})
        check_flags(model, {"--var-smoothing": args.var_smoothing, "--bandwidth": args.bandwidth})
        if args.var_smoothing is not None:
            grid["var_smoothing"] = _floats(args.var_smoothing, "--var-smoothing")
        if args.bandwidth is not None:
            grid["bandwidth"] = _bandwidths(args.bandwidth)
    return grid


def _setting(params: dict[str, Any]) -> str:
    def show(v: Any) -> str:
        if isinstance(v, tuple):
            return f"{v[0]}-{v[1]}"
        return f"{v:g}" if isinstance(v, float) else str(v)

    return ", ".join(f"{k}={show(v)}" for k, v in params.items()) or "(defaults)"


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, tuple):
        return list(v)
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


# ----------------------------------------------------------------------------------- run
def _inputs(args: argparse.Namespace, ui: UI, text: bool) -> tuple[Any, Any, Any]:
    """The unfitted estimator, X and y."""
    if text:
        from nbayes.cli._common import read_labelled_texts

        texts, labels = read_labelled_texts(ui, args.data, args)
        row = estimator_row(args.model)
        assert row.make_text is not None
        settings = {} if row.no_binary is not None else {"binary": args.binary}
        estimator = row.make_text(settings)
        if args.stop_words is not None:  # a setting of every candidate
            estimator.set_params(stop_words=parse_stop_words(args.stop_words))
        return estimator, texts, np.asarray(labels)
    from nbayes.cli._data import feature_kind
    from nbayes.cli._tables import read_table, split_labels, table_features, table_flags

    estimator = train.make_estimator(args.model, None, columns=args.columns)
    kind = feature_kind(estimator)
    table = read_table(ui, args.data, typed=kind == "typed", **table_flags(args),
                       kind=kind, label_col=args.label_col)  # fmt: skip
    _, labels = split_labels(table, args.label_col)
    return estimator, table_features(table, kind, args.label_col), np.asarray(labels)


def run(args: argparse.Namespace, ui: UI) -> int:
    if args.model == "spam":
        from nbayes.cli._spam import tune_spam

        return tune_spam(args, ui)
    common.refuse_set_flags(
        args, ("--preset", "--combining", "--ham-loss", "--spam-passed"), "applies to --model spam."
    )
    from sklearn.metrics import get_scorer, get_scorer_names
    from sklearn.model_selection import StratifiedKFold

    from nbayes.cli._models import check_model_output, save_model
    from nbayes.model_selection import NBSearchCV

    text = reads_documents(args.model, args.input)
    if args.scoring not in get_scorer_names():
        raise CLIError(
            f"Unknown --scoring {args.scoring!r}; e.g. accuracy, balanced_accuracy, f1_macro, "
            "neg_log_loss (any scikit-learn scorer name)."
        )
    get_scorer(args.scoring)
    if args.save is not None:  # before any work
        check_model_output(args.save, args.data, flag="--save", force=args.force)
    grid = _grid(args, text)
    estimator, X, y = _inputs(args, ui, text)
    _, counts = np.unique(y.astype(str), return_counts=True)
    if len(counts) < 2:
        raise CLIError("Cross-validation needs at least two classes in the data.")
    if int(counts.min()) < args.folds:
        raise CLIError(
            f"--folds {args.folds} is more than the {int(counts.min())} examples of the "
            "smallest class: every fold needs an example of every class. Use fewer folds."
        )
    cv = StratifiedKFold(n_splits=args.folds, shuffle=True, random_state=0)
    search = NBSearchCV(
        estimator, grid, cv=cv, scoring=args.scoring, refit=args.save is not None,
        error_score="raise",
    )  # fmt: skip
    n_settings = int(np.prod([len(v) for v in grid.values()])) if grid else 1
    with ui.progress("Cross-validating", "settings") as bar, flag_errors(GRID_FLAGS):
        search.fit(X, y)
        bar.advance(n_settings)
    res = search.cv_results_
    rows = [
        {
            "params": {k: _plain(v) for k, v in params.items()},
            "setting": _setting(params),
            "mean": _plain(float(res["mean_test_score"][i])),
            "std": _plain(float(res["std_test_score"][i])),
            "rank": int(res["rank_test_score"][i]),
        }
        for i, params in enumerate(res["params"])
    ]
    best = int(search.best_index_)
    # settings every row shares (not searched): shown with the table, kept in the JSON
    fixed = {"binary": True} if text and args.binary else {}
    if args.save is not None:
        save_model(search.best_estimator_, args.save, args.data, flag="--save", force=args.force)
    if args.json:
        ui.print(
            json.dumps(
                {
                    "scoring": args.scoring,
                    "folds": args.folds,
                    "n_examples": len(y),
                    "results": [{k: r[k] for k in ("params", "mean", "std", "rank")} for r in rows],
                    "best_params": rows[best]["params"],
                    "fixed_params": fixed,
                    "best_score": rows[best]["mean"],
                    "saved": args.save,
                },
                ensure_ascii=False,
            )
        )
    else:
        _print_table(ui, rows, args.scoring, args.folds, len(y), best, fixed)
    if args.save is not None:
        ui.note(f"Trained the best setting on all {len(y):,} examples; saved to {args.save}")
    return 0


def _print_table(
    ui: UI,
    rows: list[dict[str, Any]],
    scoring: str,
    folds: int,
    n: int,
    best: int,
    fixed: dict[str, Any] | None = None,
) -> None:
    def num(v: Any) -> str:
        return "nan" if v is None else f"{v:.4f}"

    head = ("setting", f"mean {scoring}", "std", "rank")
    table = [head] + [(r["setting"], num(r["mean"]), num(r["std"]), str(r["rank"])) for r in rows]
    width = [max(len(t[i]) for t in table) for i in range(4)]
    every = _setting(fixed) if fixed else ""
    with_fixed = f", every setting with {every}" if every else ""
    ui.print(f"{folds}-fold cross-validation on {n:,} examples ({scoring}{with_fixed}):")
    for t in table:
        ui.print(f"{t[0]:<{width[0]}}  {t[1]:>{width[1]}}  {t[2]:>{width[2]}}  {t[3]:>{width[3]}}")
    r = rows[best]
    setting = r["setting"]
    if every:
        setting = every if setting == "(defaults)" else f"{setting}, {every}"
    ui.print(f"best: {setting} (mean {scoring} {num(r['mean'])} ± {num(r['std'])})")
