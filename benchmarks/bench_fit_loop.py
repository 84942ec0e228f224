"""Repeated fits in one process: what first-touch memory costs, call by call.

Runs ``TextClassifier().fit`` ``--calls`` times on 20 Newsgroups (or the first ``--docs``
documents of the Zipf corpus of bench_text.py) in one fresh process and prints, per call,
wall time, user and system CPU and minor page faults (the first call also imports
scikit-learn). Then the CPU time of ``nbayes.text._tokenize.direct_count`` alone on
``--threads`` threads (min and median of 7). Run it with each install to compare them
(bench_ab.py times only the second call of a process)::

    python benchmarks/bench_fit_loop.py [--corpus zipf --docs 30000] [--threads 1]
"""

from __future__ import annotations

import argparse
import csv
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
NEWS = Path("/work/shared/data/20newsgroups_bydate/20news_bydate_train.csv")
ZIPF = HERE / "_data" / "zipf_100mb.csv"


def read(path: Path, limit: int | None) -> tuple[list[str], list[str]]:
    csv.field_size_limit(sys.maxsize)
    with open(path, encoding="utf-8", newline="") as f:
        rows = csv.reader(f)
        head = next(rows)
        ti, li = head.index("text"), head.index("label")
        docs, labels = [], []
        for i, row in enumerate(rows):
            if limit is not None and i >= limit:
                break
            docs.append(row[ti])
            labels.append(row[li])
    return docs, labels


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", choices=("20ng", "zipf"), default="20ng")
    ap.add_argument("--docs", type=int, default=None, help="first N documents only")
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--threads", type=int, default=None, help="direct_count threads")
    args = ap.parse_args()
    docs, labels = read(NEWS if args.corpus == "20ng" else ZIPF, args.docs)

    import nbayes
    from nbayes.text import _tokenize as tk

    print(f"nbayes {nbayes.__file__}; {len(docs)} documents")
    for i in range(args.calls):
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0 = time.perf_counter()
        model = nbayes.TextClassifier().fit(docs, labels)
        wall = time.perf_counter() - t0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        print(
            f"fit {i}: wall {wall:.3f} s  user {r1.ru_utime - r0.ru_utime:.3f} s  "
            f"sys {r1.ru_stime - r0.ru_stime:.3f} s  faults {r1.ru_minflt - r0.ru_minflt}"
        )
        del model
    codes = np.unique(labels, return_inverse=True)[1]
    n_classes = int(codes.max()) + 1
    _ = tk.direct_count(docs, codes, n_classes, True, False, n_threads=args.threads).counts
    cpu = []
    for _ in range(7):
        c0 = time.process_time()
        _ = tk.direct_count(docs, codes, n_classes, True, False, n_threads=args.threads).counts
        cpu.append(time.process_time() - c0)
    print(
        f"direct_count on {args.threads or 'default'} thread(s): CPU min "
        f"{min(cpu) * 1000:.1f} ms, median {statistics.median(cpu) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
