"""What a mail recipe option costs the tokenizer (issue 26).

``MailTokenizer()`` against ``MailTokenizer(OPTION=False)`` over every message of the
SpamAssassin public corpus, CPU seconds, ``--rounds`` interleaved rounds, medians and
their ratio. ``--option seen_words`` (the default): inline HTML tags and comments join
the letters either side, zero-width characters dropped, typographic apostrophes as the
typewriter's; ``--option cjk_bigrams``: Chinese, Japanese and Korean text read two
characters at a time.

Usage::

    python benchmarks/bench_recipe_option.py --option seen_words --rounds 7
    python benchmarks/bench_recipe_option.py --option cjk_bigrams --rounds 7
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
    ap.add_argument("--option", default="seen_words", choices=("seen_words", "cjk_bigrams"))
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    paths, _ = corpus_messages(find_corpus())
    raw = [p.read_bytes() for p in paths]
    on, off = f"{args.option}=True", f"{args.option}=False"
    tokenizers = {on: MailTokenizer(), off: MailTokenizer(**{args.option: False})}
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
    print(f"ratio: {medians[on] / medians[off]:.2f}x")


if __name__ == "__main__":
    main()
