"""Tokenizing the SpamAssassin corpus (6,046 messages): messages per CPU second of
``MailTokenizer().tokens``, the best of 3 passes in one process. Run it with the code before
a change and after (two installs), interleaved:

    python benchmarks/bench_tokenize_rate.py
"""

from __future__ import annotations

import time

from bench_spam import find_corpus

from nbayes.mail import MailTokenizer


def main() -> None:
    paths = sorted(p for p in find_corpus().glob("*/*") if p.is_file())
    data = [p.read_bytes() for p in paths]
    best = 0.0
    for _ in range(3):
        tokenizer = MailTokenizer()
        start = time.process_time()
        for raw in data:
            tokenizer.tokens(raw)
        best = max(best, len(data) / (time.process_time() - start))
    print(f"{len(data):,} messages: {best:.0f} messages per CPU second")


if __name__ == "__main__":
    main()
