"""What one long request does to ``nbayes serve`` (issue 24, item 1): how long ``GET /health``
waits while it runs, and how long SIGTERM takes to stop the server meanwhile.

Two servers are compared in the same run, interleaved: ``--a`` (the baseline) and ``--b``
(the change), each a command that starts ``nbayes serve`` (e.g. the ``python -m nbayes.serve``
of two virtual environments). Each round, on a TextClassifier of the SMS Spam Collection:

* a ``/predict`` of ``--predict-copies`` copies of the corpus (~0.48 MB each), and an exact
  ``/explain`` of 150 KB of text: the request's time, and the slowest of the ``/health``
  probes sent every 50 ms on fresh connections while it ran;
* SIGTERM sent 1 s after a ``/predict`` of ``--sigterm-copies`` copies reached the server: the
  time until the server exited, and what the client got;
* small requests: one-document ``/predict`` from ``wrk`` (Debian's package), 8 keep-alive
  connections, ``--small-seconds`` after a 6 s warm-up (the estimator's background load
  done): requests per second and the server's CPU per request (from /proc).

``--phases`` picks some of them (``long``, ``sigterm``, ``small``).

Usage::

    python benchmarks/bench_serve_faults.py --a "/tmp/venv-old/bin/python -m nbayes.serve" \\
        --b "python -m nbayes.serve" --rounds 2
    python benchmarks/bench_serve_faults.py --a "..." --phases small --rounds 5
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine  # noqa: E402


def start(command: str, model: str) -> tuple[subprocess.Popen[str], int]:
    for leftover in Path(model).parent.glob(Path(model).name + ".*"):
        leftover.unlink()
    proc = subprocess.Popen(
        [*shlex.split(command), model, "--port", "0", "--max-body", "500M"],
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stderr is not None
    for line in proc.stderr:
        m = re.search(r"on http://[^ ]+:(\d+)", line)
        if m:
            return proc, int(m.group(1))
    raise SystemExit(f"{command} did not start")


def post(port: int, path: str, body: bytes) -> tuple[int | str, float]:
    began = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
    try:
        conn.request("POST", path, body=body, headers={"content-type": "application/json"})
        response = conn.getresponse()
        response.read()
        status: int | str = response.status
    except (OSError, http.client.HTTPException) as exc:
        status = type(exc).__name__
    conn.close()
    return status, time.perf_counter() - began


def health_while(port: int, path: str, body: bytes) -> dict[str, Any]:
    """The request's status and time, and the slowest /health probe meanwhile."""
    out: dict[str, Any] = {}

    def send() -> None:
        out["status"], out["seconds"] = post(port, path, body)

    worker = threading.Thread(target=send)
    worker.start()
    slowest = 0.0
    while worker.is_alive():
        began = time.perf_counter()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
        conn.request("GET", "/health")
        conn.getresponse().read()
        conn.close()
        slowest = max(slowest, time.perf_counter() - began)
        time.sleep(0.05)
    worker.join()
    out["health"] = slowest
    return out


def sigterm(command: str, model: str, body: bytes) -> dict[str, Any]:
    proc, port = start(command, model)
    out: dict[str, Any] = {}
    sent = threading.Event()

    def big() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
        conn.request("POST", "/predict", body=body, headers={"content-type": "application/json"})
        sent.set()
        try:
            response = conn.getresponse()
            response.read()
            out["client"] = response.status
        except (OSError, http.client.HTTPException) as exc:
            out["client"] = type(exc).__name__

    worker = threading.Thread(target=big)
    worker.start()
    sent.wait(600)
    time.sleep(1.0)
    began = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    out["exit"] = proc.wait(900)
    out["seconds"] = time.perf_counter() - began
    worker.join(900)
    return out


SMALL_LUA = """
wrk.method = "POST"
wrk.path = "/predict"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"texts": ["Free entry in 2 a wkly comp to win FA Cup final tkts"]}'
"""


def small(command: str, model: str, seconds: float) -> dict[str, Any]:
    """One-document /predict from wrk: requests/s and the server's CPU per request."""
    proc, port = start(command, model)
    script = os.path.join(os.path.dirname(model), "small.lua")
    with open(script, "w") as f:
        f.write(SMALL_LUA)

    def cpu() -> float:
        with open(f"/proc/{proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    time.sleep(6)  # the estimator's background load, done
    url = f"http://127.0.0.1:{port}/"
    subprocess.run(["wrk", "-t1", "-c8", "-d1s", "-s", script, url], capture_output=True)
    before = cpu()
    out = subprocess.run(["wrk", "-t1", "-c8", f"-d{seconds:g}s", "-s", script, url],
                         capture_output=True, text=True).stdout  # fmt: skip
    used = cpu() - before
    proc.send_signal(signal.SIGTERM)
    proc.wait(900)
    m = re.search(r"(\d+) requests in ([\d.]+)s", out)
    assert m, out
    n = int(m.group(1))
    return {"rps": n / float(m.group(2)), "cpu_us": 1e6 * used / n}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="command of the baseline server")
    ap.add_argument("--b", default=f"{sys.executable} -m nbayes.serve",
                    help="command of the changed server (default: this interpreter's)")  # fmt: skip
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--predict-copies", type=int, default=20)
    ap.add_argument("--sigterm-copies", type=int, default=60)
    ap.add_argument("--small-seconds", type=float, default=4.0)
    ap.add_argument("--phases", nargs="+", default=["long", "sigterm", "small"],
                    choices=["long", "sigterm", "small"])  # fmt: skip
    args = ap.parse_args()
    import nbayes
    from nbayes.data import load_sms_spam

    texts, labels = load_sms_spam()
    work = tempfile.mkdtemp()
    model = os.path.join(work, "spam.nbayes")
    nbayes.save(nbayes.TextClassifier().fit(texts, labels), model)
    predict = json.dumps({"texts": texts * args.predict_copies}).encode()
    explain = json.dumps({"text": " ".join(texts)[:150_000], "exact": True}).encode()
    huge = json.dumps({"texts": texts * args.sigterm_copies}).encode()
    got: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
    for _ in range(args.rounds):
        for key in ("a", "b"):
            command = getattr(args, key)
            row: dict[str, Any] = {}
            if "long" in args.phases:
                proc, port = start(command, model)
                row["predict"] = health_while(port, "/predict", predict)
                row["explain"] = health_while(port, "/explain", explain)
                proc.send_signal(signal.SIGTERM)
                proc.wait(900)
            if "sigterm" in args.phases:
                row["sigterm"] = sigterm(command, model, huge)
            if "small" in args.phases:
                row["small"] = small(command, model, args.small_seconds)
            got[key].append(row)
    print(machine())
    print(f"a: {args.a}\nb: {args.b}")
    mb = len(predict) / 1e6
    for name, what in ((f"/predict {mb:.1f} MB", "predict"), ("/explain 150 KB exact", "explain")):
        if "long" not in args.phases:
            break
        for key in ("a", "b"):
            rows = [r[what] for r in got[key]]
            took = statistics.median(r["seconds"] for r in rows)
            health = statistics.median(r["health"] for r in rows)
            print(f"{name:<24} {key}: request {took:7.2f} s (status {rows[0]['status']}), "
                  f"slowest /health meanwhile {health:6.3f} s")  # fmt: skip
    for key in ("a", "b") if "sigterm" in args.phases else ():
        rows = [r["sigterm"] for r in got[key]]
        print(f"SIGTERM, /predict {len(huge) / 1e6:.0f} MB in flight {key}: exit "
              f"{rows[0]['exit']} after {statistics.median(r['seconds'] for r in rows):6.2f} s, "
              f"client got {rows[0]['client']}")  # fmt: skip
    for key in ("a", "b") if "small" in args.phases else ():
        rows = [r["small"] for r in got[key]]
        print(f"one-document /predict, wrk 8 connections {key}: "
              f"{statistics.median(r['rps'] for r in rows):,.0f} requests/s, server CPU "
              f"{statistics.median(r['cpu_us'] for r in rows):,.0f} us/request")  # fmt: skip
    print(f"(medians of {args.rounds} interleaved rounds)")


if __name__ == "__main__":
    main()
