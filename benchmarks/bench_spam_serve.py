"""A spam filter through ``nbayes serve``: per-message time end to end (issue 26: <= 2 ms).

Starts ``python -m nbayes.serve MODEL --port 0`` (a SpamFilter of the whole SpamAssassin
public corpus, trained by ``nbayes train CORPUS -o MODEL --model spam`` unless ``--model``
names one), then, from one Python client on loopback, POSTs raw messages of the corpus to
``/filter`` (Content-Type: message/rfc822) one after the other, four ways in turn each
round: over one kept-alive HTTP connection (as a mail agent that keeps its connection
would) and with a new connection per message (as ``curl`` from a delivery script), each
with the default answer (verdict, spamicity, log-odds and the clues) and with
``/filter?clues=0`` (the verdict alone); in the same run, ``GET /health`` round trips
(the server's and the client's own floor). Reported: median and 90th percentile per
message, and messages per second. The goal (<= 2 ms) is judged on the default answer over
a kept-alive connection.

Usage::

    python benchmarks/bench_spam_serve.py --messages 1000 --rounds 3
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine  # noqa: E402
from _processes import start_server  # noqa: E402
from bench_spam import find_corpus  # noqa: E402


def start(model: Path) -> tuple[subprocess.Popen[str], int]:
    return start_server([sys.executable, "-m", "nbayes.serve", str(model), "--port", "0"])


def server_cpu(pid: int) -> float:
    """The CPU time (user + system, all threads) the server process has used, in seconds:
    on a busy machine a request's wall time counts the waits for a core, this hardly."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_requests(
    conn: http.client.HTTPConnection | int, method: str, path: str, bodies: list[bytes | None]
) -> list[float]:
    """Each request's round trip; ``conn`` a kept-alive connection, or a port to open a new
    connection to for each request (its connect and close counted)."""
    out = []
    headers = {"content-type": "message/rfc822"}
    for body in bodies:
        t0 = time.perf_counter()
        c = (
            http.client.HTTPConnection("127.0.0.1", conn, timeout=60)
            if isinstance(conn, int)
            else conn
        )
        c.request(method, path, body=body, headers=headers if body is not None else {})
        response = c.getresponse()
        data = response.read()
        if isinstance(conn, int):
            c.close()
        out.append(time.perf_counter() - t0)
        if response.status != 200:
            raise SystemExit(f"{method} {path}: {response.status} {data[:200]!r}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--model", type=Path, default=None)
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    corpus = args.corpus or find_corpus()
    print(machine())
    work = Path(tempfile.mkdtemp(prefix="bench_spam_serve_"))
    try:
        model = args.model
        if model is None:
            model = work / "sa.nbayes"
            exe = shutil.which("nbayes") or str(Path(sys.executable).parent / "nbayes")
            subprocess.run(
                [exe, "train", str(corpus), "-o", str(model), "--model", "spam", "-q"], check=True
            )
        else:  # the server journals beside the model: serve a copy
            shutil.copy(model, work / "sa.nbayes")
            model = work / "sa.nbayes"
        paths = sorted((corpus / "ham").iterdir()) + sorted((corpus / "spam").iterdir())
        step = max(1, len(paths) // args.messages)
        raw = [p.read_bytes() for p in paths[::step][: args.messages]]
        proc, port = start(model)
        ways = {
            "keep-alive, with clues (default)": (True, "/filter"),
            "keep-alive, ?clues=0": (True, "/filter?clues=0"),
            "new connection each, with clues": (False, "/filter"),
            "new connection each, ?clues=0": (False, "/filter?clues=0"),
        }
        times: dict[str, list[float]] = {name: [] for name in ways}
        walls: dict[str, float] = dict.fromkeys(ways, 0.0)
        cpus: dict[str, float] = dict.fromkeys(ways, 0.0)
        try:

            def connection() -> http.client.HTTPConnection:
                # a new one for each series: the server closes a connection idle longer
                # than its --idle-seconds, as one is while the other series run
                return http.client.HTTPConnection("127.0.0.1", port, timeout=60)

            timed_requests(connection(), "POST", "/filter", raw[:50])  # warm up
            health: list[float] = []
            for _ in range(args.rounds):
                health += timed_requests(connection(), "GET", "/health", [None] * 200)
                for name, (keep, path) in ways.items():
                    t0, c0 = time.perf_counter(), server_cpu(proc.pid)
                    conn = connection() if keep else port
                    times[name] += timed_requests(conn, "POST", path, list(raw))
                    walls[name] += time.perf_counter() - t0
                    cpus[name] += server_cpu(proc.pid) - c0
            conn = connection()
            conn.request("GET", "/info")
            info = json.loads(conn.getresponse().read())
        finally:
            proc.terminate()
            proc.wait(60)
        size = sum(len(r) for r in raw) / len(raw) / 1000

        def q(values: list[float], p: float) -> float:
            return sorted(values)[int(p * (len(values) - 1))] * 1000

        print(
            f"\nmodel: {info['vocabulary_size']:,} tokens; {len(raw)} messages (mean "
            f"{size:.1f} kB) x {args.rounds} rounds, one client, loopback; load average "
            f"{os.getloadavg()[0]:.1f}; server CPU: the server process's CPU time per message"
        )
        for name, values in times.items():
            med, rate = statistics.median(values) * 1000, len(values) / walls[name]
            cpu = cpus[name] / len(values) * 1000
            p90 = q(values, 0.9)
            print(f"POST /filter, {name:<34} median {med:5.2f} ms, "
                  f"p90 {p90:5.2f} ms, {rate:4.0f} msg/s, server CPU {cpu:4.2f} ms")  # fmt: skip
        print(f"GET /health, keep-alive (the HTTP floor)          median "
              f"{statistics.median(health) * 1000:5.2f} ms")  # fmt: skip
        med = statistics.median(times["keep-alive, with clues (default)"]) * 1000
        print(f"\nper message end to end (keep-alive, default answer): {med:.2f} ms (goal <= 2 ms: "
              f"{'met' if med <= 2 else 'NOT met'})")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
