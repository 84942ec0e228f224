"""TextClassifier vs scikit-learn's Pipeline(CountVectorizer(), MultinomialNB()), one run.

Measures every speed goal of the text issue on 20 Newsgroups (train / test) and on the
synthetic Zipfian corpus (``make_zipf_corpus.py``, generated if missing), asserting that
both give the same model (vocabulary, per-class counts) and the same predictions:

* fit from a list of str already in memory (reading the CSV is timed separately, and
  end to end with ``nbayes.io.read_texts`` for both);
* batch ``predict_proba`` (20NG: the test set; Zipf: the first ``--zipf-test`` documents);
* one short document (25-35 tokens) through ``predict([doc])``: median of 2,000 calls.

Fits and batch predictions run ``--repeat`` (5) times each, interleaved (nbayes, sklearn,
nbayes, sklearn, ...); the goals are checked on the **medians** of those runs (issue: 20NG
fit >= 20x, Zipf 100 MB fit >= 30x, batch predict_proba >= 10x, one document <= 1/150 of
``pipeline.predict([doc])``, i.e. >= 150x); the best of the runs is kept in extra columns.

Prints one table (seconds, MB/s, ratio, goal, met?) and the machine (nproc, CPU model,
load average: the machine may be shared and noisy; ratios are measured in the same run),
and which nbayes was imported (the source tree with PYTHONPATH=src, else the installed one).

Usage::

    PYTHONPATH=src python benchmarks/bench_text.py [--zipf-mb 100] [--repeat 5] [--skip-zipf]
    /path/to/venv/bin/python benchmarks/bench_text.py      # an installed nbayes
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sklearn
from _machine import machine as _machine
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.naive_bayes import MultinomialNB
from sklearn.pipeline import Pipeline, make_pipeline

import nbayes
from nbayes.io import read_texts
from nbayes.text import TextClassifier

HERE = Path(__file__).resolve().parent
NEWS = Path("/work/shared/data/20newsgroups_bydate")
TOKEN = re.compile(r"(?u)\b\w\w+\b")

NAN = float("nan")


@dataclass
class Row:
    corpus: str
    what: str
    t_sk: float  # the figure the goal is checked on (median of the runs, or the only one)
    t_nb: float
    mb: float
    goal: str
    best_sk: float = NAN  # best of the runs (NaN: the row has no such figure)
    best_nb: float = NAN
    c_sk: float = NAN  # median CPU time of the runs
    c_nb: float = NAN


ROWS: list[Row] = []
LOADS: list[float] = []  # 1-minute load average after each timed fit / batch prediction


@dataclass
class Runs:
    """Wall and CPU times of one callable's runs, in order, and its last result."""

    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    out: Any = None

    def add(self, fn: Callable[[], Any]) -> None:
        c = time.process_time()
        t = time.perf_counter()
        self.out = fn()
        self.walls.append(time.perf_counter() - t)
        self.cpus.append(time.process_time() - c)
        LOADS.append(os.getloadavg()[0])

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    @property
    def best(self) -> float:
        return min(self.walls)

    @property
    def first(self) -> float:
        return self.walls[0]

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)


def interleaved(
    fn_nb: Callable[[], Any], fn_sk: Callable[[], Any], repeat: int
) -> tuple[Runs, Runs]:
    """``repeat`` runs of each, interleaved: nbayes, sklearn, nbayes, sklearn, ..."""
    nb, sk = Runs(), Runs()
    for _ in range(repeat):
        nb.add(fn_nb)
        sk.add(fn_sk)
    return nb, sk


def repeated(fn: Callable[[], Any], repeat: int) -> Runs:
    runs = Runs()
    for _ in range(repeat):
        runs.add(fn)
    return runs


def one_thread(fn: Callable[[], Any], repeat: int) -> Runs:
    """``repeat`` runs of ``fn`` with NBAYES_NUM_THREADS=1."""
    before = os.environ.get("NBAYES_NUM_THREADS")
    os.environ["NBAYES_NUM_THREADS"] = "1"
    try:
        return repeated(fn, repeat)
    finally:
        if before is None:
            del os.environ["NBAYES_NUM_THREADS"]
        else:
            os.environ["NBAYES_NUM_THREADS"] = before


def machine() -> str:
    return _machine(f"scikit-learn {sklearn.__version__}", f"numpy {np.__version__}")


def read(path: Path) -> tuple[list[str], list[str], float]:
    """All documents and labels with nbayes.io.read_texts; returns the read time too."""
    t = time.perf_counter()
    docs: list[str] = []
    labels: list[str] = []
    for chunk in read_texts(path, "text", "label", chunk_size=50_000):
        docs.extend(chunk.texts)
        labels.extend(str(v) for v in chunk.labels)
    return docs, labels, time.perf_counter() - t


def first_call(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def median_us(fn: Callable[[str], Any], docs: list[str], n_calls: int) -> float:
    ts = []
    for i in range(n_calls):
        d = docs[i % len(docs)]
        t = time.perf_counter()
        fn(d)
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e6


def mbytes(docs: list[str]) -> float:
    return sum(len(d.encode("utf-8", "surrogatepass")) for d in docs) / 1e6


def bench(
    name: str,
    train: tuple[list[str], list[str], float],
    test: list[str],
    repeat: int,
    n_calls: int,
    fit_goal: str,
) -> None:
    docs, labels, t_read = train
    mb = mbytes(docs)
    print(
        f"\n== {name}: {len(docs)} training documents, {mb:.1f} MB; {len(test)} test "
        f"documents, {mbytes(test):.1f} MB ==",
        flush=True,
    )

    def sk_fit() -> Pipeline:
        return make_pipeline(CountVectorizer(), MultinomialNB()).fit(docs, labels)

    def nb_fit() -> TextClassifier:
        return TextClassifier().fit(docs, labels)

    nb, sk = interleaved(nb_fit, sk_fit, repeat)
    clf, pipe = nb.out, sk.out
    # what a fitted model costs before it answers: nbayes derives log-probabilities and
    # the term lookup on first use, scikit-learn's fit already did
    one = next((d for d in test if 25 <= len(TOKEN.findall(d.lower())) <= 35), test[0])
    first_nb = first_call(lambda: clf.predict([one]))
    first_sk = first_call(lambda: pipe.predict([one]))
    vec, mnb = pipe[0], pipe[-1]
    assert clf.vocabulary_ == vec.vocabulary_, "vocabularies differ"
    assert np.array_equal(clf.feature_count_, mnb.feature_count_), "class counts differ"
    assert np.array_equal(clf.class_count_, mnb.class_count_)
    print(f"fit: identical vocabulary ({len(vec.vocabulary_)} terms) and feature_count_")
    ROWS.append(
        Row(
            name,
            "fit from list of str",
            sk.median,
            nb.median,
            mb,
            fit_goal,
            sk.best,
            nb.best,
            sk.cpu,
            nb.cpu,
        )
    )
    ROWS.append(Row(name, "  first of those runs", sk.first, nb.first, mb, "-"))
    ROWS.append(
        Row(
            name,
            "  fit + first predict([doc])",
            sk.median + first_sk,
            nb.median + first_nb,
            mb,
            "-",
            sk.best + first_sk,
            nb.best + first_nb,
        )
    )
    nb1 = one_thread(nb_fit, repeat)
    ROWS.append(
        Row(
            name,
            "  same, nbayes on 1 thread",
            sk.median,
            nb1.median,
            mb,
            "-",
            sk.best,
            nb1.best,
            sk.cpu,
            nb1.cpu,
        )
    )
    ROWS.append(
        Row(
            name,
            "read_texts + fit (end to end)",
            t_read + sk.median,
            t_read + nb.median,
            mb,
            "-",
            t_read + sk.best,
            t_read + nb.best,
        )
    )

    clf.predict_proba(test[:2])  # derive the model once (as sklearn's fit does)
    nbp, skp = interleaved(
        lambda: clf.predict_proba(test), lambda: pipe.predict_proba(test), repeat
    )
    nbp1 = one_thread(lambda: clf.predict_proba(test), repeat)
    p_nb, p_sk = nbp.out, skp.out
    same = np.array_equal(clf.classes_[p_nb.argmax(1)], pipe.classes_[p_sk.argmax(1)])
    diff = float(np.abs(p_nb - p_sk).max())
    assert same and diff < 1e-9, f"predictions differ (max |dP| {diff:.3g})"
    print(f"predict_proba: identical predictions, max |P_nbayes - P_sklearn| = {diff:.2g}")
    mb_test = mbytes(test)
    ROWS.append(
        Row(
            name,
            "batch predict_proba",
            skp.median,
            nbp.median,
            mb_test,
            ">= 10x",
            skp.best,
            nbp.best,
            skp.cpu,
            nbp.cpu,
        )
    )
    ROWS.append(
        Row(
            name,
            "  same, nbayes on 1 thread",
            skp.median,
            nbp1.median,
            mb_test,
            "-",
            skp.best,
            nbp1.best,
            skp.cpu,
            nbp1.cpu,
        )
    )

    short = [d for d in test if 25 <= len(TOKEN.findall(d.lower())) <= 35][:50]
    short = short or test[:50]
    for d in short[:20]:
        assert clf.predict([d])[0] == pipe.predict([d])[0]
    us_nb = median_us(lambda d: clf.predict([d]), short, n_calls)
    us_sk = median_us(lambda d: pipe.predict([d]), short, n_calls)
    ROWS.append(Row(name, f"predict([doc]) median of {n_calls} (us)", us_sk, us_nb, 0.0, ">= 150x"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zipf-mb", type=float, default=100.0)
    ap.add_argument("--zipf-test", type=int, default=20_000)
    ap.add_argument("--skip-zipf", action="store_true")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved runs of each measure")
    ap.add_argument("--calls", type=int, default=2000)
    args = ap.parse_args()
    print(machine())
    print(
        f"nbayes {nbayes.__version__} imported from {Path(nbayes.__file__).parent} "
        f"(Python {sys.executable})"
    )

    t0 = time.perf_counter()
    TextClassifier().fit(["warm up é ĀĀ", "x yy"], [0, 1]).predict_proba(["warm up"])
    few, few_y = read(NEWS / "20news_bydate_test.csv")[:2]
    TextClassifier().fit(few[:60], few_y[:60]).predict_proba(few[:60])  # threaded paths
    print(f"warm-up (compile or cache load, tables): {time.perf_counter() - t0:.2f} s")

    train = read(NEWS / "20news_bydate_train.csv")
    test, _, _ = read(NEWS / "20news_bydate_test.csv")
    bench("20NG", train, test, args.repeat, args.calls, ">= 20x")
    del train, test

    if not args.skip_zipf:
        path = HERE / "_data" / f"zipf_{args.zipf_mb:g}mb.csv"
        if not path.exists():
            tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
            subprocess.run(
                [
                    sys.executable,
                    str(HERE / "make_zipf_corpus.py"),
                    "--size-mb",
                    str(args.zipf_mb),
                    "--out",
                    str(tmp),
                ],
                check=True,
            )
            os.replace(tmp, path)
        train = read(path)
        bench(
            f"Zipf {args.zipf_mb:g} MB",
            train,
            train[0][: args.zipf_test],
            args.repeat,
            args.calls,
            ">= 30x",
        )

    n = args.repeat
    print(f"\n{machine()}")
    print(
        f"load average after each timed run: min {min(LOADS):.2f}, median "
        f"{statistics.median(LOADS):.2f}, max {max(LOADS):.2f}"
    )
    print(
        f"(load average > nproc means other processes shared the cores during the run; the\n"
        f" goals are wall-time ratios sklearn / nbayes, checked on the median of {n} runs,\n"
        f" interleaved nbayes, sklearn, ... (1-thread rows: {n} nbayes runs after them); best\n"
        f" = the best of the same runs; MB/s of the medians; CPU s = median process CPU time\n"
        f" of the runs, all threads; (us) rows: median of {args.calls} calls, no best)"
    )
    head1 = (
        f"{'':<13} {'':<34} {f'-- median of {n} --':^20} {'':>16} {'':>7} {'':>8}       "
        f"{f'-- best of {n} --':^27}"
    )
    head = (
        f"{'corpus':<13} {'measure':<34} {'sklearn':>10} {'nbayes':>10} {'sk MB/s':>7} "
        f"{'nb MB/s':>8} {'ratio':>7} {'goal':>8} met  {'sklearn':>9} {'nbayes':>9} "
        f"{'ratio':>7}  {'CPU s sk / nb':>15} {'CPU ratio':>9}"
    )
    print(head1)
    print(head)
    print("-" * len(head))
    goals = []
    for r in ROWS:
        unit = "u" if "(us)" in r.what else "s"
        ratio = r.t_sk / r.t_nb
        need = float(r.goal.strip(">=x ")) if r.goal != "-" else None
        met = "-" if need is None else ("yes" if ratio >= need else "NO")
        if need is not None:
            goals.append((f"{r.corpus} {r.what.strip()}", ratio, r.goal, met))
        sk_rate = f"{r.mb / r.t_sk:7.1f}" if r.mb else f"{'':>7}"
        nb_rate = f"{r.mb / r.t_nb:8.1f}" if r.mb else f"{'':>8}"
        if np.isnan(r.best_nb):
            best_cols = f"{'':>9} {'':>9} {'':>7}"
        else:
            best_cols = f"{r.best_sk:8.3f}s {r.best_nb:8.3f}s {r.best_sk / r.best_nb:6.1f}x"
        cpu = "" if np.isnan(r.c_nb) else f"{r.c_sk:7.2f} / {r.c_nb:5.2f} {r.c_sk / r.c_nb:8.1f}x"
        print(
            f"{r.corpus:<13} {r.what:<34} {r.t_sk:9.3f}{unit} {r.t_nb:9.3f}{unit} "
            f"{sk_rate} {nb_rate} {ratio:6.1f}x {r.goal:>8} {met:<4} {best_cols}  {cpu}"
        )
    print("\ngoals (on the medians):")
    for what, ratio, goal, met in goals:
        print(f"  [{'met' if met == 'yes' else 'NOT met'}] {what}: {ratio:.1f}x (goal {goal})")


if __name__ == "__main__":
    main()
