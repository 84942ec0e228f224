"""How long a fold holds ``/filter``: the longest wait of a read while ``nbayes serve`` folds
the journal into the model file (docs/serve.md, "Limits").

Serves a copy of a spam filter of the whole SpamAssassin public corpus (``--model``, else
trained by ``nbayes train CORPUS -o MODEL --model spam``) with ``--fold-every N
--fold-seconds 3600``, then, from this process on loopback: one client POSTs a small
message to ``/filter`` over a kept-alive connection, one request after the other, a
second one ``GET /health`` alike, and a third sends one-message ``/update`` requests
(corpus messages) in sequence, each N-th of which starts a fold (its answer waits for the
fold). Per fold: the longest ``/filter`` and ``/health`` round trip that overlapped it
(from the update that started it being sent to its answer), and the fold's own time (that
update's round trip); besides, the longest ``/filter`` outside the folds. Each run serves
a fresh copy; the figures are the medians over the runs of each run's median per fold.

Several builds are compared with ``--python NAME=INTERPRETER`` (the interpreter whose
``nbayes`` serves; e.g. a venv of the old revision), each run of each build in turn::

    python benchmarks/bench_serve_fold.py --model /tmp/full.nbm --runs 5 \\
        --python old=/work/venv_old/bin/python --python new=.venv/bin/python
"""

from __future__ import annotations

import argparse
import base64
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine  # noqa: E402
from _processes import start_server  # noqa: E402
from bench_spam import find_corpus  # noqa: E402


def start(python: str, model: Path, fold_every: int) -> tuple[subprocess.Popen[str], int]:
    return start_server(
        [python, "-m", "nbayes.serve", str(model), "--port", "0", "--fold-every",
         str(fold_every), "--fold-seconds", "3600"]
    )  # fmt: skip


class Prober(threading.Thread):
    """Sends one request after the other over a kept-alive connection until stopped;
    keeps ``(start, end)`` of each."""

    def __init__(self, port: int, method: str, path: str, body: bytes | None) -> None:
        super().__init__(daemon=True)
        self.port, self.method, self.path, self.body = port, method, path, body
        self.times: list[tuple[float, float]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        headers = {"content-type": "message/rfc822"} if self.body is not None else {}
        while not self.stop.is_set():
            t0 = time.perf_counter()
            conn.request(self.method, self.path, body=self.body, headers=headers)
            response = conn.getresponse()
            data = response.read()
            self.times.append((t0, time.perf_counter()))
            if response.status != 200:
                raise SystemExit(f"{self.method} {self.path}: {response.status} {data[:200]!r}")


def folds_total(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    m = re.search(r"^nbayes_folds_total(?:\{[^}]*\})? (\S+)", text, re.M)
    return int(float(m.group(1))) if m else -1


def one_run(
    python: str, model: Path, work: Path, probe: bytes, updates: list[bytes], fold_every: int,
    folds: int,
) -> dict[str, float]:  # fmt: skip
    served = work / "served.nbayes"
    for leftover in work.glob("served.nbayes*"):
        leftover.unlink()
    shutil.copy(model, served)
    proc, port = start(python, served, fold_every)
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for _ in range(20):  # warm up
            conn.request("POST", "/filter", body=probe, headers={"content-type": "message/rfc822"})
            conn.getresponse().read()
        filt = Prober(port, "POST", "/filter?clues=0", probe)
        health = Prober(port, "GET", "/health", None)
        filt.start()
        health.start()
        time.sleep(0.5)
        windows: list[tuple[float, float]] = []
        k = 0
        for _ in range(folds):
            for i in range(fold_every):
                body = json.dumps({
                    "messages": [base64.b64encode(updates[k % len(updates)]).decode()],
                    "labels": ["spam" if k % 3 == 0 else "ham"],
                }).encode()  # fmt: skip
                k += 1
                t0 = time.perf_counter()
                conn.request("POST", "/update", body=body,
                             headers={"content-type": "application/json"})  # fmt: skip
                response = conn.getresponse()
                data = response.read()
                t1 = time.perf_counter()
                if response.status != 200:
                    raise SystemExit(f"/update: {response.status} {data[:300]!r}")
                if i == fold_every - 1:
                    windows.append((t0, t1))
            time.sleep(0.5)
        n_folds = folds_total(port)
        filt.stop.set()
        health.stop.set()
        filt.join(120)
        health.join(120)
    finally:
        proc.terminate()
        proc.wait(120)
    if n_folds != folds:
        raise SystemExit(f"expected {folds} folds, the server made {n_folds}")

    def longest(times: list[tuple[float, float]], lo: float, hi: float) -> float:
        return max((b - a for a, b in times if a < hi and b > lo), default=0.0)

    def outside(times: list[tuple[float, float]]) -> float:
        return max(
            (b - a for a, b in times if not any(a < hi and b > lo for lo, hi in windows)),
            default=0.0,
        )

    return {
        "fold": statistics.median(hi - lo for lo, hi in windows),
        "filter": statistics.median(longest(filt.times, lo, hi) for lo, hi in windows),
        "health": statistics.median(longest(health.times, lo, hi) for lo, hi in windows),
        "filter_outside": outside(filt.times),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--model", type=Path, default=None, help="a spam filter (default: train one)")
    ap.add_argument("--python", action="append", default=[], metavar="NAME=INTERPRETER",
                    help="a build to measure (repeatable; default: this interpreter)")  # fmt: skip
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--folds", type=int, default=3, help="folds per run")
    ap.add_argument("--fold-every", type=int, default=20)
    args = ap.parse_args()
    builds = dict(b.split("=", 1) for b in args.python) or {"this": sys.executable}
    corpus = args.corpus or find_corpus()
    print(machine())
    work = Path(tempfile.mkdtemp(prefix="bench_serve_fold_"))
    try:
        model = args.model
        if model is None:
            model = work / "corpus.nbayes"
            python = next(iter(builds.values()))
            subprocess.run([python, "-m", "nbayes", "train", str(corpus), "-o", str(model),
                            "--model", "spam", "-q"], check=True)  # fmt: skip
        paths = sorted((corpus / "ham").iterdir())[:200] + sorted((corpus / "spam").iterdir())[:100]
        updates = [p.read_bytes() for p in paths]
        probe = b"Subject: lunch\nFrom: ann@example.org\n\nLunch at noon on Friday?\n"
        print(f"model: {model} ({model.stat().st_size / 1e6:.1f} MB); --fold-every "
              f"{args.fold_every}, {args.folds} folds a run, {args.runs} runs")  # fmt: skip
        results: dict[str, list[dict[str, float]]] = {name: [] for name in builds}
        for run in range(args.runs):
            for name, python in builds.items():
                r = one_run(python, model, work, probe, updates, args.fold_every, args.folds)
                results[name].append(r)
                print(f"  run {run + 1} {name}: fold {r['fold']:.3f} s, longest /filter in a "
                      f"fold {r['filter'] * 1000:.1f} ms, /health {r['health'] * 1000:.1f} ms, "
                      f"/filter outside folds {r['filter_outside'] * 1000:.1f} ms",
                      flush=True)  # fmt: skip
        print(f"\nmedians of {args.runs} runs (each: the median over its {args.folds} folds); "
              f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
        print(f"{'build':<8} {'fold (update round trip)':>26} {'longest /filter':>17} "
              f"{'longest /health':>17} {'/filter outside':>17}")  # fmt: skip
        for name, rs in results.items():

            def med(key: str, rs: list[dict[str, float]] = rs) -> float:
                return statistics.median(r[key] for r in rs) * 1000

            print(f"{name:<8} {med('fold'):>23.0f} ms {med('filter'):>14.1f} ms "
                  f"{med('health'):>14.1f} ms {med('filter_outside'):>14.1f} ms")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
