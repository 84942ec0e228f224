"""Accuracy of binarized multinomial NB against Wang & Manning (2012), and recipe variants.

Protocols (``../shared/data/PUBLISHED_RESULTS.md``):

* RT-s (``rt_polarity.csv``): 10-fold cross-validation, ``StratifiedKFold(10, shuffle=True,
  random_state=seed)``, mean accuracy over the folds; seed 0 (``--seeds``) for the
  headline, and the mean (and range) over seeds 0-4 (``--mean-seeds``) because one
  shuffle moves the result by a few tenths of a point.
* IMDB: the official 25k/25k train/test split.
* SMS spam (a third check that a recipe does not hurt other tasks): one fixed stratified
  80/20 split, ``train_test_split(test_size=0.2, random_state=0, stratify=y)``; in the
  first section also 10-fold CV over the ``--mean-seeds`` shuffles.

All runs: ``TextClassifier(model="multinomial", binary=True, ngram_range=...)``, alpha=1
unless a table says otherwise, default tokenization (lowercase, ``(?u)\\b\\w\\w+\\b``).

Sections:

1. The four Wang & Manning MNB settings (unigrams / uni+bigrams on RT-s and IMDB), plus
   SMS spam: the default tokenization against the named recipe ``preprocess="sentiment"``
   (``nbayes.text.recipes.sentiment_preprocess``: ratings as tokens, then the three words
   after a negation marked ``NOT_``).
2. Checks (unless ``--no-sklearn``): scikit-learn's ``CountVectorizer(binary=True) +
   MultinomialNB()`` on the same splits gives identical predictions (default and recipe),
   and Wang & Manning's own unigram tokenization (split at white space, ``\\S+``).
3. Variants (unless ``--no-variants``), each on all datasets, unigrams and uni+bigrams:
   smoothing ``alpha`` (grid, default and recipe), ``lowercase=False``, the recipes of
   ``nbayes.text.recipes`` and combinations of them, and the tokenization changes tried
   while looking for the recipe (one-letter words, punctuation, contractions and
   hyphenated words kept as tokens, all-caps markers; defined in this file).
4. Speed of the recipe, MB of IMDB text per second.

Usage::

    PYTHONPATH=src python benchmarks/bench_accuracy.py   # everything (about 20 min)
    PYTHONPATH=src python benchmarks/bench_accuracy.py --no-sklearn --no-variants
"""

from __future__ import annotations

import argparse
import os
import platform
import re
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


def _kfold(y: np.ndarray, seeds: list[int]) -> list[tuple[np.ndarray, np.ndarray]]:
    splits = []
    for seed in seeds:
        skf = StratifiedKFold(n_splits=10, shuffle=True, random_state=seed)
        splits += list(skf.split(np.zeros(len(y)), y))
    return splits


def load(seeds: list[int], mean_seeds: int) -> list[Dataset]:
    """RT-s (``seeds``), RT-s over ``mean_seeds`` shuffles (if > 1), IMDB, SMS."""
    rt = pd.read_csv(DATA / "rt_polarity" / "rt_polarity.csv", keep_default_na=False)
    x, y = rt["text"].tolist(), rt["label"].to_numpy()
    out = [Dataset("RT-s", x, y, _kfold(y, seeds))]
    if mean_seeds > 1:
        # equal fold counts per seed: the mean over all folds is the mean of the seed means
        out.append(Dataset(f"RT-s {mean_seeds}x", x, y, _kfold(y, list(range(mean_seeds)))))

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
    preprocess: str | None = None,
) -> tuple[dict[float, float], float, list[np.ndarray]]:
    """Accuracy (%) per alpha (mean over splits), seconds (alpha=1 fit+predict incl.
    preprocessing), and the alpha=alphas[-1] predictions per split.

    ``recipe`` is applied once to all texts; ``preprocess`` is passed to TextClassifier
    (which applies it to each fold's documents, as a user would)."""
    t0 = time.perf_counter()
    texts = ds.texts if recipe is None else [recipe(t) for t in ds.texts]
    t_pre = time.perf_counter() - t0
    accs: dict[float, list[float]] = {a: [] for a in alphas}
    preds: list[np.ndarray] = []
    t_fit = 0.0
    for train, test in ds.splits:
        t1 = time.perf_counter()
        clf = TextClassifier(
            model="multinomial", binary=True, ngram_range=ngram, lowercase=lowercase,
            preprocess=preprocess,
        )  # fmt: skip
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
    ds: Dataset, ngram: tuple[int, int], token_pattern: str | None = None, recipe: Recipe = None
) -> tuple[float, float, list[np.ndarray]]:
    kw = {} if token_pattern is None else {"token_pattern": token_pattern}
    t0 = time.perf_counter()
    texts = ds.texts if recipe is None else [recipe(t) for t in ds.texts]
    accs, preds = [], []
    for train, test in ds.splits:
        pipe = make_pipeline(SkCount(binary=True, ngram_range=ngram, **kw), SkMNB(alpha=1.0))
        pipe.fit([texts[i] for i in train], ds.labels[train])
        p = pipe.predict([texts[i] for i in test])
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


# ------------------------------------------------------------------------------------
# Tokenization changes tried while looking for the recipe (not part of nbayes). Each
# keeps something the default token pattern drops, as a token of >= 2 word characters.
_ONE_LETTER = re.compile(r"(?<!\w)(\w)(?!\w)")  # "a", "I", "7" -> "a_", "I_", "7_"
_APOSTROPHE = re.compile(r"(?<=\w)['\u2019](?=\w)")  # "don't", "film's" -> "don_t", "film_s"
_NT = re.compile(r"(?<=\w)([nN])['\u2019]([tT])\b")  # "don't" -> "don_t" only
_HYPHEN = re.compile(r"(?<=\w)-(?=\w)")  # "coming-of-age" -> "coming_of_age"
_CAPS = re.compile(r"\b([A-Z]{2,})\b")  # "GREAT" -> "ALLCAPS GREAT"
_RATING_SLASH = re.compile(r"(\d+(?:\.\d+)?)\s*/\s*(\d+)\b")  # the former mark_ratings
_PUNCT_NAMES = {
    "!": "EXCLAMATIONMARK", "?": "QUESTIONMARK", ".": "PUNCTDOT", ",": "PUNCTCOMMA",
    ";": "PUNCTSEMICOLON", ":": "PUNCTCOLON", '"': "PUNCTQUOTE", "'": "PUNCTAPOS",
    "(": "PUNCTPAREN", ")": "PUNCTPAREN", "-": "PUNCTDASH", "*": "PUNCTSTAR",
    "/": "PUNCTSLASH", "&": "PUNCTAMP", "\u2013": "PUNCTDASH", "\u2014": "PUNCTDASH",
}  # fmt: skip
_PUNCT_ALL = str.maketrans({c: f" {n} " for c, n in _PUNCT_NAMES.items()})


def one_letter_words(text: str) -> str:
    return _ONE_LETTER.sub(r"\1_", text)


def apostrophes_whole(text: str) -> str:
    return _APOSTROPHE.sub("_", text)


def nt_whole(text: str) -> str:
    return _NT.sub(r"\1_\2", text)


def hyphens_whole(text: str) -> str:
    return _HYPHEN.sub("_", text)


def caps_marker(text: str) -> str:
    return _CAPS.sub(r"ALLCAPS \1", text)


def punctuation_all(text: str) -> str:
    return text.translate(_PUNCT_ALL)


def ratings_slash_only(text: str) -> str:
    return _RATING_SLASH.sub(
        lambda m: f" {m.group(1).replace('.', '_')}_OUT_OF_{m.group(2)} ", text
    )


def negation(scope: int | None) -> Callable[[str], str]:
    def f(text: str) -> str:
        return recipes.mark_negation(text, scope=scope)

    f.__name__ = f"mark_negation(scope={scope})"
    return f


C = recipes.compose
S = recipes.sentiment_preprocess

# (label, recipe or ("sklearn", token_pattern), lowercase, alpha grid?)
VARIANTS: list[tuple[str, Recipe | tuple[str, str], bool, bool]] = [
    ("default (lowercase, \\w\\w+ tokens)", None, True, True),
    ("lowercase=False", None, False, False),
    ("W&M unigram tokens: split at white space (sklearn \\S+)", ("sklearn", r"\S+"), True, False),
    # -- tokenization: keep what \w\w+ drops
    ("one-letter words as tokens (a_, i_)", one_letter_words, True, False),
    ("apostrophes kept inside words (don_t, it_s)", apostrophes_whole, True, False),
    ("n't kept whole (don_t)", nt_whole, True, False),
    ("hyphenated words kept whole", hyphens_whole, True, False),
    ("mark_punctuation (! ? as tokens)", recipes.mark_punctuation, True, False),
    ("strip_html + all punctuation as tokens", C(recipes.strip_html, punctuation_all), True, False),
    (
        "W&M-like: strip_html + apostrophes + one-letter + all punctuation",
        C(recipes.strip_html, apostrophes_whole, one_letter_words, punctuation_all),
        True,
        False,
    ),
    ("ALLCAPS marker before all-caps words", caps_marker, True, False),
    ("strip_html", recipes.strip_html, True, False),
    # -- ratings
    ("ratings '/' only (the former sentiment recipe)", ratings_slash_only, True, False),
    ("mark_ratings ('/' and 'out of')", recipes.mark_ratings, True, False),
    ("strip_html + mark_ratings", C(recipes.strip_html, recipes.mark_ratings), True, False),
    # -- negation
    ("mark_negation (scope to punctuation)", recipes.mark_negation, True, False),
    (
        "strip_html + mark_negation (to punctuation)",
        C(recipes.strip_html, recipes.mark_negation),
        True,
        False,
    ),
    (
        "mark_ratings + mark_negation (to punctuation)",
        C(recipes.mark_ratings, recipes.mark_negation),
        True,
        False,
    ),
    (
        "strip_html + mark_negation + mark_punctuation",
        C(recipes.strip_html, recipes.mark_negation, recipes.mark_punctuation),
        True,
        False,
    ),
    ("mark_negation(scope=3) alone", negation(3), True, False),
    ("mark_ratings + mark_negation(scope=1)", C(recipes.mark_ratings, negation(1)), True, False),
    ("mark_ratings + mark_negation(scope=2)", C(recipes.mark_ratings, negation(2)), True, False),
    ("sentiment_preprocess = mark_ratings + mark_negation(scope=3)", S, True, True),
    ("mark_ratings + mark_negation(scope=4)", C(recipes.mark_ratings, negation(4)), True, False),
    ("mark_ratings + mark_negation(scope=5)", C(recipes.mark_ratings, negation(5)), True, False),
    # -- additions on top of the recipe
    ("strip_html + sentiment", C(recipes.strip_html, S), True, False),
    ("sentiment + ! ? tokens", C(S, recipes.mark_punctuation), True, False),
    ("sentiment + one-letter words", C(S, one_letter_words), True, False),
    ("sentiment + n't kept whole", C(S, nt_whole), True, False),
    ("sentiment + hyphenated words kept whole", C(S, hyphens_whole), True, False),
    ("sentiment + ALLCAPS marker", C(S, caps_marker), True, False),
]


def _per_seed(ds: Dataset, preds: list[np.ndarray]) -> list[float]:
    """Accuracy (%) per shuffle of a dataset whose splits are 10 folds per shuffle."""
    accs = [float(np.mean(p == ds.labels[te])) for p, (_, te) in zip(preds, ds.splits, strict=True)]
    return [100.0 * float(np.mean(accs[i : i + 10])) for i in range(0, len(accs), 10)]


def section_headline(
    by_name: dict[str, Dataset], mean_name: str | None, seeds: list[int], sms_cv: Dataset | None
) -> None:
    print('## 1. Binarized MNB (alpha=1): default tokenization vs preprocess="sentiment"\n')
    seed_note = f"seed {seeds[0]}" if len(seeds) == 1 else f"seeds {seeds}"
    rows = []
    settings: list[tuple[Dataset, str, tuple[int, int], float | None]] = []
    for ngram in NGRAMS:
        settings.append((by_name["RT-s"], f"RT-s ({seed_note})", ngram, TARGETS[("RT-s", ngram)]))
        if mean_name is not None:
            n = mean_name.split()[1][:-1]
            settings.append((by_name[mean_name], f"RT-s (mean of {n} shuffles; min-max)",
                             ngram, TARGETS[("RT-s", ngram)]))  # fmt: skip
    for ngram in NGRAMS:
        settings.append((by_name["IMDB"], "IMDB (official split)", ngram, TARGETS[("IMDB", ngram)]))
    for ngram in NGRAMS:
        settings.append((by_name["SMS"], "SMS spam (80/20)", ngram, None))
    if sms_cv is not None:
        for ngram in NGRAMS:
            k = len(sms_cv.splits) // 10
            settings.append((sms_cv, f"SMS spam (10-fold CV, mean of {k} shuffles)", ngram, None))
    for ds, label, ngram, target in settings:
        base, t_base, p_base = run(ds, ngram)
        rec, t_rec, p_rec = run(ds, ngram, preprocess="sentiment")
        b, r = f"{base[1.0]:.2f}", f"{rec[1.0]:.2f}"
        if len(ds.splits) > 10 and ds.name.startswith("RT-s"):
            (lb, *_, hb), (lr, *_, hr) = sorted(_per_seed(ds, p_base)), sorted(_per_seed(ds, p_rec))
            b += f" ({lb:.2f}-{hb:.2f})"
            r += f" ({lr:.2f}-{hr:.2f})"
        if target is not None:
            met = "yes" if rec[1.0] >= target else "NO"
            tgt = f"{target:.2f}"
        else:  # no target: report the change in test documents
            n_test = sum(len(te) for _, te in ds.splits)
            diff = sum(
                int(np.sum(q == ds.labels[te])) - int(np.sum(p == ds.labels[te]))
                for p, q, (_, te) in zip(p_base, p_rec, ds.splits, strict=True)
            )
            met = f"{rec[1.0] - base[1.0]:+.2f} ({diff:+d} of {n_test} test msgs)"
            tgt = "-"
        rows.append([label, NGRAMS[ngram], tgt, b, r, met, f"{t_base:.1f} / {t_rec:.1f}"])
    header = ["data", "features", "W&M MNB", "default", "sentiment", "met / change",
              "time s (default / sentiment)"]  # fmt: skip
    print(fmt_table(header, rows))
    print()


def section_checks(by_name: dict[str, Dataset]) -> None:
    print("## 2. Checks against scikit-learn (CountVectorizer(binary=True) + MultinomialNB)\n")
    rows = []
    for (name, ngram), target in TARGETS.items():
        ds = by_name[name]
        for label, recipe, pre in (("default", None, None), ("sentiment", S, "sentiment")):
            _, _, ours = run(ds, ngram, preprocess=pre)
            sa, ssecs, theirs = run_sklearn(ds, ngram, recipe=recipe)
            same = all(np.array_equal(p, q) for p, q in zip(ours, theirs, strict=True))
            rows.append([name, f"sklearn {NGRAMS[ngram]}, {label} texts", f"{sa:.2f}",
                         f"{target:.2f}", "identical" if same else "DIFFER",
                         f"{ssecs:.1f}"])  # fmt: skip
        if ngram == (1, 1):
            wa, wsecs, _ = run_sklearn(ds, ngram, token_pattern=r"\S+")
            rows.append([name, "sklearn uni, W&M tokens: split at white space (\\S+)",
                         f"{wa:.2f}", f"{target:.2f}", "-", f"{wsecs:.1f}"])  # fmt: skip
    header = ["dataset", "setting", "accuracy %", "W&M %", "predictions vs nbayes", "time s"]
    print(fmt_table(header, rows))
    print()


def section_variants(data: list[Dataset]) -> None:
    print("## 3. Variants (binarized MNB), accuracy %\n")
    header = ["variant", "alpha"]
    for d in data:
        for ng in NGRAMS.values():
            header.append(f"{d.name} {ng}")
    header.append("time s")
    rows = []
    for label, recipe, lower, grid in VARIANTS:
        res: dict[tuple[str, str], dict[float, float]] = {}
        total = 0.0
        alphas = ALPHAS if grid else (1.0,)
        for d in data:
            for ngram, ng in NGRAMS.items():
                if isinstance(recipe, tuple):  # ("sklearn", token_pattern)
                    acc1, secs, _ = run_sklearn(d, ngram, token_pattern=recipe[1])
                    acc = {1.0: acc1}
                else:
                    acc, secs, _ = run(d, ngram, recipe, alphas=alphas, lowercase=lower)
                res[(d.name, ng)] = acc
                total += secs
        for a in alphas:
            row = [label, f"{a:g}"]
            for d in data:
                for ng in NGRAMS.values():
                    row.append(f"{res[(d.name, ng)][a]:.2f}")
            row.append(f"{total:.1f}" if a == alphas[-1] else "")
            rows.append(row)
        print(f"  done: {label}", flush=True)
    print()
    print(fmt_table(header, rows))
    print()


def section_speed(imdb: Dataset) -> None:
    print("## 4. Speed of the recipe on IMDB (50,000 reviews), best of 3\n")
    mb = sum(len(t.encode("utf-8")) for t in imdb.texts) / 1e6
    rows = []
    steps: list[tuple[str, Callable[[str], str]]] = [
        ("mark_ratings", recipes.mark_ratings),
        ("mark_negation(scope=3)", negation(3)),
        ("sentiment_preprocess (both)", S),
        ("strip_html (for comparison)", recipes.strip_html),
        ("mark_negation (scope to punctuation)", recipes.mark_negation),
    ]
    for name, fn in steps:
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            for t in imdb.texts:
                fn(t)
            best = min(best, time.perf_counter() - t0)
        rows.append([name, f"{mb:.1f}", f"{best:.2f}", f"{mb / best:.1f}"])
    n = len(imdb.splits[0][0])
    for ngram in NGRAMS:
        t0 = time.perf_counter()
        clf = TextClassifier(binary=True, ngram_range=ngram).fit(imdb.texts[:n], imdb.labels[:n])
        clf.predict(imdb.texts[n:])
        secs = time.perf_counter() - t0
        rows.append([f"for comparison: TextClassifier {NGRAMS[ngram]} fit + predict", f"{mb:.1f}",
                     f"{secs:.2f}", f"{mb / secs:.1f}"])  # fmt: skip
    print(fmt_table(["step", "MB", "seconds", "MB/s"], rows))
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0], help="RT-s KFold shuffles")
    ap.add_argument("--mean-seeds", type=int, default=5,
                    help="also report RT-s averaged over shuffles 0..N-1 (1: off)")  # fmt: skip
    ap.add_argument("--no-sklearn", action="store_true", help="skip the scikit-learn checks")
    ap.add_argument("--no-variants", action="store_true", help="skip the variants")
    ap.add_argument("--no-speed", action="store_true", help="skip the speed table")
    args = ap.parse_args()

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}; data: {DATA}")  # fmt: skip
    data = load(args.seeds, args.mean_seeds)
    by_name = {d.name: d for d in data}
    mean_name = f"RT-s {args.mean_seeds}x" if args.mean_seeds > 1 else None
    print(f"RT-s: 10-fold CV, seeds {args.seeds}"
          + (f" (and the mean over seeds 0-{args.mean_seeds - 1}: '{mean_name}')" if mean_name
             else "")
          + "; IMDB: official 25k/25k; SMS: stratified 80/20, seed 0\n")  # fmt: skip

    sms_cv = None
    if args.mean_seeds > 1:
        sms = by_name["SMS"]
        sms_cv = Dataset(
            "SMS CV", sms.texts, sms.labels, _kfold(sms.labels, list(range(args.mean_seeds)))
        )
    section_headline(by_name, mean_name, args.seeds, sms_cv)
    if not args.no_sklearn:
        section_checks(by_name)
    if not args.no_variants:
        section_variants(data)
    if not args.no_speed:
        section_speed(by_name["IMDB"])


if __name__ == "__main__":
    main()
