"""A loaded big text model against the same model fitted in this process: ``predict_proba``.

A ``TextClassifier(ngram_range=(1, 3))`` fitted on the 25,000 IMDB training reviews has
about 5.2 million terms (a 286 MB model file). The same model is scored three ways on the
test reviews (``--docs`` of them):

* ``fresh``: the estimator the fit made, in this process;
* ``loaded``: ``nbayes.load`` of the file it was saved to (the path of ``nbayes eval``,
  ``nbayes predict`` and the service);
* ``scorer``: ``nbayes.load_scorer`` of that file (the lean path, without scikit-learn).

The first ``predict_proba`` of each is timed apart (``first call``: what a model builds on
first use), then ``--runs`` rounds call the three in turn (interleaved, so the machine's
noise spreads over all of them) and the table gives the median, min and max of each and
the ratio of each median to fresh's, in wall time and in CPU time (``time.process_time``:
every thread of the process; on a machine shared with other jobs it varies less than the
wall time). The probabilities must be bit for bit those of the fresh model (the script
stops otherwise).

Then ``--procs`` fresh interpreters each load the file and predict twice (what a CLI run
or a service start does), reporting the load time, the first and the second call and the
peak RSS (``VmHWM``: ``ru_maxrss`` would count the parent's memory at the fork) after the
load and at the end; and with ``--cli`` the wall time and peak RSS of
``nbayes eval MODEL TEST`` (run through ``nbayes.cli.main``, VmHWM read at its end), as
many times.

Usage::

    python benchmarks/bench_loaded_predict.py                      # IMDB, 1-3 grams, 5 rounds
    python benchmarks/bench_loaded_predict.py --runs 7 --procs 3 --cli
    python benchmarks/bench_loaded_predict.py --ngrams 1-2 --docs 5000 --keep /tmp/imdb.nbayes

``--keep PATH`` keeps the model file (else it is written to a temporary directory and
removed). The figures of the change that added this script are in BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _machine import machine  # noqa: E402
from _processes import run_process  # noqa: E402

IMDB = Path("/work/shared/data/imdb")


def read(path: Path, n: int | None = None) -> tuple[list[str], list[str]]:
    """The texts and labels of a CSV of the shared data (``text,label``), the first ``n``."""
    import pandas as pd

    frame = pd.read_csv(path, nrows=n)
    return frame["text"].tolist(), frame["label"].astype(str).tolist()


def peak_mb() -> float:
    """The peak RSS of this process in MiB (VmHWM: since its exec, unlike ru_maxrss)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(call) -> tuple[float, float, object]:  # type: ignore[no-untyped-def]
    """Wall and CPU seconds of ``call()``, and its result."""
    t, c = time.perf_counter(), time.process_time()
    got = call()
    return time.perf_counter() - t, time.process_time() - c, got


#: ``nbayes eval`` in a fresh interpreter, printing its peak RSS last
CLI = """import sys
from pathlib import Path
from nbayes.cli import main
code = main(sys.argv[1:])
hwm = [l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmHWM:")]
print("VmHWM", int(hwm[0].split()[1]) / 1024)
sys.exit(code)
"""


def child(model: str, test: str, n_docs: int) -> None:
    """One fresh interpreter: load ``model``, predict the first ``n_docs`` of ``test``
    twice; one JSON line of the timings and peak RSS."""
    docs, _ = read(Path(test), n_docs)
    import nbayes

    before = peak_mb()
    load, load_cpu, est = timed(lambda: nbayes.load(model))
    after_load = peak_mb()
    first, first_cpu, _ = timed(lambda: est.predict_proba(docs))  # type: ignore[attr-defined]
    second, second_cpu, _ = timed(lambda: est.predict_proba(docs))  # type: ignore[attr-defined]
    got = {"load": load, "load_cpu": load_cpu, "first": first, "first_cpu": first_cpu,
           "second": second, "second_cpu": second_cpu, "rss_before": before,
           "rss_load": after_load, "rss_end": peak_mb()}  # fmt: skip
    print(json.dumps(got))


def stats_line(name: str, values: list[float], base: float | None, unit: str = "s") -> str:
    med = statistics.median(values)
    ratio = f"{med / base:8.2f}" if base else f"{'':8}"
    return (f"{name:<22}{med:9.2f}{min(values):9.2f}{max(values):9.2f} {unit:<3}{ratio}"
            f"   ({len(values)} runs)")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", type=Path, default=IMDB / "imdb_train.csv.gz")
    ap.add_argument("--test", type=Path, default=IMDB / "imdb_test.csv.gz")
    ap.add_argument("--ngrams", default="1-3", help="ngram_range as LO-HI (default 1-3)")
    ap.add_argument("--docs", type=int, default=None, help="test documents (default all)")
    ap.add_argument("--runs", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--procs", type=int, default=2, help="load-and-predict processes")
    ap.add_argument("--cli", action="store_true", help="also time `nbayes eval MODEL TEST`")
    ap.add_argument("--keep", type=Path, help="write the model file here and keep it")
    ap.add_argument("--child", nargs=3, metavar=("MODEL", "TEST", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return

    import nbayes
    from nbayes.text import TextClassifier

    print(machine(f"nbayes {nbayes.__version__}", f"numpy {np.__version__}"))
    lo, hi = (int(v) for v in args.ngrams.split("-"))
    X, y = read(args.train)
    docs, _ = read(args.test, args.docs)
    t = time.perf_counter()
    fresh = TextClassifier(ngram_range=(lo, hi)).fit(X, y)
    print(f"fit {len(X)} documents, ngram_range=({lo}, {hi}): {time.perf_counter() - t:.1f} s, "
          f"{len(fresh._stats.vocabulary):,} terms")  # fmt: skip
    tmp = tempfile.TemporaryDirectory()
    path = args.keep or Path(tmp.name) / "model.nbayes"
    t = time.perf_counter()
    nbayes.save(fresh, path)
    print(f"save: {time.perf_counter() - t:.1f} s, {path.stat().st_size / 1e6:.0f} MB ({path})")
    t = time.perf_counter()
    loaded = nbayes.load(path)
    t_load = time.perf_counter() - t
    t = time.perf_counter()
    scorer = nbayes.load_scorer(path)
    t_scorer = time.perf_counter() - t
    print(f"in this process: nbayes.load {t_load:.2f} s, nbayes.load_scorer {t_scorer:.2f} s")

    sides = {"fresh": fresh, "loaded": loaded, "scorer": scorer}
    first: dict[str, tuple[float, float]] = {}
    want = None
    for name, model in sides.items():
        wall, cpu, got = timed(lambda m=model: m.predict_proba(docs))
        first[name] = (wall, cpu)
        if want is None:
            want = got
        elif not np.array_equal(got, want):
            raise SystemExit(f"{name}'s probabilities differ from fresh's")
    walls: dict[str, list[float]] = {name: [] for name in sides}
    cpus: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(args.runs):
        for name, model in sides.items():
            wall, cpu, got = timed(lambda m=model: m.predict_proba(docs))
            walls[name].append(wall)
            cpus[name].append(cpu)
            if not np.array_equal(got, want):
                raise SystemExit(f"{name}'s probabilities differ from fresh's")
    print(f"\npredict_proba of {len(docs):,} documents (probabilities identical):")
    for kind, first_k, table in (("wall", 0, walls), ("CPU", 1, cpus)):
        print(f"{kind + ' time':<22}{'median':>9}{'min':>9}{'max':>9}    {'/fresh':>8}")
        for name in sides:
            print(stats_line(f"{name} first call", [first[name][first_k]], first["fresh"][first_k]))
        base = statistics.median(table["fresh"])
        for name in sides:
            print(stats_line(name, table[name], base))
        for name in ("loaded", "scorer"):
            ratio = statistics.median(table[name]) / base
            print(f"ratio {name}/fresh ({kind} medians): {ratio:.2f}")
    del fresh, loaded, scorer, sides

    if args.procs > 0:
        n = len(docs)
        rows = []
        for _ in range(args.procs):
            cmd = [sys.executable, __file__, "--child", str(path), str(args.test), str(n)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            rows.append(json.loads(out.strip().splitlines()[-1]))
        print(f"\na fresh process: nbayes.load, then predict_proba of {n:,} documents twice")
        print(f"{'':<22}{'median':>9}{'min':>9}{'max':>9}")
        for key, unit in (("load", "s"), ("load_cpu", "s"), ("first", "s"), ("first_cpu", "s"),
                          ("second", "s"), ("second_cpu", "s"), ("rss_before", "MiB"),
                          ("rss_load", "MiB"), ("rss_end", "MiB")):  # fmt: skip
            print(stats_line(key, [r[key] for r in rows], None, unit))
    if args.cli:
        cli_walls, rss = [], []
        for _ in range(max(args.procs, 1)):
            cmd = [sys.executable, "-c", CLI, "eval", "-q", str(path), str(args.test)]
            wall, _, out = run_process(cmd)
            cli_walls.append(wall)
            rss.append(float(out.strip().splitlines()[-1].split()[1]))
        print(f"\nnbayes eval MODEL {args.test.name}")
        print(stats_line("wall", cli_walls, None))
        print(stats_line("peak RSS", rss, None, "MiB"))
    tmp.cleanup()


if __name__ == "__main__":
    main()
