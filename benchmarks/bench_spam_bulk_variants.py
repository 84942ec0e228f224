"""Bulk scoring of the SpamAssassin corpus under two conditions that might slow it: the
process holding the corpus' token sets (2.3 million str, as ``bench_spam.py`` holds them
while it times), and the workers leaving what they inherit out of their garbage
collections (``gc.freeze()`` in ``nbayes.spam._bulk._keep_shared``).

One variant per process (a fresh process each time); run the variants interleaved:

    for r in 1 2 3 4; do for v in "hold plain" "drop plain" "hold freeze" "drop freeze"; do
        python benchmarks/bench_spam_bulk_variants.py $v; done; done

Each prints a JSON line: the best of two bulk runs of the whole corpus, in 1 and in 2
processes (messages/s).
"""

from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path

from bench_spam import find_corpus, forget_memos

from nbayes import SpamFilter
from nbayes.spam import _bulk, classify_many


def main() -> None:
    mode, freeze = sys.argv[1], sys.argv[2] == "freeze"
    if mode not in ("hold", "drop") or sys.argv[2] not in ("plain", "freeze"):
        raise SystemExit("usage: bench_spam_bulk_variants.py {hold|drop} {plain|freeze}")
    if not freeze:
        _bulk._keep_shared = lambda: None  # type: ignore[assignment]
    root = find_corpus()
    rows = [line.split("\t") for line in (root / "index.tsv").read_text().splitlines()[1:]]
    raw = [Path(root / r[1]).read_bytes() for r in rows]
    labels = [r[2] for r in rows]
    sets = [SpamFilter().tokenize(d) for d in raw]
    model = SpamFilter().fit(sets, labels)
    model.classify(raw[:10])
    if mode == "drop":
        sets.clear()
        gc.collect()

    def rate(n_jobs: int) -> float:
        forget_memos()
        t0 = time.perf_counter()
        n = sum(1 for _ in classify_many(model, raw, n_jobs=n_jobs))
        return n / (time.perf_counter() - t0)

    one = max(rate(1) for _ in range(2))
    two = max(rate(2) for _ in range(2))
    print(json.dumps({"mode": mode, "freeze": freeze, "one": round(one), "two": round(two)}))


if __name__ == "__main__":
    main()
