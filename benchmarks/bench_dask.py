"""Distributed training on Dask versus one process, and what crosses the network.

Three measurements on the synthetic Zipfian corpus (``make_zipf_corpus.py``):

1. **single process**: ``TextClassifier().fit`` on the whole corpus (pandas read + fit);
2. **LocalCluster** (2 single-threaded worker processes on loopback): ``nbayes.distributed``
   reading the CSV through ``dask.dataframe`` in P partitions, for several P; the overhead
   per partition is the slope of the wall time in P. Every distributed model is checked to
   equal the single-process one;
3. **simulated cluster run**: the corpus cut into many small partitions (256 by default),
   map and reduce run in this process exactly as the workers run them, recording the
   pickled size of every task result (what a real cluster ships between machines), the
   depth of the merge tree and the total bytes moved.

Usage::

    python benchmarks/make_zipf_corpus.py --size-mb 100 --out benchmarks/_data/zipf_100mb.csv
    python benchmarks/bench_dask.py [--data benchmarks/_data/zipf_100mb.csv] \\
        [--partitions 2 4 8 16] [--sim-partitions 256] [--split-every 8]
"""

from __future__ import annotations

import argparse
import os
import pickle
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE / "_data" / "zipf_100mb.csv"


def _same(a: Any, b: Any) -> bool:
    """The same text model, term by term (a merge appends each partition's new terms after
    the earlier ones, a single fit sorts them: the columns may come in another order)."""
    if set(a._vocab) != set(b._vocab):
        return False
    terms = sorted(a._vocab)
    ca, cb = [a._vocab[t] for t in terms], [b._vocab[t] for t in terms]
    sa, sb = a._stats, b._stats
    return bool(
        np.array_equal(sa.counts.feature_count[:, ca], sb.counts.feature_count[:, cb])
        and np.array_equal(sa.counts.class_count, sb.counts.class_count)
        and np.array_equal(sa.doc_freq[ca], sb.doc_freq[cb])
        and np.array_equal(sa.term_freq[ca], sb.term_freq[cb])
        and sa.n_docs == sb.n_docs
    )


def _mb(n: float) -> str:
    return f"{n / 1e6:8.2f} MB"


def single_process(path: Path) -> tuple[Any, float, float]:
    import pandas as pd

    from nbayes.text.classifier import TextClassifier

    t0 = time.perf_counter()
    df = pd.read_csv(path)
    t1 = time.perf_counter()
    model = TextClassifier().fit(df["text"].tolist(), df["label"].to_numpy())
    t2 = time.perf_counter()
    return model, t1 - t0, t2 - t1


def cluster_runs(path: Path, partitions: list[int], split_every: int, ref: Any) -> None:
    from distributed import Client, LocalCluster

    from nbayes import distributed as nbd
    from nbayes.distributed._fit import reduce_depth
    from nbayes.text.classifier import TextClassifier

    size = path.stat().st_size
    t0 = time.perf_counter()
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        host="127.0.0.1",
    )  # fmt: skip
    client = Client(cluster)
    t_start = time.perf_counter() - t0
    # Warm up: import nbayes and load the compiled kernels on both workers.
    client.run(lambda: TextClassifier().fit(["warm up", "the workers"], ["a", "b"]) and None)
    print(f"LocalCluster(2 workers) start {t_start:.2f} s")
    rows = []
    for p in partitions:
        blocksize = max(size // p + 1, 1 << 16)
        best = float("inf")
        for _ in range(2):
            t = time.perf_counter()
            ddf = nbd.read(str(path), blocksize=blocksize)
            model = nbd.fit(
                TextClassifier(), ddf, text_col="text", label_col="label",
                split_every=split_every, scheduler=client,
            )  # fmt: skip
            best = min(best, time.perf_counter() - t)
        assert _same(model, ref), "distributed model differs from the single-process one"
        rows.append((ddf.npartitions, best))
        print(
            f"  partitions {ddf.npartitions:4d}"
            f"  depth {reduce_depth(ddf.npartitions, split_every)}"
            f"  fit {best:6.2f} s  {size / 1e6 / best:6.1f} MB/s  (identical: yes)"
        )
    if len(rows) >= 2:
        n = np.array([r[0] for r in rows], dtype=float)
        t = np.array([r[1] for r in rows])
        slope, icpt = np.polyfit(n, t, 1)
        print(
            f"  overhead per partition (slope of fit time) {slope * 1e3:.0f} ms;"
            f" intercept {icpt:.2f} s"
        )
    t = time.perf_counter()
    client.close()
    cluster.close()
    print(f"LocalCluster close {time.perf_counter() - t:.2f} s")


def simulated(path: Path, n_parts: int, split_every: int, ref: Any) -> None:
    """Map and reduce as on a cluster, in-process, measuring every shipped result."""
    import pandas as pd

    from nbayes.distributed._fit import _fit_task, _merge_task, merge_levels, reduce_depth
    from nbayes.text.classifier import TextClassifier

    df = pd.read_csv(path)
    est = TextClassifier()
    bounds = np.linspace(0, len(df), n_parts + 1).astype(int)
    cols = {"text_col": "text", "label_col": "label"}
    frames = [df.iloc[bounds[i] : bounds[i + 1]] for i in range(n_parts)]
    # map: what the workers do (fit, pickle); what is measured about the results is read
    # afterwards, outside the timing
    t0 = time.perf_counter()
    level: list[Any] = [_fit_task("frame", est, cols, None, i, frames[i]) for i in range(n_parts)]
    t_map = time.perf_counter() - t0
    map_bytes = [len(pickle.dumps(shipped, protocol=5)) for shipped in level]
    raw_bytes = [int(part["text"].str.len().sum()) for part in frames]
    models = [shipped.model() for shipped in level[:: max(n_parts // 16, 1)]]
    n_terms = [len(m._stats.vocabulary) for m in models]
    dense_bytes = [len(m.classes_) * len(m._stats.vocabulary) * 8 for m in models]

    def merge(spans: Any, pieces: Any, *_: int) -> Any:
        return _merge_task(spans, pieces)

    depth = 0
    results: list[list[Any]] = []
    t1 = time.perf_counter()
    top = level
    for top in merge_levels(level, split_every, merge):
        depth += 1
        results.append(top)
    t_reduce = time.perf_counter() - t1
    level_bytes = [[len(pickle.dumps(p, protocol=5)) for p in lv] for lv in results]
    model = top[0].model()
    assert _same(model, ref), "simulated model differs from the single-process one"
    mb = np.array(map_bytes)
    print(
        f"Simulated run: {n_parts} partitions of ~{np.mean(raw_bytes) / 1e3:.0f} kB text,"
        f" split_every {split_every}"
    )
    print(
        f"  map: {t_map:.2f} s in one process; reduce: {t_reduce:.2f} s; depth {depth}"
        f" (formula {reduce_depth(n_parts, split_every)})"
    )
    compressed = sum(p.compressed for lv in [level, *results] for p in lv)
    print(
        f"  statistics per partition: median {np.median(mb) / 1e3:.0f} kB "
        f"(min {mb.min() / 1e3:.0f}, max {mb.max() / 1e3:.0f})"
        f" for ~{int(np.median(n_terms))} terms "
        f"x {len(ref.classes_)} classes; dense float64 C x V_local would be "
        f"{np.median(dense_bytes) / 1e3:.0f} kB;"
        f" the partition's text {np.median(raw_bytes) / 1e3:.0f} kB;"
        f" {compressed} of {len(level) + sum(map(len, results))} results zlib-compressed"
    )
    total = mb.sum()
    print(f"  level 0 (map -> first merges): {len(mb):4d} results, {_mb(mb.sum())}")
    for k, lb in enumerate(level_bytes, 1):
        arr = np.array(lb)
        total += arr.sum()
        print(
            f"  level {k} (merge results):      {len(arr):4d} results, {_mb(arr.sum())}"
            f" (largest {_mb(arr.max())})"
        )
    print(
        f"  bytes crossing the network, upper bound (every result moves): {_mb(total)}; "
        f"the corpus is {_mb(path.stat().st_size)}; final model statistics "
        f"{_mb(level_bytes[-1][0] if level_bytes else mb[0])}"
    )
    # the same results zlib-compressed (level 1), as a slow network would want them
    blobs = [p.blob for lv in [level, *results] for p in lv if not p.compressed]
    t = time.perf_counter()
    packed = [zlib.compress(b, 1) for b in blobs]
    t_c = time.perf_counter() - t
    t = time.perf_counter()
    for b in packed:
        zlib.decompress(b)
    t_d = time.perf_counter() - t
    saved = sum(map(len, blobs)) - sum(map(len, packed))
    print(
        f"  zlib level 1 of the {len(blobs)} uncompressed results: {_mb(saved)} fewer for"
        f" {t_c:.2f} s compressing + {t_d:.2f} s decompressing"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--partitions", type=int, nargs="+", default=[2, 4, 8, 16])
    ap.add_argument("--sim-partitions", type=int, default=256)
    ap.add_argument("--split-every", type=int, default=8)
    ap.add_argument("--skip-cluster", action="store_true")
    args = ap.parse_args()
    if not args.data.exists():
        raise SystemExit(
            f"{args.data} not found: python benchmarks/make_zipf_corpus.py --size-mb 100 "
            f"--out {args.data}"
        )
    print(f"corpus {args.data} ({args.data.stat().st_size / 1e6:.0f} MB), cpus {os.cpu_count()}")
    ref, t_read, t_fit = single_process(args.data)
    ref, t_read, t_fit2 = single_process(args.data)
    print(
        f"single process: pandas read {t_read:.2f} s + fit {min(t_fit, t_fit2):.2f} s "
        f"(vocabulary {len(ref._vocab)}, {len(ref.classes_)} classes)"
    )
    if not args.skip_cluster:
        cluster_runs(args.data, args.partitions, args.split_every, ref)
    simulated(args.data, args.sim_partitions, args.split_every, ref)


if __name__ == "__main__":
    main()
