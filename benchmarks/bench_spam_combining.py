"""Bulk scoring with each combining: ``SpamFilter()`` (Fisher's chi-square, raw mail in the
compiled text kernel) against ``SpamFilter(combining="mean")`` (token sets), a filter of
the whole SpamAssassin corpus scoring 2,000 of its raw messages in one process, messages
per CPU second, ``--runs`` interleaved runs (median):

    python benchmarks/bench_spam_combining.py
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_spam import find_corpus

from nbayes.spam import SpamFilter


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--messages", type=int, default=2000)
    args = ap.parse_args()
    root = find_corpus()
    paths = sorted(p for p in root.glob("*/*") if p.is_file())
    labels = ["spam" if p.parent.name.startswith("spam") else "ham" for p in paths]
    chi2 = SpamFilter().fit(paths, labels)
    mean = chi2.copy().set_params(combining="mean")
    raw = [p.read_bytes() for p in paths[:: max(len(paths) // args.messages, 1)]][: args.messages]
    rates: dict[str, list[float]] = {"chi2": [], "mean": []}
    for _ in range(args.runs):
        for name, f in (("chi2", chi2), ("mean", mean)):
            start = time.process_time()
            f.spamicity(raw)
            rates[name].append(len(raw) / (time.process_time() - start))
    for name, got in rates.items():
        runs = " / ".join(f"{r:,.0f}" for r in got)
        median = statistics.median(got)
        print(f"combining={name!r}: {runs} messages per CPU second (median {median:,.0f})")
    ratio = statistics.median(rates["mean"]) / statistics.median(rates["chi2"])
    print(f"mean / chi2: {ratio:.2f}x")


if __name__ == "__main__":
    main()
