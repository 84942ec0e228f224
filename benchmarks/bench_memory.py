"""Peak memory of training from a file larger than the memory allowed (goal: RSS < 1 GB).

Generates a ~2 GB CSV under ``benchmarks/_data/`` with ``make_big_csv.py`` (unless it
exists), then runs each training job in its own process under ``/usr/bin/time -v`` and
reports the peak resident set size ("Maximum resident set size") and the wall time:

* ``read only``: ``nbayes.io.read_texts`` over the file, no model (the floor: Python,
  NumPy, numba, one chunk);
* ``nbayes hashing``: ``TextClassifier(hashing=True).fit_files(path, chunk_size=...)``;
* ``nbayes max_features``: ``TextClassifier(max_features=...).fit_files(...)``. Note that
  ``max_features`` is derived at prediction time: training holds the counts of the full
  vocabulary, so its memory grows with the number of distinct terms (use
  ``--novel-per-doc`` to give the corpus an open, growing vocabulary);
* ``sklearn hashing``: scikit-learn ``HashingVectorizer(alternate_sign=False,
  norm=None)`` + ``MultinomialNB.partial_fit`` over the same chunks (the baseline).

The generated file is deleted at the end unless ``--keep``.

Usage::

    PYTHONPATH=src python benchmarks/bench_memory.py                 # 2 GB, all jobs
    PYTHONPATH=src python benchmarks/bench_memory.py --size-mb 200 --keep
    PYTHONPATH=src python benchmarks/bench_memory.py --novel-per-doc 1 --jobs maxf
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
JOBS = {
    "read": "read only (read_texts)",
    "hash": "nbayes TextClassifier(hashing=True).fit_files",
    "maxf": "nbayes TextClassifier(max_features=N).fit_files",
    "maxf2": "nbayes TextClassifier(max_features=N).fit_files(prune_first=True)",
    "sk": "sklearn HashingVectorizer + MultinomialNB.partial_fit",
}


# --------------------------------------------------------------------------- child side
def child(job: str, path: str, chunk_size: int, max_features: int) -> None:
    import numpy as np

    from nbayes import TextClassifier
    from nbayes.io import read_texts

    t0 = time.perf_counter()
    info: dict[str, object] = {}
    if job == "read":
        n = 0
        for chunk in read_texts(path, chunk_size=chunk_size):
            n += len(chunk)
        info["docs"] = n
    elif job in ("hash", "maxf", "maxf2"):
        clf = (
            TextClassifier(hashing=True)
            if job == "hash"
            else TextClassifier(max_features=max_features)
        )
        clf.fit_files(path, chunk_size=chunk_size, prune_first=job == "maxf2")
        info["docs"] = int(clf._stats.n_docs)
        info["columns held"] = int(clf._stats.n_columns)
        info["columns used"] = len(clf.get_feature_names_out())
    elif job == "sk":
        from sklearn.feature_extraction.text import HashingVectorizer
        from sklearn.naive_bayes import MultinomialNB

        vec = HashingVectorizer(alternate_sign=False, norm=None)
        nb = MultinomialNB()
        n = 0
        for chunk in read_texts(path, chunk_size=chunk_size):
            X = vec.transform(chunk.texts)
            y = np.asarray(chunk.labels)
            if n == 0:
                # the generator's labels; partial_fit needs them on the first call
                nb.partial_fit(X, y, classes=[f"class_{i:02d}" for i in range(20)])
            else:
                nb.partial_fit(X, y)
            n += len(chunk)
        info["docs"] = n
        info["columns held"] = int(nb.feature_count_.shape[1])
    else:
        raise SystemExit(f"unknown job {job!r}")
    info["seconds in Python"] = round(time.perf_counter() - t0, 1)
    print("RESULT " + json.dumps(info), flush=True)


# --------------------------------------------------------------------------- parent side
def measure(job: str, path: Path, chunk_size: int, max_features: int) -> dict[str, object]:
    cmd = [
        "/usr/bin/time", "-v", sys.executable, str(Path(__file__).resolve()), "--child", job,
        "--path", str(path), "--chunk-size", str(chunk_size), "--max-features", str(max_features),
    ]  # fmt: skip
    env = dict(os.environ)
    src = str(HERE.parent / "src")
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"job {job} failed:\n{proc.stdout}\n{proc.stderr}")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", proc.stderr)
    result = re.search(r"^RESULT (.*)$", proc.stdout, re.MULTILINE)
    assert rss and wall and result, proc.stderr
    parts = [float(p) for p in wall.group(1).split(":")]
    seconds = sum(p * 60**i for i, p in enumerate(reversed(parts)))
    return {
        "peak_rss_mb": int(rss.group(1)) / 1024,
        "wall_s": seconds,
        **json.loads(result.group(1)),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=2000.0)
    ap.add_argument("--novel-per-doc", type=float, default=0.0,
                    help="new words per document (open vocabulary)")  # fmt: skip
    ap.add_argument("--chunk-size", type=int, default=20_000, help="documents per chunk")
    ap.add_argument("--max-features", type=int, default=100_000)
    ap.add_argument("--jobs", nargs="+", default=list(JOBS), choices=list(JOBS))
    ap.add_argument("--path", type=Path, default=None, help="use this CSV instead")
    ap.add_argument("--keep", action="store_true", help="keep the generated file")
    ap.add_argument("--limit-mb", type=float, default=1024.0)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        child(args.child, str(args.path), args.chunk_size, args.max_features)
        return
    if not Path("/usr/bin/time").exists():
        raise SystemExit("/usr/bin/time is missing: apt-get install -y time")

    generated = False
    path = args.path
    if path is None:
        tag = f"{args.size_mb:g}mb" + (
            f"_novel{args.novel_per_doc:g}" if args.novel_per_doc else ""
        )
        path = HERE / "_data" / f"big_{tag}.csv"
        if not path.exists():
            t0 = time.perf_counter()
            subprocess.run(
                [sys.executable, str(HERE / "make_big_csv.py"), "--size-mb", str(args.size_mb),
                 "--novel-per-doc", str(args.novel_per_doc), "--out", str(path)],
                check=True,
            )  # fmt: skip
            generated = True
            print(f"generated in {time.perf_counter() - t0:.0f} s")
    size_mb = path.stat().st_size / 1e6
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; file {path} ({size_mb:.0f} MB); "
          f"chunk_size={args.chunk_size}; max_features={args.max_features}\n")  # fmt: skip

    rows = []
    try:
        for job in args.jobs:
            r = measure(job, path, args.chunk_size, args.max_features)
            ok = r["peak_rss_mb"] < args.limit_mb  # type: ignore[operator]
            extra = ", ".join(
                f"{k}={v}" for k, v in r.items() if k not in ("peak_rss_mb", "wall_s")
            )
            rows.append((JOBS[job], r["peak_rss_mb"], r["wall_s"], ok, extra))
            print(f"  {JOBS[job]}: {r['peak_rss_mb']:.0f} MB, {r['wall_s']:.0f} s ({extra})",
                  flush=True)  # fmt: skip
    finally:
        if generated and not args.keep:
            path.unlink()
            print(f"deleted {path}")
    print()
    w = max(len(r[0]) for r in rows)
    print(
        f"| {'job'.ljust(w)} | peak RSS MB | wall s | MB/s | < {args.limit_mb:.0f} MB? | details |"
    )
    print(f"|{'-' * (w + 2)}|-------------|--------|------|-----------|---------|")
    for name, rss, wall, ok, extra in rows:
        print(f"| {name.ljust(w)} | {rss:11.0f} | {wall:6.0f} | {size_mb / wall:4.1f} | "
              f"{'yes' if ok else 'NO':9} | {extra} |")  # fmt: skip


if __name__ == "__main__":
    main()
