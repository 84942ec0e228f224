"""A/B speed of two installs of nbayes on the same text workloads, in fresh processes.

A and B are two Python interpreters, each with nbayes installed (``--a``, ``--b``: e.g. the
numba kernels and the compiled extension). Every measurement runs in a fresh subprocess of
that interpreter (the worker code ``WORKER`` below, passed with ``-c``; it prints one JSON
line), interleaved A, B, A, B, ... for ``--rounds`` rounds (each round runs every workload for
A, then for B). In each process the workload's first call is the warm-up (that is where numba
compiles or loads its cache, and where memory is touched for the first time): it is excluded
from the figure and reported in its own columns; the measured figure is the second call.

Workloads (data read with the csv module before timing; documents are a list of str):

* ``fit20ng``: ``TextClassifier().fit(docs, labels)``, 20 Newsgroups train (11,314 docs);
* ``fitzipf``: the same on the 100 MB Zipfian corpus of ``make_zipf_corpus.py``
  (``benchmarks/_data/zipf_100mb.csv``, as in ``bench_text.py``; generated with A's
  interpreter if missing);
* ``proba20ng``: ``predict_proba`` of the 20NG test set (7,532 docs) by a model of the train set;
* ``one20ng``: ``predict([doc])`` of one ~30-token document (25-35 tokens, 50 test documents
  in turn): median of ``--calls`` (2,000) calls.

Reported per workload: A and B medians over the rounds, B/A (ratio of the medians; < 1 means
B is faster) and the median of the per-round B/A ratios, the goal (B at least as fast as A:
B/A <= 1), the first calls and the import time (``import nbayes; nbayes.TextClassifier``),
and whether A and B computed the same thing (feature counts, argmax and column sums of the
probabilities, predicted labels). PYTHONPATH is removed from the workers' environment so that
each imports its installed nbayes. Needs only the standard library itself.

Usage::

    python benchmarks/bench_ab.py --a /work/venv-numba/bin/python --b .venv/bin/python
    python benchmarks/bench_ab.py --a A/bin/python --b B/bin/python --rounds 9 --threads 1
    python benchmarks/bench_ab.py --a ... --b ... --workloads fit20ng one20ng --json ab.json
    python benchmarks/bench_ab.py --print-worker    # the worker code, to run by hand
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from _machine import machine

HERE = Path(__file__).resolve().parent
NEWS = Path("/work/shared/data/20newsgroups_bydate")

WORKER = r"""
import csv, hashlib, json, re, statistics, sys, time
t0 = time.perf_counter()
import nbayes
TextClassifier = nbayes.TextClassifier
import_s = time.perf_counter() - t0
import numpy as np

task, opt = sys.argv[1], json.loads(sys.argv[2])
csv.field_size_limit(sys.maxsize)


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = csv.reader(f)
        head = next(rows)
        ti, li = head.index("text"), head.index("label")
        docs, labels = [], []
        for row in rows:
            docs.append(row[ti])
            labels.append(row[li])
    return docs, labels


def timed(fn):
    c, t = time.process_time(), time.perf_counter()
    out = fn()
    return time.perf_counter() - t, time.process_time() - c, out


def digest(a):
    return hashlib.sha1(np.ascontiguousarray(a).tobytes()).hexdigest()[:16]


res = {"import_s": import_s, "file": nbayes.__file__, "version": nbayes.__version__,
       "numpy": np.__version__}
docs, labels = read(opt["train"])


def fit():
    return TextClassifier().fit(docs, labels)


if task == "fit":
    res["first_s"], _, clf = timed(fit)
    del clf
    res["value"], res["cpu_s"], clf = timed(fit)
    fc = np.asarray(clf.feature_count_, dtype=np.float64)
    res["check"] = {"shape": list(fc.shape), "sum": float(fc.sum()), "counts": digest(fc),
                    "classes": [str(c) for c in clf.classes_]}
elif task == "proba":
    test = read(opt["test"])[0]
    res["fit_s"], _, clf = timed(fit)
    res["first_s"], _, p = timed(lambda: clf.predict_proba(test))
    res["value"], res["cpu_s"], p = timed(lambda: clf.predict_proba(test))
    res["check"] = {"shape": list(p.shape), "argmax": digest(p.argmax(1).astype(np.int64)),
                    "colsum": p.sum(0).tolist()}
elif task == "one":
    test = read(opt["test"])[0]
    token = re.compile(r"(?u)\b\w\w+\b")
    short = [d for d in test if 25 <= len(token.findall(d.lower())) <= 35][:50] or test[:50]
    res["fit_s"], _, clf = timed(fit)
    res["first_s"], _, _ = timed(lambda: clf.predict([short[0]]))
    ts = []
    for i in range(opt["calls"]):
        d = short[i % len(short)]
        t = time.perf_counter()
        clf.predict([d])
        ts.append(time.perf_counter() - t)
    res["value"] = statistics.median(ts)
    res["check"] = {"n_docs": len(short),
                    "pred": digest(np.array([str(clf.predict([d])[0]) for d in short]))}
else:
    raise SystemExit(f"unknown task {task!r}")
res["numba_loaded"] = "numba" in sys.modules
res["vmhwm_mib"] = next(int(ln.split()[1]) for ln in open("/proc/self/status")
                        if ln.startswith("VmHWM:")) / 1024
print(json.dumps(res))
"""

WORKLOADS = {
    # name: (label, task, train, test, unit)
    "fit20ng": ("20NG fit (list of str)", "fit", "news_train", None, "s"),
    "fitzipf": ("Zipf {mb:g} MB fit (list of str)", "fit", "zipf", None, "s"),
    "proba20ng": ("20NG batch predict_proba (test set)", "proba", "news_train", "news_test", "s"),
    "one20ng": (
        "20NG predict([doc]) ~30 tokens, median of {calls}",
        "one",
        "news_train",
        "news_test",
        "us",
    ),
}


def zipf_path(mb: float, python: str) -> Path:
    """The corpus of bench_text.py (benchmarks/_data/zipf_<mb>mb.csv), made if missing."""
    path = HERE / "_data" / f"zipf_{mb:g}mb.csv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
        print(f"generating {path} ...", flush=True)
        subprocess.run(
            [python, str(HERE / "make_zipf_corpus.py"), "--size-mb", str(mb), "--out", str(tmp)],
            check=True,
        )
        os.replace(tmp, path)
    return path


def run_worker(python: str, task: str, opt: dict, env: dict[str, str], cwd: str) -> dict:
    cmd = [python, "-c", WORKER, task, json.dumps(opt)]
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=3600)
    if p.returncode != 0:
        raise RuntimeError(f"{python} {task} failed ({p.returncode}):\n{p.stderr[-4000:]}")
    line = next(ln for ln in reversed(p.stdout.splitlines()) if ln.startswith("{"))
    return json.loads(line)


def same_check(a: dict, b: dict) -> bool:
    """Exact on counts, labels and digests; the probabilities' column sums to rtol 1e-9."""
    if a.keys() != b.keys():
        return False
    for k, va in a.items():
        vb = b[k]
        if k == "colsum":
            if len(va) != len(vb) or not all(
                math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9) for x, y in zip(va, vb, strict=True)
            ):
                return False
        elif va != vb:
            return False
    return True


def fmt(v: float, unit: str) -> str:
    if unit == "us":
        return f"{v * 1e6:.2f} us"
    return f"{v:.3f} s" if v < 100 else f"{v:.0f} s"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", help="python of install A (the reference)")
    ap.add_argument("--b", help="python of install B")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--workloads", nargs="+", choices=list(WORKLOADS), default=list(WORKLOADS))
    ap.add_argument("--skip-zipf", action="store_true", help="leave out fitzipf")
    ap.add_argument("--zipf-mb", type=float, default=100.0)
    ap.add_argument("--calls", type=int, default=2000, help="predict([doc]) calls (median)")
    ap.add_argument(
        "--threads",
        type=int,
        default=None,
        help="set NBAYES_NUM_THREADS in the workers (default: unset)",
    )
    ap.add_argument("--json", type=Path, default=None, help="also write every sample here")
    ap.add_argument("--print-worker", action="store_true", help="print WORKER and exit")
    args = ap.parse_args()
    if args.print_worker:
        print(WORKER)
        return
    if not (args.a and args.b):
        ap.error("--a and --b are required")
    if args.skip_zipf and "fitzipf" in args.workloads:
        args.workloads.remove("fitzipf")

    env = dict(os.environ)
    if env.pop("PYTHONPATH", None) is not None:
        print("(PYTHONPATH removed from the workers' environment)")
    if args.threads is not None:
        env["NBAYES_NUM_THREADS"] = str(args.threads)
    paths = {
        "news_train": NEWS / "20news_bydate_train.csv",
        "news_test": NEWS / "20news_bydate_test.csv",
    }
    if "fitzipf" in args.workloads:
        paths["zipf"] = zipf_path(args.zipf_mb, args.a)

    print(machine())
    sides = {"A": args.a, "B": args.b}
    for side, py in sides.items():
        info = subprocess.run(
            [
                py,
                "-c",
                "import sys, nbayes, numpy; print(nbayes.__version__, nbayes.__file__, "
                "'Python', sys.version.split()[0], 'numpy', numpy.__version__)",
            ],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout.strip()
        print(f"{side} = {py}: nbayes {info}")
    print(
        f"NBAYES_NUM_THREADS={env.get('NBAYES_NUM_THREADS', '(unset)')}; {args.rounds} "
        f"rounds, A then B per workload in each round",
        flush=True,
    )

    samples: dict[str, dict[str, list[dict]]] = {w: {"A": [], "B": []} for w in args.workloads}
    cwd = tempfile.mkdtemp(prefix="nbayes-ab-")
    try:
        for rnd in range(1, args.rounds + 1):
            for w in args.workloads:
                _, task, train, test, _ = WORKLOADS[w]
                opt: dict = {"train": str(paths[train]), "calls": args.calls}
                if test:
                    opt["test"] = str(paths[test])
                for side, py in sides.items():
                    r = run_worker(py, task, opt, env, cwd)
                    samples[w][side].append(r)
            line = "; ".join(
                f"{w} A {fmt(samples[w]['A'][-1]['value'], WORKLOADS[w][4])} "
                f"B {fmt(samples[w]['B'][-1]['value'], WORKLOADS[w][4])}"
                for w in args.workloads
            )
            print(f"round {rnd}/{args.rounds}: {line}  (load {os.getloadavg()[0]:.2f})", flush=True)
    finally:
        os.rmdir(cwd)

    print(f"\n{machine()}")
    print(f"A = {args.a}\nB = {args.b}")
    print(
        f"medians of {args.rounds} fresh processes per side (interleaved A, B); each figure "
        f"is the second call of its process,\nthe first call (compile / cache load / first "
        f"touch) is the 'first' column; B/A < 1: B faster; goal: B/A <= 1;\npaired = median "
        f"of the per-round B/A; same = A and B computed the same counts / probabilities / "
        f"labels; import = import nbayes; nbayes.TextClassifier"
    )
    head = (
        f"{'workload':<46} {'A':>10} {'B':>10} {'B/A':>6} {'paired':>7} {'goal':>8} "
        f"{'met':<4} {'A first':>10} {'B first':>10} {'A import':>9} {'B import':>9} "
        f"{'same':<5} command"
    )
    print(head)
    print("-" * (len(head) + 40))
    goals = []
    for w in args.workloads:
        label, task, train, test, unit = WORKLOADS[w]
        label = label.format(mb=args.zipf_mb, calls=args.calls)
        a, b = samples[w]["A"], samples[w]["B"]
        ma = statistics.median(r["value"] for r in a)
        mb = statistics.median(r["value"] for r in b)
        paired = statistics.median(rb["value"] / ra["value"] for ra, rb in zip(a, b, strict=True))
        met = "yes" if mb <= ma else "NO"
        goals.append((label, mb / ma, met))
        same = all(same_check(a[0]["check"], r["check"]) for r in a + b)
        fa = statistics.median(r["first_s"] for r in a)
        fb = statistics.median(r["first_s"] for r in b)
        ia = statistics.median(r["import_s"] for r in a)
        ib = statistics.median(r["import_s"] for r in b)
        opt = (
            f'{{"train": "{paths[train].name}"'
            + (f', "test": "{paths[test].name}"' if test else "")
            + "}"
        )
        cmd = f'$PY -c "$WORKER" {task} {shlex.quote(opt)}'
        print(
            f"{label:<46} {fmt(ma, unit):>10} {fmt(mb, unit):>10} {mb / ma:6.2f} "
            f"{paired:7.2f} {'B <= A':>8} {met:<4} {fmt(fa, 's'):>10} {fmt(fb, 's'):>10} "
            f"{fmt(ia, 's'):>9} {fmt(ib, 's'):>9} {'yes' if same else 'NO':<5} {cmd}"
        )
    print("\nranges (min-max over the rounds) and other figures:")
    for w in args.workloads:
        unit = WORKLOADS[w][4]
        for side in ("A", "B"):
            rs = samples[w][side]
            vals = [r["value"] for r in rs]
            firsts = [r["first_s"] for r in rs]
            extra = ""
            if "cpu_s" in rs[0]:
                extra += f", CPU of the call {statistics.median(r['cpu_s'] for r in rs):.3f} s"
            if "fit_s" in rs[0]:
                extra += f", its fit {statistics.median(r['fit_s'] for r in rs):.3f} s"
            print(
                f"  {w:<10} {side}: {fmt(min(vals), unit)} - {fmt(max(vals), unit)}; first "
                f"call {fmt(min(firsts), 's')} - {fmt(max(firsts), 's')}{extra}; peak RSS "
                f"{statistics.median(r['vmhwm_mib'] for r in rs):.0f} MiB; numba loaded: "
                f"{rs[0]['numba_loaded']}"
            )
    print(
        "\n$PY = the side's python; $WORKER = this script's WORKER (--print-worker); data "
        f"files in {NEWS}" + (f" and {paths['zipf'].parent}" if "zipf" in paths else "")
    )
    print("goals (B at least as fast as A):")
    for label, ratio, met in goals:
        print(f"  [{'met' if met == 'yes' else 'NOT met'}] {label}: B/A = {ratio:.2f}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"a": args.a, "b": args.b, "machine": machine(), "samples": samples}, indent=1
            )
        )


if __name__ == "__main__":
    sys.exit(main())
