"""What reading words as a reader sees them costs the mail tokenizer (issue 26).

``MailTokenizer()`` (``seen_words=True``: inline HTML tags and comments join the letters
either side, zero-width characters dropped, typographic apostrophes as the typewriter's)
against ``MailTokenizer(seen_words=False)`` over every message of the SpamAssassin public
corpus, CPU seconds, ``--rounds`` interleaved rounds, medians and their ratio.

Usage::

    python benchmarks/bench_seen_words.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_spam import corpus_messages, find_corpus  # noqa: E402

from nbayes.mail import MailTokenizer, _tokenizer  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    paths, _ = corpus_messages(find_corpus())
    raw = [p.read_bytes() for p in paths]
    tokenizers = {
        "seen_words=True": MailTokenizer(),
        "seen_words=False": MailTokenizer(seen_words=False),
    }
    times: dict[str, list[float]] = {name: [] for name in tokenizers}
    for _ in range(args.rounds):
        for name, tok in tokenizers.items():
            _tokenizer._forget_memos()  # (no header remembered from the other round)
            start = time.process_time()
            for message in raw:
                tok.tokens(message)
            times[name].append(time.process_time() - start)
    medians = {name: statistics.median(t) for name, t in times.items()}
    for name, t in times.items():
        print(f"{name}: {', '.join(f'{x:.2f}' for x in t)} s; median {medians[name]:.2f} s")
    print(f"ratio: {medians['seen_words=True'] / medians['seen_words=False']:.2f}x")


if __name__ == "__main__":
    main()
