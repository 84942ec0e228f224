"""The goals of issue 16 for ``nbayes serve``, with the load from a second process.

A TextClassifier is trained on the bundled SMS Spam Collection and served by
``python -m nbayes.serve MODEL --port 0`` (a subprocess, on loopback); then

(a) one-document ``POST /predict``: ``wrk`` (Debian's package) with keep-alive,
    ``--connections`` (8) connections on one thread, each request one SMS message taken
    in turn from 200. Goal: >= 2,000 requests/s with p99 <= 10 ms.
(b) batch ``POST /predict`` of ``--batch`` (1,000) messages per request, 2 connections.
    Goal: >= 50,000 documents/s.
(c) durable one-message ``POST /update`` (journaled and fdatasync-ed before the answer):
    a bounded Python client, one keep-alive connection, ``--updates`` (200) requests in
    sequence, each timed. Goal: <= 5 ms median.

Each is measured against a server of 1 worker, then of 2 (``--workers 1,2``). The server's
CPU time per phase (user + system, from /proc) is reported beside the figures,
and the load average before and after: on a machine shared with other work the figures
say what this machine gave at that time.

Usage::

    python benchmarks/bench_serve.py                 # ~20 s: --workers 1, then 2
    python benchmarks/bench_serve.py --seconds 10 --workers 2 --json serve.json
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _processes  # noqa: E402
from _machine import machine  # noqa: E402


def _lua(bodies: list[str], path: str) -> str:
    """A wrk script POSTing ``bodies`` to ``path`` in turn."""
    level = "=" * 4
    items = ",\n".join(f"[{level}[{b}]{level}]" for b in bodies)
    return f"""
local bodies = {{
{items}
}}
local i = 0
wrk.method = "POST"
wrk.path = "{path}"
wrk.headers["Content-Type"] = "application/json"
request = function()
  i = i % #bodies + 1
  return wrk.format(nil, nil, nil, bodies[i])
end
"""


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if not m:
        raise ValueError(f"not a wrk duration: {text!r}")
    value, unit = float(m.group(1)), m.group(2)
    return value * {"us": 1e-3, "ms": 1.0, "s": 1e3}[unit]


def wrk(url: str, script: str, connections: int, seconds: float) -> dict[str, Any]:
    """Run wrk; its requests/s, latency percentiles (ms) and errors."""
    out = subprocess.run(
        ["wrk", "-t1", f"-c{connections}", f"-d{seconds:g}s", "--latency", "-s", script, url],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    res: dict[str, Any] = {"raw": out}
    res["requests_per_s"] = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    res["requests"] = int(re.search(r"(\d+) requests in", out).group(1))
    for pct in ("50", "75", "90", "99"):
        m = re.search(rf"^\s+{pct}(?:\.000)?%\s+(\S+)", out, re.M)
        res[f"p{pct}_ms"] = _ms(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    res["non_2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: (.*)", out)
    res["socket_errors"] = m.group(1) if m else ""
    return res


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU of the processes (the server and its workers), in seconds."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def server_pids(pid: int) -> list[int]:
    kids = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [pid, *map(int, kids.read_text().split())]
    except OSError:
        return [pid]


def start_server(model: str, workers: int) -> tuple[subprocess.Popen[str], int]:
    return _processes.start_server(
        [sys.executable, "-m", "nbayes.serve", model, "--port", "0", "--workers", str(workers)],
        wait=60,
    )


def updates(port: int, n: int, texts: list[str]) -> dict[str, Any]:
    """``n`` durable one-message updates in sequence on one connection, each timed."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    times = []
    for i in range(n):
        body = json.dumps({"texts": [texts[i % len(texts)]], "labels": ["spam" if i % 7 == 0
                                                                          else "ham"]})  # fmt: skip
        t0 = time.perf_counter()
        conn.request("POST", "/update", body=body, headers={"content-type": "application/json"})
        r = conn.getresponse()
        r.read()
        times.append(time.perf_counter() - t0)
        if r.status != 200:
            raise SystemExit(f"/update answered {r.status}")
    conn.close()
    times.sort()
    return {
        "n": n,
        "median_ms": statistics.median(times) * 1e3,
        "p90_ms": times[int(0.9 * (n - 1))] * 1e3,
        "p99_ms": times[int(0.99 * (n - 1))] * 1e3,
        "max_ms": times[-1] * 1e3,
    }


def measure(model: str, workers: int, args: argparse.Namespace, one: Path, batch: Path,
            texts: list[str]) -> dict[str, Any]:  # fmt: skip
    """The three phases against one server of ``workers`` workers."""
    proc, port = start_server(model, workers)
    url = f"http://127.0.0.1:{port}/predict"
    try:
        wrk(url, str(one), 2, 1)  # warm-up: first requests derive and allocate
        pids = server_pids(proc.pid)
        c0 = cpu_seconds(pids)
        a = wrk(url, str(one), args.connections, args.seconds)
        a["server_cpu_us_per_request"] = (cpu_seconds(pids) - c0) / a["requests"] * 1e6
        c0 = cpu_seconds(pids)
        b = wrk(url, str(batch), 2, args.batch_seconds)
        b["documents_per_s"] = b["requests_per_s"] * args.batch
        cpu = cpu_seconds(pids) - c0
        b["server_cpu_us_per_document"] = cpu / (b["requests"] * args.batch) * 1e6
        u = updates(port, args.updates, texts[200:1200])
    finally:
        proc.terminate()
        code = proc.wait(60)
    for part in (a, b):
        part.pop("raw", None)
    return {"workers": workers, "one_document": a, "batch": b, "update": u, "exit_status": code}


def report(r: dict[str, Any], args: argparse.Namespace) -> None:
    a, b, u = r["one_document"], r["batch"], r["update"]
    ok_a = a["requests_per_s"] >= 2000 and (a["p99_ms"] or 1e9) <= 10
    print(f"--workers {r['workers']} (server exit status {r['exit_status']})")
    print(f"  (a) one-document /predict, {args.connections} connections, {args.seconds:g} s: "
          f"{a['requests_per_s']:,.0f} req/s, p50 {a['p50_ms']:.2f} ms, p90 {a['p90_ms']:.2f} ms, "
          f"p99 {a['p99_ms']:.2f} ms, server CPU {a['server_cpu_us_per_request']:.0f} us/request, "
          f"non-2xx {a['non_2xx']} [goal >= 2,000 req/s, p99 <= 10 ms: "
          f"{'met' if ok_a else 'NOT met'}]")  # fmt: skip
    print(f"  (b) batch /predict of {args.batch}, 2 connections, {args.batch_seconds:g} s: "
          f"{b['documents_per_s']:,.0f} documents/s ({b['requests_per_s']:.1f} req/s, p50 "
          f"{b['p50_ms']:.1f} ms), server CPU {b['server_cpu_us_per_document']:.2f} us/document "
          f"[goal >= 50,000: {'met' if b['documents_per_s'] >= 50000 else 'NOT met'}]")  # fmt: skip
    print(f"  (c) durable one-message /update x {u['n']}: median {u['median_ms']:.2f} ms, "
          f"p90 {u['p90_ms']:.2f} ms, p99 {u['p99_ms']:.2f} ms, max {u['max_ms']:.2f} ms "
          f"[goal <= 5 ms median: {'met' if u['median_ms'] <= 5 else 'NOT met'}]")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="wrk duration of (a)")
    ap.add_argument("--batch-seconds", type=float, default=3.0, help="wrk duration of (b)")
    ap.add_argument("--connections", type=int, default=8)
    ap.add_argument("--batch", type=int, default=1000, help="documents per batch request")
    ap.add_argument("--updates", type=int, default=200)
    ap.add_argument("--workers", default="1,2", help="worker counts to measure (default 1,2)")
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")

    import nbayes
    from nbayes.data import load_sms_spam

    texts, labels = load_sms_spam()
    tmp = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    model = str(tmp / "sms.nbayes")
    fitted = nbayes.TextClassifier().fit(texts, labels)
    one = tmp / "one.lua"
    one.write_text(_lua([json.dumps({"texts": [t]}) for t in texts[:200]], "/predict"))
    batch = tmp / "batch.lua"
    bodies = [json.dumps({"texts": texts[k : k + args.batch]}) for k in (0, 1500, 3000)]
    batch.write_text(_lua(bodies, "/predict"))

    load_before = os.getloadavg()
    print(machine(f"nbayes {nbayes.__version__}"))
    results: dict[str, Any] = {"machine": machine(), "runs": []}
    try:
        for workers in (int(w) for w in args.workers.split(",")):
            nbayes.save(fitted, model)  # each server starts from the same model
            for leftover in tmp.glob("sms.nbayes.*"):
                leftover.unlink()
            r = measure(model, workers, args, one, batch, texts)
            results["runs"].append(r)
            report(r, args)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load_after = os.getloadavg()
    results.update(load_before=load_before, load_after=load_after)
    print(f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
