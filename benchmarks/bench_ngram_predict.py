"""One ``nbayes predict MODEL --text "..."`` process with a word-bigram model of 20 Newsgroups.

A bigram model of the 11,314 training posts has about 1.2 million terms (a 230 MB file);
``--family bernoulli`` trains a Bernoulli model instead (its first prediction derives log P
and log(1 - P) of every cell), ``--command explain`` runs ``nbayes explain MODEL "..."``.
``nbayes train`` reads the CSV in chunks, so the file's vocabulary is not in sorted order.
Each interpreter's nbayes trains its own model file (what a user of that version would
have; ``--model`` reuses one file for both instead), then every round runs the same command
under each interpreter in turn (``--a``, then ``--b``; one warm-up round not counted) and
the table gives the median, min and max wall time and peak RSS (``ru_maxrss`` from
``os.wait4``), and the ratio b / a of the medians.

Usage (``--b`` the change, ``--a`` the baseline: a venv with the commit before it)::

    python benchmarks/bench_ngram_predict.py --a /tmp/venv-old/bin/python \\
        --b /work/venv-dev/bin/python --runs 7
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _machine import machine
from _processes import run_process

NEWS = Path("/work/shared/data/20newsgroups_bydate/20news_bydate_train.csv")
TEXT = "Does anyone know how the goalie did in the game last night? The Flyers won in overtime."


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="baseline interpreter (with nbayes installed)")
    ap.add_argument("--b", required=True, help="interpreter of the change")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--model", type=Path, help="an existing bigram model file to reuse")
    ap.add_argument("--family", choices=["multinomial", "bernoulli", "nbsvm"],
                    default="multinomial",
                    help="the model nbayes train makes (default multinomial)")  # fmt: skip
    ap.add_argument("--command", choices=["predict", "explain"], default="predict")
    args = ap.parse_args()

    models = {"a": args.model, "b": args.model}
    for key in ("a", "b"):
        if models[key] is None:
            model = Path(tempfile.mkdtemp()) / f"news-bigrams-{key}.nbayes"
            t = time.perf_counter()
            train = [getattr(args, key), "-m", "nbayes", "train", "-q", "--ngrams", "1-2",
                     "--model", args.family]  # fmt: skip
            run_process([*train, "-o", str(model), str(NEWS)])
            print(f"{key}: trained {model} ({model.stat().st_size / 1e6:.0f} MB) in "
                  f"{time.perf_counter() - t:.1f} s")  # fmt: skip
            models[key] = model
    samples: dict[str, list[tuple[float, float]]] = {"a": [], "b": []}
    answers = set()
    for i in range(args.runs + 1):
        for key in ("a", "b"):
            if args.command == "predict":
                cmd = ["-m", "nbayes", "predict", "-q", str(models[key]), "--text", TEXT]
            else:
                cmd = ["-m", "nbayes", "explain", "-q", str(models[key]), TEXT]
            wall, rss, text = run_process([getattr(args, key), *cmd])
            answers.add(text)
            if i:  # round 0 warms the page cache
                samples[key].append((wall, rss))
    print(machine())
    print(f"nbayes {args.command}, {args.family} bigram model of 20 Newsgroups")
    print(f"answers: {sorted(answers)}")
    print(f"{'':>4} {'wall s median [min, max]':>28} {'peak RSS MiB median [min, max]':>32}")
    medians = {}
    for key in ("a", "b"):
        walls = [w for w, _ in samples[key]]
        rsss = [r for _, r in samples[key]]
        medians[key] = (statistics.median(walls), statistics.median(rsss))
        print(f"{key:>4} {medians[key][0]:>10.3f} [{min(walls):.3f}, {max(walls):.3f}]"
              f"{medians[key][1]:>17.0f} [{min(rsss):.0f}, {max(rsss):.0f}]")  # fmt: skip
    print(
        f"b/a  wall {medians['b'][0] / medians['a'][0]:.2f}, "
        f"peak RSS {medians['b'][1] / medians['a'][1]:.2f} (median of {args.runs} rounds)"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
