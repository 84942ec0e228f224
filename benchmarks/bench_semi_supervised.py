"""Semi-supervised EM (``nbayes.SemiSupervisedNB``) on 20 Newsgroups bydate, as Nigam et al.

Protocol (``../shared/data/20newsgroups_bydate``, README section 5): the official bydate
split, 11,314 training and 7,532 test documents. For each number ``k`` of labelled documents
per class and each seed, ``k`` training documents of every class are drawn at random
(``numpy.random.default_rng(seed).choice`` per class, without replacement); the labels of the
other training documents are hidden (None); accuracy is measured on the whole test set.
Every method reads the same documents with the same features (TextClassifier's defaults:
lowercase, ``(?u)\\b\\w\\w+\\b`` unigrams, headers kept; ``--stop-words`` removes
scikit-learn's English stop words and ``--binary`` clips counts to 1, for every method):

* **supervised**: ``TextClassifier`` on the labelled documents only, ``alpha`` chosen by
  ``NBSearchCV`` (5-fold ``StratifiedKFold(shuffle=True, random_state=seed)``, accuracy) on
  the labelled documents only, over ``ALPHAS``;
* **EM**: ``SemiSupervisedNB(TextClassifier(alpha=...), unlabeled_weight=...)`` on all the
  training documents (the labelled ones with their labels), defaults unless flags say
  otherwise; its fit time is measured (wall clock, on a loaded machine);
* **EM, CV-chosen** (``--cv-em``): ``alpha`` and ``unlabeled_weight`` of EM chosen from
  ``EM_GRID`` by 3-fold ``StratifiedKFold(shuffle=True, random_state=seed)`` over the labelled
  documents: each fold's labels are hidden too and the fold is scored (Nigam et al. choose
  lambda by cross-validation in the same way); the chosen setting is then fitted once;
* **EM, defaults** (``--defaults``): ``SemiSupervisedNB()`` as a user calls it (default
  features; TextClassifier's alpha, ``unlabeled_weight`` and the E-step ``temperature``
  chosen by its own 3-fold CV on the labelled documents only, weight 0 -- the supervised
  model -- winning ties; the E-step class-balanced, ``balance=True``); the fit time
  includes that cross-validation. With ``--stop-words``/``--binary``:
  ``SemiSupervisedNB(TextClassifier(<features>), alphas=<--alphas>)``, the same CV over those
  alphas (for the supervised candidate too);
* the fixed recipes (``--alpha``, ``--unlabeled-weight``; the first round's tables) ran
  before the temperature and the balanced E-step: add ``--no-balance`` to reproduce them;
* ``--temperature T`` fixes the E-step temperature (``--defaults``: instead of "auto";
  otherwise 1), ``--no-balance`` passes ``balance=False`` (the class-balanced E-step off),
  for every EM fit: the ablations of those two settings;
* **self-training**: scikit-learn's ``SelfTrainingClassifier(MultinomialNB())`` (defaults:
  threshold 0.75, max_iter 10) on ``CountVectorizer()`` features of all the training
  documents (the same tokens as TextClassifier), unlabelled rows labelled -1.

Usage::

    PYTHONPATH=src python benchmarks/bench_semi_supervised.py             # goal, k = 20
    PYTHONPATH=src python benchmarks/bench_semi_supervised.py --curve     # k = 5 ... 200
    PYTHONPATH=src python benchmarks/bench_semi_supervised.py --defaults  # SemiSupervisedNB()
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from pathlib import Path

import numpy as np
import sklearn
from _machine import machine
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import MultinomialNB
from sklearn.semi_supervised import SelfTrainingClassifier

import nbayes
from nbayes import MultinomialNB as NBMultinomialNB
from nbayes import SemiSupervisedNB, TextClassifier
from nbayes.model_selection import NBSearchCV
from nbayes.text import CountVectorizer as NBCountVectorizer

_ROOT = Path(__file__).resolve().parents[2] / "shared" / "data"  # beside the checkout
DATA = (
    Path(os.environ.get("NBAYES_DATA", _ROOT if _ROOT.is_dir() else "/work/shared/data"))
    / "20newsgroups_bydate"
)
ALPHAS = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
CURVE = [5, 10, 20, 50, 100, 200]
EM_GRID = [(a, w) for a in (0.01, 0.03, 0.1) for w in (0.1, 0.3, 1.0)]
FEATURES: dict[str, object] = {}  # the feature settings of every method (set by the flags)


def read(path: Path) -> tuple[list[str], np.ndarray]:
    csv.field_size_limit(1 << 30)
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))[1:]
    return [r[0] for r in rows], np.array([r[1] for r in rows], dtype=object)


def draw(y: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Indices of ``k`` labelled documents per class (sorted)."""
    rng = np.random.default_rng(seed)
    picked = [rng.choice(np.flatnonzero(y == c), size=k, replace=False) for c in np.unique(y)]
    return np.sort(np.concatenate(picked))


def supervised(docs: list[str], y: np.ndarray, labeled: np.ndarray, seed: int,
               test: list[str], y_test: np.ndarray) -> tuple[float, float]:  # fmt: skip
    cv = StratifiedKFold(5, shuffle=True, random_state=seed)
    search = NBSearchCV(TextClassifier(**FEATURES), {"alpha": ALPHAS}, cv=cv)
    search.fit([docs[i] for i in labeled], y[labeled])
    accuracy = float(np.mean(search.best_estimator_.predict(test) == y_test))
    return accuracy, float(search.best_params_["alpha"])


def em(
    docs: list[str], y: np.ndarray, labeled: np.ndarray, test: list[str], y_test: np.ndarray,
    args: argparse.Namespace,
) -> tuple[float, float, SemiSupervisedNB]:  # fmt: skip
    hidden = np.full(len(docs), None, dtype=object)
    hidden[labeled] = y[labeled]
    e_step = {"balance": not args.no_balance}  # the E-step's settings (--defaults)
    if args.temperature is not None:
        e_step["temperature"] = args.temperature
    if args.defaults and args.base == "text":  # the base passed explicitly, nothing else
        semi = SemiSupervisedNB(TextClassifier(**FEATURES), **e_step)
    elif args.defaults and args.base == "multinomial":  # a count matrix of every document
        semi = SemiSupervisedNB(NBMultinomialNB(), **e_step)
        vectorizer = NBCountVectorizer(**FEATURES).fit(docs)  # type: ignore[arg-type]
        matrix = vectorizer.transform(docs)
        start = time.perf_counter()
        semi.fit(matrix, hidden)
        seconds = time.perf_counter() - start
        accuracy = float(np.mean(semi.predict(vectorizer.transform(test)) == y_test))
        return accuracy, seconds, semi
    elif args.defaults and FEATURES:  # an estimator of one's own: its alpha by CV via alphas=
        semi = SemiSupervisedNB(TextClassifier(**FEATURES), alphas=list(args.alphas), **e_step)
    elif args.defaults:
        semi = SemiSupervisedNB(**e_step)
    else:
        semi = SemiSupervisedNB(
            TextClassifier(alpha=args.alpha, **FEATURES), unlabeled_weight=args.unlabeled_weight,
            max_iter=args.max_iter, temperature=args.temperature or 1.0,
            balance=not args.no_balance,
        )  # fmt: skip
    start = time.perf_counter()
    semi.fit(docs, hidden)
    seconds = time.perf_counter() - start
    return float(np.mean(semi.predict(test) == y_test)), seconds, semi


def choose_by_cv(docs: list[str], y: np.ndarray, labeled: np.ndarray,
                 seed: int) -> tuple[float, float]:  # fmt: skip
    """EM's (alpha, unlabeled_weight) of best 3-fold accuracy on the labelled documents."""
    folds = list(StratifiedKFold(3, shuffle=True, random_state=seed).split(labeled, y[labeled]))
    scores = []
    for alpha, weight in EM_GRID:
        correct = 0
        for train, held in folds:
            hidden = np.full(len(docs), None, dtype=object)
            hidden[labeled[train]] = y[labeled[train]]
            semi = SemiSupervisedNB(
                TextClassifier(alpha=alpha, **FEATURES),
                unlabeled_weight=weight,
                temperature=1.0,
                balance=False,
            )  # the first round's EM
            semi.fit(docs, hidden)  # fmt: skip
            correct += int(np.sum(semi.transduction_[labeled[held]] == y[labeled[held]]))
        scores.append(correct)
    return EM_GRID[int(np.argmax(scores))]


def self_training(X: object, y: np.ndarray, labeled: np.ndarray, X_test: object,
                  y_test: np.ndarray) -> tuple[float, float]:  # fmt: skip
    classes, codes = np.unique(y, return_inverse=True)
    hidden = np.full(len(y), -1)
    hidden[labeled] = codes[labeled]
    start = time.perf_counter()
    model = SelfTrainingClassifier(MultinomialNB()).fit(X, hidden)
    seconds = time.perf_counter() - start
    return float(np.mean(classes[model.predict(X_test)] == y_test)), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-class", type=int, nargs="+", default=[20])
    parser.add_argument("--curve", action="store_true", help=f"k = {CURVE}")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--alpha", type=float, default=1.0, help="EM's TextClassifier alpha")
    parser.add_argument("--unlabeled-weight", type=float, default=1.0)
    parser.add_argument("--max-iter", type=int, default=50)
    parser.add_argument("--no-self-training", action="store_true")
    parser.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="EM's E-step temperature (default: 'auto' with --defaults, 1 otherwise)",
    )
    parser.add_argument("--no-balance", action="store_true", help="SemiSupervisedNB(balance=False)")
    parser.add_argument("--stop-words", action="store_true", help="stop_words='english'")
    parser.add_argument("--binary", action="store_true", help="binary=True")
    parser.add_argument("--cv-em", action="store_true", help="EM's alpha, weight by CV")
    parser.add_argument(
        "--defaults",
        action="store_true",
        help="EM = SemiSupervisedNB(); "
        "with feature flags SemiSupervisedNB(TextClassifier(...), alphas=...)",
    )
    parser.add_argument(
        "--base",
        choices=["default", "text", "multinomial"],
        default="default",
        help="with --defaults: SemiSupervisedNB() (default), SemiSupervisedNB(TextClassifier("
        "<features>)) (text: the base passed explicitly) or SemiSupervisedNB(MultinomialNB()) "
        "on nbayes's CountVectorizer(<features>) of all the training documents",
    )
    parser.add_argument(
        "--alphas",
        type=float,
        nargs="+",
        default=[0.01, 0.03],
        help="alphas= of --defaults with feature flags",
    )
    args = parser.parse_args()
    if args.defaults and args.cv_em:
        parser.error("--defaults and --cv-em are two ways of choosing EM's settings: give one")
    if args.stop_words:
        FEATURES["stop_words"] = "english"
    if args.binary:
        FEATURES["binary"] = True
    print(machine(f"nbayes {nbayes.__version__}", f"scikit-learn {sklearn.__version__}"))
    docs, y = read(DATA / "20news_bydate_train.csv")
    test, y_test = read(DATA / "20news_bydate_test.csv")
    if not args.no_self_training:
        vectorizer = CountVectorizer(**FEATURES).fit(docs)  # type: ignore[arg-type]
        X, X_test = vectorizer.transform(docs), vectorizer.transform(test)
    if args.base != "default" and not args.defaults:
        parser.error("--base chooses the estimator of --defaults: give --defaults too")
    setting = (
        "alpha and unlabeled_weight chosen by CV from EM_GRID"
        if args.cv_em
        else f"SemiSupervisedNB({'TextClassifier' if args.base == 'text' else 'MultinomialNB'}"
        f"({FEATURES or ''})) (the base passed explicitly; whatever it chooses)"
        if args.defaults and args.base != "default"
        else f"SemiSupervisedNB(TextClassifier(features), alphas={args.alphas}) (alpha and "
        "weight by its own CV)"
        if args.defaults and FEATURES
        else "SemiSupervisedNB() (its defaults: alpha, weight and temperature by its own CV)"
        if args.defaults
        else f"TextClassifier(alpha={args.alpha}), unlabeled_weight={args.unlabeled_weight}"
    )
    print(f"features {FEATURES}; EM: {setting}, max_iter={args.max_iter}; "
          f"seeds {args.seeds}")  # fmt: skip
    header = ("k/class", "seed", "supervised", "(alpha)", "EM", "iters", "EM fit s",
              "self-train", "ST fit s", "error cut")  # fmt: skip
    print(" | ".join(header))
    summary = []
    for k in CURVE if args.curve else args.per_class:
        rows = []
        for seed in args.seeds:
            labeled = draw(y, k, seed)
            sup, alpha = supervised(docs, y, labeled, seed, test, y_test)
            if args.cv_em:
                args.alpha, args.unlabeled_weight = choose_by_cv(docs, y, labeled, seed)
                print(f"  CV chose alpha={args.alpha}, unlabeled_weight={args.unlabeled_weight}")
            acc, seconds, semi = em(docs, y, labeled, test, y_test, args)
            if args.defaults:
                print(f"  SemiSupervisedNB chose alpha={semi.estimator_.alpha}, "
                      f"unlabeled_weight={semi.unlabeled_weight_}, "
                      f"temperature={semi.temperature_}")  # fmt: skip
            st, st_seconds = (np.nan, np.nan)
            if not args.no_self_training:
                st, st_seconds = self_training(X, y, labeled, X_test, y_test)
            cut = 1 - (1 - acc) / (1 - sup)
            rows.append((sup, acc, st, seconds, cut))
            print(f"{k} | {seed} | {sup:.4f} | {alpha:g} | {acc:.4f} | {semi.n_iter_} | "
                  f"{seconds:.1f} | {st:.4f} | {st_seconds:.1f} | {cut:.1%}",
                  flush=True)  # fmt: skip
        a = np.array(rows)
        summary.append((k, a))
    print(
        "\nk/class | supervised mean (min-max) | EM mean (min-max) | self-training mean "
        "(min-max) | EM error cut mean (min-max) | EM fit s max"
    )
    for k, a in summary:

        def span(col: int, pct: bool = False, a: np.ndarray = a) -> str:
            v = a[:, col] * (100 if pct else 1)
            return f"{v.mean():.2f} ({v.min():.2f}-{v.max():.2f})"

        print(f"{k} | {span(0, True)} | {span(1, True)} | {span(2, True)} | {span(4, True)} | "
              f"{a[:, 3].max():.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
