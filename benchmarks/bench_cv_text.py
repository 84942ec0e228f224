"""10 folds x 10 alphas over raw text: nbayes cross-validation by count subtraction vs
scikit-learn's GridSearchCV(Pipeline(CountVectorizer, MultinomialNB), n_jobs=2).

Both score the same StratifiedKFold splits; the scores are asserted identical. Run:

    PYTHONPATH=src python benchmarks/bench_cv_text.py [--datasets rt,20ng]
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import make_pipeline

from nbayes import TextClassifier
from nbayes.model_selection import cross_validate

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
SETS = {
    "rt": DATA / "rt_polarity" / "rt_polarity.csv",
    "20ng": DATA / "20newsgroups_bydate" / "20news_bydate_train.csv",
}
ALPHAS = [0.01, 0.03, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0, 5.0]


def load(path: Path) -> tuple[list[str], np.ndarray]:
    csv.field_size_limit(sys.maxsize)
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))[1:]
    return [r[0] for r in rows], np.array([r[1] for r in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--datasets", default="rt,20ng")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores; 10 stratified folds x {len(ALPHAS)} alphas")
    print(f"{'data':6} {'setting':22} {'GridSearchCV':>13} {'nbayes':>9} {'ratio':>7}  best")
    for name in args.datasets.split(","):
        docs, y = load(SETS[name])
        cv = StratifiedKFold(10, shuffle=True, random_state=0)
        for kw in ({}, {"binary": True, "ngram_range": (1, 2)}):
            t = time.perf_counter()
            ours = cross_validate(
                TextClassifier(**kw), docs, y, cv=cv, param_grid={"alpha": ALPHAS}
            )
            t_ours = time.perf_counter() - t
            pipe = make_pipeline(CountVectorizer(**kw), MultinomialNB())
            t = time.perf_counter()
            grid = GridSearchCV(pipe, {"multinomialnb__alpha": ALPHAS}, cv=cv, n_jobs=2)
            grid.fit(docs, y)
            t_sk = time.perf_counter() - t
            theirs = np.array(
                [[grid.cv_results_[f"split{k}_test_score"][i] for k in range(10)]
                 for i in range(len(ALPHAS))]
            )  # fmt: skip
            scores = np.asarray(ours["test_score"])
            assert np.array_equal(scores, theirs), "scores differ from scikit-learn"
            best = ALPHAS[int(np.argmax(scores.mean(axis=1)))]
            setting = ",".join(f"{k}={v}" for k, v in kw.items()) or "counts, unigrams"
            print(
                f"{name:6} {setting:22} {t_sk:12.2f}s {t_ours:8.2f}s {t_sk / t_ours:6.1f}x  "
                f"alpha={best} acc={scores.mean(axis=1).max():.4f}"
            )


if __name__ == "__main__":
    main()
