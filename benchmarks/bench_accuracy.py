"""Accuracy of binarized multinomial NB against Wang & Manning (2012), and recipe variants.

Protocols (``../shared/data/PUBLISHED_RESULTS.md``):

* RT-s (``rt_polarity.csv``): 10-fold cross-validation, ``StratifiedKFold(10, shuffle=True,
  random_state=seed)`` (seed 0 unless ``--seeds``); mean accuracy over the folds.
* IMDB: the official 25k/25k train/test split.
* SMS spam (a third check that a recipe does not hurt other tasks): one fixed stratified
  80/20 split, ``train_test_split(test_size=0.2, random_state=0, stratify=y)``.

Sections:

1. ``TextClassifier(model="multinomial", binary=True)`` with ``ngram_range=(1, 1)`` and
   ``(1, 2)`` against the targets (MNB-uni / MNB-bi), and scikit-learn's
   ``CountVectorizer(binary=True) + MultinomialNB()`` on the same folds (the predictions
   must be identical). Also scikit-learn with Wang & Manning's own unigram tokenization
   (split at white space, ``token_pattern=r"\\S+"``), for reference.
2. Variants of the recipe, each on all three datasets, unigrams and uni+bigrams:
   smoothing ``alpha`` (grid), ``lowercase=False``, and the preprocessing recipes of
   ``nbayes.text.recipes`` (HTML stripping, negation marking, "!"/"?" tokens, scores
   such as "7/10" as one token).
3. The recommended recipe (``nbayes.text.recipes.sentiment_preprocess``) against the
   targets.

Usage::

    PYTHONPATH=src python benchmarks/bench_accuracy.py   # everything (10-20 min)
    PYTHONPATH=src python benchmarks/bench_accuracy.py --no-sklearn --no-variants
    PYTHONPATH=src python benchmarks/bench_accuracy.py --seeds 0 1 2   # RT-s over 3 shuffles
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer as SkCount
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.naive_bayes import MultinomialNB as SkMNB
from sklearn.pipeline import make_pipeline

from nbayes import TextClassifier
from nbayes.text import recipes

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("NBAYES_DATA", HERE.parent.parent / "shared" / "data"))

# Wang & Manning 2012, Table 1 / src/results.txt: MNB (binarized, alpha = 1).
TARGETS = {
    ("RT-s", (1, 1)): 77.94,
    ("RT-s", (1, 2)): 79.03,
    ("IMDB", (1, 1)): 83.55,
    ("IMDB", (1, 2)): 86.59,
}
NGRAMS = {(1, 1): "uni", (1, 2): "uni+bi"}
ALPHAS = (0.1, 0.25, 0.5, 1.0, 2.0)

Recipe = Callable[[str], str] | None


@dataclass
class Dataset:
    name: str
    texts: list[str]
    labels: np.ndarray
    splits: list[tuple[np.ndarray, np.ndarray]]  # (train indices, test indices)


def load(seeds: list[int]) -> list[Dataset]:
    rt = pd.read_csv(DATA / "rt_polarity" / "rt_polarity.csv", keep_default_na=False)
    x, y = rt["text"].tolist(), rt["label"].to_numpy()
    splits = []
    for seed in seeds:
        skf = StratifiedKFold(n_splits=10, shuffle=True, random_state=seed)
        splits += list(skf.split(np.zeros(len(y)), y))
    out = [Dataset("RT-s", x, y, splits)]

    tr = pd.read_csv(DATA / "imdb" / "imdb_train.csv.gz", keep_default_na=False)
    te = pd.read_csv(DATA / "imdb" / "imdb_test.csv.gz", keep_default_na=False)
    x = tr["text"].tolist() + te["text"].tolist()
    y = np.concatenate([tr["label"].to_numpy(), te["label"].to_numpy()])
    n = len(tr)
    out.append(Dataset("IMDB", x, y, [(np.arange(n), np.arange(n, len(y)))]))

    sms = pd.read_csv(
        DATA / "sms_spam_collection" / "sms_spam_collection.csv", keep_default_na=False
    )
    x, y = sms["text"].tolist(), sms["label"].to_numpy()
    a, b = train_test_split(np.arange(len(y)), test_size=0.2, random_state=0, stratify=y)
    out.append(Dataset("SMS", x, y, [(np.sort(a), np.sort(b))]))
    return out


def run(
    ds: Dataset,
    ngram: tuple[int, int],
    recipe: Recipe = None,
    alphas: tuple[float, ...] = (1.0,),
    lowercase: bool = True,
) -> tuple[dict[float, float], float, list[np.ndarray]]:
    """Accuracy (%) per alpha (mean over splits), seconds (alpha=1 fit+predict incl.
    preprocessing), and the alpha=alphas[-1] predictions per split."""
    t0 = time.perf_counter()
    texts = ds.texts if recipe is None else [recipe(t) for t in ds.texts]
    t_pre = time.perf_counter() - t0
    accs: dict[float, list[float]] = {a: [] for a in alphas}
    preds: list[np.ndarray] = []
    t_fit = 0.0
    for train, test in ds.splits:
        t1 = time.perf_counter()
        clf = TextClassifier(binary=True, ngram_range=ngram, lowercase=lowercase)
        clf.fit([texts[i] for i in train], ds.labels[train])
        test_docs = [texts[i] for i in test]
        for k, a in enumerate(alphas):
            clf.set_params(alpha=a)
            p = clf.predict(test_docs)
            if k == 0:
                t_fit += time.perf_counter() - t1
            accs[a].append(100.0 * float(np.mean(p == ds.labels[test])))
        preds.append(p)
    return {a: float(np.mean(v)) for a, v in accs.items()}, t_pre + t_fit, preds


def run_sklearn(
    ds: Dataset, ngram: tuple[int, int], token_pattern: str | None = None
) -> tuple[float, float, list[np.ndarray]]:
    kw = {} if token_pattern is None else {"token_pattern": token_pattern}
    t0 = time.perf_counter()
    accs, preds = [], []
    for train, test in ds.splits:
        pipe = make_pipeline(SkCount(binary=True, ngram_range=ngram, **kw), SkMNB(alpha=1.0))
        pipe.fit([ds.texts[i] for i in train], ds.labels[train])
        p = pipe.predict([ds.texts[i] for i in test])
        accs.append(100.0 * float(np.mean(p == ds.labels[test])))
        preds.append(p)
    return float(np.mean(accs)), time.perf_counter() - t0, preds


def fmt_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    line = "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    body = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) + " |" for r in rows
    ]
    return "\n".join([line, sep, *body])


VARIANTS: list[tuple[str, Recipe, bool]] = [
    ("default (lowercase, \\w\\w+ tokens)", None, True),
    ("lowercase=False", None, False),
    ("strip_html", recipes.strip_html, True),
    ("mark_negation", recipes.mark_negation, True),
    (
        "strip_html + mark_negation",
        recipes.compose(recipes.strip_html, recipes.mark_negation),
        True,
    ),
    ("mark_punctuation", recipes.mark_punctuation, True),
    ("mark_ratings (= sentiment_preprocess)", recipes.mark_ratings, True),
    (
        "mark_ratings + mark_negation",
        recipes.compose(recipes.mark_ratings, recipes.mark_negation),
        True,
    ),
    (
        "strip_html + mark_negation + mark_punctuation",
        recipes.compose(recipes.strip_html, recipes.mark_negation, recipes.mark_punctuation),
        True,
    ),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="RT-s KFold shuffles")
    ap.add_argument("--no-sklearn", action="store_true", help="skip the scikit-learn runs")
    ap.add_argument("--no-variants", action="store_true", help="skip section 2")
    args = ap.parse_args()

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; data: {DATA}")  # fmt: skip
    data = load(args.seeds)
    by_name = {d.name: d for d in data}
    rt_note = f"10-fold CV, seeds {args.seeds}" if len(args.seeds) > 1 else "10-fold CV, seed 0"
    print(f"RT-s: {rt_note}; IMDB: official 25k/25k; SMS: stratified 80/20, seed 0\n")

    # ---------------------------------------------------------------- section 1
    print("## 1. Binarized MNB (alpha=1) vs Wang & Manning 2012 MNB\n")
    rows = []
    for (name, ngram), target in TARGETS.items():
        ds = by_name[name]
        acc, secs, ours = run(ds, ngram)
        a = acc[1.0]
        rows.append([name, f"TextClassifier {NGRAMS[ngram]}", f"{a:.2f}", f"{target:.2f}",
                     "yes" if a >= target else "NO", f"{secs:.1f}"])  # fmt: skip
        if not args.no_sklearn:
            sa, ssecs, theirs = run_sklearn(ds, ngram)
            same = all(np.array_equal(p, q) for p, q in zip(ours, theirs, strict=True))
            met = "yes" if sa >= target else "NO"
            rows.append([name, f"sklearn CountVectorizer+MNB {NGRAMS[ngram]}", f"{sa:.2f}",
                         f"{target:.2f}", met, f"{ssecs:.1f}"])  # fmt: skip
            rows[-1][1] += " (same predictions)" if same else " (PREDICTIONS DIFFER)"
            if ngram == (1, 1):
                wa, wsecs, _ = run_sklearn(ds, ngram, token_pattern=r"\S+")
                rows.append([name, "sklearn, W&M tokens: split at spaces (\\S+) uni",
                             f"{wa:.2f}", f"{target:.2f}", "yes" if wa >= target else "NO",
                             f"{wsecs:.1f}"])  # fmt: skip
    print(fmt_table(["dataset", "setting", "accuracy %", "target %", "met?", "time s"], rows))
    print()

    # ---------------------------------------------------------------- section 2
    if not args.no_variants:
        print("## 2. Recipe variants (binarized MNB), accuracy %\n")
        header = ["variant", "alpha"]
        for d in data:
            for ng in NGRAMS.values():
                header.append(f"{d.name} {ng}")
        header.append("time s")
        rows = []
        for label, recipe, lower in VARIANTS:
            res: dict[tuple[str, str], dict[float, float]] = {}
            total = 0.0
            alphas = ALPHAS if recipe is None and lower else (1.0,)
            for d in data:
                for ngram, ng in NGRAMS.items():
                    acc, secs, _ = run(d, ngram, recipe, alphas=alphas, lowercase=lower)
                    res[(d.name, ng)] = acc
                    total += secs
            for a in alphas:
                row = [label, f"{a:g}"]
                for d in data:
                    for ng in NGRAMS.values():
                        row.append(f"{res[(d.name, ng)][a]:.2f}")
                row.append(f"{total:.1f}" if a == alphas[-1] or len(alphas) == 1 else "")
                rows.append(row)
            print(f"  done: {label}", flush=True)
        print()
        print(fmt_table(header, rows))
        print()

    # ---------------------------------------------------------------- section 3
    print("## 3. Recommended recipe: recipes.sentiment_preprocess (= mark_ratings), alpha=1\n")
    rows = []
    for (name, ngram), target in TARGETS.items():
        ds = by_name[name]
        acc, secs, _ = run(ds, ngram, recipes.sentiment_preprocess)
        a = acc[1.0]
        rows.append([name, f"TextClassifier {NGRAMS[ngram]} + recipe", f"{a:.2f}",
                     f"{target:.2f}", "yes" if a >= target else "NO", f"{secs:.1f}"])  # fmt: skip
    print(fmt_table(["dataset", "setting", "accuracy %", "target %", "met?", "time s"], rows))


if __name__ == "__main__":
    main()
