"""The counting of hashed word n-grams in one process (issue 28): ``fit_chunks`` (chunks of
2,000 documents), ``fit`` and ``predict_proba`` of ``TextClassifier(hashing=True,
ngram_range=R)`` on the 20 Newsgroups bydate split; medians of ``--runs`` runs, as JSON.

Run it with two interpreters in turn (this tree's and one with an older nbayes installed)
for before/after on the same machine::

    python benchmarks/bench_hashed_counting.py
    /path/to/old/venv/bin/python benchmarks/bench_hashed_counting.py
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
from pathlib import Path

DATA = Path("/work/shared/data/20newsgroups_bydate")


def _read(path: Path) -> tuple[list[str], list[str]]:
    csv.field_size_limit(sys.maxsize)
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    return [t for t, _ in rows], [label for _, label in rows]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from nbayes.text import TextClassifier

    docs, y = _read(DATA / "20news_bydate_train.csv")
    test, _ = _read(DATA / "20news_bydate_test.csv")
    chunks = [(docs[i : i + 2000], y[i : i + 2000]) for i in range(0, len(docs), 2000)]
    out = {}
    for ngram in [(1, 2), (1, 3)]:
        for what in ("fit_chunks", "fit", "predict_proba"):
            times = []
            for _ in range(args.runs):
                model = TextClassifier(hashing=True, ngram_range=ngram)
                if what == "predict_proba":
                    model.fit_chunks(chunks)
                start = time.perf_counter()
                if what == "fit_chunks":
                    model.fit_chunks(chunks)
                elif what == "fit":
                    model.fit(docs, y)
                else:
                    model.predict_proba(test)
                times.append(time.perf_counter() - start)
            out[f"{ngram} {what}"] = round(statistics.median(times), 3)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
