"""How long Ctrl-C takes to stop a bigram fit of ~3 million terms, at random points of it.

A child process fits ``TextClassifier(ngram_range=(1, 2))`` on 6,000 documents of 300
words drawn from 2.5 million (the corpus of
``tests/native/test_native.py::test_ctrl_c_interrupts_a_fit_of_millions_of_word_pairs``)
in a loop; ``--points`` times, a fresh child gets SIGINT at a random moment of its first
``--span`` seconds, and the time until it prints that it caught the ``KeyboardInterrupt``
is measured, with the innermost frames of where it was raised. Prints each point, then the
median and the worst.

Usage::

    python benchmarks/bench_interrupt.py [--points 30] [--span 7] [--seed 5]
"""

from __future__ import annotations

import argparse
import select
import signal
import statistics
import subprocess
import sys
import textwrap
import time

CHILD = textwrap.dedent(
    """
    import sys, traceback
    import numpy as np
    from nbayes import TextClassifier
    rng = np.random.default_rng(0)
    words = np.array([f"w{i:x}q" for i in range(2_500_000)])
    docs = [" ".join(words[rng.integers(0, len(words), 300)]) for _ in range(6000)]
    y = (np.arange(len(docs)) % 5).astype(str)
    TextClassifier(ngram_range=(1, 2)).fit(docs[:100], y[:100])
    print("ready", flush=True)
    try:
        while True:
            TextClassifier(ngram_range=(1, 2)).fit(docs, y)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        frames = traceback.extract_tb(sys.exc_info()[2])[-2:]
        print(" < ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno} {f.name}"
                         for f in reversed(frames)), flush=True)
    """
)


def one(after: float) -> tuple[float, str]:
    """Seconds from SIGINT (``after`` s into the fits) to the child's "interrupted", and
    where it was raised."""
    with subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True) as p:
        assert p.stdout is not None
        if p.stdout.readline().strip() != "ready":
            raise SystemExit("the child did not start")
        time.sleep(after)
        t0 = time.perf_counter()
        p.send_signal(signal.SIGINT)
        ready, _, _ = select.select([p.stdout], [], [], 30)
        if not ready:  # SIGINT ignored (a shell's background job) or lost
            p.kill()
            return float("inf"), "no answer in 30 s (is SIGINT ignored in this shell?)"
        line = p.stdout.readline().strip()
        elapsed = time.perf_counter() - t0
        where = p.stdout.readline().strip()
        p.wait(timeout=30)
    return (elapsed if line == "interrupted" else float("inf")), where


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=int, default=30)
    ap.add_argument("--span", type=float, default=7.0, help="seconds of fitting to sample")
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    import random

    rng = random.Random(args.seed)
    times = []
    for _ in range(args.points):
        after = rng.uniform(0, args.span)
        took, where = one(after)
        times.append(took)
        print(f"{after:5.2f} s in: {took:6.3f} s  ({where})", flush=True)
    print(f"median {statistics.median(times):.3f} s, worst {max(times):.3f} s "
          f"({args.points} interrupts)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
