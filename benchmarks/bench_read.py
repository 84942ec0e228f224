"""Read speed of nbayes.io.read_texts on the shared datasets (run by hand).

Usage::

    PYTHONPATH=src python benchmarks/bench_read.py [FILE ...]

Prints, for each file, the throughput of ``read_texts`` in MB/s of uncompressed
text (and of bytes on disk for gzip files), next to a bare ``csv.reader`` loop as
the baseline, and the peak traced memory of one pass with ``chunk_size=1000``.
"""

from __future__ import annotations

import csv
import gzip
import os
import sys
import time
import tracemalloc
from pathlib import Path

from nbayes.io import read_texts

DEFAULT_FILES = [
    "/work/shared/data/20newsgroups_bydate/20news_bydate_train.csv",
    "/work/shared/data/imdb/imdb_train.csv.gz",
]


def uncompressed_size(path: str) -> int:
    if path.endswith(".gz"):
        n = 0
        with gzip.open(path, "rb") as f:
            while block := f.read(1 << 20):
                n += len(block)
        return n
    return os.path.getsize(path)


def best_of(fn: object, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append(time.perf_counter() - t)
    return min(times)


def run_read_texts(path: str) -> int:
    return sum(len(c) for c in read_texts(path))


def run_csv_baseline(path: str) -> int:
    old = csv.field_size_limit(1 << 30)
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8", newline="") as f:  # type: ignore[operator]
            return sum(1 for _ in csv.reader(f)) - 1
    finally:
        csv.field_size_limit(old)


def peak_memory(path: str, chunk_size: int) -> int:
    tracemalloc.start()
    for _ in read_texts(path, chunk_size=chunk_size):
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main(files: list[str]) -> None:
    for path in files:
        if not Path(path).exists():
            print(f"{path}: missing, skipped")
            continue
        raw = uncompressed_size(path)
        disk = os.path.getsize(path)
        n = run_read_texts(path)
        t_nb = best_of(lambda p=path: run_read_texts(p))
        t_csv = best_of(lambda p=path: run_csv_baseline(p))
        peak = peak_memory(path, 1000)
        line = (
            f"{Path(path).name}: {n} docs, {raw / 1e6:.1f} MB text"
            f" | read_texts {raw / t_nb / 1e6:.0f} MB/s ({t_nb:.2f} s)"
            f" | csv.reader baseline {raw / t_csv / 1e6:.0f} MB/s"
        )
        if disk != raw:
            line += f" | {disk / t_nb / 1e6:.0f} MB/s of gzip on disk"
        line += f" | peak traced memory (chunk_size=1000) {peak / 1e6:.1f} MB"
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:] or DEFAULT_FILES)
