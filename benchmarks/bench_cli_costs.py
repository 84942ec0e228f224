"""What each command costs a user on a text model: its wall time as a process (issue 28).

Every command is a process, so its fixed cost (starting Python, importing) is what a user
feels. For a text model trained on the SMS Spam Collection (``--data``) this times, as
separate processes: ``python -c "import numpy"`` (the floor: nbayes cannot start faster
than numpy), ``python -c pass``, and ``nbayes train``, ``predict``, ``explain``, ``info``,
``eval``, ``update`` and ``forget`` (update/forget on a copy of the model, with a 60-message
file), and ``train`` with scikit-learn and scipy imported first (what it cost before it
trained without them). A hashed n-gram model (``--hashing --ngrams 1-2``) is trained,
updated and used to predict too; ``--baseline-python`` runs these three with another
interpreter as well (one with an older nbayes installed: before/after in one run). One
warm-up round, then ``--runs`` rounds of every measure in turn (interleaved, so a busy
machine slows them alike); the table gives the median, min and max, the ratio of the median
to the numpy floor, and the heavy modules (scikit-learn, scipy, pandas) the command
imported. Goal: ``nbayes info`` <= 2.5x the numpy floor; train, predict, explain, info,
eval, update and forget on a text model import none of the heavy modules.

Usage::

    python benchmarks/bench_cli_costs.py                 # 9 rounds
    python benchmarks/bench_cli_costs.py --runs 15 --json costs.json
    python benchmarks/bench_cli_costs.py --baseline-python /path/to/old/venv/bin/python
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _machine import machine

SMS = Path("/work/shared/data/sms_spam_collection/sms_spam_collection.csv")
TEXT = "WINNER!! You have been selected to receive a free prize. Call now to claim your cash"
GOAL_INFO_RATIO = 2.5
#: the hashed n-gram model's flags
HASHED_NGRAMS = ["--hashing", "--ngrams", "1-2"]

# runs the command line in this process and reports the heavy modules it imported (on stderr)
PROBE = """\
import atexit, sys
def _report():
    heavy = sorted({m.split(".")[0] for m in sys.modules} & {"sklearn", "scipy", "pandas"})
    sys.__stderr__.write("HEAVY=" + ",".join(heavy) + "\\n")
atexit.register(_report)
from nbayes.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _write_csv(path: Path, rows: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        w.writerows(rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=SMS, help="labelled CSV (text,label)")
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--json", type=Path, help="write the figures to this file")
    ap.add_argument(
        "--baseline-python", type=Path,
        help="also time the hashed n-gram commands with this interpreter (before)",
    )  # fmt: skip
    args = ap.parse_args()

    work = Path(tempfile.mkdtemp(prefix="nbayes-cli-costs-"))
    with open(args.data, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))[1:]
    train_csv, eval_csv, more_csv = work / "train.csv", work / "eval.csv", work / "more.csv"
    _write_csv(train_csv, rows)
    _write_csv(eval_csv, rows[:1000])
    _write_csv(more_csv, rows[:60])
    model, copy = work / "model.nbayes", work / "copy.nbayes"
    subprocess.run([sys.executable, "-m", "nbayes", "train", str(train_csv), "-o", str(model),
                    "-q"], check=True)  # fmt: skip
    shutil.copy(model, copy)
    hashed = work / "hashed.nbayes"
    subprocess.run([sys.executable, "-m", "nbayes", "train", str(train_csv), "-o", str(hashed),
                    "-q", *HASHED_NGRAMS], check=True)  # fmt: skip

    py = [sys.executable]
    nb = [sys.executable, "-c", PROBE]
    measures: dict[str, list[str]] = {
        "python -c pass": [*py, "-c", "pass"],
        "python -c 'import numpy'": [*py, "-c", "import numpy"],
        "nbayes info": [*nb, "info", str(model)],
        "nbayes predict --text": [*nb, "predict", str(model), "--text", TEXT],
        "nbayes explain": [*nb, "explain", str(model), TEXT],
        "nbayes eval (1,000 rows)": [*nb, "eval", str(model), str(eval_csv)],
        "nbayes train (5,574 rows)": [
            *nb,
            "train",
            str(train_csv),
            "-o",
            str(work / "t.nbayes"),
            "-q",
        ],  # fmt: skip
        # before the lean training path (as nbayes train was until issue 28's train step:
        # the same counting, with scikit-learn imported for the estimator): the same run
        "nbayes train, scikit-learn imported (before)": [
            sys.executable,
            "-c",
            "import sklearn.base, scipy.sparse\n" + PROBE,
            "train",
            str(train_csv),
            "-o",
            str(work / "t2.nbayes"),
            "-q",
        ],  # fmt: skip
        "nbayes update (60 rows)": [*nb, "update", str(copy), str(more_csv), "-q"],
        "nbayes forget (60 rows)": [*nb, "forget", str(copy), str(more_csv), "-q"],
    }
    pythons = {"": sys.executable}
    if args.baseline_python:
        pythons[" (before)"] = str(args.baseline_python)
    for tag, python in pythons.items():
        tnb = [python, "-c", PROBE]
        out = work / f"hashed{len(tag)}.nbayes"
        measures[f"hashed 1-2: train{tag}"] = [
            *tnb, "train", str(train_csv), "-o", str(out), "-q", "--force", *HASHED_NGRAMS
        ]  # fmt: skip
        measures[f"hashed 1-2: predict{tag}"] = [*tnb, "predict", str(hashed), str(eval_csv)]
        measures[f"hashed 1-2: update{tag}"] = [*tnb, "update", str(out), str(more_csv), "-q"]
    times: dict[str, list[float]] = {name: [] for name in measures}
    heavy: dict[str, str] = {}
    for round_ in range(args.runs + 1):  # round 0 warms up
        for name, cmd in measures.items():
            t = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True)
            elapsed = time.perf_counter() - t
            if proc.returncode != 0:
                raise SystemExit(f"{name} failed: {proc.stderr}")
            for line in proc.stderr.splitlines():
                if line.startswith("HEAVY="):
                    heavy[name] = line[6:] or "-"
            if round_:
                times[name].append(elapsed)
    floor = statistics.median(times["python -c 'import numpy'"])
    print(f"# {machine()}; {args.runs} interleaved rounds, text model of {len(rows):,} messages")
    print(f"{'command':<34} {'median s':>9} {'min':>7} {'max':>7} {'x numpy':>8}  heavy imports")
    report = {}
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<34} {med:>9.3f} {min(ts):>7.3f} {max(ts):>7.3f} {med / floor:>8.2f}  "
              f"{heavy.get(name, '')}")  # fmt: skip
        report[name] = {"median_s": med, "min_s": min(ts), "max_s": max(ts),
                        "ratio_to_numpy": med / floor, "heavy": heavy.get(name, "")}  # fmt: skip
    ratio = statistics.median(times["nbayes info"]) / floor
    verdict = "met" if ratio <= GOAL_INFO_RATIO else "NOT met"
    print(f"goal nbayes info <= {GOAL_INFO_RATIO}x numpy: {ratio:.2f}x ({verdict})")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
