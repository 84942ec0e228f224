"""Hostile mail through ``nbayes serve``: how long ``GET /health`` waits while ``/filter`` reads
one message (issue 26's bad input, and the service's hardening: "a hostile request can stall
the service").

The messages are bench_hostile_mail.py's, three more of 10 MB (under the default
``--max-body``, 10 MiB): 2,000,000 empty parts, 320,000 parts with a content line each,
1,400,000 header lines, and two lines of a pattern's pieces repeated (a line of "boundary="
in a message of parts, a "From " line of "d:dd" pieces), on which two patterns backtracked
quadratically. While each is posted to ``/filter``, ``/health`` is asked every 10 ms on
fresh connections; the figure is the slowest answer. Two servers are compared, interleaved
round by round: ``--a`` (the baseline) and ``--b`` (the change), each a command that runs
nbayes (e.g. the ``python -m nbayes`` of two environments), given ``serve MODEL --port 0
--max-body 64MB`` (bench_hostile_mail.py's 900,000 header lines are 10.8 MB, over the
default).

Usage::

    python benchmarks/bench_hostile_serve.py --a "/tmp/venv-old/bin/python -m nbayes" \\
        --b "python -m nbayes" --rounds 2
"""

from __future__ import annotations

import argparse
import http.client
import shlex
import signal
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _machine import machine  # noqa: E402
from _processes import start_server  # noqa: E402
from bench_hostile_mail import CASES  # noqa: E402
from bench_spam import corpus_messages, find_corpus  # noqa: E402

import nbayes  # noqa: E402
from nbayes.spam import SpamFilter  # noqa: E402

_PARTS_HEAD = b'Subject: %d\nContent-Type: multipart/mixed; boundary="B"\n\n'
MESSAGES: dict[str, Callable[[int], bytes]] = {
    **CASES,
    "2,000,000 empty parts (10 MB)": lambda k: _PARTS_HEAD % k + b"--B\n\n" * 2_000_000,
    "320,000 parts with a content line (10 MB)": lambda k: (
        _PARTS_HEAD % k + b"--B\nContent-Type: text/plain\n\nx\n" * 320_000
    ),
    "1,400,000 header lines (10 MB)": lambda k: (
        b"Subject: %d\n" % k + b"X-H: v\n" * 1_400_000 + b"\nhi\n"
    ),
    'a line of 20,000 "boundary=" (180 KB)': lambda k: (
        _PARTS_HEAD % k + b"--B\nx\n" * 1001 + b'" ' + b"boundary=" * 20_000 + b"\n"
    ),
    'a "From " line of 20,000 "1:11" (100 KB)': lambda k: b"From a%d " % k + b"1:11 " * 20_000,
}


def model_of_the_corpus(folder: Path) -> str:
    f = SpamFilter().fit(*corpus_messages(find_corpus()))
    path = str(folder / "spam.nbm")
    nbayes.save(f, path)
    return path


def one_server(cmd: str, model: str, k: int) -> dict[str, tuple[float, float]]:
    """Each message's /filter seconds and slowest /health seconds, on one server."""
    serve = ["serve", model, "--port", "0", "--max-body", "64MB"]  # (900,000 lines: 10.8 MB)
    proc, port = start_server([*shlex.split(cmd), *serve])
    out = {}
    try:
        time.sleep(2)  # (the model's loading done)
        for name, make in MESSAGES.items():
            raw = make(k)
            stop, waits = threading.Event(), []

            def probe(stop: threading.Event = stop, waits: list[float] = waits) -> None:
                while not stop.is_set():
                    t = time.perf_counter()
                    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                    c.request("GET", "/health")
                    c.getresponse().read()
                    c.close()
                    waits.append(time.perf_counter() - t)
                    time.sleep(0.01)

            th = threading.Thread(target=probe)
            th.start()
            time.sleep(0.2)
            t = time.perf_counter()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            c.request("POST", "/filter", body=raw, headers={"Content-Type": "message/rfc822"})
            r = c.getresponse()
            r.read()
            took = time.perf_counter() - t
            if r.status != 200:
                raise SystemExit(f"{name}: /filter answered {r.status}")
            time.sleep(0.2)
            stop.set()
            th.join()
            out[name] = (took, max(waits))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, help="the baseline's command (runs nbayes)")
    ap.add_argument("--b", required=True, help="the change's command")
    ap.add_argument("--model", default=None, help="a spam model (default: one of the corpus)")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    print(machine())
    with tempfile.TemporaryDirectory() as tmp:
        model = args.model or model_of_the_corpus(Path(tmp))
        runs: dict[str, list[dict[str, tuple[float, float]]]] = {"a": [], "b": []}
        for k in range(args.rounds):
            for side in ("a", "b"):
                runs[side].append(one_server(getattr(args, side), model, k))
                print(f"round {k + 1}, {side}: done", flush=True)
    print("\n| message | /filter, a -> b (median, s) | slowest /health, a -> b (median, ms) |")
    print("|---|---|---|")
    for name in MESSAGES:

        def med(side: str, i: int, name: str = name) -> float:
            return statistics.median(r[name][i] for r in runs[side])

        print(f"| {name} | {med('a', 0):.3f} -> {med('b', 0):.3f} | "
              f"{1e3 * med('a', 1):.0f} -> {1e3 * med('b', 1):.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
