"""Reading an mbox: ``nbayes.mail.read_mbox`` (a megabyte at a time, postmarks found by a
byte search) against its specification, the line-by-line reading it replaced
(``nbayes.mail._sources._read_mbox_lines``), on a mailbox written from the SpamAssassin
corpus (``bench_mbox.py``'s ``all.mbox``: the corpus repeated, body "From " lines quoted).
Both readings are checked to give the same messages; the figure is MB read a second, the
median of interleaved runs.

    python benchmarks/bench_mbox_read.py [--size-mb 200] [--runs 5]
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from bench_mbox import corpus_messages, write_mixed_mbox
from bench_spam import find_corpus

from nbayes.mail import read_mbox
from nbayes.mail._sources import _read_mbox_lines


def blocks(path: Path) -> Iterable[tuple[str, bytes]]:
    with open(path, "rb") as fh:
        for m in read_mbox(fh, "box", max_bytes=1 << 40):
            yield m.name, m.data


def lines(path: Path) -> Iterable[tuple[str, bytes]]:
    with open(path, "rb") as fh:
        yield from _read_mbox_lines(fh, "box")


def timed(read: Callable[[Path], Iterable[tuple[str, bytes]]], path: Path) -> tuple[float, str]:
    digest = hashlib.blake2b()
    start = time.perf_counter()
    for name, data in read(path):
        digest.update(name.encode())
        digest.update(data)
    return time.perf_counter() - start, digest.hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--size-mb", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    corpus = args.corpus or find_corpus()
    with tempfile.TemporaryDirectory() as tmp:
        box = Path(tmp) / "all.mbox"
        n = write_mixed_mbox(box, corpus_messages(corpus), args.size_mb << 20)
        size = box.stat().st_size / 1e6
        times: dict[str, list[float]] = {"read_mbox (blocks)": [], "line by line": []}
        digests = set()
        for _ in range(args.runs):  # interleaved: the machine's noise falls on both
            for label, read in (("read_mbox (blocks)", blocks), ("line by line", lines)):
                took, digest = timed(read, box)
                times[label].append(took)
                digests.add(digest)
        if len(digests) != 1:
            raise SystemExit("the two readings gave different messages")
        print(f"{n:,} messages, {size:,.0f} MB; median of {args.runs} interleaved runs")
        print("| reading | wall | MB/s |\n|---|---|---|")
        for label, ts in times.items():
            t = statistics.median(ts)
            print(f"| {label} | {t:.2f} s | {size / t:,.0f} |")
        ratio = statistics.median(times["line by line"]) / statistics.median(
            times["read_mbox (blocks)"]
        )
        print(f"blocks are {ratio:.1f}x the line reading's speed; the same messages")


if __name__ == "__main__":
    main()
