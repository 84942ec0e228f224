"""Learning in the kernel against its Python reading, on the whole shared corpus: the
corpus' token sets counted into a fresh table 512 messages at a time
(``TokenTable.learn``, ``_mail_native.learn_counts``, against ``_learn_reference``), the
two halves' tables merged (``merge`` against ``_merge_reference``), and the whole model
saved (``nbayes.save``). The same tables are checked; the times are per message of the
corpus, medians of interleaved runs.

    python benchmarks/bench_learn_counts.py [--corpus DIR] [--runs 5]
"""

from __future__ import annotations

import argparse
import csv
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_spam import find_corpus

import nbayes
from nbayes.spam import SpamFilter, TokenTable


def learn_all(
    sets: list[frozenset[str]], spam: list[bool], learn: Callable[..., None], table: TokenTable
) -> TokenTable:
    for i in range(0, len(sets), 512):
        chunk, flags = sets[i : i + 512], spam[i : i + 512]
        learn(table)([s for s, f in zip(chunk, flags, strict=True) if f], spam=True)
        learn(table)([s for s, f in zip(chunk, flags, strict=True) if not f], spam=False)
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    root = args.corpus or find_corpus()
    rows = list(csv.DictReader(open(root / "index.tsv", encoding="utf-8"), delimiter="\t"))
    f = SpamFilter()
    sets = [frozenset(f.tokenize((root / r["path"]).read_bytes())) for r in rows]
    spam = [r["label"] == "spam" for r in rows]
    n = len(sets)
    half = n // 2

    def kernel(t: TokenTable) -> Callable[..., None]:
        return t.learn

    def reference(t: TokenTable) -> Callable[..., None]:
        return t._learn_reference

    times: dict[str, list[float]] = {k: [] for k in ("learn", "learn_ref", "merge", "merge_ref")}
    for _ in range(args.runs):  # interleaved
        t0 = time.perf_counter()
        a = learn_all(sets, spam, kernel, TokenTable())
        t1 = time.perf_counter()
        b = learn_all(sets, spam, reference, TokenTable())
        t2 = time.perf_counter()
        times["learn"].append((t1 - t0) / n * 1e6)
        times["learn_ref"].append((t2 - t1) / n * 1e6)
        if a != b or a.row_tokens != b.row_tokens:
            raise SystemExit("the kernel's table is not the Python reading's")
        for name, merge in (
            ("merge", TokenTable.merge),
            ("merge_ref", TokenTable._merge_reference),
        ):
            first = learn_all(sets[:half], spam[:half], kernel, TokenTable())
            second = learn_all(sets[half:], spam[half:], kernel, TokenTable())
            t0 = time.perf_counter()
            merge(first, second)
            times[name].append((time.perf_counter() - t0) / n * 1e6)
            if first != a:
                raise SystemExit(f"{name}: the merged halves are not the whole")
    model = SpamFilter().fit(sets, ["spam" if s else "ham" for s in spam])
    saves = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.runs):
            t0 = time.perf_counter()
            nbayes.save(model, Path(tmp) / "m.nbayes")
            saves.append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{n} messages, {len(a):,} tokens; us per message, median of {args.runs} runs")
    print(
        f"learn (512 at a time): kernel {med['learn']:.0f}, Python {med['learn_ref']:.0f}"
        f" ({med['learn_ref'] / med['learn']:.1f}x)"
    )
    print(
        f"merge of the halves:   kernel {med['merge']:.1f}, Python {med['merge_ref']:.1f}"
        f" ({med['merge_ref'] / med['merge']:.1f}x)"
    )
    print(f"save the model: {statistics.median(saves):.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
