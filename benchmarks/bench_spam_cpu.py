"""The spam filter's speed in CPU seconds, less sensitive than wall time to other processes.

Prints one JSON line: bulk scoring of the raw corpus in one process (messages per CPU
second: parse, tokenize, score) and classify + learn + unlearn of 300 messages (CPU ms per
message), on a model of the whole SpamAssassin public corpus. Compare two installs by
running it alternately with each one's Python (BENCHMARKS.md has the loop):

    python benchmarks/bench_spam_cpu.py [--corpus DIR]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from nbayes.mail import _tokenizer
from nbayes.spam import SpamFilter


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=Path("/work/shared/data/spamassassin_public"))
    args = ap.parse_args()
    root = args.corpus
    rows = [line.split("\t") for line in (root / "index.tsv").read_text().splitlines()[1:]]
    raw = [(root / r[1]).read_bytes() for r in rows]
    labels = [r[2] for r in rows]
    model = SpamFilter()
    model.fit([model.tokenize(d) for d in raw], labels)
    forget = getattr(_tokenizer, "_forget_memos", None)
    if forget is not None:  # the corpus was just tokenized: score it as new mail
        forget()
    t0 = time.process_time()
    model.classify(raw)
    bulk = time.process_time() - t0
    sample = np.random.default_rng(0).choice(len(raw), size=300, replace=False)
    t0 = time.process_time()
    for i in sample:
        tokens = model.tokenize(raw[i])
        model.classify([tokens])
        model.partial_fit([tokens], [labels[i]])
        model.unlearn([tokens], [labels[i]])
    cycle = time.process_time() - t0
    print(
        json.dumps(
            {
                "bulk_msg_per_cpu_s": len(raw) / bulk,
                "classify_learn_unlearn_cpu_ms": 1e3 * cycle / len(sample),
            }
        )
    )


if __name__ == "__main__":
    main()
