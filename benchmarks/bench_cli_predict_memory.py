"""Peak memory of ``nbayes predict`` and ``nbayes eval`` on a large CSV against ``nbayes
train`` on it.

``nbayes predict`` read every document before answering (6.6 GB for a 1.5 GB CSV, 15x
``train``'s peak: a data engineer's trial), ``eval`` too (2.8 GB); they read a chunk at a
time. Each job runs as
its own process under ``/usr/bin/time -v`` (peak RSS), the jobs interleaved over
``--rounds``; the medians and ``predict``'s peak over ``train``'s are printed.
``--before PATH`` also runs them with ``PYTHONPATH=PATH`` (a checkout of an earlier
commit, its compiled modules copied into its ``src/nbayes`` and a ``sitecustomize`` that
drops the editable install's finder: the "before" rows). The answers of the two are
compared byte for byte.

Usage::

    python benchmarks/make_big_csv.py --size-mb 300 --out benchmarks/_data/big_300mb.csv
    python benchmarks/bench_cli_predict_memory.py --data benchmarks/_data/big_300mb.csv
    python benchmarks/bench_cli_predict_memory.py --data ... --before /tmp/site:/tmp/old/src
"""

from __future__ import annotations

import argparse
import filecmp
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cli_train_memory import peak_mib  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="a text,label CSV (make_big_csv.py)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--before", help="PYTHONPATH of an earlier commit's nbayes")
    args = ap.parse_args()
    size = os.path.getsize(args.data) / 2**20
    print(f"{args.data}: {size:,.0f} MiB; {args.rounds} interleaved rounds")
    python = sys.executable
    results: dict[str, list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        model = str(Path(tmp) / "model.nbayes")
        train = [python, "-m", "nbayes", "train", args.data, "-o", model, "-q", "--force"]
        results["nbayes train"] = [peak_mib(train)]
        commands = {
            "predict": ["predict", model, args.data, "--proba", "-q"],
            "eval": ["eval", model, args.data, "--json", "-q"],
        }
        whens = ("", ", before") if args.before else ("",)
        for r in range(args.rounds):
            if r:
                results["nbayes train"].append(peak_mib(train))
            for name, argv in commands.items():
                for when in whens:
                    env = {**os.environ, "PYTHONPATH": args.before} if when else None
                    out = str(Path(tmp) / f"{name}{when}.out")
                    cmd = [python, "-m", "nbayes", *argv]
                    results.setdefault(name + when, []).append(peak_mib(cmd, out=out, env=env))
        for name in commands if args.before else ():
            a, b = Path(tmp) / f"{name}.out", Path(tmp) / f"{name}, before.out"
            print(f"{name}: answers equal byte for byte: {filecmp.cmp(a, b, shallow=False)}")
    print(f"{'job':<16} {'peak MiB':>9} {'wall s':>7}")
    medians = {}
    for job, runs in results.items():
        medians[job] = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{job:<16} {medians[job]:>9,.0f} {wall:>7.1f}")
    for job in ("predict", "predict, before", "eval", "eval, before"):
        if job in medians:
            print(f"{job} / train peak: {medians[job] / medians['nbayes train']:.2f}x")


if __name__ == "__main__":
    main()
