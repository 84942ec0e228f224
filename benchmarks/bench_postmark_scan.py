"""An mbox read as one message (``parse(path)``, ``MailTokenizer().tokens(path)``) counts its
postmarks: the compiled scan (``_mail_native.next_postmark_end``, in ``_mbox_messages``)
against the pattern it replaced (``_NEXT_POSTMARK.finditer``, kept as its specification),
on 1 MB files of "From a ..." lines after blank lines, dense in "d:dd" and "dddd" (where the
pattern's bounded pieces nest), and on an mbox of the shared corpus' messages. Both must
count the same; the figure is seconds per file, median of interleaved runs.

    python benchmarks/bench_postmark_scan.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_spam import corpus_messages, find_corpus  # noqa: E402

from nbayes.mail._mime import _HEAD_FIELD, _NEXT_POSTMARK, _POSTMARK, _mbox_messages

FIRST = b"From a@b Mon Jan  1 10:00:00 2024\nSubject: a\n\nx\n"
LINES = {  # a line's rest after "From a ": the pattern's cost grows with its d:dd and dddd
    "too long (360 B of 1:1111)": b"1:1111" * 60,
    "no end after the years": b"1:11" * 25 + b"1111" * 20 + b"x" * 101,
    "no year after the times": b"1:1111" * 16 + b"x" * 101 + b"1:1111" * 16,
    "real postmarks (one-line messages)": b"Mon Jan  1 10:00:00 2024",
}


def by_the_pattern(data: bytes) -> int:
    """``_mbox_messages`` as it was."""
    if not _POSTMARK.match(data):
        return 1
    return 1 + sum(1 for m in _NEXT_POSTMARK.finditer(data) if _HEAD_FIELD.match(data, m.end()))


def seconds(fn: Callable[[bytes], int], data: bytes) -> tuple[float, int]:
    start = time.perf_counter()
    n = fn(data)
    return time.perf_counter() - start, n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    files = {
        name: FIRST + (b"\n\nFrom a " + rest + b"\nSubject: b\n") * (1_000_000 // (len(rest) + 21))
        for name, rest in LINES.items()
    }
    paths, _ = corpus_messages(find_corpus())  # the corpus as one mbox: a postmark each
    stamp = b"From a@b Mon Jan  1 10:00:00 2024\n"
    raws = [p.read_bytes() for p in paths]  # (most start with their own postmark)
    box = b"".join((b"" if r.startswith(b"From ") else stamp) + r + b"\n\n" for r in raws)
    files["the corpus as one mbox"] = box
    print(f"{'file':36} {'MB':>6} {'messages':>9} {'pattern s':>10} {'scan s':>9} {'ratio':>8}")
    for name, data in files.items():
        pattern, scan = [], []
        for _ in range(args.runs):  # interleaved: the machine's drift falls on both
            t, a = seconds(by_the_pattern, data)
            pattern.append(t)
            t, b = seconds(_mbox_messages, data)
            scan.append(t)
            if a != b:
                raise SystemExit(f"{name}: the pattern counts {a}, the scan {b}")
        p, s = statistics.median(pattern), statistics.median(scan)
        print(f"{name:36} {len(data) / 1e6:6.1f} {b:9,} {p:10.4f} {s:9.4f} {p / s:7.0f}x")


if __name__ == "__main__":
    main()
