"""A burst of deliveries: N ``nbayes filter MODEL --update`` at once (a mail server handing
over the messages that arrived together), each a process of its own, on a model of the
whole SpamAssassin corpus. They take turns on the model's lock; the figure is how many were
learnt (exit 0 spam / 1 ham / 2 unsure) and how many gave up (exit 3: deferred by the mail
server), the wall time of the burst and the CPU of all its processes, and whether the
model's counts are exactly the sure verdicts learnt (no registration lost).

    python benchmarks/bench_deliveries.py [--deliveries 80]

Before the lock's wait was per holder (2026-12-05), 69 of 80 gave up after 60 s though the
lock changed hands all along, and the waiters' polls took more than a core. Before a
registration appended to MODEL.pending (the same day), 80 at once took 27 s, then 10 s.
Before the waiters looked for the lock's holder once a second instead of at each try
(2026-12-05, later), the burst took 20.3-20.6 s of CPU, now 12.0-12.6 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench_spam import find_corpus

import nbayes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deliveries", type=int, default=80)
    args = parser.parse_args()
    corpus = find_corpus()
    nbayes_cmd = [sys.executable, "-m", "nbayes"]
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "m.nbayes"
        subprocess.run([*nbayes_cmd, "train", str(corpus), "-o", str(model), "--model",
                        "spam", "-q"], check=True)  # fmt: skip
        before = nbayes.load(model).table_
        n_ham0, n_spam0 = before.n_ham, before.n_spam
        half = args.deliveries // 2
        mail = sorted((corpus / "spam").iterdir())[1100 : 1100 + half]
        mail += sorted((corpus / "ham").iterdir())[1100 : 1100 + args.deliveries - half]
        shutil.copy(model, Path(tmp) / "first.nbayes")

        def deliver(path: Path) -> int:
            with open(path, "rb") as stdin:
                return subprocess.run(
                    [*nbayes_cmd, "filter", str(model), "--update"],
                    stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                ).returncode  # fmt: skip

        cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(mail)) as pool:
            codes = list(pool.map(deliver, mail))
        wall = time.perf_counter() - start
        cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        after = nbayes.load(model).table_
        status = Counter(codes)
        learnt = (after.n_ham - n_ham0) + (after.n_spam - n_spam0)
        sure = status[0] + status[1]
        print(f"{len(mail)} deliveries at once on a model of {len(before):,} tokens "
              f"({os.cpu_count()} cores)")  # fmt: skip
        print(f"  exit 0 (spam) {status[0]}, 1 (ham) {status[1]}, 2 (unsure) {status[2]}, "
              f"3 (gave up / error) {status[3]}")  # fmt: skip
        print(
            f"  wall {wall:.1f} s, CPU of the deliveries "
            f"{cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime:.1f} s"
        )
        print(
            f"  learnt {learnt} (sure verdicts: {sure}): "
            + ("no registration lost" if learnt == sure else "COUNTS DIFFER")
        )


if __name__ == "__main__":
    main()
