"""What a loaded spam filter holds: ``nbayes.load`` of the SpamAssassin corpus' model, in a
fresh process per run, two installs interleaved (``--baseline PYTHON``: the interpreter of
another install, e.g. the commit before the tokens were packed).

Each run reports:

* ``rss import MB``: the resident memory after ``import nbayes`` (and numpy, which the
  serialiser imports), before the load;
* ``peak load MB`` / ``rss loaded MB``: the growth of the peak resident memory during the
  load (VmHWM after it, the kernel's counter reset before it) and of the resident memory
  once loaded, both above the import's;
* ``load s``: the wall time of ``nbayes.load``;
* ``classify+learn ms``: the median over ``--messages`` corpus messages of classifying one
  (raw bytes in: parse, tokenize, score) and learning it (``partial_fit``; unlearnt after,
  as benchmarks/bench_spam.py measures it);
* ``token_at us``, ``rows() s``: the cost of asking for tokens as str (one row; every
  live row with its counts), what explanations and pruning ask.

Also ``/usr/bin/time -f %M`` of ``python -c "import nbayes; nbayes.load(MODEL)"`` against a
bare ``python -c "import nbayes"`` (the figure issue 26 gave), per install.

Usage::

    python benchmarks/bench_spam_load_memory.py --model /tmp/full.nbm --runs 3 \\
        --baseline /work/venv_mem_base/bin/python
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _interleaved import interleaved, median  # noqa: E402
from _machine import machine  # noqa: E402
from bench_spam import find_corpus  # noqa: E402

WORKER = r"""
import json, statistics, sys, time
from pathlib import Path

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024  # MB
    raise KeyError(field)

model_path, corpus, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
import numpy  # (the serialiser's import: not the load's memory)
import nbayes
import nbayes.io.serializers.spam  # noqa: F401
rss0 = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # the peak RSS counter starts again here
t0 = time.perf_counter()
model = nbayes.load(model_path)
load = time.perf_counter() - t0
peak, rss = status("VmHWM") - rss0, status("VmRSS") - rss0
rows = [line.split("\t") for line in (corpus / "index.tsv").read_text().splitlines()[1:]]
rows = rows[:: max(1, len(rows) // n)][:n]
raw = [(corpus / r[1]).read_bytes() for r in rows]
labels = [r[2] for r in rows]
times = []
for data, y in zip(raw, labels):
    t = time.perf_counter()
    tokens = model.tokenize(data)
    model.classify([tokens])
    model.partial_fit([tokens], [y])
    times.append(time.perf_counter() - t)
    model.unlearn([tokens], [y])
table = model.table_
t = time.perf_counter()
for i in range(0, 100_000, 1000):
    table.token_at(i)
token_at = (time.perf_counter() - t) / 100
t = time.perf_counter()
n_rows = sum(1 for _ in table.rows())
rows_s = time.perf_counter() - t
print(json.dumps({
    "rss import MB": rss0, "peak load MB": peak, "rss loaded MB": rss, "load s": load,
    "classify+learn ms": 1e3 * statistics.median(times), "token_at us": 1e6 * token_at,
    "rows() s": rows_s, "rss end MB": status("VmRSS") - rss0,
}))
"""

NAMES = (
    "rss import MB",
    "peak load MB",
    "rss loaded MB",
    "load s",
    "classify+learn ms",
    "token_at us",
    "rows() s",
    "rss end MB",
)


def time_m(python: str, code: str) -> float:
    """The maximum resident memory (MB) of ``python -c code`` by GNU time."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", python, "-c", code], capture_output=True, text=True
    )
    return int(out.stderr.strip().splitlines()[-1]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="/tmp/full.nbm")
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--messages", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--baseline", help="the python of another install (column a)")
    args = ap.parse_args()
    corpus = args.corpus or find_corpus()
    print(machine())
    pythons = {"b": sys.executable}
    if args.baseline:
        pythons = {"a": args.baseline, "b": sys.executable}
    argv = ["-c", WORKER, args.model, str(corpus), str(args.messages)]
    got = interleaved(pythons, argv, args.runs)
    print(f"medians of {args.runs} interleaved runs (each a fresh process)")
    print(
        f"{'':<20}" + "".join(f"{k:>12}" for k in pythons) + ("       b/a" if args.baseline else "")
    )
    for name in NAMES:
        vals = {k: median(got[k], name) for k in pythons}
        line = f"{name:<20}" + "".join(f"{v:>12.3f}" for v in vals.values())
        if args.baseline:
            line += f"{vals['b'] / vals['a']:>10.3f}"
        print(line)
        for k in pythons:
            runs = ", ".join(f"{r[name]:.3f}" for r in got[k])
            print(f"{'':<22}{k}: {runs}")
    load = f"import nbayes; nbayes.load({args.model!r})"
    for key, python in pythons.items():
        bare = [time_m(python, "import nbayes") for _ in range(args.runs)]
        loaded = [time_m(python, load) for _ in range(args.runs)]
        print(
            f"{key}: /usr/bin/time -f %M: import nbayes {statistics.median(bare):.0f} MB, "
            f"+ load {statistics.median(loaded):.0f} MB (runs: "
            f"{', '.join(f'{x:.0f}' for x in loaded)})"
        )


if __name__ == "__main__":
    main()
