"""Peak memory of ``nbayes train`` on a large CSV against ``TextClassifier.fit_files``.

The command line trains by streaming (issue 25 item 4): its peak should be at most 1.15x
the library's ``fit_files`` on the same file with the same settings. Each job runs as its
own process under ``/usr/bin/time -v`` (peak RSS), the jobs interleaved over ``--rounds``;
the medians and their ratio are printed. ``--python`` runs the jobs with another
interpreter too (an install of an earlier commit: the "before" column).

Usage::

    python benchmarks/make_big_csv.py --size-mb 300 --out benchmarks/_data/big_300mb.csv
    python benchmarks/bench_cli_train_memory.py --data benchmarks/_data/big_300mb.csv
    python benchmarks/bench_cli_train_memory.py --data ... --python /path/to/old/venv/bin/python
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

FIT_FILES = (
    "import sys; from nbayes import TextClassifier, save; "
    "m = TextClassifier().fit_files(sys.argv[1]); m.get_feature_names_out(); "
    "save(m, sys.argv[2])"
)


def peak_mib(
    cmd: list[str], out: str | None = None, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """(peak RSS in MiB, wall seconds) of one process (its output to the file ``out``,
    else kept; in ``env``, else this one's)."""
    with open(out or os.devnull, "w") as sink:
        run = subprocess.run(
            ["/usr/bin/time", "-v", "-o", "/dev/stderr", *cmd],
            stdout=sink if out else subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            check=True, env=env,
        )  # fmt: skip
    out = run.stderr
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", out).group(1))  # type: ignore[union-attr]
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", out)
    assert wall is not None
    h, m, s = wall.groups()
    return rss / 1024, int(h or 0) * 3600 + int(m) * 60 + float(s)


def jobs(python: str, data: str, out: str) -> dict[str, list[str]]:
    nbayes = [python, "-m", "nbayes", "train", data, "-o", out, "-q", "--force"]
    return {"nbayes train": nbayes, "fit_files": [python, "-c", FIT_FILES, data, out]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="a text,label CSV (make_big_csv.py)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--python", action="append", default=[], help="another interpreter")
    args = ap.parse_args()
    pythons = {"this": sys.executable} | {f"other{i}": p for i, p in enumerate(args.python)}
    size = os.path.getsize(args.data) / 2**20
    print(f"{args.data}: {size:,.0f} MiB; {args.rounds} interleaved rounds")
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "model.nbayes")
        for _ in range(args.rounds):
            for who, python in pythons.items():
                for job, cmd in jobs(python, args.data, out).items():
                    results.setdefault((who, job), []).append(peak_mib(cmd))
    print(f"{'interpreter':<12} {'job':<14} {'peak MiB':>9} {'wall s':>7}")
    medians: dict[tuple[str, str], float] = {}
    for (who, job), runs in results.items():
        medians[who, job] = statistics.median(r[0] for r in runs)
        wall = statistics.median(r[1] for r in runs)
        print(f"{who:<12} {job:<14} {medians[who, job]:>9,.0f} {wall:>7.1f}")
    for who in pythons:
        ratio = medians[who, "nbayes train"] / medians[who, "fit_files"]
        print(f"{who}: nbayes train / fit_files = {ratio:.2f}x (goal <= 1.15x)")


if __name__ == "__main__":
    main()
